#!/bin/sh
# Tables and plots of a THP benchmark run (bench/thp.sh): from
# DIR/<kernel>-<mode>-<run>.csv (guest/bench/thpscale.c's data channel, fields
# looked up by name through its "cols" lines) write runs.csv (a row per
# kernel, mode, run and thread count), summary.md and latency-<mode>.png.
# Exit 3 when a data file lacks a field the report needs.
# usage: thp-report.sh DIR "KERNELS" "MODES"
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,7p' "$0"; exit 0 ;; esac
D=$1
KERNELS=$2
MODES=$3

COLS="kernel,mode,run,threads,complete,splat,failed,ranges,huge,limit,seconds,kcompactd_ms,kswapd_ms,compact_stall,compact_success,compact_fail,scanned,daemon_scanned,migrated,thp_fault_alloc,thp_fault_fallback,reclaimed,p50_us,p99_us,max_us"
echo "$COLS" > "$D/runs.csv"
for m in $MODES; do
	for v in $KERNELS; do
		for f in "$D/$v-$m"-[0-9].csv; do
			[ -f "$f" ] || continue
			b=$(basename "$f" .csv)
			r=${b##*-}
			splat=0
			[ -s "$D/$b.splat" ] && splat=1
			tr -d '\r' < "$f" > "$D/.csv"
			# The rows of this run, without their percentiles
			awk -F, -v k="$v" -v m="$m" -v r="$r" -v splat=$splat "$CSV_AWK"'
			function add(a, b) { return (a == "" || b == "") ? "" : a + b }
			function ms(ticks) { return (ticks == "" || !clk) ? "" : sprintf("%.0f", ticks * 1000 / clk) }
			$1 == "cols" { cols(); next }
			$1 == "meta" && $2 == "clk_tck" { clk = $3 }
			$1 == "done" { done = 1 }
			$1 == "failed" { n++; T[n] = t("failed", "threads"); F[n] = 1 }
			$1 == "run" {
				n++; T[n] = t("run", "threads")
				L[n] = t("run", "ranges") "," t("run", "huge") "," t("run", "limit") "," t("run", "seconds") "," \
					ms(t("run", "kcompactd_ticks")) "," ms(t("run", "kswapd_ticks")) "," \
					t("run", "compact_stall") "," t("run", "compact_success") "," t("run", "compact_fail") "," \
					add(t("run", "compact_migrate_scanned"), t("run", "compact_free_scanned")) "," \
					add(t("run", "compact_daemon_migrate_scanned"), t("run", "compact_daemon_free_scanned")) "," \
					t("run", "pgmigrate_success") "," t("run", "thp_fault_alloc") "," t("run", "thp_fault_fallback") "," \
					add(t("run", "pgsteal_kswapd"), t("run", "pgsteal_direct"))
			}
			END {
				if (_BAD) exit 3
				for (i = 1; i <= n; i++)
					printf "%s,%s,%s,%s,%d,%d,%d,%s\n", k, m, r, T[i], done && !F[i], splat, F[i] + 0,
						F[i] ? ",,,,,,,,,,,,,," : L[i]
			}' "$D/.csv" > "$D/.rows"
			while IFS=, read -r k mm rr t rest; do
				awk -F, -v want="$t" "$CSV_AWK"'$1 == "cols" { cols(); next }
					$1 == "fault" && t("fault", "threads") == want { print t("fault", "us") }' "$D/.csv" > "$D/.lat"
				set -- $(percentiles < "$D/.lat")
				p="$1,$2,$3"
				[ "$1" != - ] || p=",,"
				echo "$k,$mm,$rr,$t,$rest,$p" >> "$D/runs.csv"
				# Faults of complete rows feed the plot, pooled over the runs
				case "$rest" in 1,*) cat "$D/.lat" >> "$D/.pool-$m-$v-$t" ;; esac
			done < "$D/.rows"
		done
	done
