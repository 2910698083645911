"""The `openai` backend: any OpenAI-compatible chat-completions endpoint (vLLM, Ollama, llama.cpp).

One run is one `POST {base_url}/chat/completions` (non-streaming) made with httpx; no `openai`
SDK. The result is judged from the response body, never the HTTP status alone: a 200 without an
assistant message is an error.

- **Status**: connection refused or unreachable → `missing`; no complete answer within
  `request.timeout_s` (wall clock) → `timeout`; HTTP error, unreadable body or no message →
  `error`; otherwise `ok` (a `finish_reason` of `length` adds a warning: the answer is cut off).
- **Sessions**: the endpoint is stateless, so the conversation is kept in a JSON file under the
  state dir, keyed by a generated session id; `request.resume_session_id` sends it again with
  the new prompt (the review loop's "retry in the same session"). Only successful exchanges
  are recorded.
- **Roles**: a read-only request (reviewer) is plain text. Otherwise (implementer) the model is
  told the whole-file edit protocol (`mergegate.agents.edits`) and mergegate writes the files
  itself, inside `request.cwd` only; `files_written` / `files_refused` report what happened.
  A broken protocol answer or a refused path makes the run an `error` and writes nothing.
- **Output constraints**: `request.response_format` becomes `response_format` (JSON schema) or
  llama.cpp's `grammar` field; see `mergegate.agents._formats` for the accepted shapes.
- **Typed answers**: `request.answer_schema` becomes a grammar generated from the schema
  (`supports_grammar`), else a strict `response_format: json_schema` (a reviewer), else nothing
  (an implementer, whose reply starts with edit blocks); `result.answer` is the reply (for an
  implementer: the text after its last edit block) and says which mechanism stood behind it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from mergegate.agents._formats import (
    FILE_EDITS_GRAMMAR,
    answer_constraints,
    body_constraints,
    verdict_grammar,
)
from mergegate.agents._sessions import SessionStore, default_state_dir
from mergegate.agents.answers import after_edit_blocks
from mergegate.agents.base import (
    AgentRequest,
    AgentResult,
    AnswerMechanism,
    BackendCapabilities,
    RunStatus,
    StructuredAnswer,
    Usage,
)
from mergegate.agents.edits import (
    EDIT_PROTOCOL_INSTRUCTIONS,
    EditProtocolError,
    apply_file_edits,
    parse_file_edits,
    parse_until_repeat,
)

__all__ = [
    "FILE_EDITS_GRAMMAR",
    "MAX_RESPONSE_BYTES",
    "OpenAIBackend",
    "verdict_grammar",
]

MAX_RESPONSE_BYTES = 16_000_000
_ERROR_SAMPLE = 300
_CONNECT_TIMEOUT_S = 10.0


class _RunFailure(Exception):
    """Internal: a run that ended without a usable answer."""

    def __init__(self, status: RunStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class OpenAIBackend:
    """A backend for an OpenAI-compatible endpoint. `base_url` includes the `/v1` prefix."""

    name: str = "openai"
    starts_processes = False
    """An HTTP client: nothing runs as a process, so nothing needs a sandbox."""
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=False, sessions=True, edits_files=True
    )

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        state_dir: Path | None = None,
        transport: httpx.BaseTransport | None = None,
        supports_grammar: bool = False,
        extra_body: Mapping[str, Any] | None = None,
        trust_env: bool = True,
        name: str = "openai",
        repeat_ends_edits: bool = False,
        answer_items: int = 3,
        answer_chars: int = 160,
    ) -> None:
        """`transport` replaces the network (e.g. `httpx.MockTransport` in tests);
        `supports_grammar` says the server accepts llama.cpp's `grammar` field;
        `extra_body` is merged into every request body (e.g. `{"seed": 0}`);
        `trust_env=False` ignores proxy variables (for a loopback server);
        `repeat_ends_edits` takes an implementer's answer up to the first block that repeats a
        file (`edits.parse_until_repeat`, for small models that start over) instead of failing;
        `answer_items` and `answer_chars` bound each list and string of a typed answer under a
        grammar (a small model repeats itself, and every token costs)."""
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.state_dir = state_dir
        self.transport = transport
        self.supports_grammar = supports_grammar
        self.extra_body = dict(extra_body or {})
        self.trust_env = trust_env
        self.name = name
        self.repeat_ends_edits = repeat_ends_edits
        self.answer_items = answer_items
        self.answer_chars = answer_chars

    def run(self, request: AgentRequest) -> AgentResult:
        """Send the prompt (continuing a session if asked) and normalize the answer."""
        started = time.monotonic()
        store = SessionStore(self.state_dir or default_state_dir(), self.name)
        base = {"backend": self.name, "session_id": request.resume_session_id}
        try:
            messages = self._messages(store, request)
            body, warnings, via = self._body(request, messages)
            data, log_path = self._post(body, request, started)
            text, finish, usage = _completion(data)
            session_id = request.resume_session_id or store.new_id()
            _save(store, session_id, [*messages, {"role": "assistant", "content": text}], self)
        except _RunFailure as failure:
            return AgentResult(
                **base,
                status=failure.status,
                error=failure.message,
                duration_s=time.monotonic() - started,
                log_path=_log_path(request),
            )
        if finish == "length":
            warnings.append("the answer was cut off at max_tokens (finish_reason=length)")
        result = AgentResult(
            backend=self.name,
            status=RunStatus.OK,
            text=text,
            session_id=session_id,
            usage=usage,
            turns=1,
            warnings=tuple(warnings),
            log_path=log_path,
            answer=_answer(via, text, edits=not request.read_only),
        )
        if not request.read_only:
            result = _apply_edits(result, request.cwd, until_repeat=self.repeat_ends_edits)
        return result.model_copy(update={"duration_s": time.monotonic() - started})

    def _messages(self, store: SessionStore, request: AgentRequest) -> list[dict[str, str]]:
        history: list[dict[str, str]] = []
        if request.resume_session_id:
            try:
                history = store.load(request.resume_session_id)
            except ValueError as exc:
                raise _RunFailure(RunStatus.ERROR, f"cannot resume: {exc}") from exc
        if not request.read_only and not any(m["role"] == "system" for m in history):
            history.insert(0, {"role": "system", "content": EDIT_PROTOCOL_INSTRUCTIONS})
        return [*history, {"role": "user", "content": request.prompt}]

    def _body(
        self, request: AgentRequest, messages: list[dict[str, str]]
    ) -> tuple[dict[str, Any], list[str], AnswerMechanism | None]:
        body: dict[str, Any] = {
            "model": request.model or self.model,
            "messages": messages,
            "stream": False,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        body.update(self.extra_body)
        if request.answer_schema is not None:
            try:
                fields, via = answer_constraints(
                    request.answer_schema,
                    edits=not request.read_only,
                    supports_grammar=self.supports_grammar,
                    max_items=self.answer_items,
                    max_string=self.answer_chars,
                )
            except ValueError as exc:
                raise _RunFailure(RunStatus.ERROR, f"invalid answer schema: {exc}") from exc
            body.update(fields)
            return body, [], via
        try:
            constraints, warnings = body_constraints(
                request.response_format, supports_grammar=self.supports_grammar
            )
        except ValueError as exc:
            raise _RunFailure(RunStatus.ERROR, f"invalid response_format: {exc}") from exc
        body.update(constraints)
        return body, warnings, None

    def _post(
        self, body: dict[str, Any], request: AgentRequest, started: float
    ) -> tuple[Any, Path | None]:
        """POST the body; return the decoded JSON and the exchange log (if an attempt dir)."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        timeout = httpx.Timeout(
            request.timeout_s, connect=min(_CONNECT_TIMEOUT_S, request.timeout_s)
        )
        url = f"{self.base_url}/chat/completions"
        client = httpx.Client(
            transport=self.transport, timeout=timeout, headers=headers, trust_env=self.trust_env
        )
        with client:
            status_code, raw = _send(client, url, body, started + request.timeout_s)
        log_path = _write_log(request, url, body, status_code, raw)
        if status_code >= 400:
            sample = raw[:_ERROR_SAMPLE].decode("utf-8", "replace")
            raise _RunFailure(RunStatus.ERROR, f"HTTP {status_code} from {url}: {sample}")
        try:
            return json.loads(raw), log_path
        except ValueError as exc:
            raise _RunFailure(RunStatus.ERROR, f"response is not JSON: {exc}") from exc


