#!/usr/bin/env bash
# Install the real Claude Code and Codex CLIs, at pinned versions, into a project-local prefix.
#
# Used by the `real_cli` tests (tests/real_cli/), by `make test` and by `.ci/run`.
# - npm registry only, by package name; no curl installers, no global npm, no root.
# - Idempotent: a CLI already installed at its pinned version is skipped.
# - Prefix: $MERGEGATE_AGENT_CLIS_DIR, default <repo>/.agent-clis (gitignored).
# - Missing npm is not an error here (the tests then skip, or fail under MERGEGATE_REQUIRE_REAL=1);
#   a failed install is.
#
# Bump a pin: change the version below, run this script, run `pytest -m real_cli`.
set -euo pipefail

CLAUDE_CODE_VERSION="2.1.330"   # npm @anthropic-ai/claude-code (see ../shared/research/agent-clis.md §9)
CODEX_VERSION="0.169.0"         # npm @openai/codex

repo="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${MERGEGATE_AGENT_CLIS_DIR:-$repo/.agent-clis}"

if ! command -v npm >/dev/null 2>&1; then
  echo "install-agent-clis: npm not found; skipping (real_cli tests will skip)" >&2
  exit 0
fi

# installed_version PACKAGE -> the version in the prefix's package.json, or nothing.
installed_version() {
  local pj="$prefix/node_modules/$1/package.json"
  [ -f "$pj" ] || return 0
  node -e 'process.stdout.write(require(process.argv[1]).version)' "$pj" 2>/dev/null || true
}

# ensure PACKAGE VERSION BIN: install PACKAGE@VERSION unless present, then check BIN runs.
ensure() {
  local pkg="$1" version="$2" bin="$3"
  if [ "$(installed_version "$pkg")" = "$version" ] && [ -x "$prefix/node_modules/.bin/$bin" ]; then
    echo "install-agent-clis: $pkg@$version already installed"
  else
    echo "install-agent-clis: installing $pkg@$version into $prefix"
    # --prefix keeps it out of the global npm; --save-exact records the pin in the prefix's own
    # package.json, so installing the second CLI does not prune the first as extraneous.
    npm install --prefix "$prefix" --save-exact --no-fund --no-audit --loglevel=error \
      "$pkg@$version"
  fi
  "$prefix/node_modules/.bin/$bin" --version >/dev/null
}

mkdir -p "$prefix"
# A package.json of its own so npm does not walk up into the repository.
[ -f "$prefix/package.json" ] || echo '{"name":"mergegate-agent-clis","private":true}' \
  > "$prefix/package.json"

export DISABLE_AUTOUPDATER=1
ensure "@anthropic-ai/claude-code" "$CLAUDE_CODE_VERSION" claude
ensure "@openai/codex" "$CODEX_VERSION" codex

echo "install-agent-clis: claude -> $prefix/node_modules/.bin/claude ($("$prefix/node_modules/.bin/claude" --version 2>/dev/null | head -1))"
echo "install-agent-clis: codex  -> $prefix/node_modules/.bin/codex ($("$prefix/node_modules/.bin/codex" --version 2>/dev/null | head -1))"
