// The page's only script (inline, no external assets): the "only rows that disagree" filter,
// and, once the page has loaded, a record on <body> of what rendered (images decoded,
// comparison rows) that a headless browser test reads back from the DOM.
var onlyDisagree = document.getElementById("only-disagree");
if (onlyDisagree) {
  onlyDisagree.addEventListener("change", function (e) {
    document.querySelectorAll("table.comparison tr.agree").forEach(function (tr) {
      tr.style.display = e.target.checked ? "none" : "";
    });
  });
}
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute("data-images", String(imgs.length));
  document.body.setAttribute("data-images-rendered", String(ok.length));
  document.body.setAttribute("data-comparison-rows",
    String(document.querySelectorAll("table.comparison tbody tr").length));
  document.body.setAttribute("data-tables", String(document.querySelectorAll("table").length));
});
