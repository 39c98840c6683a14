#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Short check of pmr-perf (perf and func suites): every test for a moment
# over memif (server -l 1, client -l 0), with the raw-port baseline in the
# same run where the test has one (--raw-compare below).  Fails if a run
# fails or reports no (or a non-positive) result, pmrdma's or, with
# --raw-compare, the raw port's (a message rate: 0-byte messages have no
# bandwidth), an option or a client's parameter is not refused as it
# should be, a control line that is not the protocol's is taken or its
# peer does not stop too (ctl_proxy.py changes one on its way), or an
# option does not do what it says (sizes of -a, pictures
# of --histogram, samples of --samples and bench/samples.py's reading of
# them, units of the bandwidth, inline size, progress mode, completion
# events of -e, -n over several QPs, both ways of -b and their sum, the
# QPs' max_rd_atomic of -o, the atomic of -A, the SRQ of --use-srq, no
# peak with -N, the limits of -w and -y, the cycles of -C, the MRs of
# --mr_per_qp, the retry count of --retry_count, rounds of --run_infinitely until SIGINT,
# the device of PMR_DEVICES that -d names, the source GID of -x, -i's
# one port, the lone numbers of --output, the traffic class of -T over
# af_packet, the QPs' timeout of -u),
# or a latency loop or a bandwidth
# stream takes page faults, or a UD or UC bandwidth warm-up waits for
# frames back, or a long message over memif leaves in one
# transmit call (the device's tx_flush not on by default there), or
# (root) the raw stream over af_packet is clocked on other frames than
# its own; it does not judge speed (bench/run.sh does that).  With
# PMR_PERF_FAULT (pmr-perf built with test_fault.c), a failed system call
# or verb that no run provokes stops its end with the call's message, and
# the other end too.
#   test-perf-short.sh PMR_PERF PMR_PERF_FAULT
set -uo pipefail
BIN=$1
FBIN=$2
DIR=$(mktemp -d /tmp/pmr-perf-test.XXXXXX)
# the veth pair of the af_packet part, at the end (root only), with the
# func tests' helpers (veth_names, veth_up, veth_del, AFP_ARGS); cleanup
# runs from the trap (not unreachable)
. "$(dirname "$0")/../../test/func/common/pair.sh"
nsa='' nsb='' IFA=pmrpa$$ IFB=pmrpb$$
# shellcheck disable=SC2317
cleanup() {
	[ -n "$nsa" ] && veth_del "$nsa" "$nsb"
	rm -rf "$DIR"
}
trap cleanup EXIT
# a signal (meson's timeout) ends the script through exit, so that the
# namespaces go too
trap 'exit 143' TERM
trap 'exit 130' INT
if [ "${PMR_NO_HUGE:-0}" = 1 ]; then
	MEM=(--no-huge -m 512)
else
	MEM=(--in-memory)
fi
port=$((22000 + $$ % 5000))
fail=0
PROXY=()

# expect PATTERN WHAT: the last run's output has a line matching the
# extended regular expression PATTERN, or the check fails, saying WHAT
expect() {
	grep -qE "$1" "$DIR/out" || { echo "FAIL: $2"; fail=1; }
}

# pair ARGS...: a server and a client with ARGS over a fresh memif socket;
# the client's output in $DIR/out, its errors in $DIR/client.err.
# SERVICE=1: both with a service lcore (lcore 1, each on CPUs 0 and 1).
# AFP=1: over af_packet on the veth pair of the af_packet part instead,
# each in its namespace, the TCP connection over the veth too.
# PROXY=(WAY PREFIX ACTION [TEXT]): the control connection through
# ctl_proxy.py, which changes one line (its log in $DIR/proxy.log).
# DEVS_S, DEVS_C: the devices from PMR_DEVICES=DEVS_S (server) and
# DEVS_C (client) instead of --dev.
# FAULT_S, FAULT_C: that end is PMR_PERF_FAULT with PMR_PERF_FAULT=FAULT_*
# (the call test_fault.c makes fail).
# NOJSON=1: both without --json.
# SARGS: more arguments for the server alone (split at spaces).
# The exit codes in s_rc and c_rc.
# @return 0 when both ended well
pair() {
	local sock=$DIR/memif.sock p=$((port++)) rc devx='' ls=1 lc=0
	local ns_s='' ns_c='' host=127.0.0.1 cp ppid='' bin_s=$BIN bin_c=$BIN
	[ -n "${FAULT_S:-}" ] && bin_s=$FBIN
	[ -n "${FAULT_C:-}" ] && bin_c=$FBIN
	local fmt=(--json)
	[ "${NOJSON:-0}" = 1 ] && fmt=()
	local dev_s=(--dev "port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01")
	local dev_c=(--dev "port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02")
	local vd_s="net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=8192"
	local vd_c="net_memif0,role=client,socket=$sock,socket-abstract=no,bsize=8192"
	if [ "${SERVICE:-0}" = 1 ]; then
		devx=,service_lcore=1 ls=0,1 lc=0,1
	fi
	dev_s[1]+=$devx dev_c[1]+=$devx
	[ -n "${DEVS_S:-}" ] && dev_s=() dev_c=()
	if [ "${AFP:-0}" = 1 ]; then
		ns_s="ip netns exec $nsa" ns_c="ip netns exec $nsb"
		host=192.168.253.1
		vd_s="net_af_packet0,iface=$IFA,$AFP_ARGS"
		vd_c="net_af_packet0,iface=$IFB,$AFP_ARGS"
	fi
	rm -f "$sock"
	# shellcheck disable=SC2086
	PMR_DEVICES=${DEVS_S:-} PMR_PERF_FAULT=${FAULT_S:-} \
		timeout 60 $ns_s "$bin_s" "$@" ${SARGS:-} -p "$p" "${fmt[@]}" \
		"${dev_s[@]}" -- \
		-l $ls --no-pci "${MEM[@]}" --file-prefix pts$$ --log-level=lib.eal:error \
		--vdev "$vd_s" >"$DIR/server.log" 2>&1 &
	local spid=$!
	cp=$p
	if [ "${#PROXY[@]}" -gt 0 ]; then
		cp=$((port++))
		timeout 90 python3 "$(dirname "$0")/ctl_proxy.py" "$cp" "$p" \
			"${PROXY[@]}" >"$DIR/proxy.log" 2>&1 &
		ppid=$!
	fi
	sleep 0.3
	# shellcheck disable=SC2086
	PMR_DEVICES=${DEVS_C:-} PMR_PERF_FAULT=${FAULT_C:-} \
		timeout 60 $ns_c "$bin_c" "$@" -p "$cp" "${fmt[@]}" "$host" \
		"${dev_c[@]}" -- \
		-l $lc --no-pci "${MEM[@]}" --file-prefix ptc$$ --log-level=lib.eal:error \
		--vdev "$vd_c" >"$DIR/out" 2>"$DIR/client.err"
	c_rc=$?
	wait $spid
	s_rc=$?
	[ -n "$ppid" ] && wait $ppid
	rc=$((c_rc || s_rc))
	return $rc
}

run() {
	local out=$DIR/out rc=0
	pair "$@" || rc=1
	local modes=(rdma) m bad=0
	[[ " $* " == *" --raw-compare "* ]] && modes+=(raw)
	[[ " $* " == *" --raw "* ]] && modes=(raw)
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
		tail -n 5 "$out" "$DIR/client.err" "$DIR/server.log"
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
		tail -n 5 "$DIR/client.err" "$DIR/server.log"
		fail=1
	else
		echo "ok: pmr-perf $* stopped ($msg)"
	fi
}

# stops WHO MESSAGE ARGS...: a pair (as pair()'s variables set it up)
# whose WHO (server or client) must stop with MESSAGE, and the other end
# too, on its own (not by the timeout, not by a signal), its last line
# starting "pmr-perf: the peer stopped: MESSAGE" (or, after an error of
# its own that it names first, where the stop reached it that way, a
# completion in error: "pmr-perf: ...; the peer stopped: MESSAGE...").  O_MSG: what
# the other end says instead of "the peer stopped: MESSAGE"; HOW: how
# the run was disturbed, for the verdict.
stops() {
	local who=$1 msg=$2 w_rc o_rc w_log o_log last
	local o_msg=${O_MSG:-"the peer stopped: $2"} how=${HOW:-}
	shift 2
	[ -n "${FAULT_S:-}" ] && how=" (the server failing $FAULT_S)"
	[ -n "${FAULT_C:-}" ] && how=" (the client failing $FAULT_C)"
	pair "$@"
	if [ "$who" = server ]; then
		w_rc=$s_rc w_log=$DIR/server.log o_rc=$c_rc o_log=$DIR/client.err
	else
		w_rc=$c_rc w_log=$DIR/client.err o_rc=$s_rc o_log=$DIR/server.log
	fi
	last=$(grep '^pmr-perf: ' "$o_log" | tail -n 1)
	if [ "$w_rc" -ne 1 ] || ! grep -qF "pmr-perf: $msg" "$w_log" ||
	   [ "$o_rc" -ne 1 ] || { [[ $last != "pmr-perf: $o_msg"* ]] &&
				   [[ $last != "pmr-perf: "*"; $o_msg"* ]]; }; then
		echo "FAIL: pmr-perf $*$how: the $who did not stop with" \
		     "'$msg' (rc $w_rc), or the other end not with '$o_msg'" \
		     "(rc $o_rc)"
		tail -n 5 "$DIR/client.err" "$DIR/server.log"
		fail=1
	else
		echo "ok: pmr-perf $*$how: the $who stopped ($msg), the other" \
		     "end too"
	fi
}

