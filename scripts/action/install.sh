#!/usr/bin/env bash
# The "Install mergegate" step of action.yml (the composite GitHub Action at the repository
# root). Run by the runner as `bash install.sh`; the tests run it the same way.
#
# Inputs (environment): INPUT_INSTALL, INPUT_EXTRAS, INPUT_PYTHON, GITHUB_ACTION_PATH,
# RUNNER_TEMP, GITHUB_PATH.
#   INPUT_INSTALL=source    (default) install mergegate from the action's own checkout
#   INPUT_INSTALL=none      use the `mergegate` already on PATH (installed by an earlier step)
#   INPUT_INSTALL=<pip requirement>   e.g. "mergegate==0.2.0"
# mergegate goes into its own virtual environment under $RUNNER_TEMP (the runner's system
# Python refuses `pip install` outside one, PEP 668), whose bin/ is added to $GITHUB_PATH.
set -euo pipefail

# Agents that run as programs run in a bubblewrap sandbox (docs/sandbox.md). Install Debian's
# bubblewrap when it is missing and the runner allows it (GitHub's Ubuntu runners have
# passwordless sudo). Best effort: without it `mergegate review` stops with exit 4 and says why
# (or pass --no-sandbox in `args`).
ensure_bwrap() {
  command -v bwrap >/dev/null 2>&1 && return 0
  if command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 \
    && sudo -n true 2>/dev/null; then
    sudo -n apt-get install -y -qq bubblewrap >/dev/null 2>&1 \
      || { sudo -n apt-get update -qq && sudo -n apt-get install -y -qq bubblewrap; } \
      >/dev/null 2>&1 || true
  fi
  if ! command -v bwrap >/dev/null 2>&1; then
    echo "::warning::mergegate: bubblewrap (bwrap) is not installed; agents cannot be sandboxed"
  fi
}
ensure_bwrap

install="${INPUT_INSTALL:-source}"
extras="${INPUT_EXTRAS:-}"
python="${INPUT_PYTHON:-python3}"

if [ "$install" = "none" ]; then
  if ! command -v mergegate >/dev/null 2>&1; then
    echo "::error::mergegate: install is 'none' but mergegate is not on PATH"
    exit 1
  fi
  echo "mergegate: using $(command -v mergegate) ($(mergegate --version))"
  exit 0
fi

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "::error::mergegate: needs Python >= 3.11 ('$python'); add actions/setup-python first"
  exit 1
fi

case "$install" in
  source) requirement="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}" ;;
  *) requirement="$install" ;;
esac
if [ -n "$extras" ]; then
  case "$extras" in
    *[!A-Za-z0-9,_-]*) echo "::error::mergegate: invalid extras '$extras'"; exit 1 ;;
  esac
  if [ "$install" = "source" ]; then
    requirement="$requirement[$extras]"
  else
    # "name==1.0" + "local" -> "name[local]==1.0"
    name="${requirement%%[=<>!~ ;@]*}"
    requirement="$name[$extras]${requirement#"$name"}"
  fi
fi

venv="${RUNNER_TEMP:?RUNNER_TEMP is not set}/mergegate-venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement"
echo "$venv/bin" >> "${GITHUB_PATH:?GITHUB_PATH is not set}"
echo "mergegate: installed $("$venv/bin/mergegate" --version) from $requirement"
