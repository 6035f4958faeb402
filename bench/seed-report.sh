#!/bin/sh
# The benchmark's report: from results/<ts>/<kernel>-<run>.csv (the data
# channel of each run) write runs.csv, steps.csv, summary.md and the PNG
# plots and pageblock maps into the same directory.
# usage: bench-report.sh DIR KERNEL...
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,5p' "$0"; exit 0 ;; esac
D=$1
shift
KERNELS="$*"

# steps.csv: one row per step of every run. A counter the kernel does
# not have is an empty field.
COUNTERS="pgsteal_kswapd,pgsteal_direct,pgscan_kswapd,pgscan_direct,compact_stall,compact_fail,compact_success,pgmigrate_success,compact_migrate_scanned,compact_free_scanned,compact_deferred,compact_daemon_wake,compact_daemon_migrate_scanned,compact_daemon_free_scanned,pginodesteal,kswapd_inodesteal,slabs_scanned"
# rows TYPE: the lines of that type of every run, their first field
# replaced by the run's kernel and number
rows() {
	for f in "$D"/*-[0-9].csv; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .csv)
		tr -d '\r' < "$f" | awk -F, -v t="$1" -v k="${b%-*}" -v r="${b##*-}" '$1 == t { $1 = ""; print k "," r substr($0, 1) }' OFS=,
	done
}
echo "kernel,run,step,requested,obtained,ms,$COUNTERS" > "$D/steps.csv"
rows step >> "$D/steps.csv"

# runs.csv: one row per run. The allocation phase's sums come from the
# steps; fill_* and whole_* from the counters at the start of the run,
# the start of the allocation phase and the end (background work
# included). An empty field: the kernel has no such counter.
RUNCOLS="kernel,run,mem_kb,limit,pageblocks,prefree,final,pct_ram,pct_limit,first_fail,time_to_fail_s,alloc_s,reclaimed,attempts,deferred,successes,failures,moved,scanned,scanned_per_hp,fill_moved,fill_scanned,whole_moved,whole_scanned,daemon_wakes,proactiveness,splat,complete,migrate_scanned,free_scanned,floor,moved_over_floor,inodesteal,slabs_scanned"
echo "$RUNCOLS" > "$D/runs.csv"
for f in "$D"/*-[0-9].csv; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .csv)
	splat=0
	[ -s "$D/$b.splat" ] && splat=1
	tr -d '\r' < "$f" | awk -F, -v k="${b%-*}" -v r="${b##*-}" -v splat=$splat '
	# Sum of the fields given, or "" when one of them is missing
	function add(a, b) { return (a == "" || b == "") ? "" : a + b }
	function acc(name, v) { if (!(name in sum)) sum[name] = 0; sum[name] = (sum[name] == "" || v == "") ? "" : sum[name] + v }
	$1 == "meta" { m[$2] = $3 }
	$1 == "limit" { limit = $2; blocks = $3 }
	$1 == "fill" { fmv = $9; fsc = add($10, $11) }
	$1 == "whole" { wmv = $9; wsc = add($10, $11); wake = $13 }
	$1 == "step" {
		ms += $5
		acc("rec", add($6, $7)); acc("stall", $10); acc("fail", $11); acc("succ", $12)
		acc("mv", $13); acc("sc", add($14, $15)); acc("def", $16)
		acc("msc", $14); acc("fsc", $15)
		acc("ist", add($20, $21)); acc("slab", $22)
		if (!failed && $4 < $3) { failed = 1; tff = ms }
		last = $4
	}
	$1 == "done" { done = 1 }
	END {
		# time_to_fail_s is empty when no step fell short, pct_limit when
		# the limit could not be read
		printf "%s,%s,%d,%d,%d,%d,%d,%.1f,%s,%d,%s,%.2f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s\n",
			k, r, m["mem_kb"], limit, blocks, m["prefree"], last,
			m["mem_kb"] ? last * 2048 * 100 / m["mem_kb"] : 0,
			(limit > 0 ? sprintf("%.1f", last * 100 / limit) : ""), m["first_fail"],
			failed ? sprintf("%.2f", tff / 1000) : "", ms / 1000,
			sum["rec"], sum["stall"], sum["def"], sum["succ"], sum["fail"], sum["mv"], sum["sc"],
			(sum["sc"] == "" || !last) ? "" : sprintf("%.0f", sum["sc"] / last),
			fmv, fsc, wmv, wsc, wake, m["proactiveness"] < 0 ? "" : m["proactiveness"], splat, done,
			sum["msc"], sum["fsc"], m["floor"],
			(m["floor"] > 0 && sum["mv"] != "") ? sprintf("%.2f", sum["mv"] / m["floor"]) : "",
			sum["ist"], sum["slab"]
	}' >> "$D/runs.csv"
done

# summary.md: every column as median (min-max) over the complete runs
awk -F, -v kernels="$KERNELS" -v setup="$D/setup.txt" '
function stat(k, col,   n, i, j, t, a, na) {
	n = 0; na = 0
	for (i = 1; i <= nr; i++) {
		if (row[i, 1] != k || !row[i, 28]) continue
		if (row[i, col] == "") { na++; continue }
		a[++n] = row[i, col] + 0
	}
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	cnt = n; lo = a[1]; hi = a[n]
	med = n ? (n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2) : ""
	return n
}
# "median (min-max)" with fmt, or "-" when the kernel has no such counter
function cell(k, col, fmt) {
	if (!stat(k, col)) return "-"
	if (lo == hi) return sprintf(fmt, med)
	return sprintf(fmt " (" fmt "-" fmt ")", med, lo, hi)
}
FNR == 1 { next }
FILENAME ~ /runs.csv$/ { nr++; for (i = 1; i <= NF; i++) row[nr, i] = $i; if (row[nr, 28]) runs[$1]++; if ($27) splats[$1]++; next }
{ srow[++ns] = $0 }
END {
	nk = split(kernels, K, " ")
	while ((getline l < setup) > 0) print "    " l
	print ""
	print "| kernel | runs | huge pages | % of RAM | % of limit | free huge pages at start | allocation time (s) | pages reclaimed | attempts | deferred | successes | failures | pages moved | pfns scanned per huge page | migration scanner pfns | free scanner pfns | whole run: pages moved | whole run: pfns scanned | kcompactd wakeups | runs with a kernel splat |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (x = 1; x <= nk; x++) {
		k = K[x]
		stat(k, 7); final[k] = med
		printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", k, runs[k],
			cell(k, 7, "%d"), cell(k, 8, "%.1f"), cell(k, 9, "%.1f"), cell(k, 6, "%d"),
			cell(k, 12, "%.2f"), cell(k, 13, "%d"), cell(k, 14, "%d"), cell(k, 15, "%d"),
			cell(k, 16, "%d"), cell(k, 17, "%d"), cell(k, 18, "%d"), cell(k, 20, "%d"),
			cell(k, 29, "%d"), cell(k, 30, "%d"),
			cell(k, 23, "%d"), cell(k, 24, "%d"), cell(k, 25, "%d"), splats[k]
	}
	print ""
	print "Medians over the complete runs, (min-max) where the runs differ; \"-\": the kernel has no such counter."
	print "Allocation phase: the nr_hugepages steps; whole run: from the start of the fill to the end, kcompactd and"
	print "proactive compaction included. % of limit: each run'\''s huge pages over its own limit. attempts (compact_stall):"
	print "allocations that entered direct compaction and were not skipped; successes and failures split them by whether"
	print "the allocation then got its page; deferred (compact_deferred, ours only): attempts that found compaction paused. pfns scanned:"
	print "compact_migrate_scanned + compact_free_scanned in the allocation phase, both kernels in the same units (a free block"
	print "or a compound page passed over once, an isolated free block as its pages, every other pfn once per look; ours also"
	print "counts its check that a block can be freed before it empties it), and each scanner'\''s share in the next two columns."
	print ""
	print "Limit: pageblocks whose every page was free or on the LRU just before the allocation phase (/proc/kpageflags):"
	for (x = 1; x <= nk; x++) {
		k = K[x]
		printf "- %s: %s of %s pageblocks\n", k, cell(k, 4, "%d"), cell(k, 5, "%d")
	}
	print ""
	print "Cost floor: the pages a perfect compactor would have moved, without reclaim, for the huge pages the kernel got:"
	print "the LRU pages of that many blocks of the limit, those that held the fewest (/proc/kpageflags, before the"
	print "allocation phase). Reclaim lowers what must be moved, so a kernel that reclaimed more can move less."
	print "Page cache also goes with the inodes that shrinkers evict (pginodesteal + kswapd_inodesteal), which pgsteal"
	print "does not count; slabs_scanned: the slab objects the shrinkers looked at. Both in the allocation phase."
	print ""
	print "| kernel | huge pages | cost floor (pages) | pages moved | moved / floor | pages reclaimed | pages of evicted inodes | slab objects scanned |"
	print "|---|---|---|---|---|---|---|---|"
	for (x = 1; x <= nk; x++) {
		k = K[x]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k, cell(k, 7, "%d"), cell(k, 31, "%d"),
			cell(k, 18, "%d"), cell(k, 32, "%.2f"), cell(k, 13, "%d"), cell(k, 33, "%d"), cell(k, 34, "%d")
	}
	# Reclaim needed to reach mainline'\''s final count, run 1 of each kernel
	if (("mainline" in final) && final["mainline"] > 0) {
		print ""
		print "Pages reclaimed (run 1) until the kernel had mainline'\''s median final count (" final["mainline"] "):"
		print ""
		for (x = 1; x <= nk; x++) {
			k = K[x]; cum = 0; reached = ""
			for (i = 1; i <= ns; i++) {
				split(srow[i], s, ",")
				if (s[1] != k || s[2] != 1) continue
				cum += s[7] + s[8]
				if (s[5] >= final["mainline"]) { reached = cum; break }
			}
			printf "- %s: %s\n", k, reached == "" ? "never reached" : reached
		}
	}
	for (x = 1; x <= nk; x++) {
		k = K[x]
		print ""
		print "### " k ", run 1"
		print ""
		print "| step | requested | obtained | time (ms) | reclaimed | attempts | successes | moved | scanned |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= ns; i++) {
			split(srow[i], s, ",")
			if (s[1] != k || s[2] != 1) continue
			printf "| %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", s[3], s[4], s[5], s[6],
				s[7] + s[8], s[11] == "" ? "-" : s[11], s[13] == "" ? "-" : s[13],
				s[14] == "" ? "-" : s[14], (s[15] == "" || s[16] == "") ? "-" : s[15] + s[16]
		}
	}
}' "$D/runs.csv" "$D/steps.csv" > "$D/summary.md"

# attempts.csv: every direct compaction of every run's allocation phase,
# from the compaction tracepoints (guest/bench.c, "attempt" lines)
echo "kernel,run,us,migrate_scanned,free_scanned,zones,order,status" > "$D/attempts.csv"
rows attempt >> "$D/attempts.csv"
# Per kernel, over the attempts of all its runs that compacted a zone:
# p50, p99 and max of the time and of the pfns both scanners visited
pct() { # file column: "p50 p99 max" of the numbers in that column
	sort -n -t, -k"$2","$2" "$1" | awk -F, -v c="$2" '{ v[NR] = $c }
		END { if (!NR) { print "- - -"; exit }
		      i50 = int((NR - 1) * 0.50) + 1; i99 = int((NR - 1) * 0.99) + 1
		      print v[i50], v[i99], v[NR] }'
}
{
	echo
	echo "### Direct compaction attempts of the allocation phase (compaction tracepoints, all runs)"
	echo
	echo "| kernel | attempts | that compacted a zone | time p50 (ms) | p99 | max | pfns scanned p50 | p99 | max | events lost |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for k in $KERNELS; do
		all=$(awk -F, -v k="$k" '$1 == k' "$D/attempts.csv" | wc -l)
		lost=$(for f in "$D/$k"-[0-9].csv; do tr -d '\r' < "$f" | awk -F, '$1 == "meta" && $2 == "trace_lost" { print $3 }'; done |
			awk '{ s += $1; n++ } END { print n ? s : "-" }')
		if [ "$all" -eq 0 ]; then
			echo "| $k | - | - | - | - | - | - | - | - | $lost |"
			continue
		fi
		awk -F, -v k="$k" '$1 == k && $6 > 0 { print $3 / 1000 "," $4 + $5 }' "$D/attempts.csv" > "$D/.$k.att"
		n=$(wc -l < "$D/.$k.att")
		set -- $(pct "$D/.$k.att" 1) $(pct "$D/.$k.att" 2)
		printf '| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n' "$k" "$all" "$n" \
			"$(printf %.2f "$1")" "$(printf %.2f "$2")" "$(printf %.2f "$3")" "$4" "$5" "$6" "$lost"
	done
	echo
	echo "An attempt is one try_to_compact_pages(): from its event to the last compaction event of the same task"
	echo "before its next attempt; pfns scanned are the nr_scanned of its isolate events (both scanners, the units of"
	echo "the counters). Attempts whose every zone was deferred or skipped are counted but not in the percentiles."
	echo "Tracing slows both kernels alike per event; ours emits more events (more scanner steps)."
} >> "$D/summary.md"

command -v gnuplot >/dev/null || { say "no gnuplot: skipping the plots"; rm -f "$D"/.*.att; exit 0; }

# Plots of run 1 of each kernel
for k in $KERNELS; do
	awk -F, -v k="$k" 'NR > 1 && $1 == k && $2 == 1' "$D/steps.csv" > "$D/.$k.dat"
done
gp() { gnuplot -e "$1" 2>&1 | grep -v '^$' >&2 || true; }
series() { # using-spec
	c=""
	for k in $KERNELS; do c="$c${c:+, }'$D/.$k.dat' using $1 with linespoints title '$k'"; done
	echo "$c"
}
common="set terminal png size 900,560; set datafile separator ','; set key top left; set grid;"
gp "$common set output '$D/hugepages.png'; set title 'Huge pages obtained vs requested'; set xlabel 'requested'; set ylabel 'obtained'; plot $(series '4:5'), x title 'requested' dashtype 2"
cumul="set output '$D/reclaim.png'; set title 'Cumulative pages reclaimed (pgsteal kswapd + direct)'; set xlabel 'step'; set ylabel 'pages';"
c=""
for k in $KERNELS; do
	awk -F, '{ s += $7 + $8; print $3 "," s }' "$D/.$k.dat" > "$D/.$k.cum"
	c="$c${c:+, }'$D/.$k.cum' using 1:2 with linespoints title '$k'"
done
gp "$common $cumul plot $c"
gp "$common set output '$D/step-time.png'; set title 'Time of each step'; set xlabel 'step'; set ylabel 'ms'; set logscale y; plot $(series '3:($6 > 0 ? $6 : 1)')"
# latency.png: the distribution of the direct compaction attempts' times
c=""
for k in $KERNELS; do
	[ -s "$D/.$k.att" ] || continue
	sort -n -t, -k1,1 "$D/.$k.att" | awk -F, '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i] "," i / NR }' > "$D/.$k.cdf"
	c="$c${c:+, }'$D/.$k.cdf' using 1:2 with lines lw 2 title '$k'"
done
[ -z "$c" ] || gp "$common set output '$D/latency.png'; set title 'Direct compaction attempts of the allocation phase: time (all runs)'; set xlabel 'ms per attempt'; set ylabel 'fraction of attempts'; set logscale x; set key bottom right; plot $c"

# Pageblock maps: one cell per pageblock, 64 to a row
for k in $KERNELS; do
	f="$D/$k-1.csv"
	[ -f "$f" ] || continue
	for when in before after; do
		tr -d '\r' < "$f" | awk -F, -v w="$when" '$1 == "map" && $2 == w {
			code["."] = 0; code["F"] = 1; code["H"] = 2; code["M"] = 3; code["S"] = 4; code["U"] = 5; code["R"] = 6
			n = length($3)
			for (i = 0; i < n; i++) {
				printf "%d%s", code[substr($3, i + 1, 1)], (i % 64 == 63 || i == n - 1) ? "\n" : " "
			}
			for (; i % 64; i++) printf "0%s", (i % 64 == 63) ? "\n" : " "
		}' > "$D/.$k-$when.map"
	done
	gp "set terminal png size 1000,520; set output '$D/map-$k.png';
		set multiplot layout 1,2 title \"Pageblocks of $k (one cell = 2 MiB)\\nwhite hole, green free, blue huge page, yellow movable, orange slab, red other kernel, black reserved\";
		set palette defined (0 'white', 1 '#2ca02c', 2 '#1f77b4', 3 '#ffd92f', 4 '#ff7f0e', 5 '#d62728', 6 'black');
		set cbrange [-0.5:6.5]; set palette maxcolors 7; unset colorbox; unset key; set yrange [*:*] reverse;
		set title 'before allocation'; plot '$D/.$k-before.map' matrix with image;
		set title 'after allocation'; plot '$D/.$k-after.map' matrix with image;
		unset multiplot"
done
rm -f "$D"/.*.dat "$D"/.*.cum "$D"/.*.map "$D"/.*.att "$D"/.*.cdf
say "report: $D/summary.md, runs.csv, steps.csv, $(ls "$D"/*.png 2>/dev/null | wc -l) plots"
