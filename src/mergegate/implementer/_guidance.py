"""Delivering advice: the prompt that resumes the implementer's session with the guidance."""

from __future__ import annotations

from mergegate.agents.base import AgentRequest
from mergegate.implementer._consultation import Consultation
from mergegate.implementer._prompts import RenderedPrompt, load_template, result_format
from mergegate.untrusted import fence

__all__ = ["GUIDANCE_HEADING", "guidance_prompt", "guidance_request"]

GUIDANCE_HEADING = "## mergegate: advice on your help request"
"""Separates the original prompt from the guidance in a fresh run (a backend without sessions)."""


def guidance_prompt(consultation: Consultation) -> RenderedPrompt:
    """The implementer's next prompt after a consultation whose action is `continue`: every
    advisor's guidance (quoted), how many help requests are left, and the result format.

    `ValueError` for any other action: a task to skip or escalate is not resumed."""
    if consultation.action != "continue":
        raise ValueError(f"the consultation's action is {consultation.action}: nothing to resume")
    request = consultation.request
    blocks = []
    for answer in consultation.answers:
        advice = answer.advice
        lines = [advice.guidance]
        if advice.steps:
            lines += ["", "Steps:", *(f"{i}. {step}" for i, step in enumerate(advice.steps, 1))]
        if advice.reason:
            lines += ["", f"Why: {advice.reason}"]
        blocks.append(
            f"### {answer.advisor} (action: {advice.action})\n\n" + fence("\n".join(lines))
        )
    return load_template("guidance").render(
        task_id=request.task_id,
        number=str(request.number),
        max_requests=str(request.max_requests),
        advisor_count=str(len(consultation.answers) + len(consultation.failures)),
        advice="\n\n".join(blocks),
        left=str(max(0, request.max_requests - request.number)),
        result_format=result_format(request.task_id),
    )


def guidance_request(
    request: AgentRequest, guidance: RenderedPrompt | str, *, session_id: str | None, sessions: bool
) -> AgentRequest:
    """The implementer's request that delivers `guidance`.

    `request` is the implementer's original request. With a session (`sessions`: the backend's
    `capabilities.sessions`, and a `session_id`), the session is resumed with the guidance alone.
    Otherwise a fresh run gets the original prompt followed by the guidance."""
    text = guidance.text if isinstance(guidance, RenderedPrompt) else guidance
    if sessions and session_id:
        return request.model_copy(update={"prompt": text, "resume_session_id": session_id})
    fresh = f"{request.prompt}\n\n{GUIDANCE_HEADING}\n\n{text}"
    return request.model_copy(update={"prompt": fresh, "resume_session_id": None})
