// The shared loop of the evaluation-profile adapters (spec/evaluation.md; framing, seq and refusals
// as in spec/protocol.md sections 1, 2 and 4). An adapter module describes one installed npm
// evaluator and calls serve():
//
//   serve({
//     name: "phe",                       // the npm name
//     version: "0.6.0",                  // read from the installed package's own package.json
//     cards: [ ... 52 entries ... ],     // the package's notation of each card, in canonical
//                                        // order 2c 2d 2h 2s 3c ... Ah As (CARDS.NOTATION)
//     kinds: {
//       high: { direction: "lower", value: (hand) => integer },          // a number per hand, or
//       exposed_high: { direction: "higher", solve: (hand) => object,    // an object per hand and
//                       compare: (a, b) => number },                     // the package's comparison
//     },
//   });
//
// `hand` is the list of the package's cards (from `cards`). With `solve`/`compare`, the hands of
// one batch are sorted with `compare` (negative: a before b, i.e. a is the worse hand) and numbered
// from 0 (the worst) up, hands that compare equal (0) to their neighbour getting the same number:
// such kinds are declared "higher".
//
// stdout carries protocol lines only; anything else goes to stderr.

import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";

/** The 52 cards of CARDS.NOTATION in canonical order ("2c", "2d", ..., "As"). */
export const CANONICAL_CARDS = [];
for (const r of RANKS) for (const s of SUITS) CANONICAL_CARDS.push(r + s);

/** How many cards an item of each kind has (spec/evaluation.md section 2). */
const KIND_SIZES = {
  high: [5, 7],
  razz: [5, 7],
  low8: [5, 7],
  exposed_high: [1, 4],
  exposed_low: [1, 4],
  bring_in: [1, 1],
  bring_in_razz: [1, 1],
};
const HANDS_PROFILE_TYPES = new Set(["new_hand", "act", "state"]);

/** The version of an installed package, from its own package.json (resolved from `fromUrl`). */
export function installedVersion(packageName, fromUrl) {
  const require = createRequire(fromUrl);
  // Packages without an "exports" map let package.json be resolved directly; fall back to
  // walking up from the main file otherwise.
  try {
    return require(`${packageName}/package.json`).version;
  } catch {
    let dir = require.resolve(packageName);
    for (let i = 0; i < 10; i++) {
      dir = dir.slice(0, dir.lastIndexOf("/"));
      try {
        const meta = JSON.parse(readFileSync(`${dir}/package.json`, "utf8"));
        if (meta.name === packageName) return meta.version;
      } catch {
        /* keep walking up */
      }
    }
    throw new Error(`cannot find the version of ${packageName}`);
  }
}

function refuse(seq, reason, message) {
  return { seq, ok: false, error: { reason, message } };
}

function errorText(err) {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}

class Refusal {
  constructor(reason, message) {
    this.reason = reason;
    this.message = message;
  }
}

