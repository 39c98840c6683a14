#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Every shell script of the source tree passes shellcheck (sourced files
# followed from each script's directory).  A missing shellcheck is a
# failure: make deps installs it.
#
#   usage: test/lint/shellcheck.sh SRCDIR
set -uo pipefail

src=${1:?usage: shellcheck.sh SRCDIR}
cd "$src" || exit 1
command -v shellcheck >/dev/null 2>&1 || {
	echo "FAIL: shellcheck not installed: run make deps" >&2
	exit 1
}
mapfile -t scripts < <(find . -path './build*' -prune -o -path './.git' \
	-prune -o -name '*.sh' -type f -print | sort)
scripts+=(.ci/run)
echo "shellcheck: ${#scripts[@]} scripts"
shellcheck -x -P SCRIPTDIR "${scripts[@]}" || {
	echo "FAIL: shellcheck found the problems above" >&2
	exit 1
}
echo "PASS"
