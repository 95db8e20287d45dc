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

/* Static panels (saved widget state, no kernel).
 * - Every control is saved disabled (lib/workbook/site/build.py); here each gets its reason on hover and
 *   on keyboard focus (title, data-reason, aria-disabled, tabindex).
 * - A scrubbed panel's main knob: the range (.static-scrub, drawn frames) takes the knob's place
 *   inside the panel and the knob's own slider is hidden, so nothing on the page can contradict
 *   the picture. Each step swaps the picture (narrow frames on a phone), the readouts and the alt
 *   text; the range announces "name = value unit" (aria-valuetext).
 * - The panel keeps its size while it moves: before the first move every frame's readouts are
 *   laid out once and the largest size is kept as the minimum; the picture keeps its aspect ratio.
 * The frames (value, picture URLs, readout table, words) sit in the page as JSON. */
(function () {
  var REASON = "Needs a running kernel: this page cannot recompute. Open the notebook live (launch buttons at the top, or make lab).";
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 600px)") : { matches: false };
  function panelFor(box) { return document.querySelector("." + box.dataset.panel); }
  function contentOf(panel, cls) {
    return panel.querySelector("." + cls + " .widget-html-content") || panel.querySelector("." + cls);
  }
  function pictureOf(panel) { return panel.querySelector("img.fc-picture") || panel.querySelector("img"); }
  function frameImg(f) { return (narrow.matches && f.img_narrow) ? f.img_narrow : f.img; }
  function apply(box, frames, i) {
    var f = frames[i];
    if (!f) { return; }
    var out = box.querySelector(".static-scrub-value");
    if (out) { out.textContent = f.value; }
    var input = box.querySelector("input[type=range]");
    if (input && f.say) { input.setAttribute("aria-valuetext", f.say); }
    var panel = panelFor(box);
    if (!panel) { return; }
    var img = pictureOf(panel);
    if (img && f.img) { img.src = frameImg(f); if (f.alt) { img.alt = f.alt; } }
    var table = contentOf(panel, "fc-readouts");
    if (table) { table.innerHTML = f.table; }
    var msg = contentOf(panel, "fc-message");
    if (msg) { msg.innerHTML = f.message || ""; }
    var knob = panel.querySelector(".fc-main-knob");
    if (knob) {
      var readout = knob.querySelector(".widget-readout");
      if (readout) { readout.textContent = f.value; }
      var origin = knob.querySelector(".noUi-origin");
      if (origin && typeof f.pos === "number") {
        origin.style.transform = "translate(" + (10 * f.pos - 1000) + "%, 0px)";
      }
      var select = knob.querySelector("select");
      if (select) { select.selectedIndex = Array.prototype.map.call(select.options, function (o) { return o.text; }).indexOf(f.value); }
    }
  }
  function markNeedsKernel(root) {
    var sel = ".widget-slider, .widget-dropdown, .widget-button, .widget-toggle-buttons, .widget-radio, .widget-checkbox";
    Array.prototype.forEach.call(root.querySelectorAll(sel), function (w) {
      if (w.dataset.reason) { return; }
      if (w.closest(".fc-main-knob") && w.closest(".fc-scrub-owned")) { return; }
      w.classList.add("fc-needs-kernel");
      w.dataset.reason = REASON;
      w.setAttribute("title", REASON);
      w.setAttribute("aria-disabled", "true");
      w.setAttribute("tabindex", "0");
      var label = w.querySelector(".widget-label");
      var readout = w.querySelector(".widget-readout, select");
      var value = readout ? (readout.value !== undefined && readout.tagName === "SELECT" ?
        readout.options[readout.selectedIndex] && readout.options[readout.selectedIndex].text : readout.textContent) : "";
      w.setAttribute("aria-label", ((label && label.textContent) || w.textContent || "control").trim() +
        (value ? " = " + value.trim() : "") + ". " + REASON);
      Array.prototype.forEach.call(w.querySelectorAll("label.widget-label[title='null']"), function (l) { l.removeAttribute("title"); });
    });
  }
  function lockSize(box, frames, panel) {
    var top = panel.querySelector(".fc-panel-top");
    var table = contentOf(panel, "fc-readouts");
    var msg = contentOf(panel, "fc-message");
    var img = pictureOf(panel);
    if (img && img.naturalWidth) {
      img.style.aspectRatio = img.naturalWidth + " / " + img.naturalHeight;
      img.setAttribute("width", img.naturalWidth);
      img.setAttribute("height", img.naturalHeight);
    }
    if (!top || !table) { return; }
    var holder = table.closest(".fc-readouts") || table;
    var saveT = table.innerHTML, saveM = msg ? msg.innerHTML : "";
    top.style.minHeight = ""; holder.style.minWidth = ""; holder.style.minHeight = "";
    var h = 0, w = 0, th = 0;
    frames.forEach(function (f) {
      table.innerHTML = f.table;
      if (msg) { msg.innerHTML = f.message || ""; }
      h = Math.max(h, top.getBoundingClientRect().height);
      w = Math.max(w, holder.getBoundingClientRect().width);
      th = Math.max(th, holder.getBoundingClientRect().height);
    });
    table.innerHTML = saveT;
    if (msg) { msg.innerHTML = saveM; }
    // the readouts keep their widest width, but never squeeze the knobs beside them to a stub
    holder.style.minWidth = Math.ceil(Math.min(w, top.getBoundingClientRect().width * 0.45)) + "px";
    holder.style.minHeight = Math.ceil(th) + "px";
    top.style.minHeight = Math.ceil(h) + "px";
  }
  function adopt(box, frames, panel) {
    // the range takes the main knob's place inside the panel
    var knob = panel.querySelector(".fc-main-knob");
    if (knob && knob.parentElement && knob.offsetParent !== null) {
      knob.parentElement.insertBefore(box, knob);
      panel.classList.add("fc-scrub-owned");
      var lbl = box.querySelector(".static-scrub-label");
      if (lbl) { lbl.classList.add("fc-adopted"); }
    }
    var img = pictureOf(panel);
    var f0 = frames[+box.querySelector("input[type=range]").value];
    if (img && f0) {
      if (f0.alt) { img.alt = f0.alt; }
      if (narrow.matches && f0.img_narrow) { img.src = f0.img_narrow; }
    }
    markNeedsKernel(panel);
    var relock = function () { lockSize(box, frames, panel); };
    if (img && !img.complete) { img.addEventListener("load", relock, { once: true }); }
    relock();
    if (window.ResizeObserver) {
      var lastW = panel.getBoundingClientRect().width;
      new ResizeObserver(function () {
        var wNow = panel.getBoundingClientRect().width;
        if (Math.abs(wNow - lastW) > 2) { lastW = wNow; relock(); }
      }).observe(panel);
    }
    box.dataset.adopted = "1";
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
      frames.forEach(function (f) { if (f.img) { (new Image()).src = frameImg(f); } });
    }
    input.addEventListener("pointerdown", preload);
    input.addEventListener("focus", preload);
    input.addEventListener("input", function () { apply(box, frames, +input.value); });
    input.addEventListener("change", function () { apply(box, frames, +input.value); });
    var tries = 0;
    (function wait() {
      var panel = panelFor(box);
      if (panel && panel.querySelector(".fc-readouts") && panel.querySelector(".fc-panel-top")) { adopt(box, frames, panel); return; }
      if (++tries < 600) { setTimeout(wait, 100); }
    })();
  }
  function panelAlt() {
    // pictures of panels that do not scrub (exercises, solutions): what the panel is
    Array.prototype.forEach.call(document.querySelectorAll(".fc-panel"), function (p) {
      var img = p.querySelector("img.fc-picture");
      if (img && !img.alt) {
        var b = p.querySelector(".widget-html-content b");
        img.alt = "Plot of the panel " + (b ? b.textContent : "") + " at its saved inputs";
      }
      markNeedsKernel(p);
    });
    Array.prototype.forEach.call(document.querySelectorAll(".cell_output .jupyter-widgets"), function (w) {
      if (!w.closest(".fc-panel")) { markNeedsKernel(w); }
    });
  }
  function scrollBoxes() {
    // a displayed equation wider than its column scrolls in a visible box, with a hint
    Array.prototype.forEach.call(document.querySelectorAll("mjx-container[display='true']"), function (m) {
      var wide = m.scrollWidth > m.clientWidth + 1;
      m.classList.toggle("fc-scrolls", wide);
      if (wide) { m.setAttribute("tabindex", "0"); m.setAttribute("aria-label", "wide equation: scroll sideways"); }
    });
  }
  function initAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".static-scrub"), init);
    var n = 0;
    (function again() {
      panelAlt();
      if (++n < 40) { setTimeout(again, 500); }
    })();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", initAll);
  } else {
    initAll();
  }
  window.addEventListener("load", function () {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) { MathJax.startup.promise.then(scrollBoxes); }
    setTimeout(scrollBoxes, 1500);
  });
  window.addEventListener("resize", function () { scrollBoxes(); });
})();

