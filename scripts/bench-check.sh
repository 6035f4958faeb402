#!/bin/sh
# The benchmark's small version for make test: ours only, a 512 MiB
# 2-node guest, one step sequence. Prints KTAP (like a guest suite) to
# stdout for report.sh: bad parameters are refused before anything
# boots, the workload fragmented memory, the result files exist and
# parse, and ours got more huge pages than the free lists held.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac

echo "TAP version 13"
echo "1..2"
echo "# zc-run: bench-params"
echo "    1..4"
n=0
for bad in "MEM=3X" "MEM=256M" "NODES=3" "REPEAT=0"; do
	n=$((n + 1))
	t0=$(date +%s)
	if env $bad KERNELS=ours "$TOP/scripts/bench.sh" >/tmp/zc-bench-bad.$$ 2>&1; then
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

D=$TOP/build/bench-check
rm -rf "$D"
mkdir -p "$D"
"$TOP/scripts/disk.sh" "$D/disk.img" $(( 512 * 5 / 2 + 256 )) >&2
echo "ours: $(grep series "$TOP/build/ours/version")" > "$D/setup.txt"
DISK=$D/disk.img DATA=$D/ours-1.csv LOG=$D/ours-1.log MEM=512M NODES=2 TIMEOUT=1500 \
	APPEND="ZC_TEST_TIMEOUT=1400" "$TOP/scripts/boot.sh" ours bench >/dev/null 2>&1 || true
rm -f "$D/disk.img"
"$TOP/scripts/bench-report.sh" "$D" ours >&2 || true

echo "# zc-run: bench-small"
echo "    1..4"
# The guest's own KTAP results of the run (fill, limit, allocation)
grep -a '^    \(not \)\?ok [0-9]' "$D/ours-1.log" | head -3 || true
nres=$(grep -ac '^    \(not \)\?ok [0-9]' "$D/ours-1.log" || true)
[ "${nres:-0}" -ge 3 ] || echo "    # the guest ran $nres of 3 benchmark checks, see $D/ours-1.log"
row=$(awk -F, '$1 == "ours" && $16 == 1' "$D/runs.csv" 2>/dev/null | head -1)
if [ -n "$row" ] && [ -s "$D/summary.md" ] && [ -s "$D/steps.csv" ]; then
	prefree=$(echo "$row" | cut -d, -f6)
	blocks=$(echo "$row" | cut -d, -f5)
	final=$(echo "$row" | cut -d, -f7)
	# Fragmented: at most 10% of the pageblocks free as huge pages
	if [ "$prefree" -le $(( blocks / 10 )) ] && [ "$final" -gt "$prefree" ]; then
		echo "    ok 4 bench_result: $prefree free huge pages of $blocks pageblocks before, $final after"
	else
		echo "    not ok 4 bench_result: $prefree free huge pages of $blocks pageblocks before (want <= 10%), $final after"
	fi
else
	echo "    not ok 4 bench_result: no complete run in $D/runs.csv"
fi
echo "ok 2 bench-small"
echo "# zc-done"
