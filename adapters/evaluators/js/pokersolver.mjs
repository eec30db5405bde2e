// studcheck evaluation-profile adapter for the npm package "pokersolver" (Hand.solve / Hand.compare).
//
//   node pokersolver.mjs        (JSON Lines on stdin/stdout, spec/evaluation.md)
//
// pokersolver returns no number that orders hands: a solved Hand has a category `rank` and the
// package compares two hands with `Hand#compare` (what `Hand.winners` uses). The adapter sorts
// each batch with that comparison and numbers the hands, the best one highest ("higher").
//
// Kinds:
//   high          Hand.solve(cards) (game "standard"), ordered by Hand#compare.
//   exposed_high  the same call on 1 to 4 cards: Hand.solve accepts them and ranks them as
//                 high card, pair, two pair, three and four of a kind (no 4-card straights or
//                 flushes, since "standard" needs 5 cards for those).
// No razz / low8: none of pokersolver's games is an A-5 or 8-or-better low (its only low game,
// "paigowpokerlo", is Pai Gow's two-card high hand). No bring-in notion.

import { createRequire } from "node:module";
import { CANONICAL_CARDS, installedVersion, serve } from "./protocol.mjs";

const require = createRequire(import.meta.url);
const { Hand } = require("pokersolver");

// pokersolver's notation is the protocol's: rank 2-9 T J Q K A ("T" for ten, per its README),
// then a lower-case suit c d h s.
const cards = CANONICAL_CARDS.map((c) => c[0] + c[1]);

const solve = (hand) => Hand.solve(hand);
// Hand#compare: 1 if `this` loses to the other hand, -1 if it wins, 0 for a tie.
// The sort wants a negative number when a is the worse hand.
const compare = (a, b) => -a.compare(b);

serve({
  name: "pokersolver",
  version: installedVersion("pokersolver", import.meta.url),
  cards,
  kinds: {
    high: { direction: "higher", solve, compare },
    exposed_high: { direction: "higher", solve, compare },
  },
});
