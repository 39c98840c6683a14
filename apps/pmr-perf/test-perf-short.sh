#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Short check of pmr-perf (perf and func suites): every test for a moment
# over memif (server -l 1, client -l 0), with the raw-port baseline in the
# same run where the test has one (--raw-compare below).  Fails if a run
# fails or reports no (or a non-positive) result, pmrdma's or, with
# --raw-compare, the raw port's (a message rate: 0-byte messages have no
# bandwidth), or an option is not refused as it should be; it does not
# judge the numbers (bench/run.sh does that).
#   test-perf-short.sh PMR_PERF
set -uo pipefail
BIN=$1
DIR=$(mktemp -d /tmp/pmr-perf-test.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
if [ "${PMR_NO_HUGE:-0}" = 1 ]; then
	MEM=(--no-huge -m 512)
else
	MEM=(--in-memory)
fi
port=$((22000 + $$ % 5000))
fail=0

# expect PATTERN WHAT: the last run's output has a line matching the
# extended regular expression PATTERN, or the check fails, saying WHAT
expect() {
	grep -qE "$1" "$DIR/out" || { echo "FAIL: $2"; fail=1; }
}

# pair ARGS...: a server and a client with ARGS over a fresh memif socket;
# the client's output in $DIR/out, its errors in $DIR/client.err.
# @return 0 when both ended well
pair() {
	local sock=$DIR/memif.sock p=$((port++)) rc
	rm -f "$sock"
	timeout 60 "$BIN" "$@" -p "$p" --json \
		--dev port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01 -- \
		-l 1 --no-pci "${MEM[@]}" --file-prefix pts$$ --log-level=lib.eal:error \
		--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=8192" \
		>"$DIR/server.log" 2>&1 &
	local spid=$!
	sleep 0.3
	timeout 60 "$BIN" "$@" -p "$p" --json 127.0.0.1 \
		--dev port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02 -- \
		-l 0 --no-pci "${MEM[@]}" --file-prefix ptc$$ --log-level=lib.eal:error \
		--vdev "net_memif0,role=client,socket=$sock,socket-abstract=no,bsize=8192" \
		>"$DIR/out" 2>"$DIR/client.err"
	rc=$?
	wait $spid || rc=1
	return $rc
}

run() {
	local out=$DIR/out rc=0
	pair "$@" || rc=1
	local modes=(rdma) m bad=0
	[[ " $* " == *" --raw-compare "* ]] && modes+=(raw)
	for m in "${modes[@]}"; do
		# a result, and bandwidth wherever the messages carry bytes
		if ! grep -q "\"mode\":\"$m\"" "$out" ||
		   grep "\"mode\":\"$m\"" "$out" |
		   grep -q -E '"(t_typical|msg_rate_mpps)":(-|n|0\.0+[,}])|"bytes":[1-9][0-9]*,.*"bw_avg":0\.0+[,}]'; then
			bad=1
		fi
	done
	if [ $rc -ne 0 ] || [ $bad -ne 0 ]; then
		echo "FAIL: pmr-perf $*"
		tail -5 "$out" "$DIR/client.err" "$DIR/server.log"
		fail=1
	else
		echo "ok: pmr-perf $*"
		grep '"mode":"ratio"' "$out"
	fi
}

# run_dies MESSAGE ARGS...: a pair whose client must stop with MESSAGE
# (after EAL and TCP set-up, where reject() cannot reach).  Under ASan an
# allocation too large returns NULL, as libc's does, instead of aborting.
run_dies() {
	local msg=$1
	shift
	if ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1 \
	   pair "$@" || ! grep -qF "pmr-perf: $msg" "$DIR/client.err"; then
		echo "FAIL: pmr-perf $* did not stop with '$msg'"
		tail -5 "$DIR/client.err" "$DIR/server.log"
		fail=1
	else
		echo "ok: pmr-perf $* stopped ($msg)"
	fi
}

# reject MESSAGE ARGS...: options it must refuse with MESSAGE, before
# any EAL or TCP set-up (no server runs, no port: anything accepted dies
# later with another message)
reject() {
	local msg=$1 out
	shift
	if out=$(timeout 10 "$BIN" "$@" 127.0.0.1 -- -l 0 --no-pci "${MEM[@]}" 2>&1) ||
	   ! grep -qF "pmr-perf: $msg" <<<"$out"; then
		echo "FAIL: pmr-perf $* was not refused with '$msg': $out"
		fail=1
	else
		echo "ok: refused $* ($msg)"
	fi
}

reject "bad -m 1500" send_lat -m 1500
reject "bad -s 2147483649" send_bw -s 2147483649
reject "write_lat needs -s >= 1" write_lat -s 0
reject "-D is for the bandwidth tests" send_lat -D 1
reject "bad -l" send_bw -l 0
reject "-l is for the bandwidth tests" send_lat -l 4
reject "bad --raw-burst" send_bw --raw-burst 0
reject "bad --raw-burst" send_bw --raw-burst 33
reject "--raw-burst is for the bandwidth tests" send_lat --raw-burst 1
reject "--raw-burst needs --raw or --raw-compare" send_bw --raw-burst 1
reject "--raw-burst needs --raw or --raw-compare" send_bw --raw-burst 32
reject "bad --raw-pad" send_bw --raw-compare --raw-pad 129
reject "bad --raw-pad" send_bw --raw-compare --raw-pad -1
reject "bad --raw-pad" send_bw --raw-compare --raw-pad 4x
reject "--raw-pad is for the bandwidth tests" send_lat --raw-compare --raw-pad 44
reject "--raw-pad needs --raw or --raw-compare" send_bw --raw-pad 44
reject "--one-qp-compare is for the latency tests" send_bw -q 2 --one-qp-compare
reject "--one-qp-compare is for the latency tests" send_lat --one-qp-compare
reject "--one-qp-compare is for the latency tests" send_lat -q 4 --raw --one-qp-compare

run send_lat -s 64 -n 2000 --raw-compare
run write_lat -s 64 -n 2000 --raw-compare
run read_lat -s 64 -n 2000 --raw-compare
run atomic_lat -n 2000 --raw-compare
# the raw stream's bursts as asked: 32 frames in a transmit call by
# default, one at most with --raw-burst 1; its frames as long as asked,
# as the receiver saw them: 14 + 64 bytes, 44 more with --raw-pad 44
# (as long as pmrdma's 64 B SEND over IPv4)
run send_bw -s 64 -D 0.5 --raw-compare
expect '"mode":"raw".*"raw_burst":32,"raw_burst_max":32,"raw_pad":0,"raw_frame_max":78}' \
	"send_bw: the raw stream did not send bursts of 32 frames of 78 bytes"
run send_bw -s 64 -D 0.5 --raw-compare --raw-burst 1 --raw-pad 44
expect '"mode":"raw".*"raw_burst":1,"raw_burst_max":1,"raw_pad":44,"raw_frame_max":122}' \
	"--raw-burst 1 --raw-pad 44: not one frame of 122 bytes per burst"
run send_bw -s 64 -t 512 -Q 64 -D 0.5 --progress manual
run send_bw -s 64 -t 256 -l 32 -D 0.5
expect '"mode":"rdma".*"post_list":32}' \
	'send_bw -l 32: no "post_list":32 in its JSON'
run write_bw -s 65536 -m 4096 -D 0.5 --raw-compare
# messages of 0 bytes: a message rate, no bandwidth to compare (the raw
# stream sends one empty frame a message)
run send_bw -s 0 -n 2000 --raw-compare
expect '"mode":"ratio".*"bw_ratio":null,"msg_rate_ratio":[0-9]' \
	"send_bw -s 0: no ratio line with a message rate ratio and no BW ratio"
# memory it cannot have: a clear stop, not a crash (10^18 timestamps)
run_dies "out of memory for the timestamps" send_lat -s 2 \
	-n 1000000000000000000 --raw
run read_bw -s 4096 -n 2000
run atomic_bw -n 2000
run send_lat -s 64 -n 500 -q 64
# the QPs' memory (pmr_query_qp_mem): reported for the 64 QPs, all of
# one size, so the total is 64 times the largest (the figure itself is
# test_qp_mem's to check against the verbs guide)
mem=$(sed -n 's/.*"mode":"qp_mem","qps":64,"total":\([0-9]*\),"per_qp_max":\([0-9]*\),.*/\1 \2/p' "$DIR/out")
if [ -z "$mem" ] || [ "${mem#* }" -le 0 ] || [ "${mem% *}" != $((64 * ${mem#* })) ]; then
	echo "FAIL: send_lat -q 64: no qp_mem line of 64 QPs of one size ($mem)"
	fail=1
fi
# the same test on one QP alone after the 64, in the same pair, and the
# ratio: for the round-robin over a QP's own buffer (write_lat) and a
# server that answers on whichever QP a message came (send_lat)
for t in send_lat write_lat; do
	run $t -s 64 -n 500 -q 64 --one-qp-compare
	expect '"mode":"one_qp","qps":1,"bytes":64,"iterations":500,.*"t_typical":[0-9]' \
		"$t --one-qp-compare: no one_qp result"
	expect '"mode":"qps_ratio","qps":64,"bytes":64,"t_typical_ratio":[0-9]' \
		"$t --one-qp-compare: no qps_ratio line"
done
run write_lat -c UC -s 64 -n 1000
run send_lat -c UD -s 64 -n 1000
exit $fail
