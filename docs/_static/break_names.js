// Long names (inferred_average_precision_score,
// InterpolatedPrecisionRecallDisplay) may break only after an underscore or
// a dot, or between the words of a CamelCase name, never inside a word: in
// the sidebars' links and in table cells, a <wbr> goes at each such place. CSS alone cannot
// do this (overflow-wrap: anywhere breaks between any two letters).
// docs/check_pages.py checks that no name breaks elsewhere.
(() => {
  const SELECTOR =
    ".bd-sidebar-primary nav a, .bd-toc-nav a, .bd-article table code";
  // After "_" or "." between letters or digits, and inside CamelCase.
  const BREAK = /(?<=[A-Za-z0-9][_.])(?=[A-Za-z0-9])|(?<=[a-z])(?=[A-Z])/;
  const addBreaks = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (BREAK.test(n.nodeValue)) nodes.push(n);
    }
    for (const node of nodes) {
      const parts = node.nodeValue.split(BREAK);
      const fragment = document.createDocumentFragment();
      parts.forEach((part, i) => {
        if (i > 0) fragment.appendChild(document.createElement("wbr"));
        fragment.appendChild(document.createTextNode(part));
      });
      node.replaceWith(fragment);
    }
  };
  const run = () => document.querySelectorAll(SELECTOR).forEach(addBreaks);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
})();
