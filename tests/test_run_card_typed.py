"""A run's card is typed end to end (issue 26, item 3): the store's `RunRecord` is generic over
the engine's models of its agents and options, read and written as `EngineRunRecord`, and not
one persisted byte changed.

`tests/data/run_cards/` holds a card and its `run.json` as the previous code (2df850d) wrote
them, agents and options `dict[str, Any]` on the card and re-validated by the engine: the typed
card loads them and writes them back byte for byte. The previous code wrote the review policy's
`blocking_severities` (a set) in the process's string-hash order (`PYTHONHASHSEED`): the golden
card is one of the two orders it wrote, `card-other-set-order.json` the other; a typed card
always writes `Severity`'s order, in every process, so it loads the other order to the same
value and writes it back in that order on its next save.

For any agents and options, the typed card dumps what the dict-typed card (its fields copied
below as they were) dumped. A bare `RunRecord` (`RunRecord[Any, Any]` to mypy, empty
`BaseModel`s to pydantic) is refused by the store and kept out of the code by the syntax-tree
test at the end.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from _cards import card
from mergegate.agents.sandbox import SandboxPolicy
from mergegate.engine import AgentSpec, EngineRunRecord, RunAgents, RunOptions, list_runs
from mergegate.plans import Plan, PlanFormat
from mergegate.store import RunRecord, RunState, RunStore, sqlite_url, tables

DATA = Path(__file__).parent / "data" / "run_cards"
ROOT = Path(__file__).resolve().parents[1]
GOLDEN_ID = "20260101-000000-golden"


class _DictCard(BaseModel):
    """The card as the previous code declared it (agents and options as dicts)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    status: RunState = RunState.RUNNING
    started: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    started_epoch: float = Field(default_factory=time.time)
    finished: str | None = None
    plan: str = ""
    plan_path: str | None = None
    plan_root: str | None = None
    repo: str
    into: str
    base_sha: str
    generation: int = 1
    exit_code: int | None = None
    message: str = ""
    agents: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    database: str | None = None
    fleet: bool = False
    remote: str | None = None


def _golden_card() -> str:
    return (DATA / "card.json").read_text(encoding="utf-8")


def _store_with(state: Path, run_id: str, raw_card: str) -> RunStore:
    """A store holding `raw_card` as its database row, as an older mergegate left it."""
    store = RunStore(state)
    store.run_dir(run_id).mkdir(parents=True)
    db = tables(sqlite_url(store.database_path(run_id)))
    plan = Plan(format=PlanFormat.NATIVE, title="golden").model_dump_json(indent=2, by_alias=True)
    assert db.insert_run(run_id, raw_card, plan)
    return store


def test_a_card_written_by_the_dict_typed_code_loads_and_writes_back_byte_for_byte(
    tmp_path: Path,
) -> None:
    raw = _golden_card()
    store = _store_with(tmp_path / "state", GOLDEN_ID, raw)
    loaded = store.load(GOLDEN_ID, EngineRunRecord)
    assert isinstance(loaded.agents, RunAgents)
    assert isinstance(loaded.options, RunOptions)
    assert loaded.agents.reviewer == AgentSpec(cmd="python3 review.py {prompt_file} — ünïcode")
    assert loaded.options.sandbox.allow == (Path("/opt/cache"),)
    assert loaded.options.review.max_rounds == 4
    store.save(loaded)
    assert store.locate(GOLDEN_ID).card(GOLDEN_ID) == raw
    written = (store.run_dir(GOLDEN_ID) / "run.json").read_bytes()
    assert written == (DATA / "run.json").read_bytes()


def test_a_card_in_the_other_set_order_loads_the_same_and_is_written_in_severity_order(
    tmp_path: Path,
) -> None:
    other = (DATA / "card-other-set-order.json").read_text(encoding="utf-8")
    assert '"blocking_severities":["important","critical"]' in other
    store = _store_with(tmp_path / "state", GOLDEN_ID, other)
    loaded = store.load(GOLDEN_ID, EngineRunRecord)
    assert loaded == EngineRunRecord.model_validate_json(_golden_card())
    store.save(loaded)
    assert store.locate(GOLDEN_ID).card(GOLDEN_ID) == _golden_card()


@pytest.mark.parametrize("seed", ["0", "3", "5"])
def test_a_card_is_the_same_bytes_whatever_the_hash_seed(seed: str) -> None:
    """The seeds under which the previous code wrote the severities the other way round."""
    script = (
        "import sys; from mergegate.engine import EngineRunRecord as C; "
        "sys.stdout.write(C.model_validate_json(sys.stdin.read()).model_dump_json())"
    )
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=_golden_card(),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert done.stdout == _golden_card()


def test_an_old_card_is_listed_with_its_status(tmp_path: Path) -> None:
    _store_with(tmp_path / "state", GOLDEN_ID, _golden_card())
    [shown] = list_runs(tmp_path / "state")
    assert shown["run_id"] == GOLDEN_ID
    assert shown["status"] == "waiting_for_human"


