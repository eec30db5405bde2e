// The conformance suite without Python: `node --test` over a JSON export (spec/export.md).
//
//   studcheck export --format json export
//   STUDCHECK_EXPORT=export node --test docs/examples/js/
//   STUDCHECK_EXPORT=export STUDCHECK_ENGINE="./my-engine --stdio" node --test docs/examples/js/
//
// STUDCHECK_ENGINE is the engine's command, one command with its arguments, run by /bin/sh as
// `exec COMMAND` so that the engine is the runner's own child (default: the replay engine of this
// directory over the same export). One test per case: the harness's requests are sent as the
// export's transcript records them, and the answers are checked against the case's steps, its
// expectations and its final result, as `studcheck run` checks them. A case whose options the
// engine's hello does not list is skipped as not applicable (this runner sends the export's
// requests as they are; `studcheck run` would choose other values for the options a case leaves open).
//
// Like `studcheck run` (spec/protocol.md section 5), it is a harness: an engine that breaks the
// protocol in one case (it exits, hangs, closes its output, writes a line that is not a JSON object
// with a boolean `ok`, a line over 8 MiB, an answer with another `seq`, or a line nobody asked for)
// fails that case with what happened, its stderr's last lines as evidence; the engine is then
// stopped (its whole process group) and started again, with a new hello, for the next case.
// STUDCHECK_TIMEOUT_MS is how long to wait for each answer (default 5000; hello: 20000 at least).

import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { MAX_LINE, readLines } from "./adapter.mjs";
import { canonicalState, compareFinal, compareState } from "./compare.mjs";
import { loadExport } from "./replay-engine.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const directory = process.env.STUDCHECK_EXPORT;
const TIMEOUT_MS = milliseconds("STUDCHECK_TIMEOUT_MS", 5000); // per request, as `studcheck run --timeout`
const HELLO_TIMEOUT_MS = Math.max(TIMEOUT_MS, 20000); // an engine may take a while to start
// After a case's last answer, the runner listens LISTEN_MS for a line nobody asked for (two answers
// to one request, a log line on stdout), LAST_LISTEN_MS after the last case, as `studcheck run` does.
// A line that comes later still is found at the next request: an error of the next case.
const LISTEN_MS = 2;
const LAST_LISTEN_MS = 50;
const RESTARTS = 3; // after this many failed restarts in a row, the remaining cases are not run
const STDERR_LINES = 10; // how much of the engine's stderr an error quotes

