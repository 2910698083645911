"""The sandbox a child runs in (`mergegate.processes`) and what an agent's sandbox holds
(`mergegate.agents.sandbox`): its shape, then real sandboxes (marked `sandbox`: they need
bubblewrap, and fail instead of skipping under MERGEGATE_REQUIRE_REAL=1)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.agents import AgentRequest
from mergegate.agents.sandbox import (
    SandboxedBackend,
    SandboxPolicy,
    Toolchains,
    program_binds,
    seat_home,
    toolchain_binds,
)
from mergegate.config import SandboxConfig
from mergegate.errors import AgentError, UsageError
from mergegate.git import object_dirs, workspace_objects
from mergegate.processes import (
    Bind,
    Sandbox,
    StopReason,
    bwrap_argv,
    sandbox_environment,
    sandbox_problem,
    supervise,
)
from mergegate.processes import supervisor as supervisor_module
from mergegate.testing import ScriptedBackend

FAKES = Path(__file__).parent / "fakes"


# ---------------------------------------------------------------- the argv (no bwrap needed)


def test_every_sandbox_drops_capabilities_and_dies_with_its_parent() -> None:
    argv = bwrap_argv(Sandbox(), ["agent", "--flag"], Path("/work"), "/usr/bin/bwrap")
    assert argv[0] == "/usr/bin/bwrap"
    assert argv[1] == "--unshare-all"
    for flag in ("--die-with-parent", "--cap-drop"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert "--share-net" not in argv
    assert argv[-7:] == ["--remount-ro", "/", "--chdir", "/work", "--", "agent", "--flag"]
    tmp = [argv[i + 1] for i, a in enumerate(argv) if a == "--tmpfs"]
    assert "/tmp" in tmp
    assert argv[argv.index("--dir") + 1] == "/tmp/home"  # an empty HOME without a home dir


def test_network_is_shared_only_when_asked() -> None:
    assert "--share-net" in bwrap_argv(Sandbox(network=True), ["a"], Path("/"))
    assert "--share-net" not in bwrap_argv(Sandbox(network=False), ["a"], Path("/"))


def test_binds_keep_their_order_and_a_hidden_directory_is_read_only_at_the_end() -> None:
    sandbox = Sandbox(
        home=Path("/h/seat"),
        binds=(
            Bind(path=Path("/repo"), writable=True),
            Bind(path=Path("/repo/.git")),
            Bind(path=Path("/repo/.mergegate"), hidden=True),
            Bind(path=Path("/h/seat/.claude/.credentials.json"), source=Path("/me/.c.json")),
        ),
    )
    argv = bwrap_argv(sandbox, ["a"], Path("/repo"))
    pairs = [(argv[i], argv[i + 1], argv[i + 2]) for i in range(len(argv) - 2)]
    home = pairs.index(("--bind", "/h/seat", "/h/seat"))
    repo = pairs.index(("--bind", "/repo", "/repo"))
    git = pairs.index(("--ro-bind", "/repo/.git", "/repo/.git"))
    creds = pairs.index(("--ro-bind", "/me/.c.json", "/h/seat/.claude/.credentials.json"))
    # the home after every other bind (a hidden state directory never covers it), then the
    # binds inside it
    assert repo < git < argv.index("--tmpfs", git) < home < creds
    hidden = argv.index("/repo/.mergegate")
    assert argv[hidden - 1] == "--tmpfs"
    ro = max(i for i, a in enumerate(argv) if a == "/repo/.mergegate")
    assert argv[ro - 1] == "--remount-ro"
    assert creds < ro < argv.index("--chdir")


def test_relative_sandbox_paths_are_refused() -> None:
    with pytest.raises(ValueError, match="must be absolute"):
        Bind(path=Path("relative"))
    with pytest.raises(ValueError, match="must be absolute"):
        Sandbox(home=Path("home"))


_texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=20
)


@given(
    argv=st.lists(_texts, min_size=1, max_size=5),
    paths=st.lists(_texts, max_size=4),
    network=st.booleans(),
)
def test_the_agent_argv_is_passed_after_the_options_whatever_it_holds(
    argv: list[str], paths: list[str], network: bool
) -> None:
    """No argv (a prompt that looks like an option) and no path reads as a bwrap option: the
    command comes after `--`, verbatim, and the fixed options are always there."""
    binds = tuple(Bind(path=Path("/x") / (p or "p")) for p in paths)
    built = bwrap_argv(Sandbox(binds=binds, network=network), argv, Path("/w"))
    cut = len(built) - len(argv) - 1
    assert built[cut] == "--"
    assert built[cut + 1 :] == argv
    options = built[:cut]
    assert options[1] == "--unshare-all"
    assert options[options.index("--cap-drop") + 1] == "ALL"
    assert ("--share-net" in options) is network
    assert options[-4:] == ["--remount-ro", "/", "--chdir", "/w"]


def test_the_environment_inside_has_its_own_home_and_tmp_and_no_xdg_dirs() -> None:
    env = {"HOME": "/root", "XDG_CONFIG_HOME": "/root/.config", "TMPDIR": "/var/x", "KEEP": "1"}
    inside = sandbox_environment(Sandbox(home=Path("/seat")), env)
    assert inside == {"HOME": "/seat", "TMPDIR": "/tmp", "TMP": "/tmp", "TEMP": "/tmp", "KEEP": "1"}


# ---------------------------------------------------------------- what a program needs


def test_a_node_cli_brings_its_whole_node_modules_tree(tmp_path: Path) -> None:
    modules = tmp_path / "clis" / "node_modules"
    binary = modules / "@vendor" / "cli" / "bin" / "cli.exe"
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    link = modules / ".bin" / "cli"
    link.parent.mkdir()
    link.symlink_to(binary)
    assert [b.path for b in program_binds(link)] == [modules]
    assert all(not b.writable for b in program_binds(link))


def test_a_virtualenv_python_brings_the_venv_and_its_base_interpreter(tmp_path: Path) -> None:
    base = tmp_path / "pythons" / "3.11"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "python3.11").write_text("")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.11\n")
    (venv / "bin" / "python").symlink_to(base / "bin" / "python3.11")
    found = [b.path for b in program_binds(venv / "bin" / "python")]
    assert venv in found
    assert base in found


def test_a_script_brings_its_interpreter_and_argv_files_but_never_a_directory(
    tmp_path: Path,
) -> None:
    tool = tmp_path / "tools" / "interp"
    tool.parent.mkdir()
    tool.write_text("")
    script = tmp_path / "agent.sh"
    script.write_text(f"#!{tool} -x\n")
    data = tmp_path / "data.json"
    data.write_text("{}")
    state = tmp_path / "state"
    state.mkdir()
    found = [b.path for b in program_binds(script, [str(data), str(state), "relative.json"])]
    assert found == [script, tool, data]


def test_automatic_binds_never_show_home_or_an_ancestor_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / ".ssh").mkdir()
    python = home / "bin" / "python3"  # a Python whose prefix would be HOME itself
    python.write_text("")
    monkeypatch.setenv("HOME", str(home))
    assert [b.path for b in program_binds(python)] == []
    path = os.pathsep.join([str(home), str(tmp_path), "/", str(home / "bin"), "relative"])
    found = [b.path for b in toolchain_binds({"PATH": path, "PYENV_ROOT": str(home)})]
    assert home not in found
    assert tmp_path not in found
    assert Path("/") not in found
    assert home / "bin" in found


def test_a_run_finds_its_toolchains_once_and_drops_one_removed_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every sandbox of a run (four a task) asked for this machine's toolchains again; a run
    # finds them once, and each sandbox still leaves out a directory removed since
    tools, gone = tmp_path / "tools", tmp_path / "gone"
    tools.mkdir()
    gone.mkdir()
    monkeypatch.setenv("PATH", os.pathsep.join([str(tools), str(gone), "/usr/bin"]))
    asked: list[int] = []

    def counted() -> tuple[Bind, ...]:
        asked.append(1)
        return toolchain_binds()

    monkeypatch.setattr("mergegate.agents.sandbox.toolchain_binds", counted)
    scripted = ScriptedBackend(["ok", "ok"])
    work = tmp_path / "ws"
    work.mkdir()
    backend = SandboxedBackend(
        scripted, SandboxPolicy(), tmp_path / "homes", toolchains=Toolchains()
    )
    backend.run(AgentRequest(prompt="fix", cwd=work))
    gone.rmdir()
    backend.run(AgentRequest(prompt="review", cwd=work, read_only=True))
    first, second = (r.sandbox for r in scripted.requests)
    assert first is not None
    assert second is not None
    assert {tools, gone} <= set(first.read_only())
    assert tools in second.read_only()
    assert gone not in second.read_only()
    assert len(asked) == 1


def test_workspace_objects_refuse_a_link_out_of_the_work_tree(tmp_path: Path) -> None:
    good = tmp_path / "good"
    (good / ".git" / "objects").mkdir(parents=True)
    assert workspace_objects(good) == good.resolve() / ".git" / "objects"
    secret = tmp_path / "secret"
    secret.mkdir()
    bad = tmp_path / "bad"
    (bad / ".git").mkdir(parents=True)
    (bad / ".git" / "objects").symlink_to(secret)
    assert workspace_objects(bad) is None
    gitfile = tmp_path / "gitfile"
    gitfile.mkdir()
    (gitfile / ".git").write_text(f"gitdir: {good / '.git'}\n")
    assert workspace_objects(gitfile) is None


def test_object_dirs_follow_the_trusted_repository_alternates(tmp_path: Path) -> None:
    source = tmp_path / "source"
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    borrower = tmp_path / "borrower"
    subprocess.run(["git", "init", "-q", str(borrower)], check=True)
    info = borrower / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{source / '.git' / 'objects'}\n/does/not/exist\n")
    found = object_dirs(borrower)
    assert [p.resolve() for p in found] == [
        (borrower / ".git" / "objects").resolve(),
        (source / ".git" / "objects").resolve(),
    ]
    assert object_dirs(tmp_path / "not-a-repo-at-all") == ()


# ---------------------------------------------------------------- the policy


def test_a_person_s_paths_must_exist_and_home_is_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "cache").mkdir()
    policy = SandboxPolicy.from_config(SandboxConfig(read=("~/cache",)), allow=[str(tmp_path)])
    assert policy.read == (tmp_path / "cache",)
    assert policy.allow == (tmp_path,)
    with pytest.raises(UsageError, match="no such file"):
        SandboxPolicy.from_config(SandboxConfig(), allow=[str(tmp_path / "missing")])
    assert SandboxPolicy.from_config(SandboxConfig(allow=("~/x",)), disabled=True).enabled is False


def test_nothing_a_person_opens_makes_a_reviewer_checkout_writable(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    state = tmp_path / "state"
    state.mkdir()
    sandbox = SandboxPolicy(allow=(tmp_path,)).sandbox(
        checkout, writable=False, home=None, hidden=(state,)
    )
    assert sandbox is not None
    last = {b.path: b for b in sandbox.binds}
    assert last[tmp_path].writable
    assert not last[checkout.absolute()].writable  # after the allow: it covers it
    assert last[state].hidden
    order = [b.path for b in sandbox.binds]
    assert order.index(tmp_path) < order.index(checkout.absolute()) < order.index(state)


def test_the_state_directory_stays_hidden_around_the_workspace_inside_it(tmp_path: Path) -> None:
    """A run's workspaces live in the state directory: all of it is hidden, even under a path
    a person opened (its run records, another unit's workspace, a person's answers), and the
    workspace's own binds are made again on top, so only the way down to it shows."""
    state = tmp_path / "state"
    workspace = state / "worktrees" / "run" / "U1"
    (workspace / ".git").mkdir(parents=True)
    (state / "worktrees" / "run" / "U2").mkdir()
    (state / "runs" / "run").mkdir(parents=True)
    (state / "answers.jsonl").write_text("{}")
    sandbox = SandboxPolicy(allow=(tmp_path,)).sandbox(
        workspace, writable=True, home=None, hidden=(state,), read_only_inside=(".git",)
    )
    assert sandbox is not None
    order = [b.path for b in sandbox.binds]
    assert {b.path for b in sandbox.binds if b.hidden} == {state}
    # nothing inside the state directory is listed: a unit merged (and removed) while this
    # sandbox starts cannot make bwrap fail
    assert not [p for p in order if p.is_relative_to(state / "worktrees" / "run" / "U2")]
    assert not [p for p in order if p.is_relative_to(state / "runs")]
    hidden_at = order.index(state)
    again = [b for b in sandbox.binds[hidden_at + 1 :] if b.path.is_relative_to(workspace)]
    assert [(b.path, b.writable) for b in again] == [
        (workspace, True),
        (workspace / ".git", False),
    ]
    assert order.index(tmp_path) < hidden_at


