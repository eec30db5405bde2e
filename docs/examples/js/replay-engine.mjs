// An "engine" that plays nothing: it answers from the golden transcripts of a JSON export
// (spec/export.md), so it passes every case of the suite it was exported from. It shows what a
// conforming engine's answers are, request by request, and it is the fixture for the adapter and
// the Node test runner. With a planted bug (`bug: "out_of_turn"`) it answers `illegal_action`
// wherever `out_of_turn` is due, the mistake of an engine that checks the kind of action before
// whose turn it is (protocol.md section 4: when several reasons apply, the first in the list wins).
//
// Matching: a new_hand starts the replay of every transcript whose new_hand is the same request
// (seq and the opaque `label` aside); each later request keeps the transcripts that sent the same
// request next. A request no transcript sent is answered `unsupported` (a `state` request: the
// last state). It never reads `label`: an engine must not act on it.

import { readFileSync } from "node:fs";
import { join } from "node:path";

export const BUGS = ["out_of_turn"];

export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function requestKey(request) {
  const { seq, label, ...rest } = request;
  return canonical(rest);
}

export function loadExport(directory) {
  const index = JSON.parse(readFileSync(join(directory, "index.json"), "utf8"));
  const cases = index.cases.map((entry) => JSON.parse(readFileSync(join(directory, entry.file), "utf8")));
  return { index, cases };
}

export class ReplayEngine {
  constructor({ index, cases }, { bug = null } = {}) {
    if (bug !== null && !BUGS.includes(bug)) throw new Error(`unknown bug ${bug} (known: ${BUGS.join(", ")})`);
    this.bug = bug;
    this.helloAnswer = index.hello.response;
    this.scripts = new Map(); // new_hand key -> [transcript, ...]
    const scripts = [index.smoke, ...cases.map((doc) => doc.transcript)];
    for (const transcript of scripts) this.addScripts(transcript);
    this.playing = [];
    this.position = 0;
    this.lastState = null;
  }

  addScripts(transcript) {
    // The smoke transcript holds several hands: split it at each new_hand.
    let current = null;
    for (const entry of transcript) {
      if (entry.request.type === "new_hand") {
        current = [];
        const key = requestKey(entry.request);
        if (!this.scripts.has(key)) this.scripts.set(key, []);
        this.scripts.get(key).push(current);
      }
      if (current !== null) current.push(entry);
    }
  }

  hello() {
    const { seq, ok, ...rest } = this.helloAnswer;
    return { ...rest, engine: { name: "studcheck-js-replay", version: "1" } };
  }

  reply(entry) {
    const response = entry.response;
    if (!response.ok) {
      let { reason, message } = response.error;
      if (this.bug === "out_of_turn" && reason === "out_of_turn") {
        reason = "illegal_action";
        message = `(planted bug) ${message}`;
      }
      return { error: { reason, message } };
    }
    if (response.state) this.lastState = response.state;
    return { state: response.state };
  }

  newHand(request) {
    this.playing = this.scripts.get(requestKey(request)) || [];
    this.position = 1;
    this.lastState = null;
    if (this.playing.length === 0) {
      return { error: { reason: "unsupported", message: "this replay engine knows only the hands of its export" } };
    }
    return this.reply(this.playing[0][0]);
  }

  next(request) {
    const key = requestKey(request);
    const still = this.playing.filter((script) => script.length > this.position && requestKey(script[this.position].request) === key);
    if (still.length === 0) return null;
    this.playing = still;
    const entry = still[0][this.position];
    this.position += 1;
    return this.reply(entry);
  }

  act(request) {
    if (this.lastState === null && this.playing.length === 0) {
      return { error: { reason: "no_hand", message: "no current hand: send new_hand first" } };
    }
    return this.next(request) || { error: { reason: "unsupported", message: "no golden transcript has this action here" } };
  }

  state(request) {
    if (this.lastState === null && this.playing.length === 0) {
      return { error: { reason: "no_hand", message: "no current hand: send new_hand first" } };
    }
    return this.next(request) || { state: this.lastState };
  }
}