/* Reference pages: the filter box (search text, chapter, kind) keeps only the rows that match;
 * a section whose rows are all hidden is hidden with its heading. Wide hand-written tables get
 * their column names on each cell, so they can become cards on a phone. */
(function () {
  function norm(t) { return (t || "").toLowerCase().replace(/\s+/g, " "); }
  function setup(form) {
    var text = form.querySelector(".ref-filter-text");
    var chapter = form.querySelector(".ref-filter-chapter");
    var kind = form.querySelector(".ref-filter-kind");
    var count = form.querySelector(".ref-filter-count");
    var article = form.closest("article") || document;
    var tables = Array.prototype.filter.call(article.querySelectorAll("table.reference-cards"), function (t) {
      return !t.classList.contains("ledger-summary") && (form.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    function sectionOf(t) { return t.closest("section"); }
    function titleOf(sec) { var h = sec && sec.querySelector("h2, h3"); return h ? h.textContent.replace(/[#¶]\s*$/, "").trim() : ""; }
    function run() {
      var q = norm(text && text.value).trim(), c = chapter ? chapter.value : "", k = kind ? norm(kind.value) : "";
      var shown = 0, total = 0;
      tables.forEach(function (t) {
        var sec = sectionOf(t), inChapter = !c || titleOf(sec) === c, visible = 0;
        Array.prototype.forEach.call(t.querySelectorAll("tbody tr"), function (tr) {
          total++;
          var cells = tr.querySelectorAll("td");
          var status = cells.length ? norm(cells[cells.length - 1].textContent) : "";
          var ok = inChapter && (!q || norm(tr.textContent).indexOf(q) >= 0) && (!k || status.indexOf(k) === 0 || status.indexOf("✓ " + k) === 0);
          tr.classList.toggle("ref-hidden", !ok);
          if (ok) { visible++; shown++; }
        });
        if (sec && sec !== form.closest("section")) { sec.classList.toggle("ref-hidden", visible === 0); }
      });
      if (count) { count.textContent = (q || c || k) ? shown + " of " + total + " rows" : total + " rows"; }
    }
    [text, chapter, kind].forEach(function (el) { if (el) { el.addEventListener("input", run); el.addEventListener("change", run); } });
    var params = new URLSearchParams(location.search);
    if (text && params.get("q")) { text.value = params.get("q"); }
    run();
  }
  function labelWide() {
    Array.prototype.forEach.call(document.querySelectorAll(".bd-article table:not(.reference-cards)"), function (t) {
      var heads = Array.prototype.map.call(t.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
      if (heads.length < 6) { return; }
      t.classList.add("fc-wide");
      Array.prototype.forEach.call(t.querySelectorAll("tbody tr"), function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, i) { if (heads[i]) { td.setAttribute("data-label", heads[i]); } });
      });
    });
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("form.ref-filter"), setup);
    labelWide();
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();

/* Opened from file:// (no server), the JupyterLite button would open a blank page: say why instead. */
(function () {
  if (location.protocol !== "file:") { return; }
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a.launch-lite");
    if (!a) { return; }
    e.preventDefault();
    if (a.parentNode.querySelector(".launch-file-note")) { return; }
    var n = document.createElement("span");
    n.className = "launch-file-note"; n.setAttribute("role", "alert");
    n.innerHTML = "JupyterLite must be served over http: run <code>make serve</code> and open this page at " +
      "http://127.0.0.1:8000/ (it needs the internet once, for Pyodide), or run <code>make lab</code>.";
    a.parentNode.appendChild(n);
  });
})();
