# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Shared by the two-process tests of test/func/ops and test/func/udc
# (their common.sh): EAL memory arguments, a veth pair between two network
# namespaces, and running a server (background) / client (foreground) pair
# that meet on a Unix control socket.
#
#   PAIR_PREFIX=pmrt   stem of the --file-prefix of --no-huge runs
#   PAIR_QUIET=1       drop EAL:/TELEMETRY: lines from the logs shown and
#                      show the server log only when the pair failed
#   MEMIF_SOCK=PATH    removed before each run (a memif server that exits
#                      leaves its socket file behind)
#   PAIR_CLIENT_AT=memif  start the client once the server's memif socket
#                      (MEMIF_SOCK) exists rather than its control socket,
#                      maybe before the server's device (the client's
#                      control connection waits for it)
# The callers set prog (the test binary) and logdir.

srcroot=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

# eal_mem_args BUILD_DIR TAG: "--no-pci --in-memory" with hugepages, else
# --no-huge with 512 MB and a file prefix of its own (--in-memory cannot be
# combined with --no-huge; two primaries need distinct prefixes).
eal_mem_args() {
	local mode
	mode=$("$srcroot/scripts/eal-args.sh" --mode "$1" 2>/dev/null || echo nohuge)
	if [ "$mode" = huge ]; then
		echo "--no-pci --in-memory"
	else
		echo "--no-pci --no-huge -m 512 --file-prefix ${PAIR_PREFIX:-pmrt}-$2-$$"
	fi
}

# veth_del NS_A NS_B: remove the namespaces (and so the veth pair).
veth_del() {
	ip netns del "$1" 2>/dev/null
	ip netns del "$2" 2>/dev/null
}

# veth_names STEM: nsa=STEM-a-PID, nsb=STEM-b-PID, this shell's own (two
# runs at once do not meet); the namespaces of runs with this stem whose
# process is gone (killed before their clean-up) are removed.
veth_names() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $ns in
		"$1"-[ab]-*)
			pid=${ns##*-}
			case $pid in ''|*[!0-9]*) continue ;; esac
			kill -0 "$pid" 2>/dev/null || ip netns del "$ns" 2>/dev/null
			;;
		esac
	done
	# shellcheck disable=SC2034   # the caller's namespaces
	nsa=$1-a-$$ nsb=$1-b-$$
}