# ctl_bad WHO MESSAGE WAY PREFIX ACTION TEXT ARGS...: stops(), the
# control connection with one line changed on its way (ctl_proxy.py WAY
# PREFIX ACTION TEXT); when the change closes the connection, the other
# end must say that it was closed
ctl_bad() {
	local who=$1 msg=$2 change="$3 '$4' $5 '$6'" o_msg=''
	[ "$5" = close ] && o_msg="control connection closed by the peer"
	PROXY=("$3" "$4" "$5" "$6")
	shift 6
	O_MSG=$o_msg HOW=" with a control line changed ($change)" \
		stops "$who" "$msg" "$@"
	PROXY=()
	if ! grep -q '^changed: ' "$DIR/proxy.log"; then
		echo "FAIL: pmr-perf $*: the proxy changed no line ($change)"
		tail -n 5 "$DIR/proxy.log"
		fail=1
	fi
}

# faulted WHO FAULT MESSAGE ARGS...: stops(), WHO being pmr-perf-fault
# with PMR_PERF_FAULT=FAULT
faulted() {
	local who=$1 fault=$2
	shift 2
	if [ "$who" = server ]; then
		FAULT_S=$fault stops "$who" "$@"
	else
		FAULT_C=$fault stops "$who" "$@"
	fi
}

# png_ok FILE WHAT: FILE is a PNG picture
png_ok() {
	if [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ] ||
	   [ "$(stat -c %s "$1")" -lt 1000 ]; then
		echo "FAIL: $2: $1 is no PNG picture"
		fail=1
	fi
}

# bw_is FACTOR UNIT WHAT: the last run's bandwidth is in UNIT and is its
# message rate (Mpps) x its size x FACTOR, within 1%
bw_is() {
	python3 - "$DIR/out" "$1" "$2" <<'PY' || { echo "FAIL: $3: bandwidth not in $2 or not rate x size"; fail=1; }
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '"mode":"rdma"' in l][0]
want = r["msg_rate_mpps"] * r["bytes"] * float(sys.argv[2])
sys.exit(r["unit"] != sys.argv[3] or abs(r["bw_avg"] - want) > 0.01 * want)
PY
}

