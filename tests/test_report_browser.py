"""The HTML report in a real browser: Debian's Chromium, headless (scripts/install-browser.sh).

Chromium is driven from its command line only: `--screenshot` for the picture, `--dump-dom` for
the page as the browser built it (after any script would have run), and `--enable-logging` for
the page's console (`INFO:CONSOLE` lines). The background-networking flags keep it from calling
home on a machine without a network.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from _runs import HOSTILE, plan_run, write_run
from mergegate.events import AgentAttempt
from mergegate.report import write_report
from test_report import parse

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("MERGEGATE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]
CONSOLE = re.compile(r":INFO:CONSOLE[^\]]*\] (.*)")


@pytest.fixture
def chromium(tmp_path: Path) -> Browser:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (run scripts/install-browser.sh)")
    return Browser(tmp_path)


class Browser:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.runs = 0

    def run(self, page: Path, *args: str) -> tuple[str, list[str]]:
        """Open `page` with a new, empty profile; (stdout, console messages)."""
        self.runs += 1
        profile = self.tmp_path / f"profile-{self.runs}"
        profile.mkdir()
        done = subprocess.run(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        console = [m.group(1) for m in CONSOLE.finditer(done.stderr)]
        return done.stdout, console

    def dom(self, page: Path) -> tuple[str, list[str]]:
        # a virtual-time budget lets timers, image errors and load handlers fire first
        return self.run(page, "--virtual-time-budget=3000", "--dump-dom")


def test_the_screenshot_is_not_blank(chromium: Browser, tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "state", "r1", plan_run("r1", tasks=4))
    page = write_report(run_dir)
    shot = tmp_path / "shot.png"
    _, console = chromium.run(page, f"--screenshot={shot}", "--window-size=1300,1400")
    assert console == []  # no CSP complaint: the style hash matched, nothing tried to run
    with Image.open(shot) as raw:
        image = raw.convert("RGB")
    assert image.size == (1300, 1400)
    colors = image.getcolors(maxcolors=1 << 20)
    assert colors is not None
    assert len(colors) > 50  # text, badges, bars: not a blank or single-colour page
    background = max(colors)[0]
    assert background < 0.9 * image.width * image.height
    counts = {rgb: n for n, rgb in colors}
    # the stylesheet applied: the header's dark blue, implementer and reviewer bars
    for rgb in ((28, 36, 48), (37, 99, 235), (124, 58, 237)):
        assert counts.get(rgb, 0) > 100, rgb


def test_the_timeline_has_one_bar_per_attempt(chromium: Browser, tmp_path: Path) -> None:
    events = plan_run("r1", tasks=3, reviews_per_task=2)
    run_dir = write_run(tmp_path / "state", "r1", events)
    dom, console = chromium.dom(write_report(run_dir))
    markup = parse(dom)
    bars = [
        a for t, a in markup.tags if t == "rect" and "attempt" in (a.get("class") or "").split()
    ]
    assert len(bars) == sum(isinstance(e, AgentAttempt) for e in events) == 9
    assert markup.title == "mergegate run r1"
    assert console == []


def test_hostile_agent_output_runs_nothing(chromium: Browser, tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "state", "r1", plan_run("r1", tasks=2, text=HOSTILE))
    page = write_report(run_dir)
    dom, console = chromium.dom(page)
    markup = parse(dom)
    tags = [t for t, _ in markup.tags]
    assert markup.title == "mergegate run r1"  # no script set document.title
    assert "pwned" not in tags  # no handler created an element
    assert "script" not in tags
    assert "iframe" not in tags
    assert "img" not in tags
    assert not [a for t, a in markup.tags if t == "a" and not (a.get("href") or "").startswith("#")]
    assert not [m for m in console if "PWNED" in m]
    assert console == []  # nothing even tried: the text never became markup
    assert "&lt;script&gt;document.title='PWNED'" in dom  # it is on the page, as text


def test_the_policy_alone_stops_a_script_that_got_through(
    chromium: Browser, tmp_path: Path
) -> None:
    """Defence in depth: were escaping ever to fail, the CSP still runs nothing."""
    run_dir = write_run(tmp_path / "state", "r1", plan_run("r1", tasks=1))
    page = write_report(run_dir)
    injected = (
        "<script>document.title='PWNED';console.log('PWNED-inline')</script>"
        '<img src="data:,x" onerror="console.log(\'PWNED-handler\')">'
        '<a id="j" href="javascript:console.log(\'PWNED-link\')">j</a>'
    )
    page.write_text(page.read_text().replace("<main>", "<main>" + injected, 1))
    dom, console = chromium.dom(page)
    markup = parse(dom)
    assert markup.title == "mergegate run r1"
    assert not [m for m in console if "PWNED" in m]
    assert any("Content Security Policy" in m for m in console)  # the browser refused it


def test_the_report_of_a_mergegate_run_in_the_browser(chromium: Browser, tmp_path: Path) -> None:
    """The page `mergegate run` writes at its end: one bar per agent attempt of the run's
    stream, and a reviewer's hostile finding title on it as text, running nothing."""
    from _plan_runs import agent, approve, invoke, make_plan, repo_with, with_fixes
    from mergegate.events import read_events

    repo = repo_with(tmp_path / "repo")
    rev = agent(tmp_path, "rev", {"A/T1": {"review": [with_fixes(HOSTILE[:300]), approve()]}})
    args = ["run", "--repo", str(repo), "--implementer-cmd", agent(tmp_path, "impl")]
    args += ["--reviewer-cmd", rev, "--format", "json", "--progress", "none"]
    code, out, err = invoke(args, make_plan({"P1": {"A": {}}}), tmp_path)
    assert code == 0, err
    assert out is not None
    attempts = [e for e in read_events(Path(out["run_dir"])).events if isinstance(e, AgentAttempt)]
    assert len(attempts) == 5  # implementer, spec + quality, the fix, spec again
    dom, console = chromium.dom(Path(out["report"]))
    markup = parse(dom)
    bars = [
        a for t, a in markup.tags if t == "rect" and "attempt" in (a.get("class") or "").split()
    ]
    assert len(bars) == len(attempts)
    assert markup.title == f"mergegate run {out['run_id']}"
    tags = [t for t, _ in markup.tags]
    assert "script" not in tags
    assert "pwned" not in tags
    assert "img" not in tags
    assert console == []
    assert "&lt;script&gt;document.title='PWNED'" in dom  # on the page, as text