def test_a_backend_binds_only_the_files_a_person_configured_never_prompt_text(
    tmp_path: Path,
) -> None:
    from mergegate.agents._cli import RunContext
    from mergegate.agents.claude import ClaudeBackend
    from mergegate.agents.signals import HelpDetector

    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    ctx = RunContext(tmp_path, tmp_path / "prompt.txt", None, lambda _s: None, HelpDetector())
    request = AgentRequest(prompt=str(secret), cwd=tmp_path, sandbox=Sandbox())
    claude = ClaudeBackend(executable=[sys.executable])
    argv = [sys.executable, *claude.build_args(request, ctx)]
    assert str(secret) in argv  # the prompt is an argument ...
    bound = {b.path for b in claude.sandbox_for(request, ctx, argv).binds}
    assert secret not in bound  # ... and never a reason to bind a file
    assert tmp_path / "prompt.txt" in bound


def test_a_seat_keeps_its_home_and_roles_do_not_share_one(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    writer = AgentRequest(prompt="p", cwd=work)
    reader = AgentRequest(prompt="p", cwd=work, read_only=True)
    first = seat_home(tmp_path / "homes", "claude", writer)
    assert first == seat_home(tmp_path / "homes", "claude", writer)
    assert first != seat_home(tmp_path / "homes", "claude", reader)
    assert first != seat_home(tmp_path / "homes", "codex", writer)
    assert stat.S_IMODE(first.stat().st_mode) == 0o700


def test_the_sandboxed_backend_gives_each_role_its_sandbox(tmp_path: Path) -> None:
    scripted = ScriptedBackend(["ok", "ok", "ok"])
    work = tmp_path / "ws"
    (work / ".git").mkdir(parents=True)
    objects = tmp_path / "objects"
    objects.mkdir()
    backend = SandboxedBackend(
        scripted,
        SandboxPolicy(),
        tmp_path / "homes",
        objects=lambda _r: (objects,),
        git_read_only=True,
    )
    backend.run(AgentRequest(prompt="fix", cwd=work))
    backend.run(AgentRequest(prompt="review", cwd=work, read_only=True))
    fixer, reviewer = (r.sandbox for r in scripted.requests)
    assert fixer is not None
    assert reviewer is not None
    assert work.absolute() in fixer.writable()
    assert work / ".git" in fixer.read_only()
    assert work.absolute() in reviewer.read_only()
    assert work not in reviewer.writable()
    assert objects in reviewer.read_only()
    assert fixer.home != reviewer.home
    assert fixer.home is not None
    off = ScriptedBackend(["ok"])
    SandboxedBackend(off, SandboxPolicy(enabled=False), tmp_path / "h").run(
        AgentRequest(prompt="p", cwd=work)
    )
    assert off.requests[0].sandbox is None


def test_require_names_the_cause_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        "mergegate.agents.sandbox.sandbox_problem", lambda: "bubblewrap (bwrap) is not installed"
    )
    with pytest.raises(AgentError) as caught:
        SandboxPolicy().require()
    message = str(caught.value)
    assert "bubblewrap (bwrap) is not installed" in message
    assert "--no-sandbox" in message
    assert "\n" not in message
    assert caught.value.exit_code == 4
    SandboxPolicy(enabled=False).require()  # off: nothing to make


