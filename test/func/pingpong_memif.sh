#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# pingpong_memif: rc_pingpong server and client, two processes, each with a
# RoCE device on one end of a memif pair (10.99.0.1 and 10.99.0.2); the
# TCP exchange goes over the host's loopback.
#
#   pingpong_memif.sh BUILD_ROOT [RC_PINGPONG]
#
# PMRT_DEVX_S / PMRT_DEVX_C: more device arguments for each side.
# Sizes (PMRT_SIZES, default "1 1023 1024 1025 4096 65536") at path MTU
# 1024 (PMRT_MTU), 100 iterations (PMRT_ITERS); a size passes when both
# sides exit 0 and print "N iters".  Exit 0 all passed, 1 a failure,
# 77 skipped (not root: memif sockets live in /run).
set -u
if [ $# -lt 1 ]; then
	echo "usage: $0 BUILD_ROOT [RC_PINGPONG]" >&2
	exit 2
fi
. "$(dirname "$0")/lib.sh"
pmrt_init pingpong_memif "$1"
RCPP=${2:-$PMRT_BUILD/examples/rc_pingpong/rc_pingpong}
SIZES=${PMRT_SIZES:-1 1023 1024 1025 4096 65536}
N=${PMRT_ITERS:-100}
MTU=${PMRT_MTU:-1024}
TMO=${PMRT_TIMEOUT:-60}

pmrt_require_root
[ -x "$RCPP" ] || { pmrt_fail "rc_pingpong not built: $RCPP"; exit 1; }

PORT=$(pmrt_port)
SRV_EAL=$(pmrt_eal_memif server 1 02:00:00:99:00:01)
CLI_EAL=$(pmrt_eal_memif client 0 02:00:00:99:00:02)
SRV_DEV="roce:port=0,ipv4=10.99.0.1,mtu=$MTU${PMRT_DEVX_S:-}"
CLI_DEV="roce:port=0,ipv4=10.99.0.2,mtu=$MTU${PMRT_DEVX_C:-}"
pmrt_log "server: PMR_EAL_ARGS=$SRV_EAL PMR_DEVICES=$SRV_DEV"
pmrt_log "client: PMR_EAL_ARGS=$CLI_EAL PMR_DEVICES=$CLI_DEV"

fails=0
for s in $SIZES; do
	# shellcheck disable=SC2034   # srv, cli: passed by name
	srv=(env "PMR_EAL_ARGS=$SRV_EAL" "PMR_DEVICES=$SRV_DEV"
	     "$RCPP" -g 0 -m "$MTU" -p "$PORT" -s "$s" -n "$N")
	# shellcheck disable=SC2034
	cli=(env "PMR_EAL_ARGS=$CLI_EAL" "PMR_DEVICES=$CLI_DEV"
	     "$RCPP" -g 0 -m "$MTU" -p "$PORT" -s "$s" -n "$N" 127.0.0.1)
	pmrt_memif_reset
	pmrt_run_pair "size-$s" "$TMO" "$PORT" srv cli
	why=""
	[ "$PMRT_RC_SERVER" -eq 0 ] || why+=" server exit $PMRT_RC_SERVER;"
	[ "$PMRT_RC_CLIENT" -eq 0 ] || why+=" client exit $PMRT_RC_CLIENT;"
	for side in server client; do
		grep -q "^$N iters in" "$PMRT_LOGDIR/size-$s.$side.log" 2>/dev/null ||
			why+=" $side did not print '$N iters';"
	done
	if [ -z "$why" ]; then
		pmrt_pass "size $s mtu $MTU iters $N"
	else
		pmrt_fail "size $s mtu $MTU iters $N:$why"
		pmrt_show_logs "size-$s"
		fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ]
