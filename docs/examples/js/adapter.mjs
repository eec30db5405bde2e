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
// exits with status 70, like a crash (the harness reports it and restarts the engine). A request line
// that is not a JSON object, or is longer than MAX_LINE, is answered `bad_request` (with `seq` null
// when the line has no valid one) and the adapter reads on.

const TYPES = new Set(["hello", "new_hand", "act", "state", "bye"]);

// The longest line read (spec/protocol.md section 1 bounds an answer at 8 MiB; a request is a few KiB).
export const MAX_LINE = 8 * 1024 * 1024;

export function errorAnswer(seq, reason, message) {
  return { seq, ok: false, error: { reason, message } };
}

// One request object in, one answer object out (no I/O: easy to test).
export function answer(engine, request) {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return errorAnswer(null, "bad_request", "a request must be a JSON object");
  }
  const seq = Number.isInteger(request.seq) && request.seq >= 0 ? request.seq : null;
  if (seq === null) return errorAnswer(null, "bad_request", `seq must be a non-negative integer, not ${brief(request.seq)}`);
  if (!TYPES.has(request.type)) {
    return errorAnswer(seq, "bad_request", `unknown request type ${brief(request.type)}`);
  }
  if (request.type === "bye") return { seq, ok: true };
  if (request.type === "hello") {
    if (request.protocol !== 1) return errorAnswer(seq, "unsupported", `this engine speaks protocol 1, not ${brief(request.protocol)}`);
    return { seq, ok: true, ...engine.hello(request) };
  }
  const method = { new_hand: "newHand", act: "act", state: "state" }[request.type];
  const result = engine[method](request);
  if (result.error) return errorAnswer(seq, result.error.reason, result.error.message);
  return { seq, ok: true, state: result.state };
}

// At most `limit` characters of a text, for a message.
function cut(text, limit = 80) {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

// A value quoted in a message (its JSON, shortened).
function brief(value) {
  try {
    return cut(JSON.stringify(value) ?? String(value));
  } catch {
    return "(a value nested too deeply to show)";
  }
}

// Split a byte stream into lines (UTF-8, without their "\n") and call onLine with each. A line longer
// than `limit` bytes is never held in memory whole: onTooLong gets its first 200 bytes, and the rest
// of it, up to its "\n", is skipped. onEnd is called when the stream ends. (node:readline would
// collect a line of any length, until the process runs out of memory.)
export function readLines(input, { onLine, onTooLong, onEnd = () => {}, limit = MAX_LINE }) {
  let pieces = []; // the line so far
  let size = 0;
  let skipping = false; // inside a line too long to keep
  const add = (piece) => {
    if (skipping) return;
    if (size + piece.length > limit) {
      onTooLong(Buffer.concat([...pieces, piece]).subarray(0, 200).toString("utf8"));
      pieces = [];
      size = 0;
      skipping = true;
    } else if (piece.length > 0) {
      pieces.push(piece);
      size += piece.length;
    }
  };
  const end = () => {
    if (!skipping) onLine((pieces.length === 1 ? pieces[0] : Buffer.concat(pieces)).toString("utf8"));
    pieces = [];
    size = 0;
    skipping = false;
  };
  input.on("data", (chunk) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      add(chunk.subarray(start, newline));
      end();
      start = newline + 1;
    }
    add(chunk.subarray(start));
  });
  input.on("end", () => {
    if (size > 0) end(); // a last line without "\n"
    onEnd();
  });
}

// Read requests from stdin until `bye` or end of input; write one answer line for each.
export function serve(engine, { input = process.stdin, output = process.stdout } = {}) {
  const reply = (message) => output.write(JSON.stringify(message) + "\n"); // not buffered by Node on a pipe
  readLines(input, {
    onLine: (line) => {
      if (!line.trim()) return;
      let request;
      try {
        request = JSON.parse(line);
      } catch (err) {
        reply(errorAnswer(null, "bad_request", `not a JSON line: ${cut(err.message, 200)}`));
        return;
      }
      let message;
      try {
        message = answer(engine, request);
      } catch (err) {
        process.stderr.write(`engine error: ${err.stack || err}\n`);
        process.exit(70);
      }
      reply(message);
      if (message.ok && request.type === "bye") process.exit(0);
    },
    onTooLong: (start) => {
      reply(errorAnswer(null, "bad_request", `a request line longer than ${MAX_LINE} bytes, starting ${cut(start)}`));
    },
    onEnd: () => process.exit(0),
  });
}