def _answer(via: AnswerMechanism | None, text: str, *, edits: bool) -> StructuredAnswer | None:
    if via is None:
        return None
    return StructuredAnswer(via=via, text=after_edit_blocks(text) if edits else text)


def _save(
    store: SessionStore, session_id: str, messages: list[dict[str, str]], backend: OpenAIBackend
) -> None:
    meta = {"backend": backend.name, "base_url": backend.base_url, "model": backend.model}
    try:
        store.save(session_id, messages, meta)
    except OSError as exc:
        raise _RunFailure(RunStatus.ERROR, f"cannot record the session: {exc}") from exc


def _send(
    client: httpx.Client, url: str, body: dict[str, Any], deadline: float
) -> tuple[int, bytes]:
    """POST and read the body within the wall-clock `deadline` and `MAX_RESPONSE_BYTES`."""
    try:
        with client.stream("POST", url, json=body) as response:
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise _RunFailure(
                        RunStatus.ERROR, f"response is larger than {MAX_RESPONSE_BYTES} bytes"
                    )
                if time.monotonic() > deadline:
                    raise _RunFailure(RunStatus.TIMEOUT, "no complete answer within the timeout")
                chunks.append(chunk)
            return response.status_code, b"".join(chunks)
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise _RunFailure(RunStatus.MISSING, f"endpoint unreachable: {url}: {exc}") from exc
    except httpx.TimeoutException as exc:
        raise _RunFailure(RunStatus.TIMEOUT, f"no answer within the timeout: {exc}") from exc
    except httpx.HTTPError as exc:
        raise _RunFailure(RunStatus.ERROR, f"HTTP failure talking to {url}: {exc}") from exc