def test_a_refused_namespace_is_reported_with_bwrap_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    problem = sandbox_problem()
    assert problem is not None
    assert "setting up uid map: Permission denied" in problem


def test_a_child_asked_to_run_in_a_sandbox_never_runs_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervisor_module, "find_bwrap", lambda: None)
    marker = tmp_path / "ran"
    outcome = supervise(["/bin/sh", "-c", f"touch {marker}"], cwd=tmp_path, sandbox=Sandbox())
    assert outcome.reason is StopReason.MISSING
    assert outcome.error is not None
    assert "bwrap" in outcome.error
    assert not marker.exists()


# ---------------------------------------------------------------- real sandboxes


def _run(sandbox: Sandbox, script: str, cwd: Path) -> tuple[int | None, str, str]:
    outcome = supervise(["/bin/sh", "-c", script], cwd=cwd, sandbox=sandbox)
    out = outcome.stdout_tail.decode("utf-8", "replace")
    return outcome.returncode, out, outcome.stderr_tail.decode("utf-8", "replace")


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_sandboxed_child_sees_and_writes_only_what_is_bound(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shown = tmp_path / "shown"
    shown.mkdir()
    (shown / "file").write_text("visible\n")
    secret = tmp_path / "secret"
    secret.write_text("canary\n")
    sandbox = Sandbox(binds=(Bind(path=shown), Bind(path=work, writable=True)))
    private = Path("/tmp") / f"mergegate-sandbox-test-{os.getpid()}-{time.monotonic_ns()}"
    script = (
        f"cat {secret} || echo no-secret; cat {shown}/file; "
        f"echo w > {shown}/new || echo ro-refused; echo w > {work}/new && echo rw-ok; "
        f"echo t > {private} && echo tmp-ok; echo r > /rootfile || echo root-refused; "
        "grep CapEff /proc/self/status; echo pid=$$; echo home=$HOME"
    )
    code, out, _ = _run(sandbox, script, work)
    assert code == 0
    for expected in ("no-secret", "visible", "ro-refused", "rw-ok", "tmp-ok", "root-refused"):
        assert expected in out, out
    assert "canary" not in out
    assert "CapEff:\t0000000000000000" in out
    assert "pid=2" in out  # its own PID namespace (bwrap's init is 1)
    assert "home=/tmp/home" in out
    assert (work / "new").read_text() == "w\n"
    assert not (shown / "new").exists()
    assert not private.exists()  # its /tmp was its own


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_setsid_daemon_that_ignores_sigterm_and_reforks_dies_with_the_step(
    tmp_path: Path,
) -> None:
    marker = f"daemon-marker-{os.getpid()}-{time.monotonic_ns()}"
    beat = tmp_path / "beat"
    daemon = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "end = time.time() + 30\n"
        "while time.time() < end:\n"
        f"    open({str(beat)!r}, 'a').write('x')\n"
        "    time.sleep(0.01)\n"
        "    if os.fork() > 0:\n"
        "        os._exit(0)\n"
    )
    launcher = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {daemon!r}, {marker!r}],"
        " start_new_session=True, env={})\n"
        "time.sleep(0.3)\n"
    )
    binds = tuple(Bind(path=p) for p in {Path(sys.prefix), Path(sys.base_prefix)})
    sandbox = Sandbox(binds=(*binds, Bind(path=tmp_path, writable=True)))
    outcome = supervise([sys.executable, "-c", launcher], cwd=tmp_path, sandbox=sandbox)
    assert outcome.reason is StopReason.EXITED
    assert outcome.returncode == 0
    assert beat.exists()  # it ran, and re-forked, inside
    size = beat.stat().st_size
    time.sleep(0.5)
    assert beat.stat().st_size == size  # nothing beats any more
    assert _alive_with(marker) == []


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_sandbox_seen_ending_is_not_searched_for_in_proc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first process gone, nothing the sandbox started can be left (its PID namespace
    died with it): no scan of /proc while it runs or after (a scan costs milliseconds for
    every process on the machine, four sandboxes a task), and its escapee is gone all the
    same."""
    from mergegate.processes import _reaper

    scans: list[str] = []
    real_table, real_clear = _reaper.process_table, supervisor_module.clear_group

    def table() -> object:
        scans.append("table")
        return real_table()

    def clear(*args: object) -> int:
        scans.append("group")
        return real_clear(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_reaper, "process_table", table)
    monkeypatch.setattr(supervisor_module, "clear_group", clear)
    marker = f"sandbox-escapee-{os.getpid()}-{time.monotonic_ns()}"
    # it outlives one observation period of the tree (`OBSERVE_S`) and leaves a setsid
    # daemon behind
    script = f"setsid sh -c 'sleep 778' {marker} & sleep 0.7"
    sandbox = Sandbox(binds=(Bind(path=tmp_path),))
    outcome = supervise(["/bin/sh", "-c", script], cwd=tmp_path, sandbox=sandbox)
    assert outcome.reason is StopReason.EXITED
    assert outcome.returncode == 0
    assert scans == []
    assert _alive_with(marker) == []


def test_the_sandbox_s_end_is_seen_only_once_its_first_process_is_gone(tmp_path: Path) -> None:
    """`SandboxInit.await_exit` is what spares the scans: True only for a first process bwrap
    named and that is gone; never for one it did not name, or that still runs."""
    from mergegate.processes._sandbox_init import SandboxInit

    def init_naming(pid: int | None) -> SandboxInit:
        read, write = os.pipe()
        os.set_blocking(read, False)
        if pid is not None:
            os.write(write, json.dumps({"child-pid": pid}).encode())
        os.close(write)
        init = SandboxInit(read)
        init.feed()
        return init

    unnamed = init_naming(None)
    assert unnamed.await_exit(0.1) is False
    unnamed.close()
    running = subprocess.Popen(["sleep", "30"])
    try:
        alive = init_naming(running.pid)
        assert alive.await_exit(0.1) is False  # still runs at the deadline
    finally:
        running.kill()
        running.wait()
    assert alive.await_exit(0.1) is True  # gone (reaped) since it was named
    alive.close()
    ended = subprocess.Popen(["true"])
    ended.wait()
    gone = init_naming(ended.pid)  # named after it was reaped: no such process any more
    assert gone.await_exit(0.1) is True
    gone.close()


def _alive_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_the_host_network_is_reachable_only_with_network(tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        accepting = threading.Thread(target=_accept_all, args=(server,), daemon=True)
        accepting.start()
        probe = (
            "import socket, sys\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
            "    print('connected')\n"
            "except OSError as exc:\n"
            "    print('refused', exc)\n"
        )
        binds = tuple(Bind(path=p) for p in {Path(sys.prefix), Path(sys.base_prefix), tmp_path})
        for network, expected in ((True, "connected"), (False, "refused")):
            outcome = supervise(
                [sys.executable, "-c", probe],
                cwd=tmp_path,
                sandbox=Sandbox(binds=binds, network=network),
            )
            assert expected in outcome.stdout_tail.decode(), (network, outcome.stderr_tail)


def _accept_all(server: socket.socket) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        conn.close()


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_scripted_command_agent_runs_in_its_seat_and_sees_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mergegate.agents import get_backend

    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_canary").write_text("canary\n")
    monkeypatch.setenv("HOME", str(home))
    work = tmp_path / "work"
    work.mkdir()
    targets = tmp_path / "targets.json"
    targets.write_text(
        json.dumps(
            {
                "read": [str(home / ".ssh" / "id_canary"), str(tmp_path)],
                "write": [str(home / ".ssh" / "authorized_keys")],
            }
        )
    )
    backend = get_backend("command", cmd=f"{sys.executable} {FAKES / 'hostile_agent.py'} {targets}")
    sandboxed = SandboxedBackend(backend, SandboxPolicy(), tmp_path / "homes")
    result = sandboxed.run(AgentRequest(prompt="do it", cwd=work, attempt_dir=tmp_path / "a"))
    assert result.ok, result.error
    stderr = (tmp_path / "a" / "agent.stderr.log").read_text()  # the report goes to stderr
    report = json.loads(stderr.split("HOSTILE-REPORT ", 1)[1].splitlines()[0])
    assert report["read"][str(home / ".ssh" / "id_canary")] is None
    listing = (report["read"][str(tmp_path)] or "").split()
    # only what is bound: its work tree, its seat, its prompt, the file its command names
    assert {p.split("/")[0] for p in listing} == {"a", "homes", "targets.json", "work"}
    assert "a/prompt.txt" in listing
    assert not any(p.startswith("a/agent.") for p in listing)  # its own logs: out of sight
    # a write "works" in its private /tmp (tmp_path is under /tmp) and is gone: not here
    assert report["prompt"] == "do it"  # its prompt file, read-only
    assert report["home"].startswith(str(tmp_path / "homes"))
    assert (work / "hostile.txt").exists()
    assert not (home / ".ssh" / "authorized_keys").exists()


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_sandbox_stopped_on_its_timeout_leaves_no_process_and_no_zombie(tmp_path: Path) -> None:
    """bwrap, killed first, leaves its child to die a moment later, reparented to us: it is
    awaited and reaped by pid, so nothing of the group is left, not even a zombie."""
    from mergegate.processes import Limits

    outcome = supervise(
        ["/bin/sh", "-c", "trap '' TERM; sleep 30"],
        cwd=tmp_path,
        sandbox=Sandbox(binds=(Bind(path=tmp_path),)),
        limits=Limits(timeout_s=0.5, kill_grace_s=0.2),
    )
    assert outcome.reason is StopReason.TIMEOUT
    assert outcome.record is not None
    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == outcome.record.pgid:
            left.append((int(entry.name), fields[0], int(fields[1])))
    assert left == []


def test_claude_and_codex_use_their_own_sandbox_in_addition_and_a_private_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mergegate.agents._cli import RunContext
    from mergegate.agents.claude import CLI_SANDBOX_SETTINGS, ClaudeBackend
    from mergegate.agents.codex import CodexBackend
    from mergegate.agents.signals import HelpDetector

    real = tmp_path / "real-claude"
    real.mkdir()
    (real / ".credentials.json").write_text("{}")
    (real / "settings.json").write_text("{}")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(real))
    seat = tmp_path / "seat"
    seat.mkdir()
    sandbox = Sandbox(home=seat)
    ctx = RunContext(tmp_path, tmp_path / "prompt.txt", None, lambda _s: None, HelpDetector())
    plain = AgentRequest(prompt="p", cwd=tmp_path)
    boxed = plain.model_copy(update={"sandbox": sandbox})
    claude = ClaudeBackend()
    settings = ["--settings", json.dumps(CLI_SANDBOX_SETTINGS)]
    args = claude.build_args(boxed, ctx)
    assert args[args.index("--settings") : args.index("--settings") + 2] == settings
    assert "--settings" not in claude.build_args(plain, ctx)  # in addition, never instead
    assert claude.run_env(boxed, ctx)["CLAUDE_CONFIG_DIR"] == str(seat / ".claude")
    # the user's own settings (hooks, MCP servers) stay out; their credentials come in
    binds = claude.sandbox_binds(sandbox)
    assert [(b.path, b.source, b.writable) for b in binds] == [
        (seat / ".claude" / ".credentials.json", real / ".credentials.json", False)
    ]
    codex = CodexBackend(config_home=tmp_path / "codex-home")
    (tmp_path / "codex-home" / "auth.json").parent.mkdir()
    (tmp_path / "codex-home" / "auth.json").write_text("{}")
    (tmp_path / "codex-home" / "config.toml").write_text("")
    assert "workspace-write" in codex.build_args(boxed, ctx)
    assert codex.run_env(boxed, ctx)["CODEX_HOME"] == str(seat / ".codex")
    assert {b.path.name for b in codex.sandbox_binds(sandbox)} == {"auth.json", "config.toml"}


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_killing_the_recorded_group_kills_the_whole_sandbox(tmp_path: Path) -> None:
    """`cancel` (and `resume` after a crash) kill an agent by its process record: bwrap leads
    the group, and a daemon that left it inside the sandbox dies with it."""
    from mergegate.processes import ProcessRecord, kill_recorded_group

    beat = tmp_path / "beat"
    daemon = (
        "import os, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "end = time.time() + 30\n"
        "while time.time() < end:\n"
        f"    open({str(beat)!r}, 'a').write('x')\n"
        "    time.sleep(0.01)\n"
    )
    (tmp_path / "daemon.py").write_text(daemon)
    script = f"setsid {sys.executable} {tmp_path / 'daemon.py'} & sleep 30"
    binds = tuple(Bind(path=p) for p in {Path(sys.prefix), Path(sys.base_prefix)})
    sandbox = Sandbox(binds=(*binds, Bind(path=tmp_path, writable=True)))
    records: list[ProcessRecord] = []
    thread = threading.Thread(
        target=supervise,
        args=(["/bin/sh", "-c", script],),
        kwargs={"cwd": tmp_path, "sandbox": sandbox, "on_start": records.append},
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not (beat.exists() and beat.stat().st_size > 5) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert beat.exists()
    [record] = records
    assert Path(record.argv[0]).name == "bwrap"  # the recorded leader is the sandbox
    assert kill_recorded_group(record, grace_s=0.5)
    thread.join(timeout=10)
    assert not thread.is_alive()
    size = beat.stat().st_size
    time.sleep(0.3)
    assert beat.stat().st_size == size


_PART = st.sampled_from(["usr", "usrx", "us", "lib", "lib64", "a", "b", "root", "x y", "é"])
_ABSOLUTE = st.lists(_PART, max_size=4).map(lambda parts: Path("/", *parts))


@given(_ABSOLUTE, _ABSOLUTE)
def test_inside_is_path_is_relative_to_for_normalised_paths(path: Path, root: Path) -> None:
    """The text comparison the bind computation uses instead of `Path.is_relative_to`."""
    from mergegate.agents.sandbox import _inside

    assert _inside(path, root) == path.is_relative_to(root)
    assert _inside(str(path), str(root)) == path.is_relative_to(root)


@given(_ABSOLUTE)
def test_a_bind_is_visible_exactly_under_a_system_directory(path: Path) -> None:
    from mergegate.agents.sandbox import _visible
    from mergegate.processes._sandbox import SYSTEM_LINKS, SYSTEM_READ

    roots = (*SYSTEM_READ, *SYSTEM_LINKS)
    assert _visible(path) == any(path == Path(r) or path.is_relative_to(r) for r in roots)


@pytest.mark.sandbox
@pytest.mark.usefixtures("sandbox_available")
def test_a_unit_removed_while_a_sandbox_starts_does_not_stop_the_agent(tmp_path: Path) -> None:
    """Units are merged and their workspaces removed while other units' agents start: the
    sandbox built before a sibling went away still starts, and shows the agent its own
    workspace (writable) and nothing else of the state directory."""
    state = tmp_path / "state"
    workspace = state / "worktrees" / "run" / "U1"
    workspace.mkdir(parents=True)
    sibling = state / "worktrees" / "run" / "U2"
    sibling.mkdir()
    (sibling / "secret").write_text("other unit\n")
    (state / "answers.jsonl").write_text("{}")
    sandbox = SandboxPolicy(allow=(tmp_path,)).sandbox(
        workspace, writable=True, home=None, hidden=(state,)
    )
    assert sandbox is not None
    shutil.rmtree(sibling)  # merged between building the sandbox and starting the agent
    script = (
        f"echo w > {workspace}/new && echo rw-ok; ls -A {state}; ls -A {state}/worktrees/run; "
        f"cat {state}/answers.jsonl || echo no-answers; echo x > {state}/planted || echo ro"
    )
    code, out, err = _run(sandbox, script, workspace)
    assert code == 0, err
    assert "rw-ok" in out
    assert (workspace / "new").read_text() == "w\n"
    assert not sibling.exists()  # bwrap made no mount point for it on the host
    assert "answers.jsonl" not in out
    assert "no-answers" in out
    assert "U2" not in out
    assert "ro" in out.split()
    assert not (state / "planted").exists()
