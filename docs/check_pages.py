"""Check built documentation pages in headless Chromium and screenshot them.

A developer tool, not part of the test suite. Build the site first, then::

    python -m sphinx -W --keep-going -q -b html docs docs/_build/html
    python docs/check_pages.py /tmp/page-shots

Each page is opened from ``docs/_build/html`` in headless Chromium with the
network cut off (every host name fails to resolve), so the pages are seen as
they are offline. At each viewport width (``--width``; 1280, 1200 and 900
CSS pixels by default) the script checks, and prints one line per check:

* **offline**: the page requested nothing from the network;
* **maths**: where the page has formulas, MathJax typeset each of them (one
  ``mjx-container`` per ``.math`` element, no raw ``\\(``, ``\\)``, ``\\[``
  or ``\\]`` left in the page's text outside code) and every display
  formula is centred in its column (within 2 px);
* **page width**: ``document.documentElement``, the theme's content column
  (``.bd-article-container``) and the article in it (``.bd-article``) are
  no wider than their boxes (``scrollWidth`` against ``clientWidth``):
  nothing makes the page or the column scroll sideways;
* **blocks**: no element of the article runs past its edges (a long title,
  a table, a gallery card), and no table, code block, formula or output
  block needs a horizontal scroll bar of its own (a clipped table column,
  a code line too long to show);
* **names**: no name in the sidebars' links or in a table's code breaks
  inside a word (only after ``_``, ``.``, a space, a comma, a hyphen or a
  parenthesis, or between the words of a CamelCase name);
* **images**: every image loaded;
* **scripts**: no JavaScript error.

It saves one full-page PNG screenshot per page and width in the folder given
on the command line (created if needed), named ``<page>-<width>.png``; look
at them. It exits with status 1 when a check fails, 0 when all pass, and 0
with a "skipped" message when no Chromium is found (``--chromium`` or the
``CHROMIUM`` environment variable give its path; on Debian and Ubuntu,
``apt-get install chromium``). It needs only the standard library: it talks
to Chromium over the DevTools protocol on a pipe (POSIX only).

``--page`` checks other pages (paths relative to the build folder, repeat
it), ``--all`` every page of the build.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from base64 import b64decode
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_BUILD = HERE / "_build" / "html"
# The landing page, one API page, the gallery, two gallery examples (one with
# the command line's output), the ties guide, the metrics guide (formulas
# and the widest tables), the beyond-accuracy guide (its formulas), the
# conformance table (four columns of names) and the benchmarks' tables.
DEFAULT_PAGES = (
    "index.html",
    "generated/sklearn_rankk.ndcg_at_k_score.html",
    "auto_examples/index.html",
    "auto_examples/compare_models.html",
    "auto_examples/trec_files_command_line.html",
    "user_guide/conventions.html",
    "user_guide/metrics.html",
    "user_guide/beyond_accuracy.html",
    "user_guide/conformance.html",
    "benchmarks.html",
)
# A laptop; the narrowest text column (both sidebars, from 1200 px on); one
# column without sidebars (below 960 px).
DEFAULT_WIDTHS = (1280, 1200, 900)
VIEWPORT_HEIGHT = 900
MAX_SHOT_HEIGHT = 12000  # CSS pixels; longer pages are cut at the bottom
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
TIMEOUT = 60.0  # seconds for one DevTools command or page load

# Runs in the page once it is loaded and MathJax has finished: returns what
# the checks need, as plain JSON.
MEASURE = r"""
(() => {
  const tol = 1;
  const article = document.querySelector(".bd-article") ||
                  document.querySelector("main") || document.body;
  const column = document.querySelector(".bd-article-container") || article;
  const box = article.getBoundingClientRect();
  const root = document.documentElement;
  const describe = (el) => {
    let text = el.tagName.toLowerCase();
    if (el.id) text += "#" + el.id;
    const cls = [...el.classList].slice(0, 2).join(".");
    if (cls) text += "." + cls;
    const words = (el.innerText || el.alt || "").trim().split(/\s+/);
    return text + ' "' + words.slice(0, 6).join(" ").slice(0, 50) + '"';
  };
  // Blocks that must fit the column, and must not scroll inside it.
  const blocks = article.querySelectorAll(
    "table, pre, div.math, mjx-container[display='true'], img, figure, " +
    ".sphx-glr-thumbnails, .sphx-glr-thumbcontainer, .sphx-glr-script-out"
  );
  const wide = [], scrolling = [];
  // Anything that sticks out of the column: the outermost such elements
  // (inside code blocks and formulas, which scroll, the box itself counts).
  const outside = (el) => {
    const r = el.getBoundingClientRect();
    return (r.width > 0 || r.height > 0) &&
           (r.right > box.right + tol || r.left < box.left - tol);
  };
  for (const el of article.querySelectorAll("*")) {
    if (!outside(el) || el.parentElement.closest("pre, mjx-container") ||
        (el.parentElement !== article && outside(el.parentElement))) continue;
    const r = el.getBoundingClientRect();
    wide.push(describe(el) + ` spans ${Math.round(r.left - box.left)}..` +
              `${Math.round(r.right - box.left)} px of a ` +
              `${Math.round(box.width)} px column`);
  }
  for (const el of blocks) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // hidden
    const style = getComputedStyle(el);
    if (el.scrollWidth > el.clientWidth + tol && el.tagName !== "IMG" &&
        style.overflowX !== "visible") {
      scrolling.push(describe(el) + ` shows ${el.clientWidth} of ` +
                     `${el.scrollWidth} px`);
    }
  }
  // Formulas: typeset, none left as TeX, display ones centred.
  const sources = document.querySelectorAll(".math");
  const rendered = document.querySelectorAll("mjx-container");
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("script, style, pre, code, textarea"))
      continue;
    const text = node.nodeValue;
    const at = text.search(/\\[\(\)\[\]]/);
    if (at >= 0) raw.push(text.slice(Math.max(0, at - 20), at + 30).trim());
  }
  const offCentre = [];
  for (const c of document.querySelectorAll('mjx-container[display="true"]')) {
    const math = c.querySelector("mjx-math") || c.firstElementChild;
    const column = c.closest("div.math") || c.parentElement;
    if (!math || !column) continue;
    if (c.scrollWidth > c.clientWidth + tol) continue;  // too wide: a block fault
    const m = math.getBoundingClientRect(), p = column.getBoundingClientRect();
    const shift = (m.left + m.right) / 2 - (p.left + p.right) / 2;
    if (Math.abs(shift) > 2)
      offCentre.push(describe(column) + ` is ${Math.round(shift)} px off centre`);
  }
  // Names in the sidebars and in table cells: a line may break only after
  // an underscore, a dot, a space, a comma, a hyphen or a parenthesis, never
  // between two letters ("set_relative_precision_scor" / "e").
  const brokenNames = [];
  const named = document.querySelectorAll(
    ".bd-sidebar-primary nav a, .bd-toc-nav a, .bd-article table code");
  for (const el of named) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;  // a drawer
    const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let top = null, before = "", broken = false;
    for (let n = texts.nextNode(); n && !broken; n = texts.nextNode()) {
      for (let i = 0; i < n.nodeValue.length && !broken; i++) {
        const range = document.createRange();
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const r = range.getClientRects()[0];
        const ch = n.nodeValue[i];
        if (r && r.width > 0) {
          const camel = /[a-z]/.test(before) && /[A-Z]/.test(ch);
          if (top !== null && r.top > top + 2 && !camel &&
              !/[\s_.,()\-]/.test(before)) {
            brokenNames.push(describe(el) + ` breaks between "${before}" and "${ch}"`);
            broken = true;
          }
          top = r.top;
        }
        before = ch;
      }
    }
  }
  const images = [...document.images]
    .filter((img) => img.complete && img.naturalWidth === 0)
    .map((img) => img.getAttribute("src"));
  return {
    root: [root.scrollWidth, root.clientWidth],
    article: [article.scrollWidth, article.clientWidth, describe(article)],
    column: [column.scrollWidth, column.clientWidth, describe(column)],
    wide, scrolling,
    maths: {sources: sources.length, rendered: rendered.length, raw,
            offCentre, version: window.MathJax && MathJax.version || null},
    brokenImages: images,
    brokenNames,
    height: Math.ceil(Math.max(root.scrollHeight, document.body.scrollHeight)),
  };
})()
"""

# Resolves once MathJax (if the page loads it) has typeset, and fonts are in.
SETTLE = r"""
(async () => {
  for (let i = 0; i < 100 && window.MathJax && !MathJax.startup; i++)
    await new Promise((r) => setTimeout(r, 50));  // script still loading
  if (window.MathJax && MathJax.startup && MathJax.startup.promise)
    await MathJax.startup.promise;
  await document.fonts.ready;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)));
  return true;
})()
"""


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe."""

    def __init__(self, executable):
        self._profile = tempfile.mkdtemp(prefix="check-pages-")
        to_chrome, self._write = os.pipe()
        self._read, from_chrome = os.pipe()
        args = [
            executable,
            "--headless=new",
            "--remote-debugging-pipe",
            "--no-sandbox",  # needed as root, harmless otherwise
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--font-render-hinting=none",
            f"--user-data-dir={self._profile}",
            # Offline: no host name resolves, so any network request fails.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "about:blank",
        ]
        # Chromium reads commands from fd 3 and writes replies to fd 4.
        self._process = subprocess.Popen(
            ["sh", "-c", f'exec "$@" 3<&{to_chrome} 4>&{from_chrome}', "sh", *args],
            pass_fds=(to_chrome, from_chrome),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome)
        os.close(from_chrome)
        self._buffer = b""
        self._next_id = 0
        self._events = []

    def close(self):
        with contextlib.suppress(Exception):
            self.send("Browser.close")
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._read, self._write):
            os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def _receive(self, deadline):
        """The next message from Chromium, or None at the deadline."""
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                return None
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        """Send one command and return its result (events are kept)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._receive(deadline)
            if reply is None:
                raise TimeoutError(f"no reply to {method} in {TIMEOUT:.0f} s")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def wait_for(self, method, session):
        """Wait for an event of this page session."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, event in enumerate(self._events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self._events.pop(i)
            event = self._receive(deadline)
            if event is None:
                raise TimeoutError(f"no {method} in {TIMEOUT:.0f} s")
            self._events.append(event)

    def events(self, session):
        """The events of a page session received so far (removed)."""
        mine = [e for e in self._events if e.get("sessionId") == session]
        self._events = [e for e in self._events if e.get("sessionId") != session]
        return mine

    def evaluate(self, session, expression):
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            session,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text", "error"))
        return result["result"].get("value")


