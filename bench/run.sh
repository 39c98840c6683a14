#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# pmrdma performance suite: pmr-perf client/server pairs over memif (and
# af_packet on a veth pair in two network namespaces), each run measuring
# the raw ethdev port first and the RDMA stack second in the same run.
# Prints the median over the repetitions and checks it against the targets.
#
#   bench/run.sh [-r REPS] [-b PMR_PERF] [-o OUTDIR] [-k CASE,...] [--no-afpacket]
#
# Server on CPU 1 (-l 1), client on CPU 0 (-l 0).  Needs root for the
# af_packet cases (netns, veth).  Raw JSON lines go to OUTDIR/results.jsonl.
# PMR_BENCH_DEVARGS=K=V[,...] adds RoCE device arguments on both sides.
# (the case runners and on_exit are called by name, through run_reps and
# trap: not unreachable)
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

REPS=5
BIN=build/apps/pmr-perf/pmr-perf
OUT=/tmp/pmr-bench.$$
CASES=""
AFP=1
while [ $# -gt 0 ]; do
	case $1 in
	-r) REPS=$2; shift 2 ;;
	-b) BIN=$2; shift 2 ;;
	-o) OUT=$2; shift 2 ;;
	-k) CASES=$2; shift 2 ;;
	--no-afpacket) AFP=0; shift ;;
	-h|--help) sed -n 3,13p "$0"; exit 0 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -x "$BIN" ] || { echo "no $BIN: build first (ninja -C build)" >&2; exit 2; }
mkdir -p "$OUT"
RES=$OUT/results.jsonl
: >"$RES"

if [ "${PMR_NO_HUGE:-0}" = 1 ]; then
	EAL_MEM=(--no-huge -m 512)
else
	EAL_MEM=(--in-memory)
fi
QUIET=(--log-level=lib.eal:error --log-level=pmd.*:error)
# PMR_BENCH_DEVARGS: more RoCE device arguments for both sides (ack=...)
DEVX=${PMR_BENCH_DEVARGS:+,$PMR_BENCH_DEVARGS}
CASEX=                  # a case's own (ALL_CASES), set per case

# name | client options [| RoCE device arguments of the case, both sides].
# Each runs with --raw-compare --json.
ALL_CASES=(
	"send_lat_2|send_lat -s 2 -n 20000"
	"send_lat_64|send_lat -s 64 -n 20000"
	"write_lat_2|write_lat -s 2 -n 20000"
	"write_lat_64|write_lat -s 64 -n 20000"
	"read_lat_64|read_lat -s 64 -n 20000"
	"atomic_lat|atomic_lat -n 20000"
	"write_bw_64k|write_bw -s 65536 -m 4096 -D 3"
	"send_bw_64|send_bw -s 64 -t 512 -Q 64 -D 3 --raw-burst 1"
	"send_bw_64_l32|send_bw -s 64 -t 512 -Q 64 -l 32 -D 3"
	"send_bw_64_manual|send_bw -s 64 -t 512 -Q 64 -D 3 --progress manual"
	"send_bw_64_batch|send_bw -s 64 -t 512 -Q 64 -D 3|tx_batch=32"
	"send_lat_64_q1024|send_lat -s 64 -n 20000 -q 1024 --one-qp-compare"
	"write_lat_64_q1024|write_lat -s 64 -n 20000 -q 1024 --one-qp-compare"
	"send_lat_64_q4096|send_lat -s 64 -n 20000 -q 4096 --one-qp-compare"
	"send_lat_64_srq|send_lat -s 64 -n 20000 --use-srq"
	"atomic_lat_cas|atomic_lat -n 20000 -A CMP_AND_SWAP"
	"write_lat_64_q1024_mrs|write_lat -s 64 -n 20000 -q 1024 --mr_per_qp --one-qp-compare"
)
AFP_CASES=(
	"afp_send_lat_64|send_lat -s 64 -n 5000"
	"afp_write_bw_64k|write_bw -s 65536 -m 4096 -D 3"
	"afp_write_bw_64k_pad|write_bw -s 65536 -m 4096 -D 3 --raw-pad 44"
)

port=$((21000 + $$ % 5000))

# run_memif NAME OPTS...: one server/client pair over a fresh memif socket
# run_pair NAME PREFIX_S PREFIX_C VDEV_S VDEV_C PEER DELAY ARGS...: the
# server (CPU 1, under command prefix PREFIX_S, e.g. "ip netns exec NS")
# in the background, DELAY seconds later the client (CPU 0) towards PEER;
# logs in $OUT/NAME.*.  @return the client's status
run_pair() {
	local name=$1 pfx_s=$2 pfx_c=$3 vd_s=$4 vd_c=$5 peer=$6 delay=$7
	local p=$((port++)) rc
	shift 7
	# shellcheck disable=SC2086
	timeout 300 $pfx_s "$BIN" "$@" -p $p --json \
		--dev port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01$DEVX$CASEX -- \
		-l 1 --no-pci "${EAL_MEM[@]}" --file-prefix pbs$$ "${QUIET[@]}" \
		--vdev "$vd_s" >"$OUT/$name.server.log" 2>&1 &
	SPID=$!
	sleep "$delay"
	# in the background, so that on_exit can stop it on a signal (bash
	# runs the trap without waiting for a foreground command)
	# shellcheck disable=SC2086
	timeout 300 $pfx_c "$BIN" "$@" -p $p --json "$peer" \
		--dev port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02$DEVX$CASEX -- \
		-l 0 --no-pci "${EAL_MEM[@]}" --file-prefix pbc$$ "${QUIET[@]}" \
		--vdev "$vd_c" >"$OUT/$name.client.log" 2>"$OUT/$name.client.err" &
	CPID=$!
	wait "$CPID"
	rc=$?
	CPID=
	# a server that failed fails the run too
	wait "$SPID" || [ "$rc" -ne 0 ] || rc=1
	SPID=
	# and so does a client that printed no result
	[ "$rc" -ne 0 ] || grep -q '"mode":"rdma"' "$OUT/$name.client.log" || rc=1
	return "$rc"
}