done
rm -f "$D/.csv" "$D/.lat" "$D/.rows"
# Planned thread counts without a row (a guest that died before them, or
# a run whose data never came): rows that are not complete
if [ -f "$D/planned" ]; then
	while read -r id threads; do
		r=${id##*-}; km=${id%-*}; m=${km##*-}; k=${km%-*}
		for t in $threads; do
			awk -F, -v k="$k" -v m="$m" -v r="$r" -v t="$t" 'NR > 1 && $1 == k && $2 == m && $3 == r && $4 == t { f = 1 } END { exit !f }' "$D/runs.csv" ||
				echo "$k,$m,$r,$t,0,0,0,,,,,,,,,,,,,,,,,," >> "$D/runs.csv"
		done
	done < "$D/planned"
fi

{
	sed 's/^/    /' "$D/setup.txt"
	echo
	awk -F, -v kernels="$KERNELS" -v modes="$MODES" "$CSV_AWK$STAT_AWK"'
	function vals(m, k, th, name,   i, l) {
		l = ""
		for (i = 1; i <= nr; i++)
			if (R[i, "mode"] == m && R[i, "kernel"] == k && R[i, "threads"] == th && R[i, "complete"] && R[i, name] != "")
				l = l " " R[i, name]
		return l
	}
	function cell(m, k, th, name, fmt) { return mmm(vals(m, k, th, name), fmt) }
	NR == 1 { header(); next }
	{
		nr++
		for (n in COL) R[nr, n] = $COL[n]
		key = c("mode") SUBSEP c("kernel") SUBSEP c("threads")
		if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
		all[key]++
		if (c("complete")) done[key]++
		if (c("failed")) failed[key]++
		if (c("splat")) splats[key]++
		if (c("complete") && c("ranges") > 0) R[nr, "pct"] = sprintf("%.1f", 100 * c("huge") / c("ranges"))
		if (c("complete") && c("huge") > 0 && c("migrated") != "") R[nr, "mig_per_hp"] = sprintf("%.0f", c("migrated") / c("huge"))
	}
	END {
		if (_BAD) exit 3
		print "| defrag | kernel | threads | complete runs | faults | served huge (%) | LRU+free limit | fault phase (s) | p50 (us) | p99 (us) | max (us) | compact stalls | pfns scanned, all compaction | of them in kcompactd counters | pages migrated | migrated per huge page served | reclaimed | kcompactd CPU ms | runs with a splat | failed |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		nm = split(modes, M, " "); nk = split(kernels, K, " ")
		for (a = 1; a <= nm; a++) for (b = 1; b <= nk; b++) for (i = 1; i <= nkeys; i++) {
			split(order[i], x, SUBSEP)
			if (x[1] != M[a] || x[2] != K[b]) continue
			m = x[1]; k = x[2]; th = x[3]
			printf "| %s | %s | %s | %d of %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d |\n",
				m, k, th, done[order[i]], all[order[i]], cell(m, k, th, "ranges", "%d"), cell(m, k, th, "pct", "%.1f"),
				cell(m, k, th, "limit", "%d"), cell(m, k, th, "seconds", "%.2f"),
				cell(m, k, th, "p50_us", "%.0f"), cell(m, k, th, "p99_us", "%.0f"), cell(m, k, th, "max_us", "%.0f"),
				cell(m, k, th, "compact_stall", "%d"), cell(m, k, th, "scanned", "%d"), cell(m, k, th, "daemon_scanned", "%d"),
				cell(m, k, th, "migrated", "%d"), cell(m, k, th, "mig_per_hp", "%d"), cell(m, k, th, "reclaimed", "%d"),
				cell(m, k, th, "kcompactd_ms", "%d"), splats[order[i]], failed[order[i]]
		}
	}' "$D/runs.csv"
	echo
	echo "Median (min-max) over the complete runs of each row; complete runs: those whose guest finished and whose"
	echo "thread count ran (failed: thread counts whose setup failed, never dropped). Nothing was traced. Every fault is"
	echo "the first touch of a huge page sized range of the second mapping; served huge: the range is a THP afterwards"
	echo "(/proc/kpageflags). p50, p99, max: each run's fault latencies (nearest rank), then their median over the runs."
	echo "LRU+free limit: pageblocks whose every page was free or on the LRU before the faults; not a physical limit"
	echo "(pages the kernel holds without a flag count as free, reclaimable slab as not). pfns scanned, all compaction:"
	echo "compact_migrate_scanned + compact_free_scanned, which count direct, kcompactd and proactive compaction alike on"
	echo "both kernels, in the same units. Of them in kcompactd counters: compact_daemon_*_scanned, a subset; 6.1 counts"
	echo "there only the rounds kcompactd was asked for, ours its proactive rounds too, so this column is not like for"
	echo "like: kcompactd CPU ms (utime + stime of the kcompactd threads over the fault phase) is. \"-\": no such counter."
} > "$D/summary.md"

if command -v gnuplot >/dev/null 2>&1; then
	for m in $MODES; do
		c=""
		for v in $KERNELS; do
			for f in "$D"/.pool-"$m"-"$v"-*; do
				[ -s "$f" ] || continue
				t=${f##*-}
				sort -g "$f" | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) printf "%s %.5f\n", v[i], i / NR }' > "$f.cdf"
				c="$c${c:+, }'$f.cdf' using 1:2 with lines title '$v, $t threads'"
			done
		done
		[ -n "$c" ] || continue
		gnuplot <<PLOT
set terminal png size 900,540
set output '$D/latency-$m.png'
set title 'THP fault latency, defrag $m (first touch of each 2 MiB range, complete runs pooled)'
set xlabel 'fault latency (us, log scale)'
set ylabel 'fraction of faults'
set logscale x
set key bottom right
set grid
plot $c
PLOT
	done
fi
rm -f "$D"/.pool-*
