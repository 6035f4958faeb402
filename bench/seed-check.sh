#!/bin/sh
# The benchmark's small version for make test: ours only, a 512 MiB
# 2-node guest, one step sequence. Prints KTAP (like a guest suite) to
# stdout for report.sh: bad parameters are refused before anything
# boots, the workload fragmented memory, the result files exist and
# parse, ours came close to the physical limit and compaction, not
# reclaim, made most of those huge pages.
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
# The guest's own results (fill, limit, allocation) and any splat are
# counted from its log, build/bench-check/ours-1.log, by make test.
echo "    1..1"
row=$(awk -F, '$1 == "ours" && $28 == 1' "$D/runs.csv" 2>/dev/null | head -1)
if [ -n "$row" ] && [ -s "$D/summary.md" ] && [ -s "$D/steps.csv" ]; then
	field() { echo "$row" | cut -d, -f"$1"; }
	blocks=$(field 5); prefree=$(field 6); final=$(field 7); limit=$(field 4)
	success=$(field 16); moved=$(field 18)
	gained=$((final - prefree))
	# Fragmented: at most 10% of the pageblocks free as huge pages.
	# Close to the limit: ours got 213 of a 214-block limit (99.5%) here
	# and 98-99% at 1 and 4 GiB; the 1 GiB runs spread by 3.5% between
	# runs. 90% leaves room for that and fails on any real loss (vanilla
	# gets 5-12% of the limit from reclaim alone).
	# Compaction made them: every direct compaction that ended in an
	# allocation counts one compact_success, so at least half of the huge
	# pages gained must be such allocations, not blocks reclaim freed;
	# and pages must have moved for them: compact_success also counts an
	# attempt whose page was already free, so at least one page moved
	# per success (ours moved 360 per huge page at 1 GiB).
	if [ "$prefree" -gt $(( blocks / 10 )) ]; then
		echo "    not ok 1 bench_result: $prefree free huge pages of $blocks pageblocks before: not fragmented (want <= 10%)"
	elif [ "$limit" -le 0 ] || [ $(( final * 100 )) -lt $(( limit * 90 )) ]; then
		echo "    not ok 1 bench_result: $final huge pages, limit $limit pageblocks: $(( limit > 0 ? final * 100 / limit : 0 ))% (want >= 90%)"
	elif [ -z "$success" ] || [ $(( success * 2 )) -lt "$gained" ]; then
		echo "    not ok 1 bench_result: ${success:-no} compact_success for $gained huge pages gained (want >= half)"
	elif [ -z "$moved" ] || [ "$moved" -lt "$success" ]; then
		echo "    not ok 1 bench_result: ${moved:-no} pages moved for $success compact_success (want >= 1 each)"
	else
		echo "    ok 1 bench_result: $final huge pages = $(( final * 100 / limit ))% of the limit ($limit of $blocks pageblocks), $prefree free before; $success of the $gained gained came from direct compaction, $moved pages moved"
	fi
else
	echo "    not ok 1 bench_result: no complete run in $D/runs.csv"
fi
echo "ok 2 bench-small"
echo "# zc-done"
