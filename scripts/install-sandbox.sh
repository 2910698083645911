#!/usr/bin/env bash
# Make Debian's bubblewrap (`bwrap`) available: mergegate runs every agent and task check in
# a bubblewrap sandbox (docs/sandbox.md) and refuses to run them without one unless told
# --no-sandbox.
#
# Used by `.ci/run` (strict) and `make test`/`make demo` (best effort).
#
# - Fast no-op when `bwrap` is on PATH.
# - Otherwise installs the Debian package `bubblewrap` with apt-get (one `apt-get update`), as
#   root.
# - Then starts an empty sandbox the way mergegate does (its own namespaces, no capabilities)
#   and says whether this machine allows it: a kernel or security module that refuses user
#   namespaces (`kernel.unprivileged_userns_clone=0`, Ubuntu's
#   `kernel.apparmor_restrict_unprivileged_userns=1` without bubblewrap's AppArmor profile, a
#   container's seccomp filter) is reported with bwrap's own words.
# - Exit 1 when bwrap is missing and cannot be installed (not root, no apt-get), or cannot make
#   a sandbox here: the `sandbox` tests then skip, and under MERGEGATE_REQUIRE_REAL=1 (CI) that
#   skip is a failure.
set -euo pipefail

probe() {
  # The same options as mergegate's own sandbox (mergegate.processes._sandbox.bwrap_argv).
  local links=()
  for dir in /bin /sbin /lib /lib32 /lib64 /libx32; do
    if [ -L "$dir" ]; then
      links+=(--symlink "$(readlink "$dir")" "$dir")
    elif [ -d "$dir" ]; then
      links+=(--ro-bind "$dir" "$dir")
    fi
  done
  bwrap --unshare-all --die-with-parent --cap-drop ALL --ro-bind /usr /usr "${links[@]}" \
    --proc /proc --dev /dev --tmpfs /tmp --remount-ro / /bin/true
}

check() {
  local why
  if why="$(probe 2>&1)"; then
    echo "install-sandbox: $(bwrap --version) makes sandboxes here" >&2
    exit 0
  fi
  echo "install-sandbox: bwrap is installed but cannot make a sandbox here: ${why:-exit $?}" >&2
  echo "install-sandbox: allow unprivileged user namespaces (see docs/sandbox.md), or run" \
    "mergegate with --no-sandbox" >&2
  exit 1
}

if command -v bwrap >/dev/null 2>&1; then
  check
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-sandbox: bwrap not found, and this is not root with apt-get; install" \
    "Debian's 'bubblewrap' package (sandbox tests will skip; mergegate refuses to run agents" \
    "without --no-sandbox)" >&2
  exit 1
fi

echo "install-sandbox: installing Debian's bubblewrap package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends bubblewrap >&2
if ! command -v bwrap >/dev/null 2>&1; then
  echo "install-sandbox: the bubblewrap package installed no bwrap" >&2
  exit 1
fi
check
