"""Git: the one package that runs git, and the proof that a read-only run stayed read-only.

Layer L2, above `mergegate.processes` (every git command goes through `run_command`). Its
parts:

* `_command`: the one place git is run — every call with the same environment and config
  overrides, so no repository hook and no program named by config an agent could write runs
  (`CONFIG_OVERRIDES`, `GIT_ENVIRONMENT`, `driver_overrides`; the full table of keys that make
  git run a program is in docs/sandbox.md);
* `_snapshot`: `snapshot_worktree` / `verify_unchanged` / `compare_snapshots` — HEAD, index,
  status and file hashes, plus every file under `.git` and every config file outside it, read
  byte by byte before git is run again; `KeptSnapshots`, one check's snapshot after kept as the
  next read-only run's before;
* `_checkout`: `throwaway_checkout`, a separate repository holding one commit, where reviewers
  run so the user's working tree and `.git` are out of their reach, and `KeptCheckout`, one kept
  open for the next reviewer of the same commit while nothing under it changed;
* `_repository`: `GitRepository`, the operations of the review loop;
* `_history`: `phase_changes` / `first_commit_adding` — what a phase's commits changed and
  renamed, for `mergegate verify`;
* `_identity`: `Workspace`, a work tree mergegate made and the identity of its `.git`, and
  `check_workspace`, run before every git command there (no gitfile, no symlink, no
  `commondir`, the same directory as made);
* `_workspaces`: the run engine's workspaces (a repository per unit, borrowing the user's
  objects), commits on recorded parents, publishing, merges prepared on the recorded
  integration tip and published by compare-and-swap (`advance_branch`, `BranchMovedError`);
* `_objects`: the object directories an agent's sandbox binds read-only so git works in a
  repository that borrows them (`object_dirs`, `workspace_objects`);
* `_status`: what the user's work tree holds that is not committed (`run` refuses it);
* `_remote`: a fleet worker's bare mirror of a shared remote, its pushes and fetches, and a
  unit's workspace rebuilt on another host (the only git commands allowed a transport);
* `_cleanup`: a finished run's branches listed and deleted, here and on a remote, each by
  compare and swap (`mergegate gc`).
"""

from __future__ import annotations

from mergegate.git._checkout import (
    REMOVING,
    remove_tree,
    remove_tree_soon,
    settle_removals,
    throwaway_checkout,
)
from mergegate.git._cleanup import (
    delete_branches,
    delete_remote_branches,
    list_branches,
    list_remote_branches,
)
from mergegate.git._command import CONFIG_OVERRIDES, GIT_ENVIRONMENT, driver_overrides, run_git
from mergegate.git._history import PhaseChanges, first_commit_adding, phase_changes
from mergegate.git._identity import Workspace, WorkspaceError, check_workspace, identify
from mergegate.git._objects import object_dirs, workspace_objects
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
    KeptSnapshots,
    WorktreeSnapshot,
    check_unchanged,
    compare_snapshots,
    out_of_reach,
    snapshot_worktree,
    verify_unchanged,
)
from mergegate.git._status import uncommitted_paths
from mergegate.git._workspaces import (
    BranchMovedError,
    GitError,
    MergeResult,
    add_workspace,
    advance_branch,
    branch_tip,
    checked_out_branches,
    commit_with_key,
    create_branch,
    head_commit,
    prepare_merge,
    publish,
    remove_workspace,
    repository_root,
    reset_clean,
    valid_branch_name,
)

__all__ = [
    "CONFIG_OVERRIDES",
    "GIT_ENVIRONMENT",
    "REMOVING",
    "BranchMovedError",
    "GitError",
    "GitRepository",
    "KeptSnapshots",
    "MergeResult",
    "PhaseChanges",
    "Remote",
    "Workspace",
    "WorkspaceError",
    "WorktreeSnapshot",
    "add_workspace",
    "advance_branch",
    "branch_tip",
    "check_unchanged",
    "check_workspace",
    "checked_out_branches",
    "commit_with_key",
    "compare_snapshots",
    "create_branch",
    "delete_branches",
    "delete_remote_branches",
    "driver_overrides",
    "first_commit_adding",
    "head_commit",
    "identify",
    "list_branches",
    "list_remote_branches",
    "object_dirs",
    "out_of_reach",
    "phase_changes",
    "prepare_merge",
    "publish",
    "push_branch",
    "remote_protocol",
    "remote_tip",
    "remote_url",
    "remove_tree",
    "remove_tree_soon",
    "remove_workspace",
    "repository_root",
    "reset_clean",
    "run_git",
    "settle_removals",
    "snapshot_worktree",
    "throwaway_checkout",
    "uncommitted_paths",
    "valid_branch_name",
    "verify_unchanged",
    "wip_branch",
    "workspace_objects",
]
