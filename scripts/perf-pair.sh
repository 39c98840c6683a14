#!/usr/bin/env bash
# One pmr-perf session between two processes over memif:
#
#   scripts/perf-pair.sh BUILD_DIR LOGDIR PORT PMR_PERF_ARGS...
#
# BUILD_DIR's pmr-perf runs PMR_PERF_ARGS as the server (CPU 1; CPU 0 on a
# machine with one) and, half a second later, as the client (CPU 0) towards
# it, TCP port PORT, over a fresh memif socket in LOGDIR; two minutes at
# most each.  EAL memory follows scripts/hugepages.sh's decision for
# BUILD_DIR (scripts/eal-args.sh).  The client's output goes to
# LOGDIR/client.log (its errors to LOGDIR/client.err), the server's to
# LOGDIR/server.log.  Exit status 0 when both ended well.
set -uo pipefail

dir=$1 logs=$2 port=$3
shift 3
bin=$dir/apps/pmr-perf/pmr-perf
read -r -a mem <<<"$("$(dirname "$0")/eal-args.sh" "$dir")"
cpu_s=0
[ "$(nproc)" -ge 2 ] && cpu_s=1
sock=$logs/memif.sock
m="net_memif0,socket=$sock,socket-abstract=no,bsize=8192"
quiet=(--log-level=lib.eal:error '--log-level=pmd.*:error')
rm -f "$sock"
timeout 120 "$bin" "$@" -p "$port" \
	--dev port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01 -- -l $cpu_s \
	"${mem[@]}" --file-prefix pmrps$$ "${quiet[@]}" --vdev "$m,role=server" \
	>"$logs/server.log" 2>&1 &
spid=$!
sleep 0.5
rc=0
timeout 120 "$bin" "$@" -p "$port" 127.0.0.1 \
	--dev port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02 -- -l 0 \
	"${mem[@]}" --file-prefix pmrpc$$ "${quiet[@]}" --vdev "$m,role=client" \
	>"$logs/client.log" 2>"$logs/client.err" || rc=1
# a client that failed leaves its server waiting for it: stop it now
[ $rc -eq 0 ] || kill "$spid" 2>/dev/null
wait "$spid" || rc=1
rm -f "$sock"
exit $rc