def _completion(data: Any) -> tuple[str, str | None, Usage]:
    """The assistant text, finish reason and usage of a chat-completions response."""
    if not isinstance(data, dict):
        raise _RunFailure(RunStatus.ERROR, "response is not a JSON object")
    if "error" in data and not data.get("choices"):
        raise _RunFailure(RunStatus.ERROR, f"endpoint error: {str(data['error'])[:_ERROR_SAMPLE]}")
    choices = data.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise _RunFailure(RunStatus.ERROR, "response has no assistant message (no final event)")
    finish = first.get("finish_reason") if isinstance(first, dict) else None
    return content, finish if isinstance(finish, str) else None, _usage(data.get("usage"))


def _usage(raw: Any) -> Usage:
    """OpenAI usage → `Usage`; cached prompt tokens are counted once, as cache reads."""
    if not isinstance(raw, dict):
        return Usage()
    prompt = _count(raw.get("prompt_tokens"))
    details = raw.get("prompt_tokens_details")
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    cached = min(cached, prompt)
    return Usage(
        input_tokens=prompt - cached,
        output_tokens=_count(raw.get("completion_tokens")),
        cache_read_tokens=cached,
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _apply_edits(result: AgentResult, cwd: Path, *, until_repeat: bool) -> AgentResult:
    """Parse the implementer's answer and write its files; fail the run if that is impossible."""
    repeat: int | None = None
    try:
        if until_repeat:
            edits, repeat = parse_until_repeat(result.text)
        else:
            edits = parse_file_edits(result.text)
    except EditProtocolError as exc:
        return result.model_copy(
            update={"status": RunStatus.ERROR, "error": f"{exc} (nothing was written)"}
        )
    if repeat is not None:
        note = f"line {repeat}: the answer starts repeating its files; the rest was ignored"
        result = result.model_copy(update={"warnings": (*result.warnings, note)})
    if not edits:
        return result.model_copy(
            update={"warnings": (*result.warnings, "the answer contains no FILE blocks")}
        )
    outcome = apply_file_edits(cwd, edits)
    if outcome.refused:
        reasons = tuple(f"refused {path!r}: {why}" for path, why in outcome.refused)
        return result.model_copy(
            update={
                "status": RunStatus.ERROR,
                "error": f"{len(outcome.refused)} path(s) refused; nothing was written",
                "files_refused": tuple(path for path, _ in outcome.refused),
                "warnings": (*result.warnings, *reasons),
            }
        )
    return result.model_copy(update={"files_written": outcome.written})


def _log_path(request: AgentRequest) -> Path | None:
    path = request.attempt_dir / "openai-exchange.json" if request.attempt_dir else None
    return path if path is not None and path.exists() else None


def _write_log(
    request: AgentRequest, url: str, body: dict[str, Any], status_code: int, raw: bytes
) -> Path | None:
    """Record the exchange in the attempt dir (the attempt's raw output); None without one."""
    if request.attempt_dir is None:
        return None
    request.attempt_dir.mkdir(parents=True, exist_ok=True)
    path = request.attempt_dir / "openai-exchange.json"
    record = {
        "url": url,
        "request": body,
        "status_code": status_code,
        "response": raw.decode("utf-8", "replace"),
    }
    path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return path