run_memif() {
	local name=$1 sock=$OUT/memif.sock
	local m="net_memif0,socket=$sock,socket-abstract=no,bsize=8192"
	shift
	rm -f "$sock"
	run_pair "$name" "" "" "$m,role=server" "$m,role=client" 127.0.0.1 0.3 "$@"
}

NSA=pmrb-a$$ NSB=pmrb-b$$
afp_setup() {
	ip netns add $NSA && ip netns add $NSB &&
	ip link add pba$$ type veth peer name pbb$$ &&
	ip link set pba$$ netns $NSA && ip link set pbb$$ netns $NSB &&
	ip -n $NSA link set pba$$ mtu 9000 up && ip -n $NSB link set pbb$$ mtu 9000 up &&
	ip -n $NSA link set lo up && ip -n $NSB link set lo up &&
	ip -n $NSA addr add 192.168.251.1/24 dev pba$$ &&
	ip -n $NSB addr add 192.168.251.2/24 dev pbb$$
}
afp_teardown() {
	ip netns del $NSA 2>/dev/null
	ip netns del $NSB 2>/dev/null
	# (a pair not yet moved into its namespace is still here)
	ip link del pba$$ 2>/dev/null
}

run_afp() {
	local name=$1
	local vd="qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"
	shift
	run_pair "$name" "ip netns exec $NSA" "ip netns exec $NSB" \
		"net_af_packet0,iface=pba$$,$vd" "net_af_packet0,iface=pbb$$,$vd" \
		192.168.251.1 0.5 "$@"
}

want() { [ -z "$CASES" ] || [[ ",$CASES," == *",$1,"* ]]; }
# want_any CASE_SPEC...: is one of these cases ("name|options") wanted?
want_any() {
	local c
	for c in "$@"; do
		want "${c%%|*}" && return 0
	done
	return 1
}

# on any exit (a signal included): stop a client and a server still
# running (inside a namespace they would keep it alive), then remove the
# namespaces, also those a set-up that failed half way left
SPID='' CPID=''
on_exit() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	[ "$AFP" = 1 ] && [ "$(id -u)" = 0 ] && afp_teardown
}
trap on_exit EXIT

echo "# pmr-perf suite: $REPS repetitions, output in $OUT"
# which library the runs use, and whether it is profile-guided (make pgo)
LIB=$(ldd "$BIN" 2>/dev/null | sed -n 's/.*libpmrdma[^ ]* => \([^ ]*\).*/\1/p')
PGO=$(scripts/pgo.sh --mode "$(dirname "${LIB:-/nonexistent}")" 2>/dev/null)
echo "# $BIN on ${LIB:-an unknown libpmrdma}${PGO:+ (-Dpgo=$PGO)}"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
failed=0
# run_reps RUNNER CASE...: each wanted case REPS times with RUNNER
# (run_memif, run_afp); the client's JSON lines, tagged, go to $RES
run_reps() {
	local runner=$1 rep c name opts; shift
	for rep in $(seq 1 "$REPS"); do
		for c in "$@"; do
			name=${c%%|*}; opts=${c#*|}
			want "$name" || continue
			# the case's own device arguments (run_pair adds CASEX)
			CASEX=
			if [[ $opts == *"|"* ]]; then
				CASEX=,${opts#*|}; opts=${opts%%|*}
			fi
			# shellcheck disable=SC2086
			if $runner "$name.$rep" $opts --raw-compare; then
				sed "s/^{/{\"case\":\"$name\",\"rep\":$rep,\"devargs\":\"${PMR_BENCH_DEVARGS:-}\",\"case_devargs\":\"${CASEX#,}\",\"load\":$(cut -d' ' -f1 /proc/loadavg),/" \
					"$OUT/$name.$rep.client.log" >>"$RES"
			else
				echo "  $name rep $rep FAILED (see $OUT/$name.$rep.*)"
				failed=$((failed + 1))
			fi
		done
	done
}
run_reps run_memif "${ALL_CASES[@]}"
if [ $AFP = 1 ] && want_any "${AFP_CASES[@]}"; then
	if [ "$(id -u)" = 0 ] && afp_setup; then
		run_reps run_afp "${AFP_CASES[@]}"
		afp_teardown
	else
		echo "  af_packet cases skipped (need root, ip netns, veth)"
	fi
fi

python3 bench/summarize.py "$RES"
exit $((failed != 0))
