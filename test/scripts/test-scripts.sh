#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The failure paths of scripts/perf-pair.sh and scripts/demo.sh, run
# against a build directory of stand-ins (shell scripts in place of
# pmr-perf, pmr-devinfo, verbs_loopback and rc_demo), so that each step
# can be made to fail on purpose:
# - perf-pair.sh: a client that fails while its server waits fails the
#   pair at once and stops the server (not after the server's own two
#   minutes); a server that fails fails the pair; both well: status 0;
# - demo.sh: a program not built, a step that fails, the RC pair's client
#   failing, its server ending or making no socket in 15 s, a pmr-perf
#   run failing (its client's error shown, its server
#   stopped): each ends the demo with status 1 and says which step; all
#   steps well: "demo: OK".
#   test-scripts.sh SOURCE_ROOT
set -uo pipefail
SRC=$1
DIR=$(mktemp -d /tmp/pmr-scripts-test.XXXXXX)
B=$DIR/build
fail=0

# a stand-in server still running is a failure the test reports; none
# outlives the test
trap 'pkill -f "$DIR/" 2>/dev/null; rm -rf "$DIR"' EXIT

# stand_in NAME <<BODY: an executable script at $B/NAME.  The stand-ins
# read STUB_FAIL (which step fails) and write their PID to $DIR/pids.
stand_in() {
	mkdir -p "$(dirname "$B/$1")"
	{
		echo '#!/usr/bin/env bash'
		printf 'echo $$ >>%q\n' "$DIR/pids"
		cat
	} >"$B/$1"
	chmod +x "$B/$1"
}

# pmr-perf: the client is the run with a host (127.0.0.1); the server
# waits for it (as the real one does for its TCP connection)
stand_in apps/pmr-perf/pmr-perf <<'EOF'
client=0
for a in "$@"; do [ "$a" = 127.0.0.1 ] && client=1; done
if [ $client = 1 ]; then
	sleep 0.3
	if [ "${STUB_FAIL:-}" = perf_client ]; then
		echo "pmr-perf: connection to the peer lost" >&2
		exit 1
	fi
	echo "#bytes #iterations t_typical"
	touch "$(dirname "$0")/client.done"
	exit 0
fi
if [ "${STUB_FAIL:-}" = perf_server ]; then
	echo "pmr-perf: server failed"
	exit 1
fi
# a server waits for its client (the real one: up to its TCP timeout)
for _ in $(seq 600); do
	[ -e "$(dirname "$0")/client.done" ] && { rm -f "$(dirname "$0")/client.done"; exit 0; }
	sleep 0.1
done
exit 0
EOF
stand_in apps/pmr-devinfo/pmr-devinfo <<'EOF'
echo "no pmrdma devices"
EOF
stand_in examples/verbs_loopback <<'EOF'
[ "${STUB_FAIL:-}" = loopback ] && { echo "verbs_loopback: failed" >&2; exit 3; }
exit 0
EOF
# rc_demo: the server makes its control socket (the demo waits for it)
stand_in examples/rc_demo <<'EOF'
ctl= server=0
while [ $# -gt 0 ]; do
	case $1 in --ctl) ctl=$2; shift ;; --server) server=1 ;; esac
	shift
done
if [ $server = 1 ]; then
	[ "${STUB_FAIL:-}" = rc_server ] && { echo "rc_demo: no device" >&2; exit 1; }
	if [ "${STUB_FAIL:-}" = rc_server_mute ]; then
		echo "rc_demo: stuck" >&2
		exec sleep 60
	fi
	python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$ctl"
	echo "server: stand-in"
	exit 0
fi
[ "${STUB_FAIL:-}" = rc_client ] && { echo "rc_demo: client failed" >&2; exit 1; }
exit 0
EOF

# alive: a stand-in started by the last case still runs
alive() {
	local p
	[ -f "$DIR/pids" ] || return 1
	while read -r p; do
		kill -0 "$p" 2>/dev/null && return 0
	done <"$DIR/pids"
	return 1
}

