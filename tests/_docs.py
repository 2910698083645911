"""The repository's Markdown read the way a renderer reads it (markdown-it: CommonMark and
tables), for the tests that keep the docs true: code spans and code blocks, links, and heading
anchors as GitHub makes them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def pages() -> list[Path]:
    """Every page a user or contributor reads: the README, CONTRIBUTING, AGENTS and docs/.
    (The CHANGELOG is history: it names what existed when it was written.)"""
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "AGENTS.md", *doc_pages()]


def doc_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


@cache
def tokens(path: Path) -> list[Token]:
    """The page's block tokens (each inline token with its children)."""
    parser = MarkdownIt("commonmark").enable("table")
    return parser.parse(path.read_text(encoding="utf-8"))


def code_spans(path: Path) -> Iterator[str]:
    """Every code span's text, in page order."""
    for token in tokens(path):
        for child in token.children or ():
            if child.type == "code_inline":
                yield child.content


def code_lines(path: Path) -> Iterator[str]:
    """Every line of every code block, a shell line continued with `\\` joined to the next."""
    for token in tokens(path):
        if token.type in ("fence", "code_block"):
            yield from re.sub(r"\\\n", " ", token.content).splitlines()


def links(path: Path) -> Iterator[str]:
    """Every link's target (`href`), in page order."""
    for token in tokens(path):
        for child in token.children or ():
            if child.type == "link_open":
                yield str(child.attrs["href"])


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading with this text: lowercased, every character but
    letters, digits, `_`, `-` and spaces dropped, spaces made `-`."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of the page's headings (a repeated one numbered `-1`, `-2`, as GitHub does)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    page = tokens(path)
    for index, token in enumerate(page):
        if token.type != "heading_open":
            continue
        slug = github_slug(_text(page[index + 1]))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(found)


def headings(path: Path) -> list[str]:
    """The text of every heading of the page, in order."""
    page = tokens(path)
    return [_text(page[i + 1]) for i, t in enumerate(page) if t.type == "heading_open"]


def _text(inline: Token) -> str:
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))
