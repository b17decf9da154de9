"""The five published articles this project rebuilds: their data, figures and helpers.

This package is the application side of the checkout, not part of the
``lbanalysis`` library (it is not in the wheel): the article notebooks in
``notebooks/`` import it. The library knows no article; everything specific
to one lives here.

=================================  ==========================================
module                             what it holds
=================================  ==========================================
:mod:`articles.paths`              the checkout's folders (``data/raw`` …)
:mod:`articles.sizing`             001: the HAProxy sizing guide's figures
:mod:`articles.haproxy_apache_siege`  003: its printed table, repeated runs, link loads
:mod:`articles.ledger`             claims ledgers: claims.csv → findings
:mod:`articles.report`             sentences, figure captions, the chart style
=================================  ==========================================

:data:`ARTICLES` lists the articles: slug, notebook, source text and tool.

>>> [a.slug for a in ARTICLES][:2]
['haproxy-wordpress-ab', 'haproxy-sizing']
>>> all((paths.NOTEBOOKS / a.notebook).is_file() for a in ARTICLES)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from . import paths

__all__ = ["ARTICLES", "Article", "paths"]


@dataclass(frozen=True)
class Article:
    """One published article: its slug (folder names), notebook, title and tool."""

    slug: str
    notebook: str
    title: str
    tool: str


ARTICLES: tuple[Article, ...] = (
    Article("haproxy-wordpress-ab", "01-haproxy-wordpress-ab.ipynb", "One Apache and HAProxy 1.4 on VMs", "ab"),
    Article("haproxy-sizing", "02-haproxy-sizing.ipynb", "HAProxy sizing: reference figures for one core", "none"),
    Article("haproxy-maxconn-gobench", "03-haproxy-maxconn-gobench.ipynb", "HAProxy maxconn and fullconn", "gobench"),
    Article("haproxy-apache-siege", "04-haproxy-apache-siege.ipynb", "HAProxy in front of one or two Apache", "siege"),
    Article("lbbench", "05-lbbench.ipynb", "HAProxy and node.js on droplets from 1 to 32 cores", "ab"),
)
