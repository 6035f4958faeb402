#!/bin/sh
# The THP benchmark's judge (make test): from DIR/runs.csv (the THP
# report's, looked up by column name) one KTAP result line, indented as a
# subtest, for ours, defrag madvise, 1 thread: every run of it complete,
# and most faults served huge.
# usage: thp-judge.sh DIR    (exit 0: ok, 1: not ok, 3: a column missing)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,6p' "$0"; exit 0 ;; esac
D=$1

# Measured: 190 of 190 faults huge, with a limit of 469 pageblocks, 2.5
# times the faults: a compactor that works serves nearly all of them.
# 90% leaves room for a few fallbacks under load. A run that did not
# complete, or whose thread count failed, is a failure, never left out.
awk -F, "$CSV_AWK"'
NR == 1 { header(); next }
c("kernel") == "ours" && c("mode") == "madvise" && c("threads") == 1 {
	n++
	if (!c("complete") || c("failed")) { bad++; next }
	ranges += c("ranges"); huge += c("huge"); limit = c("limit")
}
END {
	if (_BAD) exit 3
	if (!n) { print "    not ok 1 thp_small_huge: no row of ours, madvise, 1 thread in runs.csv"; exit 1 }
	if (bad) { printf "    not ok 1 thp_small_huge: %d of %d runs did not complete\n", bad, n; exit 1 }
	if (ranges <= 0 || huge * 10 < ranges * 9) {
		printf "    not ok 1 thp_small_huge: %d of %d faults served huge (LRU+free limit %d pageblocks), want 90%%\n", huge, ranges, limit
		exit 1
	}
	printf "    ok 1 thp_small_huge: %d of %d faults served huge (LRU+free limit %d pageblocks)\n", huge, ranges, limit
}' "$D/runs.csv"
