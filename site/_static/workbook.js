/* Workbook site script (served with the site).
 * The widget manager (@jupyter-widgets/html-manager 1.0.x) typesets math in rendered widgets
 * through the MathJax 2 API (MathJax.Hub.Queue); the site loads MathJax 3, which has no Hub.
 * Give MathJax 3 that one entry point so panels render without console errors. */
(function () {
  function shim() {
    var MJ = window.MathJax;
    if (!MJ || MJ.Hub || typeof MJ.typesetPromise !== "function") { return; }
    MJ.Hub = {
      Queue: function () {
        for (var i = 0; i < arguments.length; i++) {
          var job = arguments[i];
          if (Array.isArray(job) && job[0] === "Typeset" && job[2]) {
            MJ.typesetPromise([job[2]]).catch(function () {});
          }
        }
      }
    };
  }
  shim();
  document.addEventListener("DOMContentLoaded", shim);
  window.addEventListener("load", shim, true);
})();

/* Static scrubbing: a range input (.static-scrub) under a panel steps its main knob through
 * frames drawn when the site was built; each step swaps the panel's picture, its readouts and
 * the knob's own readout. The frames (value, picture URL, readout table) sit in the page as JSON. */
(function () {
  function panelFor(box) {
    return document.querySelector("." + box.dataset.panel);
  }
  function apply(box, frames, i) {
    var f = frames[i];
    if (!f) { return; }
    var out = box.querySelector(".static-scrub-value");
    if (out) { out.textContent = f.value; }
    var panel = panelFor(box);
    if (!panel) { return; }
    var img = panel.querySelector("img.fc-picture") || panel.querySelector("img");
    if (img && f.img) { img.src = f.img; }
    var table = panel.querySelector(".fc-readouts .widget-html-content") || panel.querySelector(".fc-readouts");
    if (table) { table.innerHTML = f.table; }
    var msg = panel.querySelector(".fc-message .widget-html-content") || panel.querySelector(".fc-message");
    if (msg) { msg.innerHTML = f.message || ""; }
    var knob = panel.querySelector(".fc-main-knob");
    if (knob) {
      var readout = knob.querySelector(".widget-readout");
      if (readout) { readout.textContent = f.value; }
      // the knob's own handle follows (noUiSlider places its origin at 10 * percent - 1000 %)
      var origin = knob.querySelector(".noUi-origin");
      if (origin && typeof f.pos === "number") {
        origin.style.transform = "translate(" + (10 * f.pos - 1000) + "%, 0px)";
        var handle = origin.querySelector(".noUi-handle");
        if (handle) { handle.setAttribute("aria-valuetext", f.value); }
      }
      var select = knob.querySelector("select");
      if (select) { select.selectedIndex = Array.prototype.map.call(select.options, function (o) { return o.text; }).indexOf(f.value); }
    }
  }
  function init(box) {
    if (box.dataset.ready) { return; }
    box.dataset.ready = "1";
    var input = box.querySelector("input[type=range]");
    var data = box.querySelector("script.static-scrub-frames");
    if (!input || !data) { return; }
    var frames = JSON.parse(data.textContent);
    var preloaded = false;
    function preload() {
      if (preloaded) { return; }
      preloaded = true;
      frames.forEach(function (f) { if (f.img) { (new Image()).src = f.img; } });
    }
    input.addEventListener("pointerdown", preload);
    input.addEventListener("focus", preload);
    input.addEventListener("input", function () { apply(box, frames, +input.value); });
    input.addEventListener("change", function () { apply(box, frames, +input.value); });
  }
  function initAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".static-scrub"), init);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initAll);
  } else {
    initAll();
  }
})();
