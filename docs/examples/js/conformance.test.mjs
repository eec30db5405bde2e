// The conformance suite without Python: `node --test` over a JSON export (spec/export.md).
//
//   studcheck export --format json export
//   STUDCHECK_EXPORT=export node --test docs/examples/js/
//   STUDCHECK_EXPORT=export STUDCHECK_ENGINE="./my-engine --stdio" node --test docs/examples/js/
//
// STUDCHECK_ENGINE is the engine's command (run by /bin/sh; default: the replay engine of this
// directory over the same export). One test per case: the harness's requests are sent as the
// export's transcript records them, and the answers are checked against the case's steps, its
// expectations and its final result, as `studcheck run` checks them. A case whose options the
// engine's hello does not list is skipped as not applicable (this runner sends the export's
// requests as they are; `studcheck run` would choose other values for the options a case leaves open).

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { canonicalState, compareFinal, compareState } from "./compare.mjs";
import { loadExport } from "./replay-engine.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const directory = process.env.STUDCHECK_EXPORT;
const TIMEOUT_MS = Number(process.env.STUDCHECK_TIMEOUT_MS || 10000);

class Engine {
  constructor(command) {
    this.child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "pipe", "inherit"] });
    this.waiting = [];
    this.seq = 0;
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      if (!line.trim()) return;
      const next = this.waiting.shift();
      if (next) next.resolve(line);
    });
    this.child.on("exit", (code) => {
      for (const next of this.waiting.splice(0)) next.reject(new Error(`the engine exited (${code})`));
    });
  }

  request(message) {
    this.seq += 1;
    const seq = this.seq;
    const line = JSON.stringify({ ...message, seq });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${line.slice(0, 80)} in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      this.waiting.push({
        resolve: (text) => {
          clearTimeout(timer);
          let answer;
          try {
            answer = JSON.parse(text);
          } catch {
            reject(new Error(`not JSON on stdout: ${text.slice(0, 200)}`));
            return;
          }
          if (answer.seq !== seq) reject(new Error(`answered seq ${answer.seq} to seq ${seq}`));
          else resolve(answer);
        },
        reject: (err) => { clearTimeout(timer); reject(err); },
      });
      this.child.stdin.write(line + "\n");
    });
  }

  async close() {
    try {
      await this.request({ type: "bye" });
    } catch {
      // an engine that does not answer bye is ended below
    }
    this.child.stdin.end();
    this.child.kill();
  }
}

function supports(hello, name, value) {
  const values = (hello.options || {})[name];
  if (values === undefined) return name === "betting" && value === "fixed_limit"; // a late option left out
  return values === "any" || values.some((item) => JSON.stringify(item) === JSON.stringify(value));
}

function notApplicable(hello, doc) {
  if (!hello.variants.includes(doc.variant) && ["stud_high", "razz", "stud_hilo8", "five_card_stud"].includes(doc.variant)) {
    return `the engine does not support ${doc.variant}`;
  }
  for (const [name, value] of Object.entries(doc.options)) {
    if (!supports(hello, name, value)) return `the engine does not support ${name}=${JSON.stringify(value)}`;
  }
  return null;
}

function explain(found) {
  return found.map((item) => `${item.path}: expected ${JSON.stringify(item.expected)}, got ${JSON.stringify(item.actual)}`).join("; ");
}

// One case, as `studcheck run` plays it (validator/studcheck/harness/runner.py).
async function playCase(engine, doc) {
  const [setup, ...rest] = doc.transcript;
  const { seq, ...newHand } = setup.request;
  const first = await engine.request(newHand);
  if (doc.setup_refused !== null) {
    assert.equal(first.ok, false, `the engine accepted a hand the rules forbid: ${doc.setup_refused.why}`);
    assert.ok(doc.setup_refused.reasons.includes(first.error.reason),
      `refused the forbidden setup with ${first.error.reason}, expected ${doc.setup_refused.reasons.join(" or ")}`);
    return;
  }
  assert.equal(first.ok, true, `the engine refused a valid hand setup: ${JSON.stringify(first.error)}`);
  let state = first.state;
  const sent = new Map();
  for (const entry of rest) {
    if (!sent.has(entry.step)) sent.set(entry.step, []);
    sent.get(entry.step).push(entry.request);
  }
  for (const [index, step] of doc.steps.entries()) {
    const where = `step ${index} (line ${step.line})`;
    if (step.kind === "expect") {
      const found = compareState(step.expect, state);
      assert.equal(found.length, 0, `${where}: the state differs from the case: ${explain(found)}`);
      continue;
    }
    const { seq: _, ...act } = sent.get(index)[0];
    const answer = await engine.request(act);
    if (step.kind === "act") {
      assert.equal(answer.ok, true, `${where}: the engine refused a legal action ${step.seat} ${step.action}: ${JSON.stringify(answer.error)}`);
      state = answer.state;
      continue;
    }
    assert.equal(answer.ok, false, `${where}: the engine accepted an action that must be refused (${step.reason})`);
    assert.equal(answer.error.reason, step.reason, `${where}: refused for the wrong reason (${answer.error.message})`);
    const again = await engine.request({ type: "state" });
    assert.equal(again.ok, true, `${where}: the engine refused a state request after a refused action`);
    // extra keys are ignored and `legal` is a set, as `studcheck run` compares (spec/protocol.md section 3)
    assert.deepEqual(canonicalState(again.state), canonicalState(state), `${where}: the state changed after a refused action`);
  }
  if (doc.final !== null) {
    const found = compareFinal(doc.final, state.result);
    assert.equal(found.length, 0, `the end of the hand differs from the case: ${explain(found)}`);
  }
}

if (!directory) {
  test("STUDCHECK_EXPORT names a JSON export", { skip: "set STUDCHECK_EXPORT=DIR (studcheck export --format json DIR)" }, () => {});
} else {
  const { index, cases } = loadExport(directory);
  const command = process.env.STUDCHECK_ENGINE
    || `${JSON.stringify(process.execPath)} ${JSON.stringify(join(here, "engine.mjs"))} ${JSON.stringify(directory)}`;
  let engine;
  let hello;

  before(async () => {
    engine = new Engine(command);
    const answer = await engine.request({ type: "hello", protocol: 1, harness: "studcheck-js-runner" });
    assert.equal(answer.ok, true, "the engine refused hello");
    assert.equal(answer.protocol, 1);
    hello = answer;
  });

  after(async () => {
    if (engine) await engine.close();
  });

  for (const doc of cases) {
    test(`${doc.id}: ${doc.title}`, async (t) => {
      const why = notApplicable(hello, doc);
      if (why !== null) {
        t.skip(`not applicable: ${why}`);
        return;
      }
      await playCase(engine, doc);
    });
  }

  test("the export's index matches its files", () => {
    assert.equal(index.cases.length, cases.length);
    assert.deepEqual(index.cases.map((entry) => entry.id), cases.map((doc) => doc.id));
  });
}
