"""A run is looked up by a name only when `mergegate.ids` accepts it as a component (issue 26
item 2): the run folder, the report's lookup and the CLI's database lookups used their own
spelling of the check (`"/" in run or run.startswith(".")`), which let a name no run of
mergegate's can have (`a b`, `-x`, `a..b`) name a folder under the state directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.config import StateLayout
from mergegate.errors import UsageError
from mergegate.ids import IdError, check_component, is_component, new_run_id
from mergegate.store import RunStore, resolve_run

NO_RUN_NAMES = ["", ".", "..", ".hidden", "a/b", "a b", "-x", "a..b", "x.lock", "é", "a" * 129]


@given(st.text(max_size=30))
def test_is_component_is_check_component_as_a_question(value: str) -> None:
    try:
        check_component(value)
    except IdError:
        assert not is_component(value)
    else:
        assert is_component(value)


@pytest.mark.parametrize("name", NO_RUN_NAMES)
def test_a_name_no_run_can_have_names_no_run_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(UsageError, match="not a run id"):
        RunStore(tmp_path).run_dir(name)
    if "/" in name or not name or name.startswith("."):
        return  # a path, or the state directory itself: not made below
    (StateLayout(tmp_path).runs / name).mkdir(parents=True)
    with pytest.raises(UsageError, match="no run directory"):
        resolve_run(name, tmp_path)


def test_a_run_id_still_names_its_folder(tmp_path: Path) -> None:
    run = new_run_id()
    assert RunStore(tmp_path).run_dir(run) == StateLayout(tmp_path).runs / run
    (StateLayout(tmp_path).runs / run).mkdir(parents=True)
    assert resolve_run(run, tmp_path) == StateLayout(tmp_path).runs / run