def test_a_new_typed_card_stores_the_bytes_the_dict_typed_card_stored(tmp_path: Path) -> None:
    """The card the golden files were written from, made today the way `create_run` makes
    it, stores the same database row and `run.json`."""
    old = _DictCard.model_validate_json(_golden_card())
    agents = RunAgents.model_validate(old.agents)
    options = RunOptions.model_validate(old.options)
    fields = old.model_dump(exclude={"agents", "options"})
    typed = EngineRunRecord(**fields, agents=agents, options=options)
    store = RunStore(tmp_path / "state")
    store.create(typed, Plan(format=PlanFormat.NATIVE, title="golden"))
    assert store.locate(GOLDEN_ID).card(GOLDEN_ID) == _golden_card()
    written = (store.run_dir(GOLDEN_ID) / "run.json").read_bytes()
    assert written == (DATA / "run.json").read_bytes()


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_SPECS = st.builds(AgentSpec, name=st.none() | _TEXT, cmd=st.none() | _TEXT)
_AGENTS = st.builds(
    RunAgents,
    implementer=_SPECS,
    reviewer=st.none() | _SPECS,
    verifier=st.none() | _SPECS,
    advisors=st.lists(_TEXT, max_size=3).map(tuple),
    advisor_cmds=st.lists(_TEXT, max_size=3).map(tuple),
)
_SECONDS = st.floats(min_value=1e-9, max_value=1e12, allow_nan=False, allow_infinity=False)
_PATHS = st.lists(_TEXT.map(lambda t: Path("/", t)), max_size=3).map(tuple)
_OPTIONS = st.builds(
    RunOptions,
    concurrency=st.integers(1, 1_000),
    review_mode=st.sampled_from(["auto", "manual", "off"]),
    on_escalation=st.sampled_from(["skip", "continue", "stop"]),
    fix_commits=st.sampled_from(["separate", "amend"]),
    phase=st.none() | _TEXT,
    check_timeout_s=_SECONDS,
    run_wall_s=st.none() | _SECONDS,
    task_wall_s=st.none() | _SECONDS,
    max_tokens=st.none() | st.integers(0, 2**62),
    max_cost_usd=st.none() | st.floats(allow_nan=False, allow_infinity=False),
    sandbox=st.builds(SandboxPolicy, enabled=st.booleans(), allow=_PATHS, read=_PATHS),
)


@settings(max_examples=60, deadline=None)
@given(agents=_AGENTS, options=_OPTIONS, message=_TEXT)
def test_for_any_agents_and_options_the_typed_card_dumps_what_the_dict_typed_one_did(
    agents: RunAgents, options: RunOptions, message: str
) -> None:
    common: dict[str, Any] = {
        "run_id": "r1",
        "repo": "/r",
        "into": "i",
        "base_sha": "0" * 40,
        "started": "2026-01-01T00:00:00+00:00",
        "started_epoch": 1.5,
        "message": message,
    }
    old = _DictCard(
        **common, agents=agents.model_dump(mode="json"), options=options.model_dump(mode="json")
    )
    typed = EngineRunRecord(**common, agents=agents, options=options)
    assert typed.model_dump_json() == old.model_dump_json()
    assert EngineRunRecord.model_validate_json(old.model_dump_json()) == typed
    on_disk = json.dumps(typed.model_dump(mode="json"))
    assert on_disk == json.dumps(old.model_dump(mode="json"))


def test_the_store_refuses_a_bare_run_record(tmp_path: Path) -> None:
    """A bare `RunRecord` would read the agents and options as empty models (and to mypy it
    is `RunRecord[Any, Any]`): every door of the store refuses it."""
    store = RunStore(tmp_path / "state")
    plan = Plan(format=PlanFormat.NATIVE, title="p")
    store.create(card("r1"), plan)
    for read in (
        lambda: store.load("r1", RunRecord),
        lambda: store.list(RunRecord),
    ):
        with pytest.raises(TypeError, match="concrete RunRecord"):
            read()
    bare = RunRecord(
        run_id="r2",
        repo="/r",
        into="i",
        base_sha="0" * 40,
        agents=RunAgents(implementer=AgentSpec(name="scripted")),
        options=RunOptions(),
    )
    with pytest.raises(TypeError, match="concrete RunRecord"):
        store.create(bare, plan)
    with pytest.raises(TypeError, match="concrete RunRecord"):
        store.save(bare)
    with pytest.raises(TypeError, match="concrete RunRecord"):
        store.folder_here(bare)
    assert store.load("r1", EngineRunRecord).agents.implementer.name == "scripted"


# ---------------------------------------------------------------- the bare name kept out


def _bare_uses(tree: ast.AST) -> list[int]:
    """The lines where `RunRecord` is used other than subscripted (`RunRecord[A, O]`), in an
    import, or as the class's own name (a string naming it, as in `__all__`, is no use)."""
    subscripted = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Attribute))
    }
    found = []
    for node in ast.walk(tree):
        named = (isinstance(node, ast.Name) and node.id == "RunRecord") or (
            isinstance(node, ast.Attribute) and node.attr == "RunRecord"
        )
        if named and id(node) not in subscripted:
            found.append(node.lineno)
    return found


def test_no_code_names_a_bare_run_record() -> None:
    """mypy --strict catches `record: RunRecord` (a missing type argument), not a bare
    `RunRecord` passed as a value (`store.load(run_id, RunRecord)`, a constructor, a
    `model_validate`): those read the card's agents and options as empty `BaseModel`s."""
    offences = []
    for path in sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]):
        text = path.read_text(encoding="utf-8")
        if "RunRecord" not in text:
            continue
        tree = ast.parse(text)
        offences += [f"{path.relative_to(ROOT)}:{line}" for line in _bare_uses(tree)]
    assert offences == [], f"a bare RunRecord (name its agents and options): {offences}"


def test_the_bare_name_check_sees_what_it_must() -> None:
    caught = """
record = RunRecord(run_id="r")
store.load(run_id, RunRecord)
store.list(store_module.RunRecord)
card = RunRecord.model_validate_json(raw)
"""
    assert _bare_uses(ast.parse(caught)) == [2, 3, 4, 5]
    allowed = """
from mergegate.store import RunRecord
EngineRunRecord = RunRecord[RunAgents, RunOptions]
Card = TypeVar("Card", bound="RunRecord[Any, Any]")
def g(r: RunRecord[Any, Any]) -> None: ...
class RunRecord(BaseModel): ...
"""
    assert _bare_uses(ast.parse(allowed)) == []
