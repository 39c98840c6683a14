#!/usr/bin/env bash
# Sum up meson test logs into one closing line:
#
#   N passed, N failed[, N skipped]
#
#   scripts/test-summary.sh [--failed-builds N] TESTLOG.json...
#
# Each TESTLOG is a meson-logs/testlog.json: one JSON object per line with a
# "result" field.  OK and EXPECTEDFAIL count as passed; SKIP as skipped;
# FAIL, TIMEOUT, UNEXPECTEDPASS and ERROR as failed.  A log that is missing
# (its build or its test run never happened) counts as one failure, and so
# does each of the --failed-builds.  Exit status: 1 if anything failed.
set -euo pipefail

failed_builds=0
if [ "${1:-}" = --failed-builds ]; then
	failed_builds=$2
	shift 2
fi

exec python3 - "$failed_builds" "$@" <<'PY'
import json
import sys

passed = failed = skipped = 0
failed += int(sys.argv[1])
for path in sys.argv[2:]:
    try:
        f = open(path, encoding="utf-8")
    except OSError as e:
        print(f"test-summary: {path}: {e.strerror}; counted as 1 failure",
              file=sys.stderr)
        failed += 1
        continue
    with f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                result = json.loads(line).get("result", "ERROR")
            except ValueError:
                print(f"test-summary: {path}:{lineno}: not JSON; counted as "
                      "1 failure", file=sys.stderr)
                failed += 1
                continue
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1

line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
PY
