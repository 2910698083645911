"""The `local` backend: the missing-extra path, and real runs of the bundled model (real_model).

The real tests assert structure, never the model's verdict: a 0.5B model's verdicts are close
to random (see ../shared/research/local-llm.md §5). They share one in-process server.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mergegate.agents import local
from mergegate.agents._model_store import MODELS, ModelSpec
from mergegate.agents.base import AgentRequest, AgentResult, Backend, RunStatus, Usage
from mergegate.agents.edits import parse_file_edits
from mergegate.agents.local import LocalBackend, LocalServer, local_server, stop_local_server

VERDICT_LINE = re.compile(r"Ready to merge\? (Yes|No|With fixes)")
TRAILER_VERDICT = {"Yes": "approve", "No": "reject", "With fixes": "request_changes"}

DIFF = """\
--- a/cart.py
+++ b/cart.py
@@ -1,6 +1,6 @@
 class Cart:
-    def __init__(self, items=None):
-        self.items = items or []
+    def __init__(self, items=[]):
+        self.items = items
     def total(self):
-        return sum(i.price for i in self.items)
+        return sum(self.items[i].price for i in range(len(self.items) - 1))
"""
REVIEW_PROMPT = (
    f"You are a code reviewer. Review this diff; list findings, then the verdict.\n\n{DIFF}"
)


def test_is_a_backend() -> None:
    assert isinstance(LocalBackend(), Backend)


def test_missing_runtime_is_not_installed_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "_shared", None)  # never touch a server another test started
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # makes `import xllamacpp` fail
    result = LocalBackend().run(AgentRequest(prompt="hi", cwd=tmp_path, read_only=True))
    assert result.status is RunStatus.NOT_INSTALLED
    assert result.error is not None
    assert "pip install 'mergegate[local]'" in result.error
    assert result.backend == "local"


@pytest.mark.skipif(importlib.util.find_spec("xllamacpp") is None, reason="needs xllamacpp")
def test_missing_model_parts_is_not_installed_with_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ghost = ModelSpec(
        name="ghost",
        parts=(("mergegate_no_such_part_pkg", "data/part01.bin"),),
        size=1,
        sha256="0" * 64,
        extra="local",
    )
    monkeypatch.setitem(MODELS, "ghost", ghost)
    monkeypatch.setattr(local, "_shared", None)
    result = LocalBackend("ghost", cache_dir=tmp_path).run(
        AgentRequest(prompt="hi", cwd=tmp_path, read_only=True)
    )
    assert result.status is RunStatus.NOT_INSTALLED
    assert result.error is not None
    assert "pip install 'mergegate[local]'" in result.error


def test_unknown_model_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_shared", None)
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("needs xllamacpp (without it the run is `missing` first)")
    result = LocalBackend("no-such-model").run(AgentRequest(prompt="x", cwd=tmp_path))
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert "unknown local model" in result.error


# ------------------------------------------------------------------ real model


def _extra_installed() -> bool:
    packages = ["xllamacpp", *(package for package, _ in MODELS["qwen2.5-coder-0.5b"].parts)]
    return all(importlib.util.find_spec(name) is not None for name in packages)


@pytest.fixture(scope="session")
def server() -> Iterator[LocalServer]:
    """One real server for the session (the model is loaded once)."""
    if not _extra_installed():
        pytest.skip("the `local` extra is not installed: pip install 'mergegate[local]'")
    yield local_server()
    stop_local_server()


@pytest.mark.real_model
def test_real_review_has_a_grammar_constrained_verdict(server: LocalServer, tmp_path: Path) -> None:
    result = LocalBackend(max_tokens=300).run(
        AgentRequest(
            prompt=REVIEW_PROMPT,
            cwd=tmp_path,
            read_only=True,
            timeout_s=180,
            response_format={"type": "verdict"},
        )
    )
    assert result.ok, result.error
    lines = result.text.splitlines()
    assert lines[0] == "Findings:"
    assert VERDICT_LINE.fullmatch(lines[-1]), result.text
    assert all(line.startswith("- ") for line in lines[1:-2]), result.text
    assert lines[-2] == ""
    assert result.usage.input_tokens + result.usage.cache_read_tokens > 50
    assert result.usage.output_tokens > 0
    assert result.session_id
    assert result.files_written == ()


@pytest.mark.real_model
def test_real_review_carries_the_json_trailer_that_agrees(
    server: LocalServer, tmp_path: Path
) -> None:
    result = LocalBackend(max_tokens=400).run(
        AgentRequest(
            prompt=REVIEW_PROMPT + "\nEnd with a JSON trailer for review r-7f3a.",
            cwd=tmp_path,
            read_only=True,
            timeout_s=180,
            response_format={"type": "verdict", "review_id": "r-7f3a", "max_findings": 2},
        )
    )
    assert result.ok, result.error
    last = result.text.splitlines()[-1]
    match = VERDICT_LINE.fullmatch(last)
    assert match, result.text
    fenced = result.text.split("```json\n", 1)[1].split("\n```", 1)[0]
    trailer = json.loads(fenced)
    assert trailer["review_id"] == "r-7f3a"
    assert trailer["verdict"] == TRAILER_VERDICT[match.group(1)]
    assert isinstance(trailer["findings"], list)


@pytest.mark.real_model
def test_real_implementer_edit_round_trips(server: LocalServer, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    result = LocalBackend(max_tokens=200).run(
        AgentRequest(
            prompt="Create the file calc.py with a function add(a, b) that returns a + b.",
            cwd=tree,
            timeout_s=180,
        )
    )
    assert result.ok, (result.error, result.text)
    edits = parse_file_edits(result.text)
    assert result.files_written == tuple(edit.path for edit in edits)
    assert edits, result.text
    for edit in edits:
        assert (tree / edit.path).read_text(encoding="utf-8") == edit.content
    written = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}
    assert written == set(result.files_written)

    # Continue the same session (as the review loop's retry does); a text-only question keeps
    # the assertion independent of whether a 0.5B model gets a second edit right.
    again = LocalBackend(max_tokens=40).run(
        AgentRequest(
            prompt="In one short sentence: which function did you just write?",
            cwd=tree,
            timeout_s=180,
            read_only=True,
            resume_session_id=result.session_id,
        )
    )
    assert again.ok, (again.error, again.text)
    assert again.session_id == result.session_id
    state = Path(os.environ["MERGEGATE_STATE_DIR"])
    history = json.loads((state / "sessions/local" / f"{result.session_id}.json").read_text())
    roles = [message["role"] for message in history["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant"]


# ------------------------------------------------------------------ no model needed


def test_a_review_without_a_findings_cap_gets_the_local_default(tmp_path: Path) -> None:
    backend = LocalBackend(review_findings=2)
    review = AgentRequest(
        prompt="p", cwd=tmp_path, read_only=True, response_format={"type": "verdict"}
    )
    assert backend._constrained(review).response_format == {"type": "verdict", "max_findings": 2}
    capped = review.model_copy(update={"response_format": {"type": "verdict", "max_findings": 5}})
    assert backend._constrained(capped).response_format == {"type": "verdict", "max_findings": 5}
    implement = AgentRequest(prompt="p", cwd=tmp_path)
    assert backend._constrained(implement).response_format == {"type": "file_edits"}
    plain_review = AgentRequest(prompt="p", cwd=tmp_path, read_only=True)
    assert backend._constrained(plain_review).response_format is None


@pytest.mark.parametrize(("prompt", "output", "status"), [(900, 124, "error"), (900, 123, "ok")])
def test_an_answer_stopped_by_a_full_context_is_an_error(
    prompt: int, output: int, status: str
) -> None:
    ok = AgentResult(
        backend="local",
        status=RunStatus.OK,
        text="Findings:\n- cut",
        usage=Usage(input_tokens=prompt - 24, cache_read_tokens=24, output_tokens=output),
    )
    result = local._context_overflow(ok, n_ctx=1024)
    assert result.status.value == status
    if status == "error":
        assert result.error is not None
        assert "context window (1024 tokens) filled up" in result.error
        assert "n_ctx" in result.error
        assert result.text == ok.text  # kept for the report, but never a usable answer
    else:
        assert result == ok


# ------------------------------------------------------------------ a server kept elsewhere


def _served(model_file: str) -> Any:
    from mergegate.testing.model_server import ModelServer, Script, Turn

    answer = "Findings:\n- none\nReady to merge? Yes"
    script = Script(
        turns=(Turn(text=answer),), model=f"/cache/{model_file}", when_exhausted="repeat_last"
    )
    return ModelServer(script)


def test_an_attached_server_answers_and_nothing_starts_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`server_url`: a benchmark keeps one server for all its runs; the backend checks it
    serves the pinned model and sends the run there, starting no model of its own."""

    def no_start(*_: object) -> LocalServer:
        raise AssertionError("an attached backend must not load a model")

    monkeypatch.setattr(local, "local_server", no_start)
    review = AgentRequest(prompt="p", cwd=tmp_path, read_only=True)
    with _served(MODELS["qwen2.5-coder-0.5b"].file_name) as server:
        backend = LocalBackend(server_url=server.url, state_dir=tmp_path / "state")
        first, second = backend.run(review), backend.run(review)
        chats = [r for r in server.requests if "chat" in r.path]
    assert (first.status, second.status) == (RunStatus.OK, RunStatus.OK), first.error
    assert first.text.endswith("Ready to merge? Yes")
    assert len(chats) == 2


@pytest.mark.parametrize(
    ("url", "model_file", "why"),
    [
        ("http://192.0.2.1:8080", None, "loopback"),
        ("https://127.0.0.1:8080", None, "loopback"),
        (None, MODELS["qwen2.5-coder-1.5b"].file_name, "not qwen2.5-coder-0.5b"),
    ],
)
def test_an_attached_server_is_refused_off_loopback_or_with_another_model(
    tmp_path: Path, url: str | None, model_file: str | None, why: str
) -> None:
    review = AgentRequest(prompt="p", cwd=tmp_path, read_only=True)
    if url is not None:
        result = LocalBackend(server_url=url).run(review)
    else:
        with _served(model_file or "") as server:
            result = LocalBackend(server_url=server.url).run(review)
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert why in result.error