# veth_up NS_A NS_B IF_A IF_B: namespaces NS_A and NS_B joined by a veth
# pair IF_A / IF_B, MTU 9000, kernel IPv6 off, no addresses (the stack
# owns them).  @return non-zero on the first failing command.
veth_up() {
	local x ns ifc
	ip netns add "$1" || return
	ip netns add "$2" || return
	ip link add "$3" netns "$1" type veth peer name "$4" netns "$2" || return
	for x in "$1:$3" "$2:$4"; do
		ns=${x%%:*} ifc=${x#*:}
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 &&
		ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1" &&
		ip -n "$ns" link set "$ifc" mtu 9000 &&
		ip -n "$ns" link set "$ifc" up &&
		ip -n "$ns" link set lo up || return
	done
}

# the af_packet vdev options of veth runs
# shellcheck disable=SC2034   # read by the scripts that source this file
AFP_ARGS="qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"

pair_filter() {
	if [ "${PAIR_QUIET:-0}" = 1 ]; then
		grep -v '^EAL:\|^TELEMETRY:'
	else
		cat
	fi
}

# veth_dirs STEM IF_A IF_B: as root (else the test is skipped: exit 77),
# namespaces nsa and nsb (veth_names STEM) joined by veth_up's pair
# IF_A / IF_B, and logdir, a new directory /tmp/STEM.XXXXXX with the
# control socket path ctl in it; all removed at exit (after what the
# caller's cleanup_more does, if it defines one).  Exits on a failure.
veth_dirs() {
	if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
		echo "SKIP: needs root and iproute2"
		exit 77
	fi
	veth_names "$1"
	logdir=$(mktemp -d "/tmp/$1.XXXXXX")
	# shellcheck disable=SC2034   # read by the scripts that call this
	ctl=$logdir/ctl.sock
	# shellcheck disable=SC2317
	veth_dirs_rm() {
		if declare -F cleanup_more >/dev/null; then cleanup_more; fi
		veth_del "$nsa" "$nsb"
		rm -rf "$logdir"
	}
	trap veth_dirs_rm EXIT
	veth_up "$nsa" "$nsb" "$2" "$3" || exit
}

# bg_run RC LOG CMD...: CMD in the background, its output (stderr too)
# through pair_filter to stdout and to file LOG, its exit status written
# to file RC: `wait $!` gives a pipeline's last process's status, not
# CMD's, once bash has reaped the job (in a wait_mark loop, say).
bg_run() {
	local rc=$1 log=$2
	shift 2
	{ "$@" 2>&1; echo $? >"$rc"; } | pair_filter | tee "$log" &
}

# wait_mark FILE PID: until FILE exists (a test program's mark), 30 s at
# most; fails at once when process PID is gone.
wait_mark() {
	for _ in $(seq 1 300); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# memif_dirs STEM: logdir, a new directory /tmp/STEM.XXXXXX removed at
# exit (with what the caller's cleanup_more does, if it defines one), the
# memif socket sock (MEMIF_SOCK) and control socket ctl in it, and vdev,
# the memif vdev of both sides but for their role=
memif_dirs() {
	logdir=$(mktemp -d "/tmp/$1.XXXXXX")
	sock=$logdir/memif.sock
	MEMIF_SOCK=$sock
	ctl=$logdir/ctl.sock
	# shellcheck disable=SC2034   # read by the scripts that call this
	vdev="net_memif0,socket=$sock,socket-abstract=no,bsize=8192"
	# shellcheck disable=SC2317
	memif_dirs_rm() {
		rm -rf "$logdir"
		if declare -F cleanup_more >/dev/null; then cleanup_more; fi
	}
	trap memif_dirs_rm EXIT
}

# pair_run TAG PREFIX_S PREFIX_C EAL_S EAL_C DEV_S DEV_C ARGS_S ARGS_C CTL TIMEOUT
# PREFIX_*: a command prefix (e.g. "ip netns exec pmrt-a") or empty;
# ARGS_*: the options of each side besides --role and --ctl; TAG names the
# logs ($logdir/[TAG.]server.log, client.log; may be empty).
# @return 0 when both sides exited 0
# shellcheck disable=SC2154   # logdir, prog: set by the sourcing script
pair_run() {
	local tag=$1 pfx_s=$2 pfx_c=$3 eal_s=$4 eal_c=$5 dev_s=$6 dev_c=$7
	local args_s=$8 args_c=$9 ctl=${10} t=${11}
	local lg=$logdir/${tag:+$tag.} spid src=0 crc=0

	rm -f "$ctl"
	[ -n "${MEMIF_SOCK:-}" ] && rm -f "$MEMIF_SOCK"
	# shellcheck disable=SC2086
	env PMR_EAL_ARGS="$eal_s" PMR_DEVICES="$dev_s" \
		timeout $((t + 20)) $pfx_s "$prog" --role server --ctl "$ctl" \
		$args_s >"${lg}server.log" 2>&1 &
	spid=$!
	# the client starts once the server has its device and control socket
	# (or its memif socket: PAIR_CLIENT_AT)
	local at=$ctl
	[ "${PAIR_CLIENT_AT:-}" = memif ] && at=$MEMIF_SOCK
	for _ in $(seq 1 600); do
		[ -S "$at" ] && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -S "$at" ]; then
		echo "server did not come up:"
		cat "${lg}server.log"
		wait "$spid" || true
		return 1
	fi
	# shellcheck disable=SC2086
	env PMR_EAL_ARGS="$eal_c" PMR_DEVICES="$dev_c" \
		timeout "$t" $pfx_c "$prog" --role client --ctl "$ctl" \
		$args_c 2>&1 | pair_filter | tee "${lg}client.log"
	crc=${PIPESTATUS[0]}
	if [ "$crc" != 0 ]; then
		# the server may wait for commands that never come
		sleep 1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || src=$?
	if [ "${PAIR_QUIET:-0}" != 1 ] || [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		echo "---- ${tag:+$tag }server log ----"
		pair_filter <"${lg}server.log"
	fi
	echo "${tag:+==== $tag: }client exit $crc, server exit $src"
	[ "$crc" = 0 ] && [ "$src" = 0 ]
}
