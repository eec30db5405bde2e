// studcheck evaluation-profile adapter for the npm package "phe" (evaluateCardCodes).
//
//   node phe.mjs                (JSON Lines on stdin/stdout, spec/evaluation.md)
//
// Kinds:
//   high   evaluateCardCodes(codes) for 5, 6 or 7 cards: "a number representing the hand
//          strength, smaller is better" (README), so "lower". Cards are converted once to the
//          package's card codes with its own cardCode(rank, suit).
// Not declared: exposed_high (evaluateCardCodes throws "Can only evaluate 5, 6 or 7 cards" on
// 1 to 4), razz, low8, bring-in (no such functions).

import { createRequire } from "node:module";
import { CANONICAL_CARDS, installedVersion, serve } from "./protocol.mjs";

const require = createRequire(import.meta.url);
const { evaluateCardCodes, cardCode } = require("phe");

const cards = CANONICAL_CARDS.map((c) => {
  const code = cardCode(c[0], c[1]);
  if (!Number.isInteger(code)) throw new Error(`phe has no card code for ${c}`);
  return code;
});

serve({
  name: "phe",
  version: installedVersion("phe", import.meta.url),
  cards,
  kinds: {
    high: { direction: "lower", value: evaluateCardCodes },
  },
});
