// Offline search. The index (search-index.js: a file:// page cannot fetch JSON) is loaded the first
// time the search box is used. Ranking: words in a rule's ID weigh most, then its title, then its
// text; rare words more than common ones; every word of the question should match, but a result
// may miss some. Words are stemmed ("quartering" finds "quarter") and a typo or two is forgiven
// ("brng", "quater"). The hand-written synonym table (rulebook/synonyms.py) leads the words of the
// trade ("door card", "high hand showing", "misdeal") to the rules, or to what the spec leaves out.
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  if (!input || !list) return;
  var KIND = { "rule": 1, "retired rule": 0.4, "case": 0.5, "term": 0.8, "section": 0.6, "not covered": 0.7 };
  var TITLED = { "rule": true, "retired rule": true, "case": true };
  var STOP = {};
  ("a an and are as at be by can do does for from how i if in into is it its may me must my of on or " +
   "should so than that the their then there this to what when where which who why with would you " +
   "happen happens rule rules").split(" ").forEach(function (w) { STOP[w] = true; });
  var book = null;
  var loading = false;

  function stem(word) {
    var w = word;
    if (w.length > 4 && /ies$/.test(w)) return w.slice(0, -3) + "y";
    if (w.length > 5 && /ing$/.test(w)) w = w.slice(0, -3);
    else if (w.length > 4 && /ed$/.test(w)) w = w.slice(0, -2);
    else if (w.length > 4 && /es$/.test(w)) w = w.slice(0, -2);
    else if (w.length > 3 && /s$/.test(w) && !/ss$/.test(w)) w = w.slice(0, -1);
    if (w.length > 4 && /e$/.test(w)) w = w.slice(0, -1);
    return w;
  }
  // [{word (lower case), stem}] of a text
  function words(text) {
    return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean).map(function (w) { return { word: w, stem: stem(w) }; });
  }
  function stems(text) { return words(text).map(function (w) { return w.stem; }); }

  // Edit distance (adjacent transpositions count one), or max + 1 when it is larger than max.
  function distance(a, b, max) {
    if (Math.abs(a.length - b.length) > max) return max + 1;
    var prev2 = null, prev = [], row, i, j;
    for (j = 0; j <= b.length; j += 1) prev.push(j);
    for (i = 1; i <= a.length; i += 1) {
      row = [i];
      var best = i;
      for (j = 1; j <= b.length; j += 1) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
        if (prev2 && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
        row.push(d);
        if (d < best) best = d;
      }
      if (best > max) return max + 1;
      prev2 = prev;
      prev = row;
    }
    return prev[b.length];
  }
  function allowed(word) { return word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0; }
  // How well a typed stem matches a stem of the index (or of a synonym): 1 exact, less for a prefix or a typo.
  function likeness(typed, known, last) {
    if (typed === known) return 1;
    if (known.indexOf(typed) === 0 && (typed.length >= 4 || (last && typed.length >= 2))) return 0.7;
    var max = allowed(typed);
    if (max && distance(typed, known, max) <= max) return distance(typed, known, 1) <= 1 ? 0.6 : 0.4;
    return 0;
  }

  function prepare(data) {
    var fields = data.fields;
    var entries = data.entries.map(function (row) {
      var entry = {};
      fields.forEach(function (name, i) { entry[name] = row[i]; });
      // A rule's or a case's title is its title; a term's or a not-covered topic's is a definition (body
      // text), a section's the page it is on (not searched).
      var titled = TITLED[entry.kind];
      entry.idStems = new Set(stems(entry.id));
      entry.titleStems = new Set(titled ? stems(entry.title) : []);
      entry.tf = new Map();
      var body = entry.text + (titled || entry.kind === "section" ? "" : " " + entry.title);
      stems(body).forEach(function (s) { entry.tf.set(s, (entry.tf.get(s) || 0) + 1); });
      entry.lowerId = entry.id.toLowerCase();
      return entry;
    });
    var postings = new Map();
    entries.forEach(function (entry, n) {
      var seen = new Set([].concat(Array.from(entry.idStems), Array.from(entry.titleStems), Array.from(entry.tf.keys())));
      seen.forEach(function (s) {
        if (!postings.has(s)) postings.set(s, []);
        postings.get(s).push(n);
      });
    });
    var byId = new Map();
    entries.forEach(function (entry, n) { if (!byId.has(entry.id)) byId.set(entry.id, n); });
    var synonyms = data.synonyms.map(function (row) {
      return { phrases: row[0].map(stems), targets: row[1], words: [].concat.apply([], row[2].map(stems)) };
    });
    return { entries: entries, postings: postings, byId: byId, synonyms: synonyms, vocabulary: Array.from(postings.keys()) };
  }

  function idf(stemmed) {
    var found = book.postings.get(stemmed);
    return found ? Math.log(1 + book.entries.length / found.length) : 0;
  }
  // The index's stems a typed word may mean, with how well each matches: [[stem, likeness]]
  function candidates(typed, last) {
    var exact = book.postings.has(typed);
    var found = exact ? [[typed, 1]] : [];
    book.vocabulary.forEach(function (known) {
      if (known === typed) return;
      var like = likeness(typed, known, last);
      if (like > 0) found.push([known, exact ? like / 2 : like]);
    });
    return found;
  }
  function fieldScore(entry, stemmed) {
    var tf = entry.tf.get(stemmed) || 0;
    return (entry.idStems.has(stemmed) ? 6 : 0) + (entry.titleStems.has(stemmed) ? 3 : 0) + (tf ? Math.min(1 + Math.log(tf), 2.5) : 0);
  }

  // The synonyms the question contains: [{synonym, from, to}] (query word positions), longest first, not overlapping.
  function phrases(query) {
    var found = [];
    book.synonyms.forEach(function (synonym) {
      synonym.phrases.forEach(function (phrase) {
        for (var start = 0; start + phrase.length <= query.length; start += 1) {
          var ok = true;
          for (var k = 0; k < phrase.length && ok; k += 1) {
            var typed = query[start + k];
            ok = (likeness(typed.stem, phrase[k], false) >= 0.6 && (typed.stem.length > 3 || typed.stem === phrase[k])) ||
              (start + k === query.length - 1 && k === phrase.length - 1 && phrase[k].indexOf(typed.word) === 0);  // still typing it
          }
          if (ok) found.push({ synonym: synonym, from: start, to: start + phrase.length });
        }
      });
    });
    found.sort(function (a, b) { return (b.to - b.from) - (a.to - a.from); });
    var taken = [];
    return found.filter(function (match) {
      for (var i = match.from; i < match.to; i += 1) if (taken[i]) return false;
      for (i = match.from; i < match.to; i += 1) taken[i] = true;
      return true;
    });
  }

  // The beginning of a rule's or a case's ID ("bring-in.tie", "sh-bri"); other IDs are words.
  function prefixOf(item, lower) {
    return TITLED[item.kind] && lower.length >= 3 && item.lowerId.indexOf(lower) === 0;
  }

  function search(raw) {
    var lower = raw.trim().toLowerCase();
    var query = words(lower);
    var scores = new Map();  // entry number -> {sum per slot, likeness per slot}
    var slots = [];  // the question's words that count: [{position, alternatives: [[stem, likeness]]}]
    query.forEach(function (w, position) {
      var last = position === query.length - 1;
      if (STOP[w.word] || (last && position > 0 && w.word.length < 2)) return;  // a word, or the first letter of the next
      slots.push({ position: position, alternatives: candidates(w.stem, last) });
    });
    if (!slots.length) query.forEach(function (w, position) { slots.push({ position: position, alternatives: candidates(w.stem, true) }); });
    var found = phrases(query);
    found.forEach(function (match) {
      slots.forEach(function (slot) {
        if (slot.position < match.from || slot.position >= match.to) return;
        match.synonym.words.forEach(function (s) { if (book.postings.has(s)) slot.alternatives.push([s, 0.8]); });
      });
    });
    function record(n, slot, score, like) {
      if (!scores.has(n)) scores.set(n, { score: slots.map(function () { return 0; }), like: slots.map(function () { return 0; }) });
      var entry = scores.get(n);
      if (score > entry.score[slot]) entry.score[slot] = score;
      if (like > entry.like[slot]) entry.like[slot] = like;
    }
    slots.forEach(function (slot, i) {
      slot.alternatives.forEach(function (pair) {
        var weight = pair[1] * idf(pair[0]);
        book.postings.get(pair[0]).forEach(function (n) { record(n, i, weight * fieldScore(book.entries[n], pair[0]), pair[1]); });
      });
    });
    // A synonym's targets count as if the words it covers were in their IDs (in the table's order).
    found.forEach(function (match) {
      match.synonym.targets.forEach(function (target, order) {
        var n = book.byId.get(target);
        if (n === undefined) return;
        slots.forEach(function (slot, i) {
          if (slot.position < match.from || slot.position >= match.to) return;
          var best = Math.max.apply(null, slot.alternatives.map(function (pair) { return idf(pair[0]); }).concat([1]));
          var had = scores.has(n) ? scores.get(n).score[i] : 0;
          record(n, i, best * 9 * (1 - 0.05 * Math.min(order, 5)) + had / 4, 1);
        });
      });
    });
    var results = [];
    scores.forEach(function (entry, n) {
      var item = book.entries[n];
      var covered = entry.like.reduce(function (a, b) { return a + b; }, 0) / slots.length;
      if (covered < 0.5 && slots.length > 1) return;
      var total = entry.score.reduce(function (a, b) { return a + b; }, 0) * Math.pow(covered, 3) * (KIND[item.kind] || 0.5);
      if (item.lowerId === lower) total += 1e6;
      else if (prefixOf(item, lower)) total += 1e5;
      if (total > 0) results.push([total, n]);
    });
    book.entries.forEach(function (item, n) {  // a rule or case ID typed whole, or its beginning
      if (!scores.has(n) && (item.lowerId === lower || prefixOf(item, lower))) results.push([item.lowerId === lower ? 1e6 : 1e5, n]);
    });
    results.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return results.map(function (pair) {
      var entry = book.entries[pair[1]];
      return { kind: entry.kind, id: entry.id, title: entry.title, url: entry.url, score: pair[0] };
    });
  }

  function show() {
    var raw = input.value;
    while (list.firstChild) list.removeChild(list.firstChild);
    list.setAttribute("data-query", raw);
    if (!raw.trim()) { list.hidden = true; return; }
    if (!book) { load(); return; }
    var found = search(raw);
    found.slice(0, 30).forEach(function (entry) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = entry.url;
      link.textContent = entry.id;
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = " " + entry.kind + " · ";
      item.appendChild(link);
      item.appendChild(kind);
      item.appendChild(document.createTextNode(entry.title));
      list.appendChild(item);
    });
    if (!found.length) {
      var none = document.createElement("li");
      none.textContent = "nothing found; what the spec leaves out is under “Not covered”";
      list.appendChild(none);
    }
    list.hidden = false;
  }

  function load() {
    if (book || loading) return;
    if (window.RULEBOOK_INDEX) { book = prepare(window.RULEBOOK_INDEX); show(); return; }
    loading = true;
    var script = document.createElement("script");
    script.src = "search-index.js";
    script.onload = function () {
      loading = false;
      if (!window.RULEBOOK_INDEX) return;
      book = prepare(window.RULEBOOK_INDEX);
      list.setAttribute("data-ready", "yes");
      show();
    };
    script.onerror = function () {
      loading = false;
      list.textContent = "The search index (search-index.js) could not be loaded.";
      list.hidden = false;
    };
    document.head.appendChild(script);
  }

  input.addEventListener("focus", load);
  input.addEventListener("input", show);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { input.value = ""; show(); }
    if (event.key === "Enter") {
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    }
  });
  window.RULEBOOK_SEARCH = function (raw) { return book ? search(raw) : null; };  // for tests and the console
})();
