#!/usr/bin/env node
// The replay engine behind the adapter, as a command:
//
//   node docs/examples/js/engine.mjs EXPORT_DIR [--bug out_of_turn]
//   studcheck run --engine "node docs/examples/js/engine.mjs export"
//
// EXPORT_DIR is `studcheck export --format json EXPORT_DIR`; STUDCHECK_EXPORT and STUDCHECK_JS_BUG
// may stand in for the arguments.

import { serve } from "./adapter.mjs";
import { BUGS, ReplayEngine, loadExport } from "./replay-engine.mjs";

function usage(message) {
  process.stderr.write(`${message}\nusage: node engine.mjs EXPORT_DIR [--bug ${BUGS.join("|")}]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let directory = process.env.STUDCHECK_EXPORT || null;
let bug = process.env.STUDCHECK_JS_BUG || null;
for (let i = 0; i < args.length; i += 1) {
  if (args[i] === "--bug") {
    bug = args[i + 1];
    i += 1;
  } else if (args[i].startsWith("-")) {
    usage(`unknown option ${args[i]}`);
  } else {
    directory = args[i];
  }
}
if (!directory) usage("no export directory given");
if (bug !== null && !BUGS.includes(bug)) usage(`unknown bug ${bug}`);

let engine;
try {
  engine = new ReplayEngine(loadExport(directory), { bug });
} catch (err) {
  usage(`cannot read the export in ${directory}: ${err.message}`);
}
serve(engine);
