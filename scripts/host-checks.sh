#!/bin/sh
# Host-side checks, printed as KTAP like a guest suite so report.sh counts
# them: each variant's .config has the compactor it claims to have and
# transparent huge pages, every patch of the series is checkpatch clean
# (--strict) and the kernel-doc of its files parses. That ours compiles
# with CMA and memory hotplug (the cma variant) is checked at every patch
# by scripts/bisect-check.sh, which every change of the series must pass.
# usage: host-checks.sh    (writes KTAP to stdout)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,8p' "$0"; exit 0 ;; esac

# The built kernel's config for ours; configs only (no build) for the rest.
cfg() {
	if [ -f "$TOP/build/$1/.config" ] && [ "$1" = ours ]; then
		echo "$TOP/build/$1/.config"
	else
		"$TOP/scripts/config.sh" "$1" >/dev/null 2>&1 || true
		echo "$KSRC_CACHE/build-$1/.config"
	fi
}
has() { grep -qx "CONFIG_$2=y" "$1"; }

n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "    ok $n $1"; else echo "    not ok $n $1"; fi
}

ours=$(cfg ours)
mainline=$(cfg mainline)
vanilla=$(cfg vanilla)
echo "TAP version 13"
echo "1..3"
echo "# zc-run: host-config"
echo "    1..3"
check "config_ours: ZONE_COMPACTION=y MIGRATION=y TRANSPARENT_HUGEPAGE=y, no COMPACTION" \
	'has $ours ZONE_COMPACTION && has $ours MIGRATION && has $ours TRANSPARENT_HUGEPAGE && ! has $ours COMPACTION'
check "config_mainline: COMPACTION=y TRANSPARENT_HUGEPAGE=y, no ZONE_COMPACTION" \
	'has $mainline COMPACTION && has $mainline TRANSPARENT_HUGEPAGE && ! has $mainline ZONE_COMPACTION'
check "config_vanilla: TRANSPARENT_HUGEPAGE=y, neither COMPACTION nor ZONE_COMPACTION" \
	'has $vanilla TRANSPARENT_HUGEPAGE && ! has $vanilla COMPACTION && ! has $vanilla ZONE_COMPACTION'
echo "ok 1 host-config"

# Every patch of the series is checkpatch clean.
echo "# zc-run: checkpatch"
np=$(ls "$TOP"/patches/0*.patch | grep -vc '/0000-cover-letter.patch$')
echo "    1..$np"
if "$TOP/scripts/checkpatch.sh"; then
	echo "ok 2 checkpatch"
else
	echo "not ok 2 checkpatch"
fi

# The kernel-doc of the series' files is complete and parses
echo "# zc-run: kernel-doc"
echo "    1..1"
kdoc=$(cd "$TREE" && perl scripts/kernel-doc -none mm/zone_compaction.c \
	mm/zone_compaction_test.c include/linux/zone_compaction.h \
	include/trace/events/zone_compaction.h 2>&1 || echo "kernel-doc failed")
if [ -z "$kdoc" ]; then
	echo "    ok 1 kernel_doc: scripts/kernel-doc -none on the series' files"
	echo "ok 3 kernel-doc"
else
	echo "    not ok 1 kernel_doc: scripts/kernel-doc -none on the series' files"
	printf '%s\n' "$kdoc" | sed 's/^/    # /'
	echo "not ok 3 kernel-doc"
fi
echo "# zc-done"
