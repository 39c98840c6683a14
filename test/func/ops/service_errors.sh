#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device opening checks of the service-core progress mode, one process
# each, no peer: the roce device sits on a net_null vdev.
#   progress=service,service_lcore=0 with -l 0 (the main lcore)  -> EINVAL
#   progress=service,service_lcore=1 with -l 0 (not an EAL lcore) -> EINVAL
#   no service_lcore: opens; set_progress_mode(SERVICE) -> ENOTSUP and the
#   context stays usable
#   progress=service,service_lcore=1 with -l 0,1 (control)       -> opens
#     (skipped on a single-CPU machine)
#   service_errors.sh RC_OPS_BINARY BUILD_DIR
set -uo pipefail
prog=$1
builddir=${2:-build}
. "$(dirname "$0")/common.sh"

fails=0
n=0
# probe TAG LCORES DEVARGS [rc_ops probe args...]
probe() {
	local tag=$1 lcores=$2 devargs=$3 out rc
	shift 3
	n=$((n + 1))
	# shellcheck disable=SC2046
	out=$(env PMR_EAL_ARGS="$(eal_mem_args "$builddir" "p$n") -l $lcores --vdev net_null0" \
		PMR_DEVICES="roce:port=0,ipv4=10.98.0.1,$devargs" \
		timeout 60 "$prog" --role probe "$@" 2>&1)
	rc=$?
	grep -v '^EAL: \|^TELEMETRY: ' <<<"$out" | sed "s/^/[$tag] /"
	if [ "$rc" != 0 ]; then
		echo "FAIL $tag (exit $rc)"
		fails=$((fails + 1))
	else
		echo "PASS $tag"
	fi
}

probe main_lcore 0 "progress=service,service_lcore=0" --expect-errno EINVAL
probe lcore_not_in_eal 0 "progress=service,service_lcore=1" --expect-errno EINVAL
probe no_service_lcore 0 "mtu=1024"
if [ "$(nproc)" -ge 2 ]; then
	probe service_ok 0,1 "progress=service,service_lcore=1" --expect-errno none
else
	echo "SKIP service_ok (one CPU: no lcore for the service core)"
fi
echo "service_errors: $fails failure(s)"
[ "$fails" = 0 ]
