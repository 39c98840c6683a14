#!/usr/bin/env bash
# Make 2 MiB hugepages available to DPDK, or decide to run without them.
#
#   scripts/hugepages.sh [BUILD_DIR]        (default BUILD_DIR: build)
#
# Reserves PMR_HUGEPAGES pages (default 512 = 1 GiB) when fewer are
# reserved (never lowers an existing reservation) and makes sure a hugetlbfs
# is mounted (mounting one at /dev/hugepages if none is).  It then checks
# that the pages are really there (nr_hugepages and HugePages_Free read
# back) and that one can be mapped.
#
# The decision is written to BUILD_DIR/.pmr-eal-mem: "huge" or "nohuge".
# Tests and the demo read it (or PMR_NO_HUGE=1 in the environment) to pick
# their EAL memory arguments: see scripts/eal-args.sh.
#
# When hugepages cannot be had (not root, a container without permission,
# PMR_NO_HUGE=1 set) it prints one line saying so and exits 0.
set -euo pipefail

BUILD_DIR=${1:-build}
PAGES=${PMR_HUGEPAGES:-512}
MIN_FREE=${PMR_HUGEPAGES_MIN_FREE:-64}   # 128 MiB: enough for the tests
MNT=/dev/hugepages
SYS2M=/sys/kernel/mm/hugepages/hugepages-2048kB
OUT="$BUILD_DIR/.pmr-eal-mem"

mkdir -p "$BUILD_DIR"

decide() {
	printf '%s\n' "$1" >"$OUT.tmp"
	mv -f "$OUT.tmp" "$OUT"
}

unavailable() {
	echo "hugepages: unavailable ($1); runs will use --no-huge"
	decide nohuge
	exit 0
}

meminfo() { # field name -> value (0 when absent)
	awk -v f="$1:" '$1 == f { print $2; found = 1 } END { if (!found) print 0 }' \
		/proc/meminfo
}

# 2 MiB pages: per-size sysfs counters when present, else the default size.
nr_pages() {
	if [ -r "$SYS2M/nr_hugepages" ]; then cat "$SYS2M/nr_hugepages"
	else cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0; fi
}
free_pages() {
	if [ -r "$SYS2M/free_hugepages" ]; then cat "$SYS2M/free_hugepages"
	else meminfo HugePages_Free; fi
}

# A hugetlbfs mount for 2 MiB pages (explicit pagesize=2M, or no pagesize
# option while 2 MiB is the default size).
find_mount() {
	local default_kb
	default_kb=$(meminfo Hugepagesize)
	awk -v dflt="$default_kb" '
		$3 == "hugetlbfs" {
			if ($4 ~ /pagesize=2M/ || ($4 !~ /pagesize=/ && dflt == 2048)) {
				print $2; exit
			}
		}' /proc/mounts
}

if [ "${PMR_NO_HUGE:-0}" = 1 ]; then
	unavailable "PMR_NO_HUGE=1"
fi
if [ ! -d "$SYS2M" ] && [ "$(meminfo Hugepagesize)" != 2048 ]; then
	unavailable "the kernel offers no 2 MiB pages"
fi

root=0
[ "$(id -u)" -eq 0 ] && root=1

# 1. Reserve, only upwards.
nr=$(nr_pages)
if [ "$nr" -lt "$PAGES" ] && [ $root = 1 ]; then
	if [ -w "$SYS2M/nr_hugepages" ]; then
		echo "$PAGES" >"$SYS2M/nr_hugepages" 2>/dev/null || true
	elif [ "$(meminfo Hugepagesize)" = 2048 ]; then
		echo "$PAGES" >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
fi

# 2. Read back what the kernel really did.
nr=$(nr_pages)
free=$(free_pages)
if [ "$(meminfo Hugepagesize)" = 2048 ]; then
	# /proc/meminfo and /proc/sys/vm/nr_hugepages describe the default size.
	sys_nr=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)
	mi_free=$(meminfo HugePages_Free)
	[ "$sys_nr" -lt "$nr" ] && nr=$sys_nr
	[ "$mi_free" -lt "$free" ] && free=$mi_free
fi
if [ "$nr" -eq 0 ]; then
	if [ $root = 1 ]; then
		unavailable "the kernel reserved no 2 MiB pages"
	else
		unavailable "none reserved and not root"
	fi
fi
if [ "$free" -lt "$MIN_FREE" ]; then
	unavailable "only $free of $nr pages free, want $MIN_FREE"
fi

# 3. A hugetlbfs mount (DPDK-NOTES pitfall 2: /dev/hugepages may not exist).
mnt=$(find_mount)
if [ -z "$mnt" ]; then
	if [ $root = 1 ] && mkdir -p "$MNT" 2>/dev/null; then
		mount -t hugetlbfs -o pagesize=2M nodev "$MNT" 2>/dev/null || true
	fi
	mnt=$(find_mount)
	[ -n "$mnt" ] || unavailable "no hugetlbfs mount and cannot mount one at $MNT"
fi

# 4. Map and touch one page there, as DPDK will.
probe="$mnt/.pmr-probe.$$"
if ! python3 - "$probe" >/dev/null 2>&1 <<'PY'
import mmap, os, sys
path = sys.argv[1]
fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
try:
    os.unlink(path)
    size = 2 << 20
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    m[0] = 1
    m[size - 1] = 1
    m.close()
finally:
    os.close(fd)
PY
then
	rm -f "$probe" 2>/dev/null || true
	unavailable "cannot map a page in $mnt"
fi

echo "hugepages: $nr x 2 MiB reserved, $free free, hugetlbfs at $mnt"
decide huge
