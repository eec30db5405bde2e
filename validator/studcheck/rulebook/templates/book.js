// The cases on a chapter page: each hand is a script of its own (cases/<ID>.js, a file:// page cannot
// fetch()), loaded when its case is opened; a link to a case opens it; printing leaves the cases out
// unless "Print the examples too" is ticked, which loads and opens them all first.
(function () {
  "use strict";
  var pending = {};  // case ID -> the callbacks waiting for its drawing

  function caseOf(id) {
    var element = document.getElementById("case-" + id);
    return element && element.matches("details.case") ? element : null;
  }

  // Called by cases/<ID>.js with the drawing as HTML (escaped when the site was built).
  window.RULEBOOK_CASE = function (id, html) {
    var details = caseOf(id);
    if (details) {
      details.querySelector(".drawing").innerHTML = html;
      details.setAttribute("data-drawn", "yes");
    }
    (pending[id] || []).forEach(function (done) { done(); });
    delete pending[id];
  };

  function draw(details, done) {
    var id = details.id.slice("case-".length);
    if (details.hasAttribute("data-drawn")) { if (done) done(); return; }
    if (pending[id]) { if (done) pending[id].push(done); return; }
    pending[id] = done ? [done] : [];
    var script = document.createElement("script");
    script.src = details.getAttribute("data-src");
    script.onerror = function () {
      details.querySelector(".drawing").textContent = "The drawing could not be loaded (" + script.src + ").";
      details.setAttribute("data-drawn", "failed");
      (pending[id] || []).forEach(function (callback) { callback(); });
      delete pending[id];
    };
    document.head.appendChild(script);
  }

  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (details.open && details.matches && details.matches("details.case")) draw(details);
  }, true);

  // A link to a case (#case-ID, from this page, another page or the search) opens it.
  function openTarget() {
    var hash = decodeURIComponent(window.location.hash.slice(1));
    if (hash.indexOf("case-") !== 0) return;
    var details = caseOf(hash.slice("case-".length));
    if (!details) return;
    details.open = true;
    draw(details, function () { details.scrollIntoView({ block: "start" }); });
  }
  window.addEventListener("hashchange", openTarget);
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[href*='#case-']");
    if (!link || link.pathname !== window.location.pathname) return;
    if (link.hash === window.location.hash) openTarget();  // the same hash: no hashchange comes
  });
  openTarget();

  // Printing: the rules only, unless the examples are asked for.
  var box = document.getElementById("print-examples");
  var state = document.getElementById("print-state");
  var button = document.getElementById("print");
  if (button) button.addEventListener("click", function () { window.print(); });
  if (!box) return;
  function examples() {
    var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
    document.body.classList.toggle("print-examples", box.checked);
    if (!box.checked) { state.textContent = ""; document.body.removeAttribute("data-examples"); return; }
    var left = cases.length;
    state.textContent = "loading " + left + " hands…";
    document.body.setAttribute("data-examples", "loading");
    function one() {
      left -= 1;
      if (left > 0) { state.textContent = "loading " + left + " hands…"; return; }
      state.textContent = cases.length + " hands ready to print.";
      document.body.setAttribute("data-examples", "ready");
    }
    if (!cases.length) { left = 1; one(); }
    cases.forEach(function (details) { details.open = true; draw(details, one); });
  }
  box.addEventListener("change", examples);
  if (box.checked) examples();  // the box kept its tick across a reload
})();
