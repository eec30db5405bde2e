// studcheck evaluation-profile adapter for the npm package "poker-evaluator" (evalHand).
//
//   node poker-evaluator.mjs    (JSON Lines on stdin/stdout, spec/evaluation.md)
//
// Kinds:
//   high   evalHand(cards).value for 5, 6 or 7 cards: the Two Plus Two lookup table, "the higher
//          the better" (README), so "higher". Cards are passed as the package's deck numbers
//          (documented input; 2c = 1 ... As = 52) to skip its string parsing.
// Not declared: exposed_high (evalHand takes 3, 5, 6 or 7 cards and throws on 1, 2 and 4; its
// 3-card hands are padded with two dummy low cards), razz, low8, bring-in (no such functions).
// The 130 MB table data/HandRanks.dat is read when the package is loaded, before `hello`.

import { createRequire } from "node:module";
import { CANONICAL_CARDS, installedVersion, serve } from "./protocol.mjs";

const require = createRequire(import.meta.url);
const { evalHand } = require("poker-evaluator");
// The package's own card table (lib/constants/deck.const.js: keys "2c" ... "as", lower case).
const { DECK } = require("poker-evaluator/lib/constants/deck.const.js");

const cards = CANONICAL_CARDS.map((c) => {
  const code = DECK[c.toLowerCase()];
  if (!Number.isInteger(code)) throw new Error(`poker-evaluator has no deck number for ${c}`);
  return code;
});

serve({
  name: "poker-evaluator",
  version: installedVersion("poker-evaluator", import.meta.url),
  cards,
  kinds: {
    high: { direction: "higher", value: (hand) => evalHand(hand).value },
  },
});
