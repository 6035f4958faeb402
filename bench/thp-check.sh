#!/bin/sh
# The THP benchmark's small version for make test: ours only, defrag
# madvise, one thread, a 1 GiB 2-node guest. Prints KTAP to stdout for
# report.sh: the run completed, its table parses, and ours served most
# faults huge. The guest's own KTAP and any splat are counted from its
# log, results/latest-thp/ours-madvise.log, by make test.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac

ZC_PREBUILT=1 KERNELS=ours MODES=madvise THREADS=1 "$TOP/scripts/thp-bench.sh" >&2 || true
D=$TOP/results/latest-thp
echo "TAP version 13"
echo "1..1"
echo "# zc-run: thp-small"
echo "    1..1"
row=$(awk -F, '$1 == "ours" && $2 == "madvise" && $3 == 1' "$D/runs.csv" 2>/dev/null | head -1)
if [ -n "$row" ] && [ -s "$D/summary.md" ]; then
	ranges=$(echo "$row" | cut -d, -f4); huge=$(echo "$row" | cut -d, -f5)
	limit=$(echo "$row" | cut -d, -f6)
	# Measured: 190 of 190 faults huge, with a limit of 469 pageblocks,
	# 2.5 times the faults: a compactor that works serves nearly all of
	# them. 90% leaves room for a few fallbacks under load.
	if [ "$ranges" -gt 0 ] && [ $((huge * 10)) -ge $((ranges * 9)) ]; then
		echo "    ok 1 thp_small_huge: $huge of $ranges faults served huge (limit $limit pageblocks)"
	else
		echo "    not ok 1 thp_small_huge: $huge of $ranges faults served huge (limit $limit pageblocks), want 90%"
	fi
	echo "ok 1 thp-small"
else
	echo "    not ok 1 thp_small_huge: no result row in $D/runs.csv"
	echo "not ok 1 thp-small"
fi
echo "# zc-done"
