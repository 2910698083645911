"""HELP with the real Claude Code CLI against `mergegate model-server`: a `>>>HELP<<<` line in
its streamed text is detected, an advisor (Claude Code again, read-only) answers, and the advice
is delivered in the implementer's resumed session (`--resume`), whose result then validates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _realcli import GitRepo, RealCli

from mergegate.agents import AgentRequest
from mergegate.config import Config
from mergegate.handoff import HandoffRecorder
from mergegate.implementer import (
    Advisor,
    RecoveryAction,
    RecoveryCounters,
    Situation,
    collect_agent_result,
    consult_advisors,
    decide_recovery,
    guidance_prompt,
    guidance_request,
    implementer_prompt,
    task_environment,
)
from mergegate.testing.model_server import ModelServer, Script, Turn

pytestmark = pytest.mark.real_cli

GUIDANCE = "USE-THE-SORTED-HELPER from util.py"
STUCK = (
    "I can sort by hand or reuse a helper, and I cannot tell which the project wants.\n"
    ">>>HELP<<<\n"
    '{"reason": "two ways to sort", "question": "which helper?"}\n'
    '{"task_id": "T-1", "success": false, "completed_normally": false, '
    '"requested_help": true}'
)
DONE = (
    "Done with the helper.\n"
    '{"task_id": "T-1", "success": true, "completed_normally": true, '
    '"notes": "called sorted_names"}'
)


def test_help_line_is_detected_and_the_advice_resumes_the_session(
    claude_cli: RealCli, git_repo: GitRepo, tmp_path: Path
) -> None:
    script = Script(
        turns=[
            Turn(match="You are the implementer of task", text=STUCK),
            Turn(
                match="You are an advisor",
                text=json.dumps({"guidance": GUIDANCE, "action": "continue"}),
            ),
            Turn(match="You asked for help on task", text=DONE),
        ],
        chunk_chars=4,  # the marker arrives split across stream deltas
    )
    run_dir = tmp_path / "run"
    config = Config()
    recorder = HandoffRecorder.for_run(config, run_dir)
    spec = "# T-1\n\nSort the names in names.txt."
    prompt = implementer_prompt(task_id="T-1", spec=spec)
    request = AgentRequest(
        prompt=prompt.text,
        cwd=git_repo.path,
        env=task_environment("run-1", "T-1"),
        timeout_s=60,
        stall_timeout_s=30,
    )
    with ModelServer(script) as server:
        implementer = claude_cli.backend(server, partial_messages=True)
        first = implementer.run(request.model_copy(update={"attempt_dir": run_dir / "impl-1"}))
        assert first.ok, first
        assert [(s.marker, s.context) for s in first.signals] == [
            (">>>HELP<<<", {"reason": "two ways to sort", "question": "which helper?"})
        ]
        got = collect_agent_result(
            implementer,
            request,
            task_id="T-1",
            first=first,
            attempt_dir=run_dir / "result-01",
            config=config,
            recorder=recorder,
        )
        assert (got.status, got.help.source) == ("help_requested", "both")
        decision = decide_recovery(Situation.of(got), RecoveryCounters())
        assert decision.action is RecoveryAction.CONSULT

        advice = consult_advisors(
            got.help_request(task=spec, number=1, max_requests=2, run_id="run-1"),
            [Advisor("claude", claude_cli.backend(server))],
            attempt_dir=run_dir / "help-01",
            cwd=git_repo.path,
            config=config,
            recorder=recorder,
        )
        assert (advice.ok, advice.action) == (True, "continue"), advice
        assert advice.answers[0].advice.guidance == GUIDANCE
        advisor_request = server.requests[-1]
        assert "which helper?" in json.dumps(advisor_request.body)

        resumed = guidance_request(
            request.model_copy(update={"attempt_dir": run_dir / "impl-2"}),
            guidance_prompt(advice),
            session_id=got.session_id,
            sessions=implementer.capabilities.sessions,
        )
        second = implementer.run(resumed)
        assert second.ok, second
        done = collect_agent_result(
            implementer,
            request,
            task_id="T-1",
            first=second,
            attempt_dir=run_dir / "result-02",
            config=config,
            recorder=recorder,
        )
    assert done.status == "recovered"
    assert done.result is not None
    assert done.result.notes == "called sorted_names"
    # the guidance went to the implementer's own session, resumed
    assert second.session_id == first.session_id
    last = server.requests[-1]
    assert last.headers["x-claude-code-session-id"] == first.session_id
    history = json.dumps(last.body["messages"])
    assert "You are the implementer of task" in history  # the original conversation
    assert "two ways to sort" in history  # its own help request
    assert GUIDANCE in history  # and the advice
    argv = json.loads((run_dir / "impl-2" / "process.json").read_text())["argv"]
    assert argv[argv.index("--resume") + 1] == first.session_id
