"""`mergegate model-server`: serve a script of model turns on a loopback port until stopped."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

import click

from mergegate.testing.model_server import ModelServer, load_script

__all__ = ["model_server"]


@click.command("model-server")
@click.option(
    "--script",
    "script_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="The turns to replay: a .json or .toml file (see docs/model-server.md).",
)
@click.option(
    "--port",
    default=0,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on; 0 picks a free one (the URL printed says which).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind. Loopback only unless --allow-remote.",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Append every request received, as one JSON object per line, to this file.",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow a non-loopback --host. The server has no authentication: a test double only.",
)
@click.pass_context
def model_server(
    ctx: click.Context,
    *,
    script_path: Path,
    port: int,
    host: str,
    log_path: Path | None,
    allow_remote: bool,
) -> None:
    """Serve a scripted fake model (Anthropic Messages, OpenAI Chat Completions and Responses).

    Prints the base URL as the first line of stdout, then serves until SIGINT or SIGTERM
    (exit 0). Point Claude Code at it with ANTHROPIC_BASE_URL=URL, an OpenAI client or a Codex
    provider with URL/v1.
    """
    server = ModelServer(
        load_script(script_path), host=host, port=port, log_path=log_path, allow_remote=allow_remote
    )
    stop = threading.Event()

    def request_stop(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        url = server.start()
        click.echo(url)
        click.echo(
            f"mergegate model-server: serving {script_path} on {url} "
            f"(ANTHROPIC_BASE_URL={url}, OpenAI base_url={url}/v1); Ctrl-C stops",
            err=True,
        )
        # Short waits so the signal handler runs promptly whatever the platform's lock semantics.
        while not stop.wait(0.2):
            pass
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    click.echo("mergegate model-server: stopped", err=True)
    ctx.exit(0)