function milliseconds(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of milliseconds, not ${JSON.stringify(text)}`);
  return value;
}

// What `promise` resolves to, or null if that takes longer than `ms` (no timer is left behind).
function within(promise, ms) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(resolve, ms, null); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// An engine's text in a message: 200 characters at most, control characters escaped.
function shown(text, limit = 200) {
  const more = text.length > limit ? `… (${text.length} characters in all)` : "";
  const escape = (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return text.slice(0, limit).replace(/[\u0000-\u001f\u007f-\u009f]/g, escape) + more;
}

// A value an engine sent, as JSON in a message.
function quoted(value) {
  try {
    return shown(JSON.stringify(value) ?? String(value), 80);
  } catch {
    return "(a value nested too deeply to show)";
  }
}

// The engine broke the protocol (spec/protocol.md section 5): the case is an error, not a rule
// failure, and the engine is stopped; the next case starts it again.
class ProtocolError extends Error {
  name = "ProtocolError";
}

// What an answer must be before the case looks at it: a JSON object with a boolean `ok` and the
// `seq` of its request; a refusal carries an `error` with a `reason`, an accepted request a `state`.
function parseAnswer(line, seq, type) {
  let answer;
  try {
    answer = JSON.parse(line);
  } catch {
    throw new ProtocolError(`the engine wrote a line that is not JSON: ${shown(line)}`);
  }
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
    throw new ProtocolError(`the engine wrote a line that is not a JSON object: ${shown(line)}`);
  }
  if (typeof answer.ok !== "boolean") throw new ProtocolError(`an answer without a boolean "ok": ${shown(line)}`);
  if (answer.seq !== seq) {
    const again = Number.isInteger(answer.seq) && answer.seq > 0 && answer.seq < seq
      ? " (a second answer to an earlier request: two answers to one request?)" : "";
    throw new ProtocolError(`the answer to request seq ${seq} has seq ${quoted(answer.seq)}${again}: ${shown(line)}`);
  }
  const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
  if (!answer.ok && !(isObject(answer.error) && typeof answer.error.reason === "string")) {
    throw new ProtocolError(`a refusal without an error reason: ${shown(line)}`);
  }
  if (answer.ok && ["new_hand", "act", "state"].includes(type) && !isObject(answer.state)) {
    throw new ProtocolError(`an accepted ${type} without a state: ${shown(line)}`);
  }
  return answer;
}

// The engines started and not seen to exit, killed if the runner ends first: an engine in a process
// group of its own gets neither the terminal's Ctrl-C nor the SIGTERM that `node --test` then sends.
const running = new Set();
const killAll = () => {
  for (const engine of running) engine.kill("SIGKILL");
};
process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.once(signal, () => {
    killAll();
    process.kill(process.pid, signal); // and end as the signal would have ended the runner
  });
}

// One running engine: requests out on its stdin, lines in from its stdout, one at a time.
class Engine {
  constructor([program, ...args]) {
    // detached: the engine leads its own process group, so stopping it stops whatever it started
    this.child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.seq = 0;
    this.unread = []; // what the engine wrote that nobody has read yet: {line} | {tooLong} | {closed}
    this.waiter = null; // the reader waiting for the next item, if any
    this.stderr = ""; // the engine's stderr since mark(), its end only
    running.add(this);
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        running.delete(this);
        resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`);
      });
    });
    this.stderrClosed = new Promise((resolve) => this.child.stderr.on("close", resolve));
    this.child.on("error", (err) => this.push({ closed: `could not be started: ${err.message}` }));
    this.child.stdin.on("error", () => {}); // writing to an engine that is gone: its closed output tells
    this.child.stderr.on("data", (chunk) => { this.stderr = (this.stderr + chunk).slice(-16384); });
    readLines(this.child.stdout, {
      onLine: (line) => { if (line.trim()) this.push({ line }); }, // empty lines are ignored
      onTooLong: (start) => this.push({ tooLong: start }),
      onEnd: () => this.push({ closed: "closed its output" }),
    });
  }

  push(item) {
    if (this.waiter) this.waiter(item);
    else this.unread.push(item);
  }

  // The next thing the engine writes, or null if it writes nothing within `ms`.
  next(ms) {
    if (this.unread.length > 0) return Promise.resolve(this.unread.shift());
    if (ms <= 0) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.waiter = null; resolve(null); }, ms);
      this.waiter = (item) => { clearTimeout(timer); this.waiter = null; resolve(item); };
    });
  }

  // How the engine is doing once its output has ended: it exited (with what code), or not yet.
  async fate(wait = 1000) {
    const how = await within(this.exited, wait);
    return how === null ? "closed its output (the process is still running)" : `${how} (its output closed)`;
  }

  // The error for an item that is not an answer; `when` says when it came.
  async problem(item, when) {
    if (item.tooLong !== undefined) {
      return new ProtocolError(`the engine wrote a line longer than ${MAX_LINE} bytes ${when}, starting ${shown(item.tooLong.slice(0, 80))}…`);
    }
    if (item.closed !== undefined) {
      const how = item.closed === "closed its output" ? await this.fate() : item.closed;
      return new ProtocolError(`the engine ${how} ${when}`);
    }
    const hint = item.line.includes('"seq"') ? " (two answers to one request?)" : "";
    return new ProtocolError(`the engine wrote a line nobody asked for ${when}${hint}: ${shown(item.line)}`);
  }

  // Send one request and return its answer, checked by parseAnswer; throws a ProtocolError.
  async request(message, timeout = TIMEOUT_MS) {
    this.seq += 1;
    const seq = this.seq;
    if (this.unread.length > 0) throw await this.problem(this.unread.shift(), `before request seq ${seq}`);
    const line = JSON.stringify({ ...message, seq });
    this.child.stdin.write(`${line}\n`);
    const item = await this.next(timeout);
    if (item === null) {
      const how = await within(this.exited, 0);
      throw new ProtocolError(`no answer within the per-request timeout of ${timeout} ms (STUDCHECK_TIMEOUT_MS) `
        + `to ${shown(line, 120)}${how === null ? "" : `; the engine ${how}`}`);
    }
    if (item.line === undefined) throw await this.problem(item, `instead of answering request seq ${seq}`);
    return parseAnswer(item.line, seq, message.type);
  }

  // Throw a ProtocolError if the engine has written anything (or ended its output) while no answer
  // is due: what is in the pipe already, or comes within `ms`.
  async expectQuiet(ms, when) {
    await new Promise((resolve) => setImmediate(() => setImmediate(resolve))); // a turn of the event loop reads the pipe
    const item = await this.next(ms);
    if (item !== null) throw await this.problem(item, when);
  }

  // Forget the stderr written so far: from now on it belongs to the next case.
  mark() {
    this.stderr = "";
  }

  // The last lines the engine wrote on stderr since mark(), as evidence for an error.
  stderrTail() {
    const lines = this.stderr.split("\n").filter((text) => text.trim()).slice(-STDERR_LINES);
    if (lines.length === 0) return "";
    return `\nthe engine's stderr ended with:\n${lines.map((text) => `  ${text.slice(0, 300)}`).join("\n")}`;
  }

  // Stop the engine as the harness does: close its stdin, give it `grace` ms to exit, then SIGTERM
  // its whole process group and SIGKILL it half a second later.
  async stop(grace = 0) {
    this.child.stdin.end();
    await within(this.exited, grace);
    this.kill("SIGTERM");
    await within(this.exited, 500);
    this.kill("SIGKILL");
    await within(this.stderrClosed, 200); // so that the evidence has its last words
  }

  // Send `signal` to the engine's whole process group.
  kill(signal) {
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // not started, or the group is gone already
    }
  }

  // The end of a session: bye, then stop.
  async close() {
    try {
      await this.request({ type: "bye" });
    } catch {
      // an engine that does not answer bye is stopped all the same
    }
    await this.stop(1000);
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
    ? ["/bin/sh", "-c", `exec ${process.env.STUDCHECK_ENGINE}`]
    : [process.execPath, join(here, "engine.mjs"), directory];
  let engine = null; // null after a protocol error, until the next case starts it again
  let hello;
  let failedRestarts = 0;
  let previous = null; // the case played before, for a line nobody asked for

  async function start() {
    const started = new Engine(command);
    try {
      const answer = await started.request({ type: "hello", protocol: 1, harness: "studcheck-js-runner" }, HELLO_TIMEOUT_MS);
      if (!answer.ok || answer.protocol !== 1 || !Array.isArray(answer.variants)) {
        throw new ProtocolError(`the engine did not answer hello with protocol 1 and its variants: ${quoted(answer)}`);
      }
      [engine, hello, previous] = [started, answer, null];
    } catch (err) {
      await started.stop();
      err.message += started.stderrTail();
      throw err;
    }
  }

  // The engine, started again if a protocol error stopped it.
  async function ready() {
    if (engine !== null) return engine;
    if (failedRestarts >= RESTARTS) throw new ProtocolError(`not run: the engine failed to restart ${RESTARTS} times in a row`);
    try {
      await start();
    } catch (err) {
      failedRestarts += 1;
      err.message = `the engine could not be restarted: ${err.message}`;
      throw err;
    }
    failedRestarts = 0;
    return engine;
  }

  // One case, then a short wait for anything the engine writes unasked. A protocol error (from
  // either) stops the engine; a rule failure does not.
  async function check(doc, last) {
    const current = await ready();
    current.mark();
    let failure = null;
    try {
      const after = previous === null ? "" : ` (after the end of the previous case, ${previous})`;
      await current.expectQuiet(0, `before this case's first request${after}`);
      await playCase(current, doc);
    } catch (err) {
      failure = err;
    }
    previous = doc.id;
    if (!(failure instanceof ProtocolError)) {
      try {
        await current.expectQuiet(last ? LAST_LISTEN_MS : LISTEN_MS, "after the case's last answer");
      } catch (err) {
        if (failure !== null) err.message += ` (the case had failed before: ${failure.message})`;
        failure = err;
      }
    }
    if (failure instanceof ProtocolError) {
      engine = null;
      await current.stop();
      failure.message += current.stderrTail();
    }
    if (failure !== null) throw failure;
  }

  before(start);

  after(async () => {
    if (engine !== null) await engine.close();
  });

  for (const doc of cases) {
    test(`${doc.id}: ${doc.title}`, async (t) => {
      const why = notApplicable(hello, doc);
      if (why !== null) {
        t.skip(`not applicable: ${why}`);
        return;
      }
      await check(doc, doc === cases[cases.length - 1]);
    });
  }

  test("the export's index matches its files", () => {
    assert.equal(index.cases.length, cases.length);
    assert.deepEqual(index.cases.map((entry) => entry.id), cases.map((doc) => doc.id));
  });
}
