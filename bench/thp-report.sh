#!/bin/sh
# Tables and plots of a THP benchmark run (scripts/thp-bench.sh).
# usage: thp-report.sh RESULTS_DIR "KERNELS" "MODES"
set -eu
. "$(dirname "$0")/lib.sh"
D=$1
KERNELS=$2
MODES=$3

# runs.csv: one row per kernel, mode and thread count
echo "kernel,mode,threads,ranges,huge,limit,seconds,compact_stall,compact_success,compact_fail,migrate_scanned,free_scanned,daemon_migrate_scanned,daemon_free_scanned,pgmigrate_success,thp_fault_alloc,thp_fault_fallback,pgsteal_kswapd,pgsteal_direct,p50_us,p99_us,max_us" > "$D/runs.csv"
for m in $MODES; do
	for v in $KERNELS; do
		f=$D/$v-$m.csv
		[ -f "$f" ] || continue
		tr -d '\r' < "$f" > "$D/.csv"
		for t in $(awk -F, '$1 == "run" { print $2 }' "$D/.csv"); do
			awk -F, -v t="$t" '$1 == "fault" && $2 == t { print $3 }' "$D/.csv" | sort -n > "$D/.lat"
			pct=$(awk '{ v[NR] = $1 } END {
				if (!NR) { print "-,-,-"; exit }
				i50 = int(NR * 0.50 + 0.999); i99 = int(NR * 0.99 + 0.999)
				printf "%.0f,%.0f,%.0f", v[i50], v[i99], v[NR] }' "$D/.lat")
			awk -F, -v t="$t" -v k="$v" -v m="$m" -v p="$pct" '$1 == "run" && $2 == t {
				printf "%s,%s", k, m
				for (i = 2; i <= NF; i++) printf ",%s", $i
				printf ",%s\n", p }' "$D/.csv" >> "$D/runs.csv"
			# CDF for the plot: latency, fraction of faults at or below it
			awk -v n="$(wc -l < "$D/.lat")" '{ printf "%s %.5f\n", $1, NR / n }' "$D/.lat" > "$D/.cdf-$m-$v-$t"
		done
	done
done
rm -f "$D/.csv" "$D/.lat"

{
	cat "$D/setup.txt" | sed 's/^/    /'
	echo
	echo "Every fault is the first touch of a huge page sized range of the second mapping; served huge: the"
	echo "range is a THP afterwards (/proc/kpageflags). limit: pageblocks whose every page was free or on"
	echo "the LRU before the faults, what a compactor with reclaim could make huge. pfns scanned: compaction's"
	echo "migration and free scanners, direct and kcompactd, CONFIG_COMPACTION's units; \"-\": no such counter."
	echo
	echo "| defrag | kernel | threads | faults | served huge | % | limit | fault phase s | p50 us | p99 us | max us | compact stalls | pfns scanned | pages migrated | reclaimed |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F, 'NR > 1 {
		sc = ($11 < 0) ? "-" : $11 + $12 + ($13 < 0 ? 0 : $13) + ($14 < 0 ? 0 : $14)
		st = ($8 < 0) ? "-" : $8
		mg = ($15 < 0) ? "-" : $15
		printf "| %s | %s | %s | %s | %s | %.1f | %s | %.2f | %s | %s | %s | %s | %s | %s | %s |\n",
			$2, $1, $3, $4, $5, $4 ? 100 * $5 / $4 : 0, $6, $7, $20, $21, $22, st, sc, mg, $18 + $19
	}' "$D/runs.csv"
} > "$D/summary.md"

if command -v gnuplot >/dev/null 2>&1; then
	for m in $MODES; do
		c=""
		for v in $KERNELS; do
			for f in "$D"/.cdf-"$m"-"$v"-*; do
				[ -s "$f" ] || continue
				t=${f##*-}
				c="$c${c:+, }'$f' using 1:2 with lines title '$v, $t threads'"
			done
		done
		[ -n "$c" ] || continue
		gnuplot <<PLOT
set terminal png size 900,540
set output '$D/latency-$m.png'
set title 'THP fault latency, defrag $m (first touch of each 2 MiB range)'
set xlabel 'fault latency (us, log scale)'
set ylabel 'fraction of faults'
set logscale x
set key bottom right
set grid
plot $c
PLOT
	done
fi
rm -f "$D"/.cdf-*
