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
