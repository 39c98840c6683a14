#!/usr/bin/env bash
# Print the EAL arguments a single pmrdma process should use on this
# machine, following the hugepage decision of scripts/hugepages.sh.
#
#   scripts/eal-args.sh [BUILD_DIR]   e.g. "--no-pci --in-memory"
#   scripts/eal-args.sh --mode [BUILD_DIR]   "huge" or "nohuge"
#
# PMR_NO_HUGE=1 in the environment forces "nohuge".  Without it, the mode
# is read from BUILD_DIR/.pmr-eal-mem (default BUILD_DIR: build); when that
# file is missing hugepages were never checked, so "nohuge" is assumed.
# (--in-memory cannot be combined with --no-huge: DPDK-NOTES pitfall 5.)
set -euo pipefail

mode_only=0
if [ "${1:-}" = --mode ]; then
	mode_only=1
	shift
fi
BUILD_DIR=${1:-build}

mode=nohuge
if [ "${PMR_NO_HUGE:-0}" != 1 ] && [ -r "$BUILD_DIR/.pmr-eal-mem" ]; then
	read -r mode <"$BUILD_DIR/.pmr-eal-mem" || true
	[ "$mode" = huge ] || mode=nohuge
fi

if [ $mode_only = 1 ]; then
	echo "$mode"
elif [ "$mode" = huge ]; then
	echo "--no-pci --in-memory"
else
	echo "--no-pci --no-huge -m 256"
fi