/** Builds the request handler for one adapter (no I/O: answer(request) -> answer object). */
export function makeHandler(adapter) {
  if (!Array.isArray(adapter.cards) || adapter.cards.length !== 52) {
    throw new Error("adapter.cards must list the package's notation of the 52 cards");
  }
  // A protocol card's canonical index 0..51 is 4 * rank + suit, read from its two character codes
  // through these tables (-1: not a rank / not a suit); index -> the package's card.
  const rankOf = new Int8Array(128).fill(-1);
  const suitOf = new Int8Array(128).fill(-1);
  for (let i = 0; i < 13; i++) rankOf[RANKS.charCodeAt(i)] = i;
  for (let i = 0; i < 4; i++) suitOf[SUITS.charCodeAt(i)] = i;
  const packageCards = adapter.cards.slice();
  const kinds = {};
  for (const [kind, spec] of Object.entries(adapter.kinds)) {
    if (!(kind in KIND_SIZES)) throw new Error(`unknown kind ${kind}`);
    if (spec.direction !== "higher" && spec.direction !== "lower") {
      throw new Error(`kind ${kind}: direction must be "higher" or "lower"`);
    }
    if (!spec.value && !(spec.solve && spec.compare)) {
      throw new Error(`kind ${kind}: give value(hand), or solve(hand) and compare(a, b)`);
    }
    kinds[kind] = spec;
  }
  const declared = Object.fromEntries(Object.entries(kinds).map(([k, s]) => [k, s.direction]));

  // Duplicate check without allocation: stamp[card] === current hand number.
  const stamp = new Uint32Array(52);
  let handNo = 0;

  function convert(kind, hands) {
    if (!Array.isArray(hands)) throw new Refusal("bad_request", "hands must be a list");
    const n = hands.length;
    // spec/evaluation.md: 1 to 10,000 items. No upper limit is enforced here: a larger batch
    // only takes longer.
    if (n < 1) throw new Refusal("bad_request", "hands must have at least one item");
    const [min, max] = KIND_SIZES[kind];
    const out = new Array(n);
    const boardSize = hands[0]?.length;
    for (let h = 0; h < n; h++) {
      const hand = hands[h];
      if (!Array.isArray(hand)) throw new Refusal("bad_request", `hands[${h}] is not a list of cards`);
      const len = hand.length;
      if (len < min || len > max) {
        const want = min === max ? `${min} card` : `${min} to ${max} cards`;
        throw new Refusal("bad_request", `hands[${h}] has ${len} cards; a ${kind} item has ${want}`);
      }
      if ((kind === "exposed_high" || kind === "exposed_low") && len !== boardSize) {
        throw new Refusal("bad_request", `the boards of one ${kind} request must have the same size (hands[0] has ${boardSize} cards, hands[${h}] ${len})`);
      }
      if (++handNo === 0xffffffff) {
        stamp.fill(0);
        handNo = 1;
      }
      const converted = new Array(len);
      for (let c = 0; c < len; c++) {
        const card = hand[c];
        let i = -1;
        if (typeof card === "string" && card.length === 2) {
          const r = card.charCodeAt(0);
          const s = card.charCodeAt(1);
          if (r < 128 && s < 128 && rankOf[r] >= 0 && suitOf[s] >= 0) i = 4 * rankOf[r] + suitOf[s];
        }
        if (i < 0) {
          throw new Refusal("bad_request", `hands[${h}][${c}] is not a card: ${JSON.stringify(card)}`);
        }
        if (stamp[i] === handNo) {
          throw new Refusal("bad_request", `hands[${h}] has the card ${card} twice`);
        }
        stamp[i] = handNo;
        converted[c] = packageCards[i];
      }
      out[h] = converted;
    }
    return out;
  }

  function checkValue(kind, v, h, hands) {
    if (Number.isInteger(v) || (v === null && kind === "low8")) return;
    throw new Refusal(
      "unsupported",
      `${adapter.name} returned ${v === undefined ? "undefined" : JSON.stringify(v)} for hands[${h}] ${JSON.stringify(hands[h])}, not an integer`,
    );
  }

  function evaluate(kind, spec, hands, converted) {
    const n = converted.length;
    const values = new Array(n);
    let h = 0;
    if (spec.value) {
      const value = spec.value;
      try {
        for (; h < n; h++) values[h] = value(converted[h]);
      } catch (err) {
        throw new Refusal("unsupported", `${adapter.name} threw on hands[${h}] ${JSON.stringify(hands[h])}: ${errorText(err)}`);
      }
      for (h = 0; h < n; h++) checkValue(kind, values[h], h, hands);
      return values;
    }
    // Number the batch by sorting it with the package's own comparison.
    const solve = spec.solve;
    const compare = spec.compare;
    const solved = new Array(n);
    try {
      for (; h < n; h++) solved[h] = solve(converted[h]);
    } catch (err) {
      throw new Refusal("unsupported", `${adapter.name} threw on hands[${h}] ${JSON.stringify(hands[h])}: ${errorText(err)}`);
    }
    const order = new Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    try {
      order.sort((a, b) => compare(solved[a], solved[b]));
      let group = 0;
      values[order[0]] = 0;
      for (let i = 1; i < n; i++) {
        if (compare(solved[order[i - 1]], solved[order[i]]) !== 0) group++;
        values[order[i]] = group;
      }
    } catch (err) {
      throw new Refusal("unsupported", `${adapter.name}'s comparison threw: ${errorText(err)}`);
    }
    return values;
  }

  return function answer(request) {
    if (request === null || typeof request !== "object" || Array.isArray(request)) {
      return refuse(null, "bad_request", "a request must be a JSON object");
    }
    const seq = Number.isInteger(request.seq) && request.seq >= 0 ? request.seq : null;
    if (seq === null) return refuse(null, "bad_request", "seq must be a non-negative integer");
    const type = request.type;
    if (type === "bye") return { seq, ok: true };
    if (type === "hello") {
      if (request.protocol !== 1) {
        return refuse(seq, "unsupported", `this adapter speaks protocol 1, not ${JSON.stringify(request.protocol)}`);
      }
      return {
        seq,
        ok: true,
        protocol: 1,
        profile: "evaluation",
        engine: { name: adapter.name, version: adapter.version },
        kinds: declared,
      };
    }
    if (type === "evaluate") {
      const kind = request.kind;
      if (typeof kind !== "string") return refuse(seq, "bad_request", "kind must be a string");
      const spec = Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
      if (!spec) {
        return refuse(seq, "unsupported", `${adapter.name} does not evaluate kind ${JSON.stringify(kind)} (it declares ${Object.keys(kinds).join(", ")})`);
      }
      try {
        const converted = convert(kind, request.hands);
        return { seq, ok: true, values: evaluate(kind, spec, request.hands, converted) };
      } catch (err) {
        if (err instanceof Refusal) return refuse(seq, err.reason, err.message);
        throw err;
      }
    }
    if (HANDS_PROFILE_TYPES.has(type)) {
      return refuse(seq, "unsupported", `${adapter.name} is a hand evaluator: it speaks only the evaluation profile`);
    }
    return refuse(seq, "bad_request", `unknown request type ${JSON.stringify(type)}`);
  };
}

/** Reads requests from stdin until `bye` or end of input; writes one answer line per request. */
export function serve(adapter, { input = process.stdin, output = process.stdout } = {}) {
  const answer = makeHandler(adapter);
  const lines = createInterface({ input, crlfDelay: Infinity });
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    lines.close();
    output.write("", () => process.exit(0));
  };
  output.on("error", (err) => {
    // The harness closed our stdout: nobody is listening any more.
    process.stderr.write(`${adapter.name} adapter: stdout: ${err.message}\n`);
    process.exit(0);
  });
  lines.on("line", (line) => {
    if (done || !line.trim()) return;
    let request;
    let reply;
    try {
      request = JSON.parse(line);
    } catch (err) {
      reply = refuse(null, "bad_request", `not a JSON line: ${err.message}`);
    }
    if (reply === undefined) {
      try {
        reply = answer(request);
      } catch (err) {
        // An adapter bug, not the package's: say so on stderr, still answer the request.
        process.stderr.write(`${adapter.name} adapter error: ${err?.stack || err}\n`);
        const seq = Number.isInteger(request?.seq) && request.seq >= 0 ? request.seq : null;
        reply = refuse(seq, "unsupported", `adapter error: ${errorText(err)}`);
      }
    }
    output.write(JSON.stringify(reply) + "\n");
    if (reply.ok && request?.type === "bye") finish();
  });
  lines.on("close", finish);
}