# check NAME STATUS WANT_STATUS SECONDS MAX_SECONDS [PATTERN FILE]
check() {
	local name=$1 rc=$2 want=$3 t=$4 max=$5
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $name: status $rc, not $want"
		fail=1
	elif [ "$t" -gt "$max" ]; then
		echo "FAIL: $name: took $t s (at most $max)"
		fail=1
	elif alive; then
		echo "FAIL: $name: a stand-in still runs after it"
		fail=1
	elif [ $# -ge 7 ] && ! grep -q -- "$6" "$7"; then
		echo "FAIL: $name: no \"$6\" in its output:"
		cat "$7"
		fail=1
	else
		echo "ok: $name"
	fi
	rm -f "$DIR/pids"
}

# pair STUB_FAIL: perf-pair.sh with the stand-ins; sets rc, secs
pair() {
	local logs=$DIR/logs t0=$SECONDS
	rm -rf "$logs" "$B/apps/pmr-perf/client.done"
	mkdir -p "$logs"
	STUB_FAIL=$1 "$SRC/scripts/perf-pair.sh" "$B" "$logs" 18999 \
		send_lat -s 64 >"$DIR/out" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
}

pair ""
check "perf-pair: both well" "$rc" 0 "$secs" 10
pair perf_client
check "perf-pair: the client fails, its server stopped" "$rc" 1 "$secs" 10 \
	"connection to the peer lost" "$DIR/logs/client.err"
pair perf_server
check "perf-pair: the server fails" "$rc" 1 "$secs" 10 \
	"server failed" "$DIR/logs/server.log"

# shows PATTERN WHAT: the last run's output has PATTERN, or the test
# fails, saying WHAT is missing
shows() {
	grep -q -- "$1" "$DIR/out" || { echo "FAIL: $2"; fail=1; }
}

# demo STUB_FAIL: demo.sh on the stand-ins; sets rc, secs
demo() {
	local t0=$SECONDS
	rm -f "$B/apps/pmr-perf/client.done"
	STUB_FAIL=$1 PMR_DEMO_ITERS=10 "$SRC/scripts/demo.sh" "$B" \
		>"$DIR/out" 2>&1
	rc=$?
	secs=$((SECONDS - t0))
}

demo ""
check "demo: every step well" "$rc" 0 "$secs" 20 "demo: OK" "$DIR/out"
demo loopback
check "demo: a step fails" "$rc" 1 "$secs" 20 \
	"demo: FAILED: $B/examples/verbs_loopback" "$DIR/out"
demo rc_client
check "demo: the RC pair's client fails" "$rc" 1 "$secs" 20 \
	"demo: FAILED: rc_demo; logs:" "$DIR/out"
# a server that ends before it makes its socket: the demo stops at once,
# with the server's log, and starts no client (which would wait for it)
demo rc_server
check "demo: the RC pair's server ends first" "$rc" 1 "$secs" 5 \
	"demo: FAILED: the rc_demo server made no control socket" "$DIR/out"
shows "rc_demo: no device" "demo: the ended server's log not shown"
# a server that lives on but makes no socket: after 15 s the demo stops
# it, shows its log and fails, starting no client
demo rc_server_mute
check "demo: the RC pair's server makes no socket" "$rc" 1 "$secs" 25 \
	"demo: FAILED: the rc_demo server made no control socket" "$DIR/out"
shows "rc_demo: stuck" "demo: the mute server's log not shown"
if [ "$secs" -lt 14 ]; then
	echo "FAIL: demo: gave up on the mute server after $secs s, not 15"
	fail=1
fi
demo perf_client
check "demo: a pmr-perf run fails" "$rc" 1 "$secs" 20 \
	"demo: FAILED: pmr-perf send_lat; its logs:" "$DIR/out"
shows "connection to the peer lost" \
	"demo: the failed pmr-perf client's error not shown"
mv "$B/apps/pmr-devinfo/pmr-devinfo" "$DIR/pmr-devinfo"
demo ""
check "demo: a program not built" "$rc" 1 "$secs" 20 \
	"is not built (run: make build)" "$DIR/out"
if grep -q "^+ " "$DIR/out"; then
	echo "FAIL: demo: a step ran after the missing program"
	fail=1
fi

[ $fail = 0 ] && echo PASS
exit $fail
