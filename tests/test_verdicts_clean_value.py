"""`verdicts._vocab.clean_value` joins a hyphen between letters only where there is a hyphen:
skipping the joiner pattern for a text without one (every vocabulary phrase cleaned at import)
must not change any cleaned value."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import _vocab

TEXTS = st.text(alphabet="ab- _*=’<>[]()\u00a0\t.是1", max_size=30) | st.text(max_size=30)


def _reference(text: str) -> str:
    """The cleaning with the joiner pattern applied to every text."""
    shown = _vocab._without_markup(_vocab.as_shown(text))
    return " ".join(_vocab._JOINER.sub(" ", shown).split())


@given(TEXTS)
def test_clean_value_is_the_cleaning_with_the_joiner_always_applied(text: str) -> None:
    assert _vocab.clean_value(text) == _reference(text)


def test_a_hyphen_between_letters_still_joins_words() -> None:
    assert _vocab.clean_value("pass-with-followups") == "pass with followups"
    assert _vocab.clean_value("5-6") == "5-6"
