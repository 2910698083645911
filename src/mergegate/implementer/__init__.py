"""Around one implementer run: its prompt, its result as a validated handoff, its help requests,
and what to do when it fails — the library pieces the run engine's implement step calls.

Layer L3, beside `mergegate.review`: it runs agents (through `mergegate.agents`), never git.
Pure decisions and resumable steps, each step over a serialisable value and an attempt
directory, never overwriting a record and safe to re-run after a crash::

    prompt = implementer_prompt(task_id=..., spec=..., files=...)        # versioned template
    request = AgentRequest(prompt=prompt.text, cwd=worktree,
                           env=task_environment(run_id, task_id),
                           answer_schema=result_schema(task_id), ...)  # the typed answer
    run = backend.run(request)                                          # the engine's agent step
    counters = RecoveryCounters()                                       # in the task's state
    while True:
        got = collect_agent_result(backend, request, task_id=..., first=run,
                                   attempt_dir=..., config=..., recorder=...)   # a step
        decision = decide_recovery(Situation.of(got), counters, limits)         # pure
        counters = counters.after(decision.action)
        if decision.action is RecoveryAction.ACCEPT:
            judgement = judge_task_result(got.result, checks)            # pure, after the checks
        elif decision.action is RecoveryAction.CONSULT:
            help_ = got.help_request(task=spec, number=counters.help_requests, max_requests=...)
            advice = consult_advisors(help_, advisors, attempt_dir=..., cwd=worktree, ...)  # a step
            if advice.action == "continue":
                run = backend.run(guidance_request(request, guidance_prompt(advice),
                                  session_id=got.session_id, sessions=...)); continue
            # skip → the task is set aside; escalate / error → escalate with advice.request
        elif decision.action is RecoveryAction.FRESH_START: reset the tree; run again, fresh
        elif decision.action is RecoveryAction.RETRY_TRANSPORT: back off; run again
        else: end the task with decision.exit_code (ESCALATE / FAIL)

See `docs/help.md`.
"""

from __future__ import annotations

from mergegate.implementer._consultation import (
    OUTCOME_FILE,
    STATE_FILE,
    Advisor,
    AdvisorAnswer,
    AdvisorFailure,
    AdvisorProgress,
    Consultation,
    ConsultationState,
    advisor_prompt,
    advisors_from_config,
    consult_advisors,
    read_consultation,
    task_environment,
)
from mergegate.implementer._guidance import GUIDANCE_HEADING, guidance_prompt, guidance_request
from mergegate.implementer._help import (
    RECENT_OUTPUT_CHARS,
    HelpAssessment,
    HelpRequest,
    assess_help,
    help_request,
)
from mergegate.implementer._prompts import (
    TEMPLATE_VERSIONS,
    RenderedPrompt,
    implementer_prompt,
    result_format,
    result_schema,
)
from mergegate.implementer._recovery import (
    Recovery,
    RecoveryAction,
    RecoveryCounters,
    RecoveryLimits,
    Situation,
    decide_recovery,
)
from mergegate.implementer._results import (
    PROGRESS_FILE,
    RESULT_FILE,
    CheckOutcome,
    CollectionStatus,
    ResultCollection,
    TaskJudgement,
    collect_agent_result,
    judge_task_result,
    read_agent_result,
)

__all__ = [
    "GUIDANCE_HEADING",
    "OUTCOME_FILE",
    "PROGRESS_FILE",
    "RECENT_OUTPUT_CHARS",
    "RESULT_FILE",
    "STATE_FILE",
    "TEMPLATE_VERSIONS",
    "Advisor",
    "AdvisorAnswer",
    "AdvisorFailure",
    "AdvisorProgress",
    "CheckOutcome",
    "CollectionStatus",
    "Consultation",
    "ConsultationState",
    "HelpAssessment",
    "HelpRequest",
    "Recovery",
    "RecoveryAction",
    "RecoveryCounters",
    "RecoveryLimits",
    "RenderedPrompt",
    "ResultCollection",
    "Situation",
    "TaskJudgement",
    "advisor_prompt",
    "advisors_from_config",
    "assess_help",
    "collect_agent_result",
    "consult_advisors",
    "decide_recovery",
    "guidance_prompt",
    "guidance_request",
    "help_request",
    "implementer_prompt",
    "judge_task_result",
    "read_agent_result",
    "read_consultation",
    "result_format",
    "result_schema",
    "task_environment",
]
