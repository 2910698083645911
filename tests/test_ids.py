"""The ids mergegate makes up keep their persisted shapes (`mergegate.ids`): recorded runs are
found, resumed and branched by them, so a changed shape would orphan them."""

from __future__ import annotations

import re

from mergegate import ids, store
from mergegate.review import context

RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")
CHECK_RUN_ID = re.compile(r"[0-9a-f]{12}")


def test_a_run_id_sorts_by_time_and_names_a_branch() -> None:
    assert RUN_ID.fullmatch(ids.new_run_id())


def test_a_check_run_id_is_twelve_hex_digits() -> None:
    made = {ids.new_check_run_id() for _ in range(100)}
    assert all(CHECK_RUN_ID.fullmatch(i) for i in made)
    assert len(made) == 100


def test_the_old_public_names_are_the_one_home() -> None:
    assert store.new_run_id is ids.new_run_id
    assert context.new_run_id is ids.new_check_run_id
