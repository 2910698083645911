"""Reading a process's environment for its tree tag costs what the environment holds.

`tree_tags` runs for every process a tree walk meets; `read(cap)` allocated the whole 8 MiB cap
each time (which also broke the flood test's memory bound when a walk fell inside it)."""

from __future__ import annotations

import os
import subprocess
import time
import tracemalloc

from mergegate.processes._groups import tree_tags


def test_reading_an_environment_allocates_about_its_size() -> None:
    tree_tags(os.getpid())  # warm: imports and caches outside the measure
    tracemalloc.start()
    try:
        tags = tree_tags(os.getpid())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tags is not None
    assert peak < 1 << 20, peak  # an environment of a few KiB, not the 8 MiB cap


def test_the_tag_is_still_found_in_a_large_environment() -> None:
    # an environment larger than one read piece, the tag after it
    env = {f"PAD{i}": "x" * (32 << 10) for i in range(6)} | {"MERGEGATE_TREE": "run-a:run-b"}
    child = subprocess.Popen(["sleep", "30"], env=env)
    try:
        for _ in range(200):  # until it has exec'd (an empty environment reads None)
            tags = tree_tags(child.pid)
            if tags:
                break
            time.sleep(0.01)
        assert tags == (b"run-a", b"run-b")
    finally:
        child.kill()
        child.wait()
