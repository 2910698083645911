"""A fake agent CLI for fault tests: plain Python, stdlib only, driven by env or argv.

The mode comes from `--mode NAME` anywhere in argv, else from `FAKE_AGENT_MODE`; every other
argument is ignored, so backends can put their own flags around it. `FAKE_AGENT_PIDFILE`
receives the pid of any child it spawns (one per line).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

CLAUDE_SESSION = "eef7dc04-e947-4c0e-a1cc-2668971d77bf"


def emit(obj: object) -> None:
    print(json.dumps(obj), flush=True)


def claude_result(is_error: bool, text: str) -> dict[str, object]:
    return {
        "type": "result",
        "subtype": "success",
        "is_error": is_error,
        "num_turns": 1,
        "result": text,
        "session_id": CLAUDE_SESSION,
        "total_cost_usd": 0.001,
        "usage": {"input_tokens": 10, "output_tokens": 2},
    }


def spawn_stubborn_child() -> None:
    """A grandchild that ignores SIGTERM and sleeps, holding stdout open."""
    code = "import signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n"
    child = subprocess.Popen([sys.executable, "-c", code])
    pidfile = os.environ.get("FAKE_AGENT_PIDFILE")
    if pidfile:
        with open(pidfile, "a") as handle:
            handle.write(f"{child.pid}\n")
    time.sleep(0.2)  # let it install the handler before anyone signals the group


def prompt_text() -> str:
    path = os.environ.get("MERGEGATE_PROMPT_FILE")
    if path:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    return ""


def main() -> int:  # noqa: C901, PLR0911, PLR0912 - one flat dispatch reads best here
    argv = sys.argv[1:]
    mode = (
        argv[argv.index("--mode") + 1]
        if "--mode" in argv
        else os.environ.get("FAKE_AGENT_MODE", "ok")
    )
    if mode == "replay":  # print a captured CLI transcript, then exit or hang as told
        with open(os.environ["FAKE_AGENT_REPLAY"], "rb") as handle:
            sys.stdout.buffer.write(handle.read())
        sys.stdout.flush()
        if os.environ.get("FAKE_AGENT_HANG") == "1":
            time.sleep(600)
        return int(os.environ.get("FAKE_AGENT_EXIT", "0"))
    if mode == "ok":
        print("fake agent says hello", flush=True)
        return 0
    if mode == "echo-prompt":
        sys.stdout.write(prompt_text())
        return 0
    if mode == "env":
        names = [
            "MERGEGATE_PROMPT_FILE",
            "MERGEGATE_ATTEMPT",
            "MERGEGATE_SESSION_ID",
            "MERGEGATE_REVIEW_ID",
            "CLAUDECODE",
            "CLAUDE_CODE_ENTRYPOINT",
            "KEEP_ME",
        ]
        emit({"argv": argv, "env": {n: os.environ.get(n) for n in names}, "cwd": os.getcwd()})
        return 0
    if mode == "hang":
        time.sleep(600)
        return 0
    if mode == "stall":
        print("working...", flush=True)
        time.sleep(600)
        return 0
    if mode == "stderr-busy":  # silent on stdout, alive on stderr, then done
        for _ in range(8):
            print("retrying", file=sys.stderr, flush=True)
            time.sleep(0.2)
        print("done", flush=True)
        return 0
    if mode == "grandchild":
        spawn_stubborn_child()
        print("leader exiting", flush=True)
        return 0
    if mode == "grandchild-hang":
        spawn_stubborn_child()
        print("leader hanging", flush=True)
        time.sleep(600)
        return 0
    if mode == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ignoring SIGTERM", flush=True)
        time.sleep(600)
        return 0
    if mode == "exit0-error-event":
        emit({"type": "system", "subtype": "init", "session_id": CLAUDE_SESSION})
        emit(claude_result(True, "API Error: Request rejected (429)"))
        return 0
    if mode == "claude-ok":
        emit({"type": "system", "subtype": "init", "session_id": CLAUDE_SESSION})
        emit(
            {
                "type": "assistant",
                "session_id": CLAUDE_SESSION,
                "parent_tool_use_id": None,
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "done\n>>>HELP<<<"}],
                },
            }
        )
        emit(claude_result(False, "done\n>>>HELP<<<"))
        return 0
    if mode == "hang-after-terminal":
        emit({"type": "system", "subtype": "init", "session_id": CLAUDE_SESSION})
        emit(claude_result(False, "finished"))
        time.sleep(600)
        return 0
    if mode == "no-terminal":
        emit({"type": "system", "subtype": "init", "session_id": CLAUDE_SESSION})
        return 0
    if mode == "crash-signal":
        print("about to crash", flush=True)
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(5)
        return 0
    if mode == "crash-exit":
        print("Traceback: boom", file=sys.stderr, flush=True)
        return 3
    if mode == "flood":
        line = b"x" * 1023 + b"\n"
        block = line * 1024  # 1 MiB
        for _ in range(30):
            sys.stdout.buffer.write(block)
        sys.stdout.buffer.write(b"THE END\n")
        sys.stdout.flush()
        return 0
    if mode == "stdin":
        start = time.monotonic()
        data = sys.stdin.read()
        print(f"stdin-eof bytes={len(data)} waited={time.monotonic() - start:.3f}", flush=True)
        return 0
    if mode == "help":
        print('I am stuck.\n>>>HELP<<<\n{"reason": "stuck_in_loop", "step": 17}', flush=True)
        print("a mention of >>>HELP<<< mid-line does not count", flush=True)
        return 0
    print(f"unknown mode {mode}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
