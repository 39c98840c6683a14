#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rc_ops between two pmrdma processes over memif.
#   memif.sh RC_OPS_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

# peer_kill: a memif peer that really exits crashes the survivor now and
# then (DPDK 22.11 memif unmaps the shared rings in its interrupt thread
# while the polling thread transmits), so the server only freezes here;
# veth.sh covers a real exit.
export RC_OPS_KILL_MODE=${RC_OPS_KILL_MODE:-freeze}

memif_dirs pmrt-memif
run_pair "" "" \
	"$(eal_mem_args "$builddir" s) -l 1 --vdev $vdev,role=server" \
	"$(eal_mem_args "$builddir" c) -l 0 --vdev $vdev,role=client" \
	"roce:port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01,mtu=4096" \
	"roce:port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02,mtu=4096" \
	"$ctl"
