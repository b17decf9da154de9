"""Open a built report in headless Chromium and measure what a reader sees.

:func:`render` loads a copy of the page with a small script appended that,
once the page has loaded, measures every table's width and every image's
state and records the visible text; Chromium's ``--dump-dom`` hands that
back. :func:`screenshot` keeps a full-page PNG for a person to flip through.

Every load is made with the network off (a proxy that does not exist, no
name resolution): a page that stands alone loads whole anyway, and the
check counts every request that tried to leave it (``requests``).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH = 1400  # the page width a reader has

_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--mute-audio",
    # the network off: every request that would leave the page goes to a proxy that is not there
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
]

_CHECK = """
<script>
window.addEventListener("load", () => {
  const cells = [...document.querySelectorAll("td, th")].map((c) => c.innerText.trim());
  const tables = [...document.querySelectorAll("table")].map((t) => {
    const r = t.getBoundingClientRect();
    return {right: Math.round(r.right), width: Math.round(t.scrollWidth)};
  });
  const images = [...document.images].map((i) => ({src: i.src.slice(0, 60), ok: i.complete && i.naturalWidth > 0,
                                                   alt: i.alt}));
  const local = (u) => !u || /^(data:|file:|about:|blob:|#)/.test(u);
  const requests = performance.getEntriesByType("resource").map((e) => e.name).filter((u) => !local(u));
  for (const el of document.querySelectorAll("script[src], link[href], img[src], iframe[src], source[src]")) {
    const u = el.src || el.href;
    if (!local(u) && !requests.includes(u)) requests.push(u);
  }
  const boxes = [...document.querySelectorAll(".lb-table")].map((b) => Math.round(b.getBoundingClientRect().right));
  const verdicts = [...document.querySelectorAll("th")].filter((th) => th.innerText.trim() === "verdict")
    .map((th) => Math.round(th.getBoundingClientRect().right));
  const css = [...document.styleSheets].flatMap((sh) => [...sh.cssRules].map((r) => r.cssText)).join(" ");
  const links = [...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute("href").slice(1))
    .filter((id) => id && !document.getElementById(id) && !document.getElementById(decodeURIComponent(id)));
  const result = {
    tables, images, cells, requests, boxes, verdicts, links,
    title: document.title,
    toc: document.querySelectorAll("nav.lb-toc a").length,
    print: /@media print/.test(css),
    css_bytes: [...document.querySelectorAll("style")].reduce((n, s) => n + s.textContent.length, 0),
    width: window.innerWidth,
    inputs: document.querySelectorAll(".jp-CodeCell .jp-Cell-inputWrapper, .jp-InputArea-editor, .jp-InputArea.code").length,
    text: document.body.innerText,
    height: Math.ceil(document.documentElement.scrollHeight),
    scripted: window.__lbanalysis_injected === true || document.title === "pwned",
  };
  const pre = document.createElement("pre");
  pre.id = "lb-check";
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
});
</script>
"""


def _run(args: list[str], timeout: float = 90) -> str:
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [CHROMIUM, *_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "HOME": profile},
        )
    return proc.stdout


def render(page: str | os.PathLike, width: int = WIDTH) -> dict:
    """What a reader's browser shows of ``page`` at ``width`` px, the network off: tables, images (with
    their alt text), input cells, text, height, the requests that tried to leave the page, the right
    edge of every table box and verdict header, internal links that lead nowhere, the title."""
    page = Path(page)
    with tempfile.TemporaryDirectory() as d:
        copy = page.parent / f".check-{page.name}"  # beside the page, so relative images load
        try:
            text = page.read_text(encoding="utf-8")
            copy.write_text(text.replace("</body>", _CHECK + "</body>") if "</body>" in text else text + _CHECK)
            dom = _run(["--dump-dom", "--virtual-time-budget=8000", f"--window-size={width},1000", copy.as_uri()])
        finally:
            copy.unlink(missing_ok=True)
        del d
    m = re.search(r'<pre id="lb-check">(.*?)</pre>', dom, re.S)
    if not m:
        raise AssertionError(f"{page}: the page did not finish loading in Chromium")
    return json.loads(html.unescape(m.group(1)))


def screenshot(page: str | os.PathLike, png: str | os.PathLike, height: int, width: int = WIDTH) -> Path:
    """A full-page screenshot of ``page`` (``width`` px wide, ``height`` px tall, at most 30,000) into ``png``."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    height = max(600, min(int(height), 30000))
    _run([f"--screenshot={png}", f"--window-size={width},{height}", Path(page).as_uri()])
    return png


def problems(seen: dict) -> list[str]:
    """What a reader would trip over in a rendered report (empty when none)."""
    found = []
    if seen["inputs"]:
        found.append(f"{seen['inputs']} code cell(s) shown")
    for pattern in (r"Traceback \(most recent call last\)", r"\b\w*Warning\b:", r"\bException\b:"):
        hit = re.search(pattern, seen["text"])
        if hit:
            found.append(f"traceback or warning text: {seen['text'][max(0, hit.start() - 60) : hit.end() + 60]!r}")
    for cell in seen["cells"]:
        if re.search(r"\d[eE][+-]?\d", cell):
            found.append(f"scientific notation in a table cell: {cell!r}")
        if "…" in cell or cell == "...":
            found.append(f"elided table cell: {cell!r}")
        if cell in ("NaN", "<NA>", "nan", "None", "NaT"):
            found.append(f"raw missing value in a table cell: {cell!r}")
    width = seen.get("width", WIDTH)
    if width >= WIDTH:
        for t in seen["tables"]:
            if t["right"] > width or t["width"] > width:
                found.append(f"table wider than the {width} px page: {t}")
    for right in seen.get("boxes", []):
        if right > width:
            found.append(f"a table's box runs past the {width} px page ({right} px)")
    for right in seen.get("verdicts", []):
        if right > width:
            found.append(f"the verdict column is off the {width} px page ({right} px)")
    for url in seen.get("requests", []):
        found.append(f"a request leaves the page: {url}")
    for target in seen.get("links", []):
        found.append(f"a link to #{target} leads nowhere")
    for i in seen["images"]:
        if not i["ok"]:
            found.append(f"image not loaded: {i['src']}")
        if not i.get("alt", "x") or i.get("alt", "").startswith("No description"):
            found.append(f"image without a description: {i['src']}")
    if seen["scripted"]:
        found.append("a script from the data ran")
    return sorted(set(found))
