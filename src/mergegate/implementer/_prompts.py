"""The implementer's prompts: the task (with the HELP marker and the result format), the request
sent to an advisor, and the guidance that resumes the implementer's session.

Each is a versioned template in `templates/<name>.v<N>.md` with `string.Template` placeholders
(`$name`; code and JSON are full of braces), read and filled by `mergegate.handoff.PromptFile`.
A rendered prompt records its template's name, version and sha256, so a record can say exactly
which words an agent was given. The marker is
only ever written inline in these templates, never alone on a line: an agent that echoes its
prompt does not ask for help by doing so.
"""

from __future__ import annotations

import json
from typing import Any

from mergegate.agents.answers import answer_schema
from mergegate.agents.base import AnswerSchema
from mergegate.handoff import AgentResultPayload, PromptFile, RenderedPrompt

__all__ = [
    "MAX_SPEC_CHARS",
    "TEMPLATE_VERSIONS",
    "RenderedPrompt",
    "implementer_prompt",
    "load_template",
    "result_format",
    "result_schema",
]

TEMPLATE_VERSIONS: dict[str, int] = {"implementer": 3, "advisor": 1, "guidance": 1}
MAX_SPEC_CHARS = 40_000
"""Longest task text put into an implementer or advisor prompt (the rest is cut, and says so)."""


def load_template(name: str) -> PromptFile:
    """The current version of a built-in template (`implementer`, `advisor`, `guidance`)."""
    return PromptFile.load(__package__, name, TEMPLATE_VERSIONS[name])


def cut(text: str, limit: int, *, keep: str = "head") -> str:
    """`text` bounded to `limit` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    left = len(text) - limit
    if keep == "tail":
        return f"[... {left} earlier characters left out]\n" + text[-limit:]
    return text[:limit] + f"\n[... {left} more characters left out]"


def result_format(task_id: str) -> str:
    """The `agent-result` format line, with the task id filled in. Placeholders in <angle
    brackets> are not JSON, so an agent that echoes the line verbatim does not hand in a result."""
    return (
        '{"task_id": ' + json.dumps(task_id) + ', "success": <true|false>, '
        '"completed_normally": <true|false>, "todos": ["<what is left>"], '
        '"requested_help": <true|false>, "help_context": <the JSON object, or null>, '
        '"notes": "<what you changed and why>", "files_changed": ["<path>"]}'
    )


def result_schema(task_id: str) -> AnswerSchema:
    """The `agent-result` as a typed answer (`AgentRequest.answer_schema`), its task id
    pinned: each backend makes the implementer's final answer that one object by its
    strongest mechanism (Claude Code `--json-schema`, Codex `--output-schema`, the local
    model's grammar after its edit blocks, else the final message alone).

    A grammar also gets the result's consistency (`check_agent_result`) as two variants: a
    success that completed normally, lists no error and asks for no help, or no success. (A
    help request counts from the JSON alone, so a small model that wrote a working file and
    then `"requested_help": true` beside `"success": true` stopped the task for an advisor.)
    Under a grammar `scratchpad_path` is null: every key must be written, and a small model
    filled it with a file it never wrote, then failed every request to write it (the demo
    set its only task aside)."""
    schema = answer_schema("agent-result", AgentResultPayload, {"task_id": task_id})
    full = schema.schema_object()
    props = {**full["properties"], "scratchpad_path": {"type": "null"}}
    done = {**full, "properties": {**props, "success": {"enum": [True]}}}
    done["properties"]["completed_normally"] = {"enum": [True]}
    done["properties"]["errors"] = {**props["errors"], "maxItems": 0}
    done["properties"]["requested_help"] = {"enum": [False]}
    not_done = {**full, "properties": {**props, "success": {"enum": [False]}}}
    variants = [{k: v for k, v in variant.items() if k != "$defs"} for variant in (done, not_done)]
    narrow = {"anyOf": variants, "$defs": full.get("$defs", {})}
    return schema.model_copy(update={"grammar_schema": json.dumps(narrow)})


def implementer_prompt(*, task_id: str, spec: str, files: str = "None listed.") -> RenderedPrompt:
    """The implementer's prompt for one task: `spec` (the task as text: title, description,
    acceptance criteria), the current `files` (already formatted), the HELP marker with its
    optional JSON context line, and the `agent-result` format it must end with."""
    return load_template("implementer").render(
        task_id=task_id,
        spec=cut(spec, MAX_SPEC_CHARS),
        files=files,
        result_format=result_format(task_id),
    )


def json_line(value: Any) -> str:
    """A value as compact JSON for a prompt (non-ASCII kept readable)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
