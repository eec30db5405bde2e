// The harness's partial comparison (validator/studcheck/harness/compare.py) in JavaScript: a case
// asserts only what it names; each difference is {path, expected, actual}. spec/export.md,
// "Expectations", says what every key means.

const SEAT_MAP_KEYS = { stacks: "stack", committed: "committed", up: "up", down: "down" };
const SEAT_SET_KEYS = ["folded", "all_in", "shown", "mucked"];
const ACTION_ORDER = ["fold", "check", "call", "bring_in", "complete", "bet", "raise", "show", "muck"];
const AWARD_KEYS = ["winners", "high", "low"];

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function legalText(entry) {
  if (entry !== null && typeof entry === "object") {
    if ("min" in entry || "max" in entry) return `${entry.action} ${entry.min}..${entry.max}`;
    return entry.amount === undefined || entry.amount === null ? `${entry.action}` : `${entry.action} ${entry.amount}`;
  }
  return String(entry).split(/\s+/).join(" ");
}

function legalKey(text) {
  const [action, amount = ""] = text.split(" ");
  const order = ACTION_ORDER.indexOf(action);
  const number = Number.parseInt(amount.split("..")[0], 10);
  return [order < 0 ? ACTION_ORDER.length : order, Number.isNaN(number) ? -1 : number, text];
}

export function sortedLegal(entries) {
  const texts = [...new Set((entries || []).map(legalText))];
  return texts.sort((a, b) => {
    const [x, y] = [legalKey(a), legalKey(b)];
    return x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
  });
}

function seats(values) {
  return [...new Set([...values].map(Number))].sort((a, b) => a - b);
}

function rowsOf(state) {
  const rows = new Map();
  for (const row of state.seats || []) rows.set(String(row.seat), row);
  return rows;
}

function comparePots(path, expected, actual, keys) {
  if (!Array.isArray(actual) || actual.length !== expected.length) return [{ path, expected, actual }];
  const found = [];
  expected.forEach((want, i) => {
    const got = actual[i];
    for (const key of keys || Object.keys(want)) {
      const where = `${path}[${i}].${key}`;
      if (key === "eligible") {
        const [w, g] = [seats(want[key] || []), seats(got[key] || [])];
        if (!same(w, g)) found.push({ path: where, expected: w, actual: g });
      } else if (AWARD_KEYS.includes(key)) {
        found.push(...compareAwards(where, want[key] || {}, got[key]));
      } else if (!same(want[key], got[key])) {
        found.push({ path: where, expected: want[key], actual: got[key] });
      }
    }
  });
  return found;
}

function compareAwards(path, expected, actual) {
  if (actual === null || typeof actual !== "object") return [{ path, expected, actual }];
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort((a, b) => a - b);
  return keys.filter((seat) => expected[seat] !== actual[seat])
    .map((seat) => ({ path: `${path}.${seat}`, expected: expected[seat], actual: actual[seat] }));
}

export function compareState(expect, state) {
  const found = [];
  const rows = rowsOf(state);
  for (const [key, expected] of Object.entries(expect)) {
    if (key === "legal") {
      const [want, got] = [sortedLegal(expected), sortedLegal(state.legal)];
      if (!same(want, got)) found.push({ path: "legal", expected: want, actual: got });
    } else if (key in SEAT_MAP_KEYS) {
      for (const [seat, want] of Object.entries(expected)) {
        const row = rows.get(String(seat));
        const got = row === undefined ? null : row[SEAT_MAP_KEYS[key]];
        if (!same(got, want)) found.push({ path: `${key}.${seat}`, expected: want, actual: got });
      }
    } else if (SEAT_SET_KEYS.includes(key)) {
      const want = seats(expected);
      const got = seats([...rows.entries()].filter(([, row]) => row[key] === true).map(([seat]) => seat));
      if (!same(want, got)) found.push({ path: key, expected: want, actual: got });
    } else if (key === "pots") {
      found.push(...comparePots("pots", expected, state.pots, ["amount", "eligible"]));
    } else if (key === "result") {
      found.push(...compareFinal(expected, state.result));
    } else if (!same(state[key], expected)) {
      found.push({ path: key, expected, actual: state[key] });
    }
  }
  return found;
}

export function compareFinal(final, result) {
  if (result === null || typeof result !== "object") {
    return [{ path: "result", expected: "a finished hand's result", actual: result }];
  }
  const found = [];
  for (const [key, expected] of Object.entries(final)) {
    const path = `result.${key}`;
    if (key === "pots") {
      found.push(...comparePots(path, expected, result.pots, null));
    } else if (key === "returned") {
      found.push(...compareAwards(path, expected, result.returned));
    } else if (key === "stacks") {
      for (const [seat, want] of Object.entries(expected)) {
        const got = (result.stacks || {})[seat];
        if (got !== want) found.push({ path: `${path}.${seat}`, expected: want, actual: got });
      }
    } else if (!same(result[key], expected)) {
      found.push({ path, expected, actual: result[key] });
    }
  }
  return found;
}

// What "the same state" means (validator/studcheck/harness/compare.py, canonical_state): only the keys
// the protocol defines, `legal` as a sorted set, seat rows by seat number, pots' eligible seats sorted.
// Extra keys an engine adds (a counter, a clock, the last error) are allowed and ignored (spec/protocol.md
// section 3), so a refused action is checked with this, not with the raw states.
const SEAT_KEYS = ["seat", "stack", "committed", "folded", "all_in", "up", "down", "shown", "mucked"];
const RESULT_KEYS = ["pots", "rake", "returned", "showdown_order", "stacks"];

function pick(object, keys) {
  return Object.fromEntries(keys.map((key) => [key, object[key] === undefined ? null : object[key]]));
}

function potOf(pot, awards) {
  if (pot === null || typeof pot !== "object") return pot;
  const entry = { amount: pot.amount === undefined ? null : pot.amount, eligible: seats(pot.eligible || []) };
  if (awards) for (const key of AWARD_KEYS) if (key in pot) entry[key] = pot[key];
  return entry;
}

export function canonicalState(state) {
  if (state === null || typeof state !== "object") return state;
  const rows = Array.isArray(state.seats) ? [...state.seats].sort((a, b) => Number(a.seat) - Number(b.seat)) : state.seats;
  let result = state.result === undefined ? null : state.result;
  if (result !== null && typeof result === "object") {
    result = pick(result, RESULT_KEYS);
    if (Array.isArray(result.pots)) result.pots = result.pots.map((pot) => potOf(pot, true));
  }
  return {
    street: state.street, to_act: state.to_act, legal: sortedLegal(state.legal),
    seats: Array.isArray(rows) ? rows.map((row) => pick(row, SEAT_KEYS)) : rows,
    community: state.community === undefined ? null : state.community,
    pots: Array.isArray(state.pots) ? state.pots.map((pot) => potOf(pot, false)) : state.pots,
    pot_total: state.pot_total, result,
  };
}
