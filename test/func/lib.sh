# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# Helpers for pmrdma's multi-process functional tests (suite 'func').
# Source it from a bash test script:
#
#   . "$(dirname "$0")/lib.sh"
#   pmrt_init NAME BUILD_ROOT          # log dir, id, cleanup trap
#
# Everything it creates is named pmrt-<id>... (<id> is short and unique per
# test run) and removed by the cleanup trap: network namespaces, veths,
# memif sockets, background processes.
#
# Functions:
#   pmrt_init NAME BUILD_ROOT       set PMRT_NAME, PMRT_BUILD, PMRT_ID,
#                                   PMRT_LOGDIR; install the EXIT trap
#   pmrt_log MSG / pmrt_pass MSG / pmrt_fail MSG   one line each
#   pmrt_skip MSG                   print and exit 77 (meson: skipped)
#   pmrt_require_root               skip unless root
#   pmrt_eal_mem                    "--in-memory" or "--no-huge -m 512"
#                                   (BUILD_ROOT/.pmr-eal-mem, PMR_NO_HUGE)
#   pmrt_eal_mode                   "huge" or "nohuge"
#   pmrt_eal_memif ROLE LCORE [MAC] EAL args of one side of a memif pair
#                                   (ROLE server|client; socket
#                                   /run/pmrt-<id>.sock)
#   pmrt_memif_reset                remove a stale memif socket (call before
#                                   starting each new server)
#   pmrt_eal_afpacket IFACE LCORE TAG   EAL args for net_af_packet on IFACE
#   pmrt_netns_setup                two namespaces pmrt-<id>-a/-b with a
#                                   veth pair pmrt<id>a / pmrt<id>b
#                                   (sets PMRT_NS_A PMRT_NS_B PMRT_IF_A
#                                   PMRT_IF_B)
#   pmrt_netns_teardown             remove them (also done by the trap)
#   pmrt_wait_listen PORT SECS [NS] [PID]   wait for a TCP listener
#   pmrt_run_pair TAG SECS PORT SRV_ARRAY CLI_ARRAY
#                                   run a server and a client (bash arrays
#                                   holding full commands) with timeouts;
#                                   sets PMRT_RC_SERVER / PMRT_RC_CLIENT and
#                                   writes $PMRT_LOGDIR/TAG.{server,client}.log
#   pmrt_port                       a TCP port for this run (PMRT_PORT
#                                   overrides)

PMRT_PIDS=()
PMRT_NETNS=()
PMRT_FILES=()

pmrt_log() { printf '%s: %s\n' "${PMRT_NAME:-pmrt}" "$*"; }
pmrt_pass() { printf '%s: PASS: %s\n' "${PMRT_NAME:-pmrt}" "$*"; }
pmrt_fail() { printf '%s: FAIL: %s\n' "${PMRT_NAME:-pmrt}" "$*"; }
pmrt_skip() {
	printf '%s: SKIP: %s\n' "${PMRT_NAME:-pmrt}" "$*"
	exit 77
}

pmrt_require_root() {
	[ "$(id -u)" -eq 0 ] || pmrt_skip "needs root"
}

pmrt_cleanup() {
	local pid ns f
	for pid in "${PMRT_PIDS[@]:-}"; do
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	for pid in "${PMRT_PIDS[@]:-}"; do
		[ -n "$pid" ] && wait "$pid" 2>/dev/null
	done
	pmrt_netns_teardown
	for f in "${PMRT_FILES[@]:-}"; do
		[ -n "$f" ] && rm -f "$f"
	done
	# EAL runtime directories of the --file-prefix runs (--no-huge).
	[ -n "${PMRT_ID:-}" ] && rm -rf /var/run/dpdk/pmrt-"$PMRT_ID"-*
}

pmrt_init() {
	PMRT_NAME=$1
	PMRT_BUILD=$(cd "$2" && pwd)
	# Short (interface names are at most 15 characters) and unique enough.
	PMRT_ID=$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))
	PMRT_LOGDIR=${PMR_TEST_LOGDIR:-$PMRT_BUILD/test-logs/$PMRT_NAME}
	mkdir -p "$PMRT_LOGDIR"
	# (pmrt_eal_* run in $(...) subshells: register what they name here.)
	PMRT_FILES+=("$(pmrt_memif_sock)")
	trap pmrt_cleanup EXIT
	trap 'exit 130' INT TERM
}

pmrt_eal_mode() {
	local mode=nohuge
	if [ "${PMR_NO_HUGE:-0}" != 1 ] && [ -r "$PMRT_BUILD/.pmr-eal-mem" ]; then
		read -r mode <"$PMRT_BUILD/.pmr-eal-mem" || mode=nohuge
		[ "$mode" = huge ] || mode=nohuge
	fi
	echo "$mode"
}

# EAL memory arguments.  --in-memory needs hugepages and cannot be combined
# with --no-huge (DPDK-NOTES pitfall 5); without it each process needs its
# own --file-prefix, which the pmrt_eal_* functions add.
pmrt_eal_mem() {
	if [ "$(pmrt_eal_mode)" = huge ]; then
		echo "--in-memory"
	else
		echo "--no-huge -m 512"
	fi
}

pmrt_port() {
	echo "${PMRT_PORT:-$(( 20000 + (0x$PMRT_ID % 20000) ))}"
}

pmrt_memif_sock() { echo "/run/pmrt-$PMRT_ID.sock"; }

