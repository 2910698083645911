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
