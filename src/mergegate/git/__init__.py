"""Git: the one package that runs git, and the proof that a read-only run stayed read-only.

Layer L2, above `mergegate.processes` (every git command goes through `run_command`). Its
parts:

* `_command`: the one place git is run — every call with the same environment and config
  overrides, so no repository hook and no program named by config an agent could write runs
  (`CONFIG_OVERRIDES`, `GIT_ENVIRONMENT`, `driver_overrides`; the full table of keys that make
  git run a program is in docs/sandbox.md);
* `_snapshot`: `snapshot_worktree` / `verify_unchanged` / `compare_snapshots` — HEAD, index,
  status and file hashes, plus every file under `.git` and every config file outside it, read
  byte by byte before git is run again;
* `_checkout`: `throwaway_checkout`, a separate repository holding one commit, where reviewers
  run so the user's working tree and `.git` are out of their reach;
* `_repository`: `GitRepository`, the operations of the review loop;
* `_history`: `phase_changes` / `first_commit_adding` — what a phase's commits changed and
  renamed, for `mergegate verify`;
* `_workspaces`: the run engine's workspaces (a repository per unit, borrowing the user's
  objects), keyed commits, publishing and exactly-once merges;
* `_status`: what the user's work tree holds that is not committed (`run` refuses it);
* `_remote`: a fleet worker's bare mirror of a shared remote, its pushes and fetches, and a
  unit's workspace rebuilt on another host (the only git commands allowed a transport).
"""

from __future__ import annotations

from mergegate.git._checkout import remove_tree, throwaway_checkout
from mergegate.git._command import CONFIG_OVERRIDES, GIT_ENVIRONMENT, driver_overrides, run_git
from mergegate.git._history import PhaseChanges, first_commit_adding, phase_changes
from mergegate.git._remote import (
    Remote,
    push_branch,
    remote_protocol,
    remote_tip,
    remote_url,
    wip_branch,
)
from mergegate.git._repository import GitRepository
from mergegate.git._snapshot import (
    WorktreeSnapshot,
    compare_snapshots,
    snapshot_worktree,
    verify_unchanged,
)
from mergegate.git._status import uncommitted_paths
from mergegate.git._workspaces import (
    GitError,
    MergeResult,
    add_workspace,
    advance_branch,
    branch_tip,
    checked_out_branches,
    commit_with_key,
    create_branch,
    find_trailer_commit,
    head_commit,
    merge_no_ff,
    publish,
    remove_workspace,
    repository_root,
    reset_clean,
    valid_branch_name,
)

__all__ = [
    "CONFIG_OVERRIDES",
    "GIT_ENVIRONMENT",
    "GitError",
    "GitRepository",
    "MergeResult",
    "PhaseChanges",
    "Remote",
    "WorktreeSnapshot",
    "add_workspace",
    "advance_branch",
    "branch_tip",
    "checked_out_branches",
    "commit_with_key",
    "compare_snapshots",
    "create_branch",
    "driver_overrides",
    "find_trailer_commit",
    "first_commit_adding",
    "head_commit",
    "merge_no_ff",
    "phase_changes",
    "publish",
    "push_branch",
    "remote_protocol",
    "remote_tip",
    "remote_url",
    "remove_tree",
    "remove_workspace",
    "repository_root",
    "reset_clean",
    "run_git",
    "snapshot_worktree",
    "throwaway_checkout",
    "uncommitted_paths",
    "valid_branch_name",
    "verify_unchanged",
    "wip_branch",
]
