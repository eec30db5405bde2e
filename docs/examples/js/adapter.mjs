// A protocol adapter skeleton in JavaScript (Node 18+, no dependencies): spec/protocol.md over
// stdin/stdout. It owns the framing (one JSON object per line, one answer per request, in order,
// `seq` copied, stdout for protocol lines only, logs to stderr) and hands each request to an engine
// object. Put your own engine behind it: an object with
//
//   hello(request)    -> {protocol: 1, engine: {name, version}, variants: [...], options: {...}}
//   newHand(request)  -> {state} or {error: {reason, message}}
//   act(request)      -> {state} or {error: {reason, message}}
//   state(request)    -> {state} or {error: {reason, message}}
//
// Anything an engine method throws is a bug in the engine: it is logged on stderr and the adapter
// exits with status 70, like a crash (the harness reports it and restarts the engine).

import { createInterface } from "node:readline";

const TYPES = new Set(["hello", "new_hand", "act", "state", "bye"]);

export function errorAnswer(seq, reason, message) {
  return { seq, ok: false, error: { reason, message } };
}

// One request object in, one answer object out (no I/O: easy to test).
export function answer(engine, request) {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return errorAnswer(null, "bad_request", "a request must be a JSON object");
  }
  const seq = Number.isInteger(request.seq) && request.seq >= 0 ? request.seq : null;
  if (seq === null) return errorAnswer(request.seq ?? null, "bad_request", "seq must be a non-negative integer");
  if (!TYPES.has(request.type)) {
    return errorAnswer(seq, "bad_request", `unknown request type ${JSON.stringify(request.type)}`);
  }
  if (request.type === "bye") return { seq, ok: true };
  if (request.type === "hello") {
    if (request.protocol !== 1) return errorAnswer(seq, "unsupported", `this engine speaks protocol 1, not ${request.protocol}`);
    return { seq, ok: true, ...engine.hello(request) };
  }
  const method = { new_hand: "newHand", act: "act", state: "state" }[request.type];
  const result = engine[method](request);
  if (result.error) return errorAnswer(seq, result.error.reason, result.error.message);
  return { seq, ok: true, state: result.state };
}

// Read requests from stdin until `bye` or end of input; write and flush one answer line each.
export function serve(engine, { input = process.stdin, output = process.stdout } = {}) {
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    let reply;
    let request;
    try {
      request = JSON.parse(line);
    } catch (err) {
      reply = errorAnswer(null, "bad_request", `not a JSON line: ${err.message}`);
    }
    if (reply === undefined) {
      try {
        reply = answer(engine, request);
      } catch (err) {
        process.stderr.write(`engine error: ${err.stack || err}\n`);
        process.exit(70);
      }
    }
    output.write(JSON.stringify(reply) + "\n"); // process.stdout.write on a pipe is not buffered by Node
    if (request && request.type === "bye" && reply.ok) {
      lines.close();
    }
  });
  lines.on("close", () => process.exit(0));
}