def find_chromium(given):
    """The browser to run: the one given (option, then CHROMIUM), else the
    first of BROWSERS on the PATH; None if there is none."""
    given = given or os.environ.get("CHROMIUM")
    for candidate in (given,) if given else BROWSERS:
        if shutil.which(candidate):
            return shutil.which(candidate)
    return None


def check_page(browser, url, width, shot):
    """Load one page at one width, screenshot it; return (check, ok, detail)."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send(
        "Target.attachToTarget", {"targetId": target, "flatten": True}
    )["sessionId"]
    try:
        for domain in ("Page", "Runtime", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": width,
                "height": VIEWPORT_HEIGHT,
                "deviceScaleFactor": 1,
                "mobile": False,
            },
            session,
        )
        browser.send("Page.navigate", {"url": url}, session)
        browser.wait_for("Page.loadEventFired", session)
        browser.evaluate(session, SETTLE)
        found = browser.evaluate(session, MEASURE)
        events = browser.events(session)
        height = min(found["height"], MAX_SHOT_HEIGHT)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        png = browser.send(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": False},
            session,
        )["data"]
        shot.write_bytes(b64decode(png))
    finally:
        browser.send("Target.closeTarget", {"targetId": target})

    network = sorted(
        {
            e["params"]["request"]["url"]
            for e in events
            if e["method"] == "Network.requestWillBeSent"
            and not e["params"]["request"]["url"].startswith(("file:", "data:"))
        }
    )
    errors = [
        e["params"]["exceptionDetails"].get("exception", {}).get("description")
        or e["params"]["exceptionDetails"].get("text")
        for e in events
        if e["method"] == "Runtime.exceptionThrown"
    ]
    maths = found["maths"]
    results = [("offline", not network, ", ".join(network) or "no network request")]
    if maths["sources"]:
        problems = []
        if maths["rendered"] < maths["sources"]:
            problems.append(
                f"{maths['rendered']} of {maths['sources']} formulas typeset"
            )
        problems += [f"raw TeX {text!r}" for text in maths["raw"][:5]]
        problems += maths["offCentre"][:5]
        detail = "; ".join(problems) or (
            f"{maths['rendered']} formulas typeset by MathJax {maths['version']}, "
            f"display formulas centred"
        )
        results.append(("maths", not problems, detail))
    else:
        results.append(("maths", True, "no formulas on this page"))
    boxes = [("page", *found["root"])] + [
        (name.split(" ")[0], wide, client)
        for wide, client, name in (found["column"], found["article"])
    ]
    results.append(
        (
            "page width",
            all(wide <= client for _, wide, client in boxes),
            ", ".join(f"{name} {wide}/{client}" for name, wide, client in boxes)
            + " px (scrollWidth/clientWidth)",
        )
    )
    blocks = found["wide"] + found["scrolling"]
    results.append(
        (
            "blocks",
            not blocks,
            "; ".join(blocks[:8]) + (f" (+{len(blocks) - 8} more)" * (len(blocks) > 8))
            or "every table, code block, formula, image and card fits the column",
        )
    )
    broken = found["brokenNames"]
    results.append(
        (
            "names",
            not broken,
            "; ".join(broken[:5]) + (f" (+{len(broken) - 5} more)" * (len(broken) > 5))
            or "no name in a sidebar or table breaks between two letters",
        )
    )
    results.append(
        (
            "images",
            not found["brokenImages"],
            ", ".join(found["brokenImages"]) or "all loaded",
        )
    )
    results.append(("scripts", not errors, "; ".join(errors) or "no error"))
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("out", type=Path, help="folder for the PNG screenshots")
    parser.add_argument(
        "--build",
        type=Path,
        default=DEFAULT_BUILD,
        help="the built HTML site (default: docs/_build/html)",
    )
    parser.add_argument(
        "--page",
        action="append",
        help="a page to check, relative to the build folder (repeatable)",
    )
    parser.add_argument("--all", action="store_true", help="check every page")
    parser.add_argument(
        "--width",
        type=int,
        action="append",
        help=f"viewport width in CSS pixels (repeatable; default {DEFAULT_WIDTHS})",
    )
    parser.add_argument("--chromium", help="path of the Chromium (or Chrome) binary")
    args = parser.parse_args(argv)

    chromium = find_chromium(args.chromium)
    if chromium is None:
        print(
            "check_pages: skipped, no Chromium found (install it, e.g. "
            "`apt-get install chromium`, or give --chromium PATH); "
            "no page was checked",
            file=sys.stderr,
        )
        return 0
    build = args.build.resolve()
    if args.all:
        pages = sorted(
            str(p.relative_to(build))
            for p in build.rglob("*.html")
            if not p.relative_to(build).parts[0].startswith("_")
        )
    else:
        pages = args.page or list(DEFAULT_PAGES)
    missing = [page for page in pages if not (build / page).is_file()]
    if missing:
        print(f"check_pages: not built: {', '.join(missing)}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)

    failed = 0
    browser = Browser(chromium)
    try:
        for page in pages:
            for width in args.width or DEFAULT_WIDTHS:
                name = page.removesuffix(".html").replace("/", "_")
                shot = args.out / f"{name}-{width}.png"
                results = check_page(browser, (build / page).as_uri(), width, shot)
                print(f"{page} at {width} px -> {shot}")
                for check, ok, detail in results:
                    print(f"  {'ok  ' if ok else 'FAIL'} {check}: {detail}")
                    failed += not ok
    finally:
        browser.close()
    print(f"{failed} check(s) failed" if failed else "all checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
