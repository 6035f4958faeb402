#!/bin/sh
# The THP benchmark's small version for make test: ours only, defrag
# madvise, one thread, one run in a 1 GiB 2-node guest, in
# build/thp-check/ (its own directory: an earlier make run BENCH=thp can
# never stand in for it). Prints KTAP to stdout for report.sh:
# bench/thp-judge.sh's verdict. The guest's own KTAP and any splat are
# counted from its log, build/thp-check/ours-madvise-1.log, by make test.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,7p' "$0"; exit 0 ;; esac

D=$TOP/build/thp-check
rm -rf "$D"
OUTDIR=$D ZC_PREBUILT=1 REPEAT=1 KERNELS=ours MODES=madvise THREADS=1 "$TOP/bench/thp.sh" >&2 && rc=0 || rc=$?
echo "TAP version 13"
echo "1..1"
echo "# zc-run: thp-small"
echo "    1..1"
if [ "$rc" != 0 ]; then
	echo "    not ok 1 thp_small_huge: bench/thp.sh exit $rc (its report included)"
elif [ -s "$D/runs.csv" ]; then
	"$TOP/bench/thp-judge.sh" "$D" || true
else
	echo "    not ok 1 thp_small_huge: no runs.csv in $D"
fi
echo "ok 1 thp-small"
echo "# zc-done"
