"""The state directory's layout: what lives where under `state_dir()`, spelled once.

    <state>/
      runs/<run>/          a run's folder: reports, summaries, logs, `run.json`, `plan.json`
      reviews/<run>/       a `mergegate review` run's folder
      db/                  the run databases (`<run>.sqlite`) and `leases.sqlite`
      worktrees/<run>/     the git worktrees a run's units work in
      workers/<name>/      a fleet worker's default work directory
      verify/              `mergegate verify` ledgers and runs, by plan and phase
                           (`<plan>-<hash>/<phase>/answers.jsonl` and `…/runs/<run>/`)
      sessions/<backend>/  chat histories of the HTTP backends
      homes/               private HOMEs of sandboxed agents started by `mergegate agent`

Inside a run's folder (`RunLayout`):

      <run>/<phase>/               a phase's records (`phase.json`, its verification)
      <run>/<phase>/<unit>/        a unit's records (`unit.json`, `SUMMARY.md`, its tasks)
      <run>/<phase>/verify/g<NN>/  the phase's verification in generation NN

A verify records folder (`PhaseDir`: `verify/<plan>-<hash>/<phase>/`, or a `--report-dir`'s
`<phase>/`) holds `answers.jsonl` and `runs/<run>/`.

A fleet worker's work directory is laid out the same way for what it holds: `worktrees/<run>/`
and `mirrors/<name>/` (its bare mirrors of remote repositories). The hooks' per-user state
(`hooks/<tool>/`) is spelled in `mergegate.integrations`: the hook's fast path reads it before
this package is loaded.

Every folder name here is persisted: runs recorded by an older mergegate are found by them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["PhaseDir", "RunLayout", "StateLayout"]


@dataclass(frozen=True)
class StateLayout:
    """The folders under one state directory `root`; nothing is created here."""

    root: Path

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def reviews(self) -> Path:
        return self.root / "reviews"

    @property
    def databases(self) -> Path:
        return self.root / "db"

    @property
    def verify(self) -> Path:
        return self.root / "verify"

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"

    @property
    def homes(self) -> Path:
        """Private HOMEs of sandboxed agents started outside a run (`mergegate agent`)."""
        return self.root / "homes"

    def worktrees(self, run_id: str) -> Path:
        """Where the worktrees of run `run_id` live."""
        return self.root / "worktrees" / run_id

    def mirror(self, name: str) -> Path:
        """A bare mirror of a remote repository (in a fleet worker's work directory)."""
        return self.root / "mirrors" / name

    def worker(self, name: str) -> Path:
        """A fleet worker's default work directory."""
        return self.root / "workers" / name


@dataclass(frozen=True)
class RunLayout:
    """The folders inside one run's folder `root` (`<state>/runs/<run>/`); nothing is created
    here. The ids are the plan's, checked where the plan was read."""

    root: Path

    def phase(self, phase_id: str) -> Path:
        return self.root / phase_id

    def unit(self, phase_id: str, unit_id: str) -> Path:
        return self.phase(phase_id) / unit_id

    def verification(self, phase_id: str, generation: int) -> Path:
        """The phase's verification in `generation` (a later generation verifies again)."""
        return self.phase(phase_id) / "verify" / f"g{generation:02d}"


@dataclass(frozen=True)
class PhaseDir:
    """A phase's folder of verify records (`verify/<plan>-<hash>/<phase>/` under the state
    directory, or `--report-dir/<phase>`): the answers ledger `answers.jsonl` and one folder
    per verification, `runs/<run>/`."""

    path: Path

    @property
    def answers(self) -> Path:
        return self.path / "answers.jsonl"

    @property
    def runs(self) -> Path:
        return self.path / "runs"

    def run(self, run_id: str) -> Path:
        return self.runs / run_id