# A memif server that exits without closing its port (no rte_eal_cleanup)
# leaves its socket file, and the next server's probe then fails with
# "Address already in use": remove it before each new pair.
pmrt_memif_reset() { rm -f "$(pmrt_memif_sock)"; }

# pmrt_eal_memif ROLE LCORE [MAC]
pmrt_eal_memif() {
	local role=$1 lcore=$2 mac=${3:-} sock vdev
	sock=$(pmrt_memif_sock)
	vdev="net_memif0,role=$role,id=0,socket=$sock,socket-abstract=no,bsize=8192"
	[ -n "$mac" ] && vdev+=",mac=$mac"
	echo "--no-pci -l $lcore $(pmrt_eal_mem) --file-prefix pmrt-$PMRT_ID-$role --vdev $vdev"
}

# pmrt_eal_afpacket IFACE LCORE TAG
pmrt_eal_afpacket() {
	local iface=$1 lcore=$2 tag=$3
	echo "--no-pci -l $lcore $(pmrt_eal_mem) --file-prefix pmrt-$PMRT_ID-$tag" \
	     "--vdev net_af_packet0,iface=$iface,qpairs=1,blocksz=65536,framesz=8192,framecnt=512,qdisc_bypass=1"
}

# Two namespaces joined by a veth pair.  The kernel gets no address on
# either end (the stack owns 10.99.0.1 / 10.99.0.2): the links are up with
# MTU 9000, IPv6 off and ARP replies off.
pmrt_netns_setup() {
	PMRT_NS_A=pmrt-$PMRT_ID-a
	PMRT_NS_B=pmrt-$PMRT_ID-b
	PMRT_IF_A=pmrt${PMRT_ID}a
	PMRT_IF_B=pmrt${PMRT_ID}b
	local ns ifc
	ip netns add "$PMRT_NS_A" || return 1
	PMRT_NETNS+=("$PMRT_NS_A")
	ip netns add "$PMRT_NS_B" || return 1
	PMRT_NETNS+=("$PMRT_NS_B")
	ip link add "$PMRT_IF_A" netns "$PMRT_NS_A" type veth \
		peer name "$PMRT_IF_B" netns "$PMRT_NS_B" || return 1
	for ns in "$PMRT_NS_A:$PMRT_IF_A" "$PMRT_NS_B:$PMRT_IF_B"; do
		ifc=${ns#*:}
		ns=${ns%%:*}
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw \
			"net.ipv6.conf.$ifc.disable_ipv6=1" \
			"net.ipv4.conf.$ifc.arp_ignore=8" \
			"net.ipv4.conf.$ifc.forwarding=0" >/dev/null || return 1
		ip -n "$ns" link set "$ifc" mtu 9000 up || return 1
	done
}

pmrt_netns_teardown() {
	local ns
	for ns in "${PMRT_NETNS[@]:-}"; do
		[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	PMRT_NETNS=()
}

# pmrt_wait_listen PORT SECS [NS] [PID]: 0 once something listens on TCP
# PORT (in NS), 1 on timeout or when PID has exited.
pmrt_wait_listen() {
	local port=$1 secs=$2 ns=${3:-} pid=${4:-} i
	local cmd=(ss -Hltn "sport = :$port")
	[ -n "$ns" ] && cmd=(ip netns exec "$ns" "${cmd[@]}")
	for ((i = 0; i < secs * 20; i++)); do
		"${cmd[@]}" 2>/dev/null | grep -q . && return 0
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && return 1
		sleep 0.05
	done
	return 1
}

# pmrt_run_pair TAG SECS PORT SRV_ARRAY CLI_ARRAY
# The server starts first; the client once the server listens on PORT
# (PMRT_SERVER_NETNS: the namespace to look in).  Each runs under
# timeout SECS.  When the client fails, the server gets 5 s to finish.
pmrt_run_pair() {
	local tag=$1 secs=$2 port=$3 i spid
	local -n _srv=$4 _cli=$5
	local slog=$PMRT_LOGDIR/$tag.server.log clog=$PMRT_LOGDIR/$tag.client.log

	PMRT_RC_SERVER=255
	PMRT_RC_CLIENT=255
	timeout -k 5 "$secs" "${_srv[@]}" >"$slog" 2>&1 &
	spid=$!
	PMRT_PIDS+=("$spid")
	if ! pmrt_wait_listen "$port" "$secs" "${PMRT_SERVER_NETNS:-}" "$spid"; then
		echo "(pmrt: the server never listened on TCP $port)" >"$clog"
		kill "$spid" 2>/dev/null
		wait "$spid"
		PMRT_RC_SERVER=$?
		return 1
	fi
	timeout -k 5 "$secs" "${_cli[@]}" >"$clog" 2>&1
	PMRT_RC_CLIENT=$?
	if [ $PMRT_RC_CLIENT -ne 0 ]; then
		for ((i = 0; i < 50; i++)); do
			kill -0 "$spid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	PMRT_RC_SERVER=$?
	[ $PMRT_RC_SERVER -eq 0 ] && [ $PMRT_RC_CLIENT -eq 0 ]
}

# pmrt_show_logs TAG: the end of both logs, indented.
pmrt_show_logs() {
	local f
	for f in "$PMRT_LOGDIR/$1.server.log" "$PMRT_LOGDIR/$1.client.log"; do
		echo "    --- $f"
		tail -n 15 "$f" 2>/dev/null | sed 's/^/    /'
	done
}
