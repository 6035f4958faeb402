#!/bin/sh
# The seed benchmark's small version for make test: ours only, a 512 MiB
# 2-node guest, one untraced run, in build/bench-check/ (its own
# directory: no earlier make run can stand in for it). Prints KTAP (like
# a guest suite) to stdout for report.sh: bad parameters are refused
# before anything boots, and bench/seed-judge.sh's verdict on the run.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac

echo "TAP version 13"
echo "1..2"
echo "# zc-run: bench-params"
bad_params="MEM=3X MEM=256M NODES=3 REPEAT=0 TRACED=x KERNELS=linus"
echo "    1..$(echo $bad_params | wc -w)"
n=0
for bad in $bad_params; do
	n=$((n + 1))
	t0=$(date +%s)
	if env KERNELS=ours $bad "$TOP/bench/seed.sh" >/tmp/zc-bench-bad.$$ 2>&1; then
		rc=0
	else
		rc=$?
	fi
	msg=$(head -1 /tmp/zc-bench-bad.$$)
	if [ "$rc" = 2 ] && [ $(( $(date +%s) - t0 )) -lt 5 ]; then
		echo "    ok $n bench_rejects $bad: $msg"
	else
		echo "    not ok $n bench_rejects $bad: exit $rc: $msg"
	fi
done
rm -f /tmp/zc-bench-bad.$$
echo "ok 1 bench-params"

# The run, in a directory of its own: make test never reads or moves
# results/latest
OUTDIR=$TOP/build/bench-check
bench_open ""
bench_setup "guest: 512M, 2 nodes, 2 cpus; untraced runs: 1" "ours: $(grep series "$TOP/build/ours/version")"
echo ours-1 > "$OUTD/planned"
"$TOP/scripts/disk.sh" "$OUTD/disk.img" $(( 512 * 5 / 2 + 256 )) >&2
DISK=$OUTD/disk.img MEM=512M NODES=2 TIMEOUT=1500 APPEND="ZC_TEST_TIMEOUT=1400 ZC_TRACE=0" \
	bench_boot ours-1 ours seed || true
rm -f "$OUTD/disk.img"
bench_close latest
"$TOP/bench/seed-report.sh" "$OUTD" ours >&2 && rrc=0 || rrc=$?

echo "# zc-run: bench-small"
# The guest's own results (fill, limit, allocation) and any splat are
# counted from its log, build/bench-check/ours-1.log, by make test.
echo "    1..1"
if [ "$rrc" != 0 ]; then
	echo "    not ok 1 bench_result: bench/seed-report.sh exit $rrc"
elif [ -s "$OUTD/runs.csv" ]; then
	"$TOP/bench/seed-judge.sh" "$OUTD" || true
else
	echo "    not ok 1 bench_result: no runs.csv in $OUTD"
fi
echo "ok 2 bench-small"
echo "# zc-done"
