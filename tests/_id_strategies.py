"""Hypothesis strategies for the id round-trip tests: the one spelling of what a valid path
component and a run id look like, shared by every `test_ids_*` file."""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["components", "run_ids"]

components = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}(\.[A-Za-z0-9_-]{1,5})?", fullmatch=True)
"""A name `ids.check_component` accepts: a plan's unit or task id, a folder, a run name."""

run_ids = st.builds(
    lambda d, t, x: f"{d:08d}-{t:06d}-{x:04x}",
    st.integers(0, 99_999_999),
    st.integers(0, 999_999),
    st.integers(0, 0xFFFF),
)
"""A run id as `ids.new_run_id` makes them: date, time and a random suffix."""
