"""`verdicts._vocab._prefix_tree`: the vocabulary as one pattern sharing prefixes.

Its text is the key of the compiled-pattern cache (`_pattern_cache`) and it is built at every
import, so a faster builder must give the same text, character for character, as the plain
one-escape-per-node recursion, and match what the flat list, longest phrase first, matches."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import _vocab

WORDS = st.lists(st.text(alphabet="ab .?-是否", min_size=1, max_size=6), min_size=1, max_size=12)


def _reference(words: list[str]) -> str:
    """The tree's pattern built one character per level (the definition)."""
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def walk(node: dict) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch) + walk(child) for ch, child in sorted(node.items()) if ch]
        if "" in node:
            branches.append("")
        return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"

    return walk(tree)


@given(WORDS)
def test_the_pattern_text_is_the_one_escape_per_node_recursion(words: list[str]) -> None:
    assert _vocab._prefix_tree(words) == _reference(words)


@given(WORDS, st.text(alphabet="ab .?-是否", max_size=12))
def test_it_matches_what_the_flat_list_longest_first_matches(words: list[str], text: str) -> None:
    flat = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    tree = re.compile(_vocab._prefix_tree(words))
    for start in range(len(text) + 1):
        want = re.compile(flat).match(text, start)
        got = tree.match(text, start)
        assert (got and got.group(0)) == (want and want.group(0))


def test_the_vocabularies_patterns_are_unchanged() -> None:
    deciding = [p for p in set(_vocab._DECIDING) if not _vocab._is_cjk(p)]
    assert _vocab._prefix_tree(deciding) == _reference(deciding)