# bad_client WHAT LINE [HOLD]: a server whose client sends the run's
# parameters LINE must stop, saying "bad parameters from the client
# (WHAT)", and tell the client so ("ABORT bad parameters ...").  HOLD=1:
# the client then keeps the connection open, reading nothing; the server
# must close it itself after its 2 s wait (within 1.5 to 5 s).
bad_client() {
	local what=$1 line=$2 hold=${3:-0} sock=$DIR/memif.sock p=$((port++)) rc=0
	rm -f "$sock"
	timeout 60 "$BIN" send_lat -p "$p" \
		--dev port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01 -- \
		-l 1 --no-pci "${MEM[@]}" --file-prefix pts$$ --log-level=lib.eal:error \
		--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no,bsize=8192" \
		>"$DIR/server.log" 2>&1 &
	local spid=$!
	python3 - "$p" "$line" "$what" "$hold" <<'PY' || rc=1
import socket, sys, time
for _ in range(300):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("no server on port " + sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
s.settimeout(10)
got = b""
while b"\n" not in got:
    c = s.recv(4096)
    if not c:
        break
    got += c
want = "ABORT bad parameters from the client (%s)" % sys.argv[3]
if not got.decode(errors="replace").startswith(want):
    sys.exit("the server said %r, not %r" % (got, want))
if sys.argv[4] == "1":
    t0 = time.monotonic()
    while s.recv(4096):
        pass
    t = time.monotonic() - t0
    if not 1.5 <= t <= 5:
        sys.exit("the server closed the connection after %.2f s" % t)
PY
	# (one that took them would wait for its client: it goes)
	kill "$spid" 2>/dev/null
	wait $spid && rc=1
	if [ $rc -ne 0 ] ||
	   ! grep -qF "pmr-perf: bad parameters from the client ($what)" "$DIR/server.log"; then
		echo "FAIL: the server took '$line' (expected: bad $what)"
		tail -3 "$DIR/server.log"
		fail=1
	else
		echo "ok: the server refused '$line' ($what)"
	fi
}

# reject MESSAGE ARGS...: options it must refuse with MESSAGE, before
# any EAL or TCP set-up (no server runs, no port: anything accepted dies
# later with another message).  R_FAULT=F: pmr-perf-fault with
# PMR_PERF_FAULT=F instead.  R_SERVER=1: as a server (no host).
reject() {
	local msg=$1 out bin=$BIN host=(127.0.0.1)
	shift
	[ -n "${R_FAULT:-}" ] && bin=$FBIN
	[ "${R_SERVER:-0}" = 1 ] && host=()
	if out=$(PMR_PERF_FAULT=${R_FAULT:-} timeout 10 "$bin" "$@" "${host[@]}" \
		 -- -l 0 --no-pci "${MEM[@]}" 2>&1) ||
	   ! grep -qF "pmr-perf: $msg" <<<"$out"; then
		echo "FAIL: pmr-perf $* was not refused with '$msg': $out"
		fail=1
	else
		echo "ok: refused $* ($msg)"
	fi
}

# A client whose server never comes: it tries to connect for 30 s, then
# stops.  Started here, on a port nothing listens on, and judged at the
# end (it only sleeps meanwhile).  And a host it cannot resolve (an
# empty name, which asks no name server), and no socket to be had.
noconn_port=$((port++))
NULLDEV=(--dev "port=0,ipv4=10.0.0.2" -- -l 0 --no-pci "${MEM[@]}"
	 --log-level=lib.eal:error --vdev net_null0)
(
	t0=$(date +%s)
	timeout 60 "$BIN" send_lat -p "$noconn_port" 127.0.0.1 "${NULLDEV[@]}" \
		--file-prefix ptn$$ >"$DIR/noconn.out" 2>&1
	echo "$? $(($(date +%s) - t0))" >"$DIR/noconn.rc"
) &
noconn_pid=$!
# tcp_fails WHAT MESSAGE HOST [FAULT]: a client of HOST (a server if
# HOST is -; pmr-perf-fault with PMR_PERF_FAULT=FAULT, if given) that
# must stop with MESSAGE
tcp_fails() {
	local out bin=$BIN host=("$3") p=$((port++))
	[ -n "${4:-}" ] && bin=$FBIN
	[ "$3" = - ] && host=()
	if out=$(PMR_PERF_FAULT=${4:-} timeout 20 "$bin" send_lat "${host[@]}" \
		 -p "$p" "${NULLDEV[@]}" --file-prefix ptr$$ 2>&1) ||
	   ! grep -qF "pmr-perf: $2" <<<"$out"; then
		echo "FAIL: $1: $out"
		fail=1
	else
		echo "ok: $1: stopped ($2)"
	fi
}
tcp_fails "a host that does not resolve" "cannot resolve ''" ""
tcp_fails "no TCP socket" "socket: Too many open files" 127.0.0.1 socket
tcp_fails "no TCP socket (server)" "socket: Too many open files" - socket

reject "bad -m 1500" send_lat -m 1500
reject "bad -m 4x" send_lat -m 4x
reject "bad -s 2147483649" send_bw -s 2147483649
# every number whole and in range: nothing read as far as it parses
# ("1e6" is not 1, "4x" not 4, "" not 0)
reject "bad -s 4x" send_bw -s 4x
reject "bad -s -1" send_bw -s -1
reject "bad -n 1e6" send_lat -n 1e6
reject "bad -n 0" send_lat -n 0
reject "bad -n " send_lat -n ""
reject "bad -D 0" send_bw -D 0
reject "bad -D -1" send_bw -D -1
reject "bad -D 1s" send_bw -D 1s
reject "bad -D inf" send_bw -D inf
reject "bad -q 0" send_lat -q 0
reject "bad -q 16385" send_lat -q 16385
reject "bad -t 0" send_bw -t 0
reject "bad -t -1" send_bw -t -1
reject "bad -r 16385" send_bw -r 16385
reject "bad -I 513" send_lat -I 513
reject "bad -I -1" send_lat -I -1
reject "bad -Q 0" send_bw -Q 0
reject "bad -p 65536" send_lat -p 65536
reject "bad -p 0x10" send_lat -p 0x10
# the MTU the client sends its server: -m's, else the device's mtu=
reject "bad mtu (--dev) 4x" send_lat --dev port=0,ipv4=10.0.0.2,mtu=4x
reject "bad mtu=1500 in the device arguments" send_lat \
	--dev port=0,ipv4=10.0.0.2,mtu=1500
# a UD message is one packet: at most the MTU, -m's or the device's
reject "bad -s 2048: a UD message is one packet, at most the MTU (1024)" \
	send_lat -c UD -s 2048 --dev port=0,ipv4=10.0.0.2
reject "bad -s 4096: a UD message is one packet, at most the MTU (2048)" \
	send_bw -c UD -s 4096 --dev port=0,ipv4=10.0.0.2,mtu=2048
reject "bad -s 2048: a UD message is one packet, at most the MTU (1024)" \
	send_bw -c UD -s 2048 -m 1024 --dev port=0,ipv4=10.0.0.2,mtu=4096
reject "write_lat needs -s >= 1" write_lat -s 0
reject "-D is for the bandwidth tests" send_lat -D 1
reject "bad -l 0" send_bw -l 0
reject "bad -l 257" send_bw -l 257
reject "-l is for the bandwidth tests" send_lat -l 4
reject "bad --raw-burst" send_bw --raw-burst 0
reject "bad --raw-burst" send_bw --raw-burst 33
reject "--raw-burst is for the bandwidth tests" send_lat --raw-burst 1
reject "--raw-burst needs --raw or --raw-compare" send_bw --raw-burst 1
reject "--raw-burst needs --raw or --raw-compare" send_bw --raw-burst 32
reject "bad --raw-pad" send_bw --raw-compare --raw-pad 129
reject "bad --raw-pad" send_bw --raw-compare --raw-pad -1
reject "bad --raw-pad" send_bw --raw-compare --raw-pad 4x
reject "bad --raw-burst 4x" send_bw --raw-compare --raw-burst 4x
reject "--raw-pad is for the bandwidth tests" send_lat --raw-compare --raw-pad 44
reject "--raw-pad needs --raw or --raw-compare" send_bw --raw-pad 44
reject "--one-qp-compare is for the latency tests" send_bw -q 2 --one-qp-compare
reject "--one-qp-compare is for the latency tests" send_lat --one-qp-compare
reject "--one-qp-compare is for the latency tests" send_lat -q 4 --raw --one-qp-compare
reject "--samples is for the latency tests" send_bw --samples "$DIR/s.csv"
reject "-e: write_lat sees the peer's data in memory" write_lat -e
reject "-e is for RDMA (not --raw)" send_lat --raw -e
reject "-b is for the bandwidth tests" send_lat -b
reject "-b is for the bandwidth tests" read_lat --bidirectional
reject "-o is for the read and atomic tests" write_bw -o 4
reject "-o is for the read and atomic tests" send_lat -o 1
reject "bad -o 0" read_bw -o 0
reject "bad -o 17" atomic_bw -o 17
reject "bad -o 4x" read_lat --outs 4x
reject "-A is for the atomic tests" send_lat -A FETCH_AND_ADD
reject "bad -A CAS" atomic_lat -A CAS
reject "--use-srq is for the send tests" write_lat --use-srq
reject "--use-srq is for the send tests" send_bw --raw --use-srq
reject "-N is for the bandwidth tests" read_lat -N
reject "-w and -y are for the bandwidth tests" send_lat -w 10
reject "-w and -y are for the bandwidth tests" write_bw --raw -y 1
reject "bad -w 0" write_bw -w 0
reject "bad -y x" write_bw -y x
reject "bad -w inf" write_bw -w inf
reject "-C is for the latency tests" write_bw -C
# the rest of perftest's options: each refused with its reason
reject "--dualport (-O) is perftest's, not pmr-perf's: a pmrdma device has one port" send_lat -O
reject "--odp is perftest's, not pmr-perf's" write_bw --odp
reject "--source_mac (-B) is perftest's, not pmr-perf's: raw Ethernet" send_bw -B 02:00:00:00:00:01
reject "--margin (-f) is perftest's" write_bw -D 2 --margin=1
reject "--latency_gap is perftest's" send_lat --latency_gap 5
reject "--out_json is perftest's, not pmr-perf's: --json" send_lat --out_json
reject "--retry_count is for RC" send_lat -c UC --retry_count 3
reject "bad --retry_count 8" send_lat --retry_count 8
reject "-H (a histogram on stdout) is perftest's" send_lat -H
reject "-U (every latency, unsorted) is perftest's" send_lat -U
reject "--run_infinitely is for the bandwidth tests of one size" send_lat --run_infinitely
reject "--run_infinitely is for the bandwidth tests of one size" write_bw -a --run_infinitely
reject "--run_infinitely is for the bandwidth tests of one size" write_bw --raw --run_infinitely
reject "cannot write --samples $DIR/no/s.csv" send_lat --samples "$DIR/no/s.csv"

# a server takes the run's parameters from its client, and checks them
# as the client's own options are checked: a client that sends others
# gets no QP made of them.  The parameters: test, size, -a, iterations,
# seconds, QPs, send and receive depth, MTU, inline size, CQ moderation,
# raw mode, connection type (2: RC), --one-qp-compare, -b, -o (0 where
# the test sends no READ or atomic), -l, --raw-burst, --raw-pad,
# --run_infinitely, -A CMP_AND_SWAP, --use-srq, --mr_per_qp.
bad_client "QPs" "CFG send_lat 2 0 1000 0 0 16 16 1024 236 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "queue depth" "CFG send_lat 2 0 1000 0 1 -1 16 1024 236 8 0 2 0 0 0 1 32 0 0 0 0 0"
# (a client that reads nothing more and keeps the connection: the server
# goes after its 2 s)
bad_client "queue depth" "CFG send_lat 2 0 1000 0 1 -1 16 1024 236 8 0 2 0 0 0 1 32 0 0 0 0 0" 1
bad_client "queue depth" "CFG send_bw 64 0 1000 0 1 128 16385 1024 0 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "iterations" "CFG send_lat 2 0 0 0 1 16 16 1024 236 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "size" "CFG send_lat 2147483649 0 1000 0 1 16 16 1024 236 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "duration" "CFG send_bw 64 0 1000 -1 1 128 512 1024 0 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "MTU" "CFG send_lat 2 0 1000 0 1 16 16 1500 236 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "MTU" "CFG send_lat 2 0 1000 0 1 16 16 0 236 8 0 2 0 0 0 1 32 0 0 0 0 0"
# (4: UD, whose message is one packet)
bad_client "size" "CFG send_lat 2048 0 1000 0 1 16 16 1024 236 8 0 4 0 0 0 1 32 0 0 0 0 0"
bad_client "inline size" "CFG send_lat 2 0 1000 0 1 16 16 1024 513 8 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "CQ moderation" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 17 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "raw mode" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 8 3 2 0 0 0 1 32 0 0 0 0 0"
bad_client "connection type" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 8 0 7 0 0 0 1 32 0 0 0 0 0"
bad_client "bidirectional" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 8 0 2 0 1 0 1 32 0 0 0 0 0"
bad_client "outstanding reads" "CFG read_bw 4096 0 1000 0 1 128 512 1024 0 100 0 2 0 0 17 1 32 0 0 0 0 0"
bad_client "outstanding reads" "CFG read_bw 4096 0 1000 0 1 128 512 1024 0 100 0 2 0 0 0 1 32 0 0 0 0 0"
bad_client "outstanding reads" "CFG write_bw 4096 0 1000 0 1 128 512 1024 0 100 0 2 0 0 4 1 32 0 0 0 0 0"
bad_client "post list" "CFG write_bw 4096 0 1000 0 1 128 512 1024 0 100 0 2 0 0 0 257 32 0 0 0 0 0"
bad_client "post list" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 8 0 2 0 0 0 4 32 0 0 0 0 0"
bad_client "raw stream" "CFG write_bw 4096 0 1000 0 1 128 512 1024 0 100 2 2 0 0 0 1 33 0 0 0 0 0"
bad_client "raw stream" "CFG write_bw 4096 0 1000 0 1 128 512 1024 0 100 2 2 0 0 0 1 32 129 0 0 0 0"
bad_client "run infinitely" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 8 0 2 0 0 0 1 32 0 1 0 0 0"
bad_client "run infinitely" "CFG write_bw 4096 0 1000 0 1 128 512 1024 0 100 0 2 0 0 0 1 32 0 1 0 0 0"
bad_client "atomic type" "CFG send_lat 2 0 1000 0 1 16 16 1024 236 8 0 2 0 0 0 1 32 0 0 1 0 0"
bad_client "SRQ" "CFG write_bw 4096 0 1000 0 1 128 512 1024 0 100 0 2 0 0 0 1 32 0 0 0 1 0"
bad_client "SRQ" "CFG send_bw 4096 0 1000 0 1 128 512 1024 0 100 1 2 0 0 0 1 32 0 0 0 1 0"

# -d: a device of PMR_DEVICES by its name (pmr_ + driver + position over
# all entries, empty ones not counted, as the library names them);
# without it, the first roce entry.  Refused: with --dev,
# a device of another driver, a name no entry has, no roce entry.
reject "-d chooses a device of PMR_DEVICES: not with --dev" \
	send_lat -d pmr_roce0 --dev port=0,ipv4=10.0.0.1
PMR_DEVICES="loop;roce:port=0,ipv4=10.0.0.1" \
	reject "-d pmr_loop0: a loop device; pmr-perf needs a roce one" \
	send_lat -d pmr_loop0
PMR_DEVICES="loop;roce:port=0,ipv4=10.0.0.1" \
	reject "-d pmr_roce0: no such device in PMR_DEVICES='loop;roce:port=0,ipv4=10.0.0.1'" \
	send_lat --ib-dev pmr_roce0
PMR_DEVICES="loop; loop" reject "no roce device in PMR_DEVICES='loop; loop'" send_lat
PMR_DEVICES="" reject "no roce device in PMR_DEVICES=''" send_lat
# (port 7 does not exist: a run on that entry stops)
D7="roce:port=7,ipv4=10.0.0.9"
DS="roce:port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01"
DC="roce:port=0,ipv4=10.0.0.2,mac=02:00:00:00:00:02"
DEVS_S="loop;;$D7; roce :${DS#roce:} ;" DEVS_C=" ; loop;$D7;$DC" \
	run send_lat -n 1000 -d pmr_roce2
DEVS_S="loop;$DS;$D7" DEVS_C="$DC;$D7" run write_lat -n 1000
PMR_DEVICES="$DC;$D7" reject "no ethdev port 7" send_lat -d pmr_roce1
# pmr-perf names the entries itself (it needs the port before the device
# exists): the names must be those the library gives, as pmr-devinfo
# lists them (loop devices need no EAL; -d finds them, then refuses them)
DEVINFO=$(dirname "$BIN")/../pmr-devinfo/pmr-devinfo
LOOPS=" ;loop;; loop :mtu=1024 ;	loop ;"
names=$(PMR_DEVICES=$LOOPS "$DEVINFO" 2>/dev/null | sed -n 's/^hca_id:[[:space:]]*//p' | tr '\n' ' ')
if [ "$names" != "pmr_loop0 pmr_loop1 pmr_loop2 " ]; then
	echo "FAIL: pmr-devinfo names PMR_DEVICES='$LOOPS' '$names'"
	fail=1
fi
for n in $names; do
	PMR_DEVICES=$LOOPS reject "-d $n: a loop device" send_lat -d "$n"
done
PMR_DEVICES=$LOOPS reject "-d pmr_loop3: no such device" send_lat -d pmr_loop3

# -x: the QPs' source GID, each end its own.  On devices with both
# addresses index 1 is the IPv6 one (the JSON's gid names the one the QPs
# took), over RC and UD; without -x, index 0, the IPv4 one.  Refused: an
# index with no GID on the device; GIDs of two families.
D6S="roce:port=0,ipv4=10.0.0.1,ipv6=fd00::1,mac=02:00:00:00:00:01"
D6C="roce:port=0,ipv4=10.0.0.2,ipv6=fd00::2,mac=02:00:00:00:00:02"
DEVS_S=$D6S DEVS_C=$D6C run send_lat -n 1000 -x 1
expect '"mode":"rdma".*"gid_index":1,"gid":"fd00::2"' \
	"send_lat -x 1: the QPs not on the IPv6 GID"
DEVS_S=$D6S DEVS_C=$D6C run send_bw -c UD -s 64 -n 5000 --gid-index 1
expect '"mode":"rdma".*"gid_index":1,"gid":"fd00::2"' \
	"send_bw -c UD -x 1: the QPs not on the IPv6 GID"
DEVS_S=$D6S DEVS_C=$D6C run write_lat -n 1000 -i 1
expect '"mode":"rdma".*"gid_index":0,"gid":"::ffff:10.0.0.2"' \
	"write_lat: the QPs not on the IPv4 GID without -x"
DEVS_S=$D6S DEVS_C=$DC stops client "-x 1: the device has no GID at that index" \
	send_lat -n 100 -x 1
reject "bad -x 256" send_lat -x 256
reject "bad -i 2: a device has one port, 1" send_lat -i 2
reject "bad -x -1" send_lat -x -1
reject "bad -T 256" send_lat -T 256
reject "bad -T -1" send_lat -T -1
# -u: the RC QPs' local ACK timeout, as pmr_query_qp gives it back (14,
# perftest's, unless given; 0: none)
run send_lat -n 500 -u 20
expect '"mode":"rdma".*"qp_timeout":20[,}]' "send_lat -u 20: not the QPs' timeout"
run write_bw -n 500 -u 0
expect '"mode":"rdma".*"qp_timeout":0[,}]' "write_bw -u 0: not the QPs' timeout"
run read_lat -n 500
expect '"mode":"rdma".*"qp_timeout":14[,}]' "read_lat: not the default timeout"
# a server's -u: its own QPs' timeout, not the client's (the server prints
# no result: pmr-perf-fault's trace_qp prints each QP's on stderr); with
# none, 14.  server_timeouts_are WANT WHAT: WANT as "COUNTxTIMEOUT ...".
server_timeouts_are() {
	local got
	got=$(grep -o 'pmr-perf-fault: QP [0-9]* timeout [0-9]*' \
		"$DIR/server.log" | awk '{print $NF}' | sort | uniq -c |
		awk '{printf "%s%sx%s", (NR > 1 ? " " : ""), $1, $2}')
	if [ "$got" = "$1" ]; then
		echo "ok: $2"
	else
		echo "FAIL: $2: the server's QPs' timeouts '$got', not '$1'"
		fail=1
	fi
}
FAULT_S=trace_qp SARGS="-u 20" run send_lat -n 500 -q 2 -u 12
expect '"mode":"rdma".*"qp_timeout":12[,}]' "send_lat -u 12 (server -u 20): not the client's timeout"
server_timeouts_are 2x20 "a server's own -u 20 (the client's 12)"
FAULT_S=trace_qp run write_lat -n 500
server_timeouts_are 1x14 "a server without -u: 14"
reject "bad -u 32" send_lat -u 32
reject "bad -u -1" send_lat -u -1
reject "-u is for RC" send_lat -c UC -u 3
# perftest's options that pmr-perf has no use for: a reason, not "invalid"
reject "-R (rdma_cm) is perftest's, not pmr-perf's" send_lat -R
reject "-z (rdma_cm) is perftest's, not pmr-perf's" write_bw -z
reject "-g (multicast) is perftest's, not pmr-perf's" send_bw -c UD -g
reject "-M (multicast) is perftest's, not pmr-perf's" send_bw -M ff0e::1
reject "-S (service level) is perftest's, not pmr-perf's" send_lat -S 3
DEVS_S="roce:port=0,ipv6=fd00::1,mac=02:00:00:00:00:01" DEVS_C=$DC \
	pair send_lat -n 100
if [ "$s_rc" -ne 1 ] || [ "$c_rc" -ne 1 ] ||
   ! grep -qF "(-x 0) and the peer's fd00::1 are not of one family" "$DIR/client.err" ||
   ! grep -qF "(-x 0) and the peer's ::ffff:10.0.0.2 are not of one family" "$DIR/server.log"; then
	echo "FAIL: GIDs of two families (IPv6 server, IPv4 client) not refused (rc $s_rc $c_rc)"
	tail -n 3 "$DIR/client.err" "$DIR/server.log"
	fail=1
else
	echo "ok: GIDs of two families refused on both ends"
fi

# The control connection's later lines, changed on their way: each end
# stops with a message on a line it must not take, at any step of the
# protocol, and tells its peer, which stops too ("the peer stopped: ...")
# instead of waiting.  A peer's QP line: the QP number and PSN of 24 bits, a GID of
# 32 hex digits, nothing more.
G=00000000000000000000ffff0a000002
QPL="QP 000011 000001 00000001 0000000000000000 0000000000000000"
ctl_bad client "bad QP line" s2c "QP " replace "QP 12 zz" send_lat -n 100
ctl_bad client "bad QP line" s2c "QP " replace "$QPL ${G:0:30}" send_lat -n 100
ctl_bad client "bad QP line" s2c "QP " replace "$QPL ${G:0:31}g" send_lat -n 100
ctl_bad client "bad QP line" s2c "QP " replace "$QPL $G 7" send_lat -n 100
ctl_bad server "bad QP line" c2s "QP " replace "${QPL/000011/1000000} $G" send_lat -n 100
ctl_bad server "bad QP line" c2s "QP " replace "${QPL/000001/-000001} $G" send_lat -n 100
ctl_bad server "control line too long" c2s "QP " long x send_lat -n 100
ctl_bad server "control: expected 'CONNECTED', got 'HELLO'" \
	c2s CONNECTED replace HELLO send_lat -n 100
ctl_bad client "control: expected 'DEVUP', got 'DEVUPX'" \
	s2c DEVUP replace DEVUPX send_lat -n 100
ctl_bad client "control connection closed by the peer" \
	s2c CONNECTED close "" send_lat -n 100
# the end of a stream or of a latency loop
ctl_bad server "control: expected 'END', got 'ENDX'" c2s END replace ENDX send_lat -n 100
ctl_bad server "control: expected 'END', got 'ENDX'" c2s END replace ENDX send_bw -n 1000
ctl_bad server "control: expected 'END', got 'ENDX'" c2s END replace ENDX read_lat -n 100
ctl_bad server "control: expected 'END', got 'FIN 5'" \
	c2s END replace "FIN 5" write_bw --raw -n 1000
# results: the raw stream's receiver's, -b's other way's
ctl_bad client "raw: bad result" s2c RES replace "RES 1 2" write_bw --raw -n 1000
ctl_bad client "raw: bad result" s2c RES replace "RES 1000 64000 nan 4150" \
	write_bw --raw -n 1000
ctl_bad server "bad result from the peer" c2s BWRES replace "BWRES x" \
	write_bw -b -n 1000
ctl_bad client "bad result from the peer" s2c BWRES \
	replace "BWRES 1000 1.0 2.0 3.0 x" write_bw -b -n 1000
ctl_bad client "bad result from the peer" s2c BWRES \
	replace "BWRES -1 1.0 2.0 3.0" write_bw -b -n 1000
# --run_infinitely: between rounds, MORE or STOP
ctl_bad server "control: expected MORE or STOP, got 'MAYBE'" \
	c2s MORE replace MAYBE write_bw --run_infinitely -D 0.3
# with service progress: the engine's service stopped before either goes
SERVICE=1 ctl_bad server "control: expected MORE or STOP, got 'MAYBE'" \
	c2s MORE replace MAYBE write_bw --run_infinitely -D 0.3 --progress service
SERVICE=1 ctl_bad server "control: expected 'END', got 'ENDX'" \
	c2s END replace ENDX send_bw -n 100000 --progress service

# calls that fail in no run, made to fail (pmr-perf-fault): each stops
# its end with the call's message, and the other end too.  A server
# whose completion channel fails leaves its client's requests
# unanswered: the client stops on its completions in error, then tells
# why the server stopped.
R_FAULT=sigaction reject "sigaction: Invalid argument" send_lat --run_infinitely
faulted client comp_channel "pmr_create_comp_channel: Too many open files" \
	send_lat -e -n 100
faulted server comp_channel "pmr_create_comp_channel: Too many open files" \
	send_lat -e -n 100
faulted client poll_channel "poll on the completion channel: Invalid argument" \
	send_lat -e -n 100
faulted server poll_channel "poll on the completion channel: Invalid argument" \
	send_lat -e -n 100
faulted client query_qp "pmr_query_qp: Input/output error" read_lat -n 100
faulted client reg_mr "pmr_reg_mr: Cannot allocate memory" write_lat -n 100
faulted server reg_mr "pmr_reg_mr (QP 1 of 2): Cannot allocate memory" \
	write_lat --mr_per_qp -q 2 -n 100
faulted client create_srq "pmr_create_srq (16 WRs): Cannot allocate memory" \
	send_lat --use-srq -n 100
faulted server post_srq_recv "pmr_post_srq_recv: Cannot allocate memory" \
	send_bw --use-srq -n 1000
SERVICE=1 faulted server poll_socket "poll: Invalid argument" \
	write_bw -n 20000 --progress service

run send_lat -s 64 -n 2000 --raw-compare
expect '"mode":"rdma".*"progress":"inline"' "send_lat: not in inline mode by default"
run write_lat -s 64 -n 2000 --raw-compare
run read_lat -s 64 -n 2000 --raw-compare
expect '"mode":"rdma".*"outs":16,' "read_lat: the QPs' max_rd_atomic not 16 by default"
run atomic_lat -o 3 -n 300
expect '"mode":"rdma".*"outs":3,' "atomic_lat -o 3: the QPs' max_rd_atomic not 3"
run atomic_lat -n 2000 --raw-compare
expect '"mode":"rdma".*"atomic_type":"FETCH_AND_ADD","atomic_result":[1-9]' \
	"atomic_lat: not FETCH_AND_ADD by default, or no add done"
# -A CMP_AND_SWAP: compare 0, swap 1: the first swaps, every later one
# finds 1 and gives it back (adds would give their count, or 0)
run atomic_lat -A CMP_AND_SWAP -n 300
expect '"mode":"rdma".*"atomic_type":"CMP_AND_SWAP","atomic_result":1,' \
	"atomic_lat -A CMP_AND_SWAP: not a compare and swap"
run atomic_bw -A CMP_AND_SWAP -b -n 2000
expect '"mode":"rdma".*"atomic_type":"CMP_AND_SWAP","atomic_result":1,' \
	"atomic_bw -A CMP_AND_SWAP -b: not a compare and swap"
# --use-srq: the QPs have no receive queue of their own, so any message
# taken in came through the SRQ; send_lat's client checks that each
# answer comes on the QP it asked on (the QP found by its number)
run send_lat --use-srq -q 4 -n 2000
expect '"mode":"rdma".*"srq":true' "send_lat --use-srq: no SRQ"
expect '"mode":"qp_mem".*"rq_slots":0,' "send_lat --use-srq: QPs with a receive queue"
run send_lat --use-srq -c UD -q 3 -n 1000
run send_bw --use-srq -q 4 -s 64 -n 20000
expect '"mode":"rdma".*"srq":true' "send_bw --use-srq: no SRQ"
run send_lat -n 300
expect '"mode":"rdma".*"srq":false' "send_lat: an SRQ without --use-srq"
# --mr_per_qp: each QP's buffers in a region of their own (the keys
# counted); without it one for all
run write_bw --mr_per_qp -q 4 -s 4096 -n 4000
expect '"mode":"rdma".*"mrs":4' "write_bw --mr_per_qp -q 4: not 4 MRs"
run read_lat --mr_per_qp -q 2 -n 500
expect '"mode":"rdma".*"mrs":2' "read_lat --mr_per_qp -q 2: not 2 MRs"
run send_lat --mr_per_qp --use-srq -q 2 -n 500
expect '"mode":"rdma".*"mrs":2' "send_lat --mr_per_qp --use-srq -q 2: not 2 MRs"
run write_lat -q 2 -n 500
expect '"mode":"rdma".*"retry_count":7,"mrs":1' \
	"write_lat -q 2: not one MR, or not 7 retries by default"
# --retry_count: the QPs' retry count, as pmr_query_qp gives it back
run send_lat --retry_count 3 -n 300
expect '"mode":"rdma".*"retry_count":3,' "send_lat --retry_count 3: not 3"
# -V: the version, alone, before or after the test; --dont_xchg_versions
# taken (and ignored)
for v in "-V" "--version" "send_lat -V"; do
	# shellcheck disable=SC2086
	if out=$("$BIN" $v 2>&1) && [[ $out =~ ^pmr-perf\ \(pmrdma\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		echo "ok: pmr-perf $v: $out"
	else
		echo "FAIL: pmr-perf $v: '$out'"
		fail=1
	fi
done
run send_lat --dont_xchg_versions -n 300
# -N: no BW peak
run write_bw -N -n 3000
expect '"mode":"rdma".*"bw_peak":0\.00,' "write_bw -N: a BW peak"
# -w, -y: limits met, exit 0; limits missed: the run ends as any, its
# result printed, and the client says which and exits 1
run write_bw -n 3000 -w 1 -y 0.001
pair write_bw -n 3000 -w 1000000 -y 1000
if [ "$c_rc" != 1 ] || [ "$s_rc" != 0 ] || ! grep -q '"mode":"rdma"' "$DIR/out" ||
   ! grep -qF "BW average" "$DIR/client.err" ||
   ! grep -qF "below the -w limit 1000000.00" "$DIR/client.err" ||
   ! grep -qF "below the -y limit 1000.000000" "$DIR/client.err"; then
	echo "FAIL: write_bw -w 1000000 -y 1000: not the result, both limits" \
	     "missed and exit 1 (rc $c_rc, the server's $s_rc)"
	tail -n 5 "$DIR/client.err" "$DIR/server.log"
	fail=1
else
	echo "ok: write_bw -w 1000000 -y 1000: below both limits, exit 1"
fi
# (almost) no page fault in the measured iterations of either loop: a
# page first used in a loop costs a fault of a microsecond or more,
# which the 99.9th percentile then measures.  Two sources, both once
# in the loops, each checked by a run that fails with it undone: the
# timestamps, first written there (a fault every 512 iterations: 39 in
# -n 20000's), and the buffers of memif's 1024 ring slots, first used
# by the iterations after a warm-up too short to go round them (a tenth
# of -n 8000 is 810; pmr-perf makes it 2048).  None in the usual build;
# the ASan build's runtime takes one.  glibc's mmap threshold fixed, so
# that the timestamps get pages not yet touched (with its moving
# threshold they may reuse the heap's), and no MALLOC_PERTURB_ (meson
# test sets one, and glibc's calloc then writes every page itself).
for n in 20000 8000; do
	MALLOC_PERTURB_=0 GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 \
		run send_lat -s 64 -n $n --raw-compare
	expect '"mode":"raw".*"page_faults":[0-4][,}]' "send_lat -n $n: page faults in the raw loop"
	expect '"mode":"rdma".*"page_faults":[0-4][,}]' "send_lat -n $n: page faults in the RDMA loop"
done
# the warm-up counts the frames of the way that carries fewer: a READ's
# request is one frame however long its answer (the warm-up had counted
# the answer's ten, and a read_lat -s 5000 -m 512 -n 1000 took 818
# faults, its median 5.4-6.0 us against 1.9), and a message of exactly
# one MTU is one frame, not two (write_lat -s 4096 -m 4096: 198 faults)
run read_lat -s 5000 -m 512 -n 1000 --raw-compare
expect '"mode":"raw".*"page_faults":[0-4][,}]' "read_lat -s 5000 -m 512: page faults in the raw loop"
expect '"mode":"rdma".*"page_faults":[0-4][,}]' "read_lat -s 5000 -m 512: page faults in the RDMA loop"
run write_lat -s 4096 -m 4096 -n 3000 --raw-compare
expect '"mode":"rdma".*"page_faults":[0-4][,}]' "write_lat -s 4096 -m 4096: page faults in the RDMA loop"
# the warm-up goes on while it has taken less than a second: foretold
# from the pace of its first 40 iterations, which pay for the first use
# of the rings (64 faults an iteration of a 256 KiB READ's answer), it
# stayed at 40 and left a fault to each of the 300 measured ones, in both
# loops (judged by their second half, as well under ASan); stopped at a
# quarter of a second, it left one to each under ASan, whose iterations
# of some 0.5 ms went round the request ring's 1024 slots in none of the
# runs seen
run read_lat -s 262144 -m 4096 -n 300 --raw-compare
expect '"mode":"raw".*"page_faults":[0-4][,}]' "read_lat -s 262144: page faults in the raw loop"
expect '"mode":"rdma".*"page_faults":[0-4][,}]' "read_lat -s 262144: page faults in the RDMA loop"
# on memif the device's tx_flush is on by default (auto: 8192 bytes): a
# 64 KiB WRITE's 16 frames leave two at a time (with its ACK frame, some
# 1.9 frames a transmit call; 8.5 with tx_flush=0)
run write_lat -s 65536 -m 4096 -n 300
expect '"mode":"rdma".*"tx_frames_per_burst":[12]\.[0-9]*[,}]' "write_lat -s 65536 -m 4096: tx_flush not on by default over memif"
# nor in a bandwidth test's measured run.  Its warm-up of -t messages a
# QP left most of memif's 1024 ring slots to the measured 5000 messages,
# and most of the ring of the ACKs coming back: some 1000 faults of
# microseconds each, and a send_bw with pmr-perf's defaults reported a
# fifth of its rate (1.5 to 1.7 M msg/s against 7.7 to 8.8).  The
# warm-up now goes on until the port has carried 2048 frames each way
# (the raw stream's, 2048 frames out).  UD sends nothing back: its
# warm-up waits for frames out only.
run send_bw -s 64 -n 5000 --raw-compare
expect '"mode":"raw".*"page_faults":[0-4],' "send_bw -n 5000: page faults in the raw stream"
expect '"mode":"rdma".*"page_faults":[0-4],' "send_bw -n 5000: page faults in the RDMA run"
run send_bw -c UD -s 64 -n 5000
expect '"mode":"rdma".*"page_faults":[0-4],' "send_bw -c UD -n 5000: page faults in the RDMA run"
# ... and UD and UC do not wait for frames back, which never come: a
# warm-up that did ran to its quarter of a second (5.7 ms for UD, 7 ms for
# UC without the wait)
warm_short() {
	python3 - "$DIR/out" <<'PY' || { echo "FAIL: $1: the warm-up waited for frames back"; fail=1; }
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '"mode":"rdma"' in l][0]
sys.exit(not r["warmup_us"] < 150000)
PY
}
warm_short "send_bw -c UD"
run write_bw -c UC -s 64 -n 5000
warm_short "write_bw -c UC"
# a stream's completion times (for the peak) go to an array made and
# touched before it, which keeps every other one when full: every WR
# signaled for half a second fills it (twice, in a run of 8 M msg/s) and
# maps no page in the stream (an array left untouched took 222 faults).
# glibc's calloc as in the latency loops' check above, so that an array
# not touched would get pages not yet mapped
MALLOC_PERTURB_=0 GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 \
	run send_bw -s 64 -Q 1 -D 0.5
expect '"mode":"rdma".*"page_faults":[0-4],' "send_bw -Q 1 -D 0.5: page faults in the RDMA stream"
# the raw stream's bursts as asked: 32 frames in a transmit call by
# default, one at most with --raw-burst 1; its frames as long as asked,
# as the receiver saw them: 14 + 64 bytes, 44 more with --raw-pad 44
# (as long as pmrdma's 64 B SEND over IPv4)
run send_bw -s 64 -D 0.5 --raw-compare
expect '"mode":"raw".*"raw_burst":32,"raw_burst_max":32,"raw_pad":0,"raw_frame_max":78,' \
	"send_bw: the raw stream did not send bursts of 32 frames of 78 bytes"
run send_bw -s 64 -D 0.5 --raw-compare --raw-burst 1 --raw-pad 44
expect '"mode":"raw".*"raw_burst":1,"raw_burst_max":1,"raw_pad":44,"raw_frame_max":122,' \
	"--raw-burst 1 --raw-pad 44: not one frame of 122 bytes per burst"
# the progress mode each RDMA result was measured in
run send_bw -s 64 -t 512 -Q 64 -D 0.5 --progress manual
expect '"mode":"rdma".*"progress":"manual"' "send_bw --progress manual: not in manual mode"
run send_lat -s 64 -n 1000 --progress manual
expect '"mode":"rdma".*"progress":"manual"' "send_lat --progress manual: not in manual mode"
# service progress: the engine on its own lcore.  Four pollers on two
# CPUs take turns at the scheduler's pace (milliseconds a message), so
# few messages: this checks that the mode runs, not its speed
SERVICE=1 run send_lat -s 64 -n 100 --progress service
expect '"mode":"rdma".*"progress":"service"' "send_lat --progress service: not in service mode"
SERVICE=1 run send_bw -s 64 -n 2000 --progress service
expect '"mode":"rdma".*"progress":"service"' "send_bw --progress service: not in service mode"
# -e: the client waits for completion events wherever it waits for a
# completion: it took some, also with service progress, where it sleeps
# for them
for t in send_lat read_lat atomic_lat; do
	run $t -e -n 300 --raw-compare
	expect '"mode":"rdma".*"events":true,"cq_events":[1-9]' "$t -e: no completion event taken"
done
# (a bandwidth test's client waits only when every send queue is full:
# 16 messages of 64 KiB fill it)
run write_bw -e -s 65536 -t 16 -n 500
expect '"mode":"rdma".*"events":true,"cq_events":[1-9]' "write_bw -e: no completion event taken"
run send_lat -n 300
expect '"mode":"rdma".*"events":false,"cq_events":0,' "send_lat without -e: events taken"
SERVICE=1 run send_lat -e -s 64 -n 100 --progress service
expect '"mode":"rdma".*"progress":"service","events":true,"cq_events":[1-9]' "send_lat -e --progress service: no completion event taken"
# read_lat's server waits for no completion: with service progress it
# sleeps on the control connection until the client's END (a server that
# missed it would run into the pair's timeout)
SERVICE=1 run read_lat -e -n 100 --progress service
expect '"mode":"rdma".*"progress":"service","events":true,"cq_events":[1-9]' "read_lat -e --progress service: no completion event taken"
run send_bw -s 64 -t 256 -l 32 -D 0.5
expect '"mode":"rdma".*"post_list":32[,}]' \
	'send_bw -l 32: no "post_list":32 in its JSON'
run write_bw -s 65536 -m 4096 -D 0.5 --raw-compare
# -n messages exactly, shared out over the QPs (2003 over 4 QPs, in lists
# of 8): none more to retire a QP's unsignaled tail
run send_bw -s 64 -q 4 -l 8 -n 2003
expect '"mode":"rdma".*"iterations":2003,' "send_bw -q 4 -l 8 -n 2003: not 2003 messages"
run write_bw -s 64 -q 3 -n 100
expect '"mode":"rdma".*"iterations":100,' "write_bw -q 3 -n 100: not 100 messages"
# -b: both sides stream at once, each its -n messages (over its QPs, in
# its lists of -l, the client's), and the result is the two ways summed:
# the messages, the bandwidth and the rate; the raw stream's too, each way
# measured by its receiver.  Each way's count is the sender's completions,
# which on RC its peer's ACKs bring
bidir_ok() {
	python3 - "$DIR/out" "$1" "$2" <<'PY' || { echo "FAIL: $3: not both ways of $1 messages, or not summed"; fail=1; }
import json, sys
out, modes, n = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
for m in modes:
    r = [json.loads(l) for l in open(out) if f'"mode":"{m}"' in l][0]
    assert r["bidirectional"] is True, (m, r)
    c, s = r["iterations_client"], r["iterations_server"]
    assert r["iterations"] == c + s, (m, r)
    # (the raw frames may not all arrive; RC's messages all do)
    assert (c == n and s == n) if m == "rdma" else (0 < c <= n and 0 < s <= n), (m, r)
    a, b = r["bw_avg_client"], r["bw_avg_server"]
    if r["bytes"] > 0:
        assert a > 0 and b > 0 and abs(r["bw_avg"] - a - b) <= 0.02, (m, r)
PY
}
run write_bw -b -s 65536 -n 500 --raw-compare
bidir_ok rdma,raw 500 "write_bw -b"
run send_bw -b -s 64 -q 2 -l 4 -n 5003
bidir_ok rdma 5003 "send_bw -b -q 2 -l 4 -n 5003"
expect '"mode":"rdma".*"post_list":4[,}]' "send_bw -b -l 4: no \"post_list\":4"
# (-e: a client waits for an event when nothing came in and its send
# queue is full; 16 messages of 64 KiB fill it, where 64-byte ones left
# it waiting for none in one run of many)
run send_bw -b -e -s 65536 -t 16 -n 500
bidir_ok rdma 500 "send_bw -b -e"
expect '"mode":"rdma".*"events":true,"cq_events":[1-9]' "send_bw -b -e: no completion event taken"
# (through an SRQ on both sides, UC)
run send_bw --use-srq -b -c UC -s 4096 -n 2000
bidir_ok rdma 2000 "send_bw --use-srq -b -c UC"
run read_bw -b -s 4096 -o 2 -n 2000
bidir_ok rdma 2000 "read_bw -b -o 2"
expect '"mode":"rdma".*"outs":2,' "read_bw -o 2: the QPs' max_rd_atomic not 2"
run atomic_bw -b -n 2000 --raw-compare
bidir_ok rdma,raw 2000 "atomic_bw -b"
expect '"mode":"rdma".*"outs":16,' "atomic_bw: the QPs' max_rd_atomic not 16 by default"
# (each side serves the other's stream while its own runs, and after it
# until the other's result comes: also with the engine on a service
# lcore, where the waiting thread sleeps on the control connection)
SERVICE=1 run write_bw -b -s 4096 -n 300 --progress service
bidir_ok rdma 300 "write_bw -b --progress service"
run send_bw -s 64 -n 2000
expect '"mode":"rdma".*"bidirectional":false' "send_bw: bidirectional without -b"
# --run_infinitely: a result every -D seconds until the client is told
# to stop (SIGINT; timeout passes it on), then the round under way ends
# and both stop well; each round a whole one (its -D of messages), with
# the ratio to the raw port's stream, measured once before
p=$port
pair send_bw -s 64 -D 0.3 --run_infinitely --raw-compare &
ppid=$!
sleep 4
pkill -INT -f -- "--run_infinitely --raw-compare -p $p --json 127.0.0.1"
if wait $ppid; then
	rounds=$(grep -c '"mode":"rdma".*"msg_rate_mpps":[0-9]*\.[0-9]*[1-9]' "$DIR/out")
	ratios=$(grep -c '"mode":"ratio"' "$DIR/out")
	if [ "$rounds" -ge 2 ] && [ "$ratios" = "$rounds" ]; then
		echo "ok: pmr-perf send_bw --run_infinitely: $rounds rounds, then stopped"
	else
		echo "FAIL: send_bw --run_infinitely: $rounds rounds, $ratios ratios"
		fail=1
	fi
else
	echo "FAIL: send_bw --run_infinitely did not stop well on SIGINT"
	tail -n 5 "$DIR/out" "$DIR/client.err" "$DIR/server.log"
	fail=1
fi
port=$((port + 1))
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
# -a: every size from 2 B to 8 MiB in turn, one result each, and with
# --histogram one picture a size (FILE-SIZE.png); -F (perftest's CPU
# frequency check) is taken and changes nothing
run send_lat -a -n 20 -F --histogram "$DIR/h.png"
got=$(sed -n 's/.*"mode":"rdma".*"bytes":\([0-9]*\),.*/\1/p' "$DIR/out" | tr '\n' ' ')
want=$(for ((b = 2; b <= 8388608; b *= 2)); do printf '%d ' $b; done)
[ "$got" = "$want" ] || { echo "FAIL: send_lat -a: sizes '$got'"; fail=1; }
for b in $want; do
	png_ok "$DIR/h-$b.png" "send_lat -a --histogram, $b bytes"
done
# one size: the picture FILE itself, pmrdma's and the raw port's samples,
# and no data files left beside it
run send_lat -s 64 -n 2000 --raw-compare --histogram "$DIR/one.png"
png_ok "$DIR/one.png" "send_lat --histogram"
if compgen -G "$DIR/*.dat" >/dev/null; then
	echo "FAIL: --histogram left $(ls "$DIR"/*.dat)"
	fail=1
fi
# --samples: every measured iteration of each loop, in the order run,
# numbered from the warm-up's first; their percentiles, and those
# bench/samples.py prints from the file, the ones pmr-perf printed
SAMPLES_PY=$(dirname "$0")/../../bench/samples.py
samples_ok() {
	local f=$1 n=$2; shift 2
	python3 - "$f" "$n" "$DIR/out" "$SAMPLES_PY" "$@" <<'PY' || { echo "FAIL: --samples $f: not what pmr-perf measured"; fail=1; }
import json, re, subprocess, sys
f, n, out, py, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
lines = open(f).read().splitlines()
assert lines[0] == "mode,bytes,iteration,usec", lines[0]
got = {}
for l in lines[1:]:
    m, b, it, us = l.split(",")
    got.setdefault(m, []).append((int(it), float(us)))
assert sorted(got) == sorted(modes), sorted(got)
text = subprocess.run([sys.executable, py, f], capture_output=True,
                      text=True, check=True).stdout
for m, xs in got.items():
    its = [i for i, _ in xs]
    assert len(xs) == n and its == list(range(its[0], its[0] + n)), m
    r = [json.loads(l) for l in open(out) if f'"mode":"{m}"' in l][0]
    s = sorted(u for _, u in xs)
    p = re.search(rf"^{m} 64 B: {n} iterations, t_typical (\S+) 99% (\S+) "
                  rf"99\.9% (\S+) usec$", text, re.M)
    assert p, (m, text)
    for k, v, w in (("t_typical", s[n // 2], p[1]),
                    ("p99", s[-(-99 * n // 100) - 1], p[2]),
                    ("p99_9", s[-(-999 * n // 1000) - 1], p[3])):
        assert abs(r[k] - v) <= 0.0015, (m, k, r[k], v)
        assert abs(r[k] - float(w)) <= 0.0015, (m, k, r[k], w)
PY
}
run send_lat -s 64 -n 2000 --raw-compare --samples "$DIR/s.csv"
samples_ok "$DIR/s.csv" 2000 raw rdma
run send_lat -s 64 -n 300 -q 2 --one-qp-compare --samples "$DIR/s2.csv"
samples_ok "$DIR/s2.csv" 300 rdma one_qp
# bandwidth in perftest's units: MB/sec of 2^20 bytes by default, Gb/sec
# of 10^9 bits with --report_gbits; the message rate times the size
run write_bw -s 65536 -n 2000
bw_is 0.95367431640625 "MB/sec" "write_bw"
run write_bw -s 65536 -n 2000 --report_gbits
bw_is 0.008 "Gb/sec" "write_bw --report_gbits"
# -I: the inline size the QPs are made with (a send slot of 72 + 512
# bytes, in 64-byte lines: 640; the verbs guide has the formula)
run send_lat -s 64 -n 500 -I 512
expect '"mode":"qp_mem".*"sq_slot":640,' "send_lat -I 512: no send slot of 640 bytes"
# -r: the receive queue's depth
run send_bw -s 64 -n 2000 -r 64
expect '"mode":"qp_mem".*"rq_slots":64,' "send_bw -r 64: no receive queue of 64"
# --output U: each result as one number with six decimals on a line of
# its own, nothing else on stdout (perftest's form for scripts).
# Latency: the number is t_avg (latency) or t_typical (latency_typical)
# of the iterations --samples wrote.
output_ok() {
	local what=$1 n=$2 re=$3; shift 3
	if ! NOJSON=1 pair "$@"; then
		echo "FAIL: pmr-perf $* ($what): the run failed"
		tail -n 3 "$DIR/client.err" "$DIR/server.log"
		fail=1
	elif [ "$(grep -cvE "$re" "$DIR/out")" != 0 ] ||
	     [ "$(grep -cE "$re" "$DIR/out")" != "$n" ] ||
	     grep -qE '^0\.0+$' "$DIR/out"; then
		echo "FAIL: pmr-perf $* ($what): not $n positive numbers alone:"
		head -n 5 "$DIR/out"
		fail=1
	else
		echo "ok: pmr-perf $* ($what)"
	fi
}
output_lat_ok() {
	local what=$1 unit=$2; shift 2
	output_ok "$what" 1 '^[0-9]+\.[0-9]{6}$' send_lat -s 64 -n 1000 \
		--output "$unit" --samples "$DIR/o.csv" "$@"
	python3 - "$DIR/o.csv" "$DIR/out" "$unit" <<'PY' || { echo "FAIL: --output $unit: not the samples' figure"; fail=1; }
import sys
f, out, unit = sys.argv[1:]
xs = [float(l.split(",")[3]) for l in open(f).read().splitlines()[1:]]
assert len(xs) == 1000, len(xs)
want = sum(xs) / len(xs) if unit == "latency" else sorted(xs)[len(xs) // 2]
got = float(open(out).read())
assert abs(got - want) <= 0.0015, (got, want)
PY
}
output_lat_ok "t_avg" latency
output_lat_ok "t_typical" latency_typical
# -C: the same figure in TSC cycles, the samples' (in usec) times the
# TSC's cycles a microsecond (500 to 10000: a TSC of 0.5 to 10 GHz); the
# table's columns in cycles
output_ok "t_avg, -C" 1 '^[0-9]+\.[0-9]{6}$' send_lat -s 64 -n 1000 \
	--output latency --samples "$DIR/o.csv" -C
python3 - "$DIR/o.csv" "$DIR/out" <<'PY' || { echo "FAIL: -C: not the samples' figure in cycles"; fail=1; }
import sys
f, out = sys.argv[1:]
xs = [float(l.split(",")[3]) for l in open(f).read().splitlines()[1:]]
k = float(open(out).read()) / (sum(xs) / len(xs))
assert 500 <= k <= 10000, k
PY
if NOJSON=1 pair send_lat -C -n 300 &&
   grep -qF 't_typical[cycles]' "$DIR/out" && ! grep -qF '[usec]' "$DIR/out"; then
	echo "ok: send_lat -C: the table in cycles"
else
	echo "FAIL: send_lat -C: the table not in cycles"
	head -n 4 "$DIR/out"
	fail=1
fi
output_ok "MB/sec" 1 '^[0-9]+\.[0-9]{6}$' write_bw -s 65536 -n 2000 \
	--output bandwidth
output_ok "Mpps" 1 '^[0-9]+\.[0-9]{6}$' send_bw -s 64 -n 2000 \
	--output message_rate
# a number a size of -a (2 B .. 8 MiB); the raw port's alone with --raw
output_ok "Gb/sec, -a" 23 '^[0-9]+\.[0-9]{6}$' write_bw -a -n 20 \
	--report_gbits --output bandwidth
output_ok "--raw" 1 '^[0-9]+\.[0-9]{6}$' write_bw -s 4096 -n 2000 --raw \
	--output bandwidth
# the note of retransmissions (RNR NAKs: one receive posted at a time,
# -r 1): on standard error with --output, its number alone on stdout;
# in the text output, on stdout below the table
if NOJSON=1 pair send_bw -s 64 -n 2000 -r 1 --output message_rate &&
   [ "$(grep -cvE '^[0-9]+\.[0-9]{6}$' "$DIR/out")" = 0 ] &&
   grep -qE '^ note: retransmits [1-9][0-9]* .*rnr_naks_rx [1-9]' \
	"$DIR/client.err" &&
   NOJSON=1 pair send_bw -s 64 -n 2000 -r 1 &&
   grep -qE '^ note: retransmits [1-9][0-9]* .*rnr_naks_rx [1-9]' "$DIR/out"
then
	echo "ok: --output: the note of RNR retransmissions on stderr"
else
	echo "FAIL: --output: the note of retransmissions not on stderr alone"
	tail -n 3 "$DIR/out" "$DIR/client.err"
	fail=1
fi
reject "bad --output bw: bandwidth or message_rate" write_bw --output bw
reject "--output latency is for the latency tests" write_bw --output latency
reject "--output message_rate is for the bandwidth tests" send_lat \
	--output message_rate
reject "--output and --json: one or the other" send_lat --output latency \
	--json
R_SERVER=1 reject "--output and --json: one or the other" send_lat \
	--output latency --json
R_SERVER=1 reject "--output latency is for the latency tests" write_bw \
	--output latency
reject "--output prints one number a result: not with --raw-compare" \
	send_lat --output latency --raw-compare
reject "--output prints one number a result: not with --one-qp-compare" \
	send_lat -q 2 --output latency --one-qp-compare
# --raw: the raw port alone, no RDMA result and no QPs
run send_lat -s 64 -n 2000 --raw
if grep -q '"mode":"\(rdma\|qp_mem\)"' "$DIR/out"; then
	echo "FAIL: send_lat --raw made an RDMA result or QPs"
	fail=1
fi
run write_lat -c UC -s 64 -n 1000
run send_lat -c UD -s 64 -n 1000
# UD with -a: the sizes up to the MTU (1024, the device's here), no more
run send_lat -c UD -a -n 20
got=$(sed -n 's/.*"mode":"rdma".*"bytes":\([0-9]*\),.*/\1/p' "$DIR/out" | tr '\n' ' ')
[ "$got" = "2 4 8 16 32 64 128 256 512 1024 " ] ||
	{ echo "FAIL: send_lat -c UD -a: sizes '$got'"; fail=1; }

# -T: the traffic class (IPv4 TOS) of the RoCEv2 frames each end sends,
# its own (client 106: DSCP 26, ECT(0); server 184: DSCP 46), as a
# sniffer on each end of the veth pair sees what comes in there (the
# frames af_packet sends bypass the sending side's taps); UD: the
# client's AH.  The RDMA JSON line says the client's.
TOS_PY=$(cat <<'PY'
import json, os, socket, sys
ifname, stop, out = sys.argv[1:]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
# (SO_RCVBUFFORCE, root): a fast stream can outrun the default buffer
s.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)
s.bind((ifname, 0))
s.settimeout(0.1)
seen = {}
while not os.path.exists(stop):
    try:
        f = s.recv(65536)
    except socket.timeout:
        continue
    if len(f) < 42 or f[12:14] != b"\x08\x00" or f[23] != 17:
        continue
    ip = 14 + (f[14] & 15) * 4
    if int.from_bytes(f[ip + 2:ip + 4], "big") != 4791:
        continue
    k = "%s %d" % (socket.inet_ntoa(f[26:30]), f[15])
    seen[k] = seen.get(k, 0) + 1
json.dump(seen, open(out, "w"))
PY
)
tclass_ok() {
	local what=$1 pa pb; shift
	rm -f "$DIR/tos.stop" "$DIR"/tos-*.json
	ip netns exec "$nsa" timeout 120 python3 -c "$TOS_PY" "$IFA" \
		"$DIR/tos.stop" "$DIR/tos-a.json" &
	pa=$!
	ip netns exec "$nsb" timeout 120 python3 -c "$TOS_PY" "$IFB" \
		"$DIR/tos.stop" "$DIR/tos-b.json" &
	pb=$!
	sleep 0.5
	AFP=1 SARGS="-T 184" run "$@" -T 106
	touch "$DIR/tos.stop"
	wait "$pa" "$pb"
	python3 - "$DIR/tos-a.json" "$DIR/tos-b.json" "$DIR/out" "$what" <<'PY' || { echo "FAIL: -T ($what): frames not of each end's traffic class"; fail=1; }
import json, sys
a, b, out, what = sys.argv[1:]
seen = json.load(open(a))
for k, n in json.load(open(b)).items():
    seen[k] = seen.get(k, 0) + n
print("%s: frames by source and TOS: %s" % (what, seen))
r = [json.loads(l) for l in open(out) if '"mode":"rdma"' in l][0]
assert r["tclass"] == 106, r
want = {"10.0.0.2": 106}
if what == "RC":
    want["10.0.0.1"] = 184
for k, n in seen.items():
    src, tos = k.split()
    assert want.get(src) == int(tos), k
# every frame seen is checked above; enough of them must have been seen
# (the sniffer may miss some of a fast stream)
for src in want:
    assert seen.get("%s %d" % (src, want[src]), 0) >= 200, (src, seen)
PY
}

# Over af_packet on a veth pair (root): the raw stream's rate runs from its
# first frame to its last, whatever else the port brings.  Here the TCP
# connection shares the veth, and af_packet hands the server every frame
# on it, both ways: the kernel's delayed ACK of the client's END some
# 40 ms after the stream moved the clock's end with it, and a 5000-message
# stream that took 10 ms to send measured a fifth of its rate.  So the
# time the receiver measured is at most the sender's and 20 ms.
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null; then
	veth_names pmrp
	# (the kernel ends get addresses here: pmr-perf's TCP runs on them)
	if veth_up "$nsa" "$nsb" "$IFA" "$IFB" &&
	   ip -n "$nsa" addr add 192.168.253.1/24 dev "$IFA" &&
	   ip -n "$nsb" addr add 192.168.253.2/24 dev "$IFB"; then
		AFP=1 run send_bw -s 64 -n 5000 --raw
		line=$(grep '"mode":"raw"' "$DIR/out")
		it=$(sed -n 's/.*"iterations":\([0-9]*\),.*/\1/p' <<<"$line")
		mpps=$(sed -n 's/.*"msg_rate_mpps":\([0-9.]*\),.*/\1/p' <<<"$line")
		send=$(sed -n 's/.*"raw_send_us":\([0-9.]*\)[,}].*/\1/p' <<<"$line")
		if ! awk -v it="${it:-0}" -v r="${mpps:-0}" -v s="${send:-0}" \
		     'BEGIN { exit !(it > 0 && r > 0 && s > 0 && it / r <= s + 20000) }'; then
			echo "FAIL: af_packet send_bw --raw: $it messages received over" \
			     "$(awk -v it="${it:-0}" -v r="${mpps:-0}" 'BEGIN { if (r > 0) printf "%.0f", it / r }') us," \
			     "sent in ${send:-?} us"
			fail=1
		fi
		tclass_ok "RC" send_lat -s 64 -n 2000
		tclass_ok "UD" send_bw -c UD -s 64 -n 2000
	else
		echo "FAIL: cannot make the veth pair for the af_packet part"
		fail=1
	fi
else
	echo "SKIP: the af_packet part (needs root and iproute2)"
fi

wait "$noconn_pid"
read -r rc secs <"$DIR/noconn.rc"
if [ "$rc" != 1 ] || [ "$secs" -lt 25 ] || [ "$secs" -gt 45 ] ||
   ! grep -qF "pmr-perf: cannot connect to 127.0.0.1:$noconn_port" "$DIR/noconn.out"; then
	echo "FAIL: a client with no server: status $rc after $secs s"
	tail -n 3 "$DIR/noconn.out"
	fail=1
else
	echo "ok: a client with no server stopped after $secs s"
fi
exit $fail
