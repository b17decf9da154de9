"""A report page that stands alone: one file a reader can send, open offline, read at 600 px and print.

:func:`standalone` takes the HTML nbconvert exports and makes it a document:

- nothing leaves the page: every ``<script>`` (require.js, MathJax from a
  CDN, nothing a report needs) and every stylesheet ``<link>`` is removed;
- only the CSS the page uses: JupyterLab's theme (some 270 KB) gives way to
  :data:`PAGE_CSS`, a few rules for the classes a report holds, with a print
  stylesheet; the ``<style>`` blocks pandas writes beside its tables stay;
- ``<title>`` is the report's title (its first heading);
- a table of contents (the ``h2`` headings, ``h3`` under them) follows the
  title's cell;
- every chart's alt text is its caption (the ``Figure n.`` sentence that
  follows it), or the section it sits in;
- each cell's input and output can be reached with the Tab key;
- every table scrolls inside its own box, its first column kept in view;
- a link to ``#Some-words`` that names no element leads to the first heading
  whose id begins with those words (a ledger names its evidence by the start
  of the section's heading).

>>> page = standalone('''<html><head><title>Notebook</title><script src="https://cdn/x.js"></script>
... <style>.jp-huge {}</style></head><body><main>
... <div class="jp-Cell"><h1 id="A-report">A report<a class="anchor-link" href="#A-report">¶</a></h1></div>
... <div class="jp-Cell"><h2 id="The-tests">The tests</h2><a href="#The-tests">x</a><a href="#The">y</a>
... <table><tr><td>1</td></tr></table><img src="data:image/png;base64,AA=="><p><em>Figure 1.</em> Rates.</p></div>
... </main></body></html>''')
>>> "<script" in page, "jp-huge" in page, "<title>A report</title>" in page
(False, False, True)
>>> 'alt="Figure 1. Rates."' in page, '<div class="lb-table"><table>' in page, 'href="#The-tests">y' in page
(True, True, True)
>>> 'class="lb-toc"' in page and '<a href="#The-tests">The tests</a>' in page
True
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["PAGE_CSS", "standalone"]

#: The whole stylesheet of a report page: the classes nbconvert's lab template writes, tables, print.
PAGE_CSS = """
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #1f2328; background: #fff; margin: 0; }
main { max-width: 1200px; margin: 0 auto; padding: 1em 2em 3em; box-sizing: border-box; }
h1 { font-size: 1.7em; line-height: 1.25; margin: 0.6em 0 0.4em; }
h2 { font-size: 1.35em; margin: 1.6em 0 0.4em; padding-bottom: 0.2em; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.1em; margin: 1.2em 0 0.3em; }
p, li { max-width: 52em; }
a { color: #0b57d0; }
a.anchor-link { display: none; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f3f4f6;
  padding: 0 0.2em; border-radius: 3px; }
pre { font: 0.85em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f6f8fa;
  padding: 0.6em; overflow-x: auto; white-space: pre; }
.jp-Collapser, .jp-InputPrompt, .jp-OutputPrompt, .jp-mod-noOutputs.jp-mod-noInput { display: none; }
.jp-OutputArea-output { margin: 0.4em 0; }
.jp-RenderedImage img { max-width: 100%; height: auto; display: block; }
details > summary { cursor: pointer; color: #57606a; }
nav.lb-toc { font-size: 0.92em; margin: 0.8em 0 1.2em; padding: 0.5em 1em; background: #f6f8fa;
  border-radius: 6px; }
nav.lb-toc > strong { display: block; margin-bottom: 0.2em; }
nav.lb-toc ol { margin: 0; padding-left: 1.4em; }
nav.lb-toc ol ol { list-style: none; padding-left: 1em; font-size: 0.95em; }
.lb-table { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1em; }
.lb-table table { border-collapse: collapse; font-size: 0.85em; }
.lb-table th, .lb-table td { border-bottom: 1px solid #e1e4e8; padding: 0.2em 0.5em; vertical-align: top; }
.lb-table thead th { border-bottom: 2px solid #8c959f; }
.lb-table tr > :first-child { position: sticky; left: 0; background: #fff; z-index: 1;
  box-shadow: 1px 0 0 #e1e4e8; }
.lb-table td { white-space: nowrap; }
.lb-table caption { caption-side: top; text-align: left; color: #57606a; padding: 0.2em 0; }
table.lb-parameters { font-size: 0.8em; color: #444; }
@media (max-width: 700px) {
  body { font-size: 14px; }
  main { padding: 0.5em 0.8em 2em; }
}
@media print {
  body { font-size: 10pt; }
  main { max-width: none; padding: 0; }
  nav.lb-toc { background: none; border: 1px solid #ccc; }
  .lb-table { overflow: visible; }
  .lb-table table { font-size: 8pt; }
  .lb-table td { white-space: normal; }
  .lb-table tr > :first-child { position: static; box-shadow: none; }
  h1, h2, h3 { break-after: avoid; }
  img, table, figure { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"""

_FIGURE = re.compile(r"^\s*Figure\s+\d+\.")


def _text(tag: Any) -> str:
    """A heading's words without nbconvert's ``¶`` anchor."""
    return " ".join(tag.get_text(" ", strip=True).replace("¶", "").split())


def _caption_of(img: Any) -> str | None:
    """The ``Figure n.`` sentence after ``img`` (before the next chart or heading), if any."""
    nxt = img.find_next(
        lambda t: t.name in ("img", "h1", "h2", "h3") or (t.name == "p" and _FIGURE.match(t.get_text()))
    )
    if nxt is not None and nxt.name == "p":
        return " ".join(nxt.get_text(" ", strip=True).split())
    return None


def _section_of(img: Any) -> str | None:
    prev = img.find_previous(["h2", "h1"])
    return _text(prev) if prev is not None else None


def _toc(soup: Any, headings: list[Any]) -> Any:
    nav = soup.new_tag("nav", attrs={"class": "lb-toc", "aria-label": "contents"})
    label = soup.new_tag("strong")
    label.string = "Contents"
    nav.append(label)
    top = soup.new_tag("ol")
    nav.append(top)
    sub = None
    for h in headings:
        li = soup.new_tag("li")
        a = soup.new_tag("a", href=f"#{h['id']}")
        a.string = _text(h)
        li.append(a)
        if h.name == "h2" or top.find("li") is None:
            top.append(li)
            sub = None
        else:
            if sub is None:
                sub = soup.new_tag("ol")
                top.find_all("li", recursive=False)[-1].append(sub)
            sub.append(li)
    return nav


def _head(soup: Any) -> Any:
    """The page's ``<head>``, made when missing: no script, no stylesheet link or block but :data:`PAGE_CSS`, a
    viewport for small screens."""
    for tag in soup.find_all("script"):
        tag.decompose()
    for tag in soup.find_all("link"):
        tag.decompose()
    head = soup.head
    if head is None:
        head = soup.new_tag("head")
        (soup.html or soup).insert(0, head)
    for tag in head.find_all("style"):
        tag.decompose()
    if head.find("meta", attrs={"name": "viewport"}) is None:
        head.append(soup.new_tag("meta", attrs={"name": "viewport", "content": "width=device-width, initial-scale=1"}))
    css = soup.new_tag("style")
    css.string = PAGE_CSS
    head.append(css)
    return head


def _title(soup: Any, head: Any, h1: Any, title: str | None) -> None:
    """``<title>``: ``title``, else the first heading's words, else "Report"."""
    name = title or (_text(h1) if h1 is not None else None) or "Report"
    if head.title is None:
        head.insert(0, soup.new_tag("title"))
    head.title.string = name


def _link_headings(soup: Any, headings: list[Any]) -> None:
    """A link to ``#Some-words`` that names no element leads to the first heading whose id begins so."""
    ids = {t["id"] for t in soup.find_all(attrs={"id": True})}
    for a in soup.find_all("a", href=True):
        target = a["href"][1:] if a["href"].startswith("#") else None
        if target and target not in ids:
            hit = next((h["id"] for h in headings if h["id"].startswith(target)), None)
            if hit is not None:
                a["href"] = f"#{hit}"


def _alt_texts(soup: Any) -> None:
    """Each chart without alt text described by its caption, else by the section it sits in."""
    for img in soup.find_all("img"):
        if not img.get("alt") or img["alt"].startswith("No description"):
            caption = _caption_of(img)
            section = _section_of(img)
            img["alt"] = caption or (f"Chart in the section “{section}”" if section else "Chart")


def _focusable(soup: Any) -> None:
    """Each cell's input and output reachable with the Tab key (``tabindex="0"``), as nbconvert's exporter makes them."""
    for notebook in soup.find_all(class_="jp-Notebook"):
        for div in notebook.find_all("div", class_=["jp-Cell-inputWrapper", "jp-OutputArea-output"]):
            div["tabindex"] = "0"


def _boxed_tables(soup: Any) -> None:
    """Every outer table (not the parameters table) in a box of its own that scrolls."""
    for table in soup.find_all("table"):
        if table.find_parent("table") is None and "lb-parameters" not in (table.get("class") or []):
            box = soup.new_tag("div", attrs={"class": "lb-table"})
            table.wrap(box)


def _place_toc(soup: Any, h1: Any, headings: list[Any]) -> None:
    """The table of contents after the title's cell (else first in ``<main>`` or ``<body>``)."""
    anchor = h1.find_parent("div", class_="jp-Cell") if h1 is not None else None
    nav = _toc(soup, headings)
    if anchor is not None:
        anchor.insert_after(nav)
    elif soup.main is not None:
        soup.main.insert(0, nav)
    elif soup.body is not None:
        soup.body.insert(0, nav)


def standalone(html_text: str, *, title: str | None = None) -> str:
    """The exported notebook HTML as a page that stands alone (see the module's docstring)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html_text, "html.parser")
    head = _head(soup)
    h1 = soup.find("h1")
    _title(soup, head, h1, title)
    for a in soup.select("a.anchor-link"):
        a.decompose()
    headings = [h for h in soup.find_all(["h2", "h3"]) if h.get("id")]
    _link_headings(soup, headings)
    _alt_texts(soup)
    _focusable(soup)
    _boxed_tables(soup)
    if headings:
        _place_toc(soup, h1, headings)
    return str(soup)
