// Offline search: the index comes from search-index.js (a file:// page cannot fetch JSON).
(function () {
  "use strict";
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  var entries = window.RULEBOOK_INDEX || [];
  if (!input || !list) return;
  function score(entry, words, raw) {
    var id = entry.id.toLowerCase();
    if (id === raw) return 100;
    if (id.indexOf(raw) === 0) return 50;
    var hay = (entry.id + " " + entry.title + " " + entry.text).toLowerCase();
    for (var i = 0; i < words.length; i += 1) {
      if (hay.indexOf(words[i]) < 0) return 0;
    }
    return (id.indexOf(raw) >= 0 ? 20 : 0) + (entry.title.toLowerCase().indexOf(raw) >= 0 ? 10 : 1) + (entry.kind === "rule" ? 2 : 0);
  }
  function show() {
    var raw = input.value.trim().toLowerCase();
    while (list.firstChild) list.removeChild(list.firstChild);
    if (!raw) { list.hidden = true; return; }
    var words = raw.split(/\s+/);
    var found = [];
    for (var i = 0; i < entries.length; i += 1) {
      var s = score(entries[i], words, raw);
      if (s > 0) found.push([s, i]);
    }
    found.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    found.slice(0, 30).forEach(function (pair) {
      var entry = entries[pair[1]];
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
      none.textContent = "nothing found";
      list.appendChild(none);
    }
    list.hidden = false;
  }
  input.addEventListener("input", show);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { input.value = ""; show(); }
    if (event.key === "Enter") {
      var first = list.querySelector("a");
      if (first) window.location.href = first.href;
    }
  });
})();
// Printing shows every hand: open the collapsed case drawings and source lists first.
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
