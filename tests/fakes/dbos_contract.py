"""A tiny DBOS application for the store's contract tests (run as a subprocess).

Usage: dbos_contract.py DB MARKERS MODE
MODE `start` starts workflow `wf-1` and waits for it; `recover` only launches (DBOS recovers
pending workflows at launch) and waits for `wf-1`. Each step appends `<step> <pid>` to MARKERS;
step `b` blocks while the file `MARKERS.block` exists, so a test can kill the process in it.
"""

import os
import sys
import time
from pathlib import Path

from mergegate.store import DurableEngine, EngineConfig, sqlite_url, step, workflow

markers = Path(sys.argv[2])


def mark(name: str) -> None:
    with markers.open("a") as handle:
        handle.write(f"{name} {os.getpid()}\n")
        handle.flush()


@step("contract.a")
def step_a() -> str:
    mark("a")
    return "A"


@step("contract.b")
def step_b(prev: str) -> str:
    mark("b")
    while Path(str(markers) + ".block").exists():
        time.sleep(0.05)
    return prev + "B"


@step("contract.c")
def step_c(prev: str) -> str:
    mark("c")
    return prev + "C"


@workflow("contract.wf")
def contract_wf() -> str:
    return step_c(step_b(step_a()))


def main() -> None:
    engine = DurableEngine(EngineConfig(sqlite_url(Path(sys.argv[1]))))
    engine.launch()
    try:
        if sys.argv[3] == "start":
            engine.start(contract_wf, "wf-1")
        state = engine.wait("wf-1", timeout_s=60)
        print(state, engine.result("wf-1") if state == "SUCCESS" else "")
    finally:
        engine.shutdown()


if __name__ == "__main__":
    main()
