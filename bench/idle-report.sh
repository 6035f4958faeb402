#!/bin/sh
# The idle benchmark's report (scripts/idle-bench.sh): from
# DIR/<kernel>-<p<proactiveness>|none>-<run>.csv (each run's data channel,
# guest/idle.c) write runs.csv, steps.csv, summary.md and
# step-latency.png into the same directory.
# usage: idle-report.sh DIR KERNEL...
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,6p' "$0"; exit 0 ;; esac
D=$1
shift
KERNELS="$*"

# guest/idle.c's counters[], in its order
COUNTERS="pgmigrate_success,compact_daemon_wake,compact_daemon_migrate_scanned,compact_daemon_free_scanned,compact_stall,compact_success,compact_fail,compact_migrate_scanned,compact_free_scanned,pgsteal_kswapd,pgsteal_direct"

# The runs, one line each: "<kernel> <p<proactiveness>|none> <run> <file>",
# in the order of KERNELS, then proactiveness (none, vanilla's, first),
# then run
i=0
for k in $KERNELS; do
	i=$((i + 1))
	for f in "$D/$k"-*-[0-9].csv; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .csv)
		l=${b#"$k"-}
		l=${l%-*}
		case "$l" in none) n=-1 ;; p[0-9]|p[0-9][0-9]|p100) n=${l#p} ;; *) continue ;; esac
		echo "$i $n $k $l ${b##*-} $f"
	done
done | sort -n -k1,1 -k2,2 -k5,5 | cut -d' ' -f3- > "$D/.runs"
# The proactiveness of a run's label, empty for none
knob() { case "$1" in none) ;; *) echo "${1#p}" ;; esac; }

# steps.csv: one row per step of every run; an empty counter field is a
# counter the kernel does not have
echo "kernel,proactiveness,run,step,requested,obtained,ms,$COUNTERS" > "$D/steps.csv"
while read -r k l r f; do
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v p="$(knob "$l")" -v r="$r" \
		'$1 == "step" { $1 = ""; print k "," p "," r $0 }' OFS=,
done < "$D/.runs" >> "$D/steps.csv"

# runs.csv: one row per run. Ticks become ms of CPU time with the guest's
# CLK_TCK; an empty field is a counter or thread the kernel does not
# have. The node scores (as many columns as the guest had nodes) end
# the row: at the start of the idle period, then at its end.
nodes=$(while read -r k l r f; do tr -d '\r' < "$f"; done < "$D/.runs" |
	awk -F, '$1 == "score" && NF - 2 > n { n = NF - 2 } END { print n + 0 }')
{
	printf 'kernel,proactiveness,run,complete,splat,proactiveness_read,clk_tck,idle_s'
	printf ',idle_kcompactd_ms,idle_kswapd_ms,idle_moved,idle_daemon_wakes'
	printf ',idle_daemon_migrate_scanned,idle_daemon_free_scanned'
	printf ',hp_blocks_idle_start,hp_blocks_idle_end,huge_pages,steps,alloc_ms'
	printf ',ms_per_hp,alloc_kcompactd_ms,alloc_kswapd_ms,whole_kcompactd_ms'
	printf ',whole_kswapd_ms,alloc_moved,alloc_compact_stall,alloc_reclaimed'
	printf ',idle_kcompactd_ticks,alloc_kcompactd_ticks,whole_kcompactd_ticks'
	n=0
	while [ "$n" -lt "$nodes" ]; do printf ',score_start_node%d' "$n"; n=$((n + 1)); done
	n=0
	while [ "$n" -lt "$nodes" ]; do printf ',score_end_node%d' "$n"; n=$((n + 1)); done
	echo
} > "$D/runs.csv"
while read -r k l r f; do
	splat=0
	[ -s "${f%.csv}.splat" ] && splat=1
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v p="$(knob "$l")" -v r="$r" -v splat="$splat" \
		-v nodes="$nodes" '
	# Ticks to ms of CPU time, "" for a thread the kernel does not have
	function ms(t) { return (t == "" || !tck) ? "" : sprintf("%.0f", t * 1000 / tck) }
	function add(a, b) { return (a == "" || b == "") ? "" : a + b }
	$1 == "meta" { m[$2] = $3 }
	# idle,<s>,<kcompactd>,<kswapd>,<blocks start>,<end>,<counters...>
	$1 == "idle" { idle_s = $2; ikc = $3; iks = $4; hp0 = $5; hp1 = $6
		moved = $7; wakes = $8; imsc = $9; ifsc = $10 }
	$1 == "score" { for (i = 3; i <= NF; i++) score[$2, i - 3] = $i }
	# alloc,<kcompactd>,<kswapd>,<ms>,<huge pages>,<steps>,<counters...>
	$1 == "alloc" { akc = $2; aks = $3; ams = $4; final = $5; steps = $6
		amoved = $7; astall = $11; arec = add($16, $17) }
	$1 == "whole" { wkc = $2; wks = $3 }
	$1 == "done" { done = 1 }
	END {
		tck = m["clk_tck"]
		printf "%s,%s,%s,%d,%d,%s,%s,%s", k, p, r, done, splat, m["proactiveness"], tck, idle_s
		printf ",%s,%s,%s,%s,%s,%s", ms(ikc), ms(iks), moved, wakes, imsc, ifsc
		printf ",%s,%s,%s,%s,%s", hp0, hp1, final, steps, ams
		printf ",%s", (final > 0 && ams != "") ? sprintf("%.2f", ams / final) : ""
		printf ",%s,%s,%s,%s", ms(akc), ms(aks), ms(wkc), ms(wks)
		printf ",%s,%s,%s,%s,%s,%s", amoved, astall, arec, ikc, akc, wkc
		for (i = 0; i < nodes; i++) printf ",%s", score["start", i]
		for (i = 0; i < nodes; i++) printf ",%s", score["end", i]
		printf "\n"
	}' >> "$D/runs.csv"
done < "$D/.runs"
rm -f "$D/.runs"

# summary.md: per kernel and proactiveness, every column the median
# (min-max) over the complete runs; the steps' latency per step. Also
# the plot's data: per kernel and proactiveness, "step median min max".
awk -F, -v setup="$D/setup.txt" -v nodes="$nodes" -v dir="$D" "$STAT_AWK"'
# Append the field @col of this row to the list of group @g
function keep(g, col) { if ($col != "") v[g, col] = v[g, col] " " $col }
FNR == 1 { next }
FILENAME ~ /runs.csv$/ {
	g = $1 "," $2
	if (!(g in seen)) { seen[g] = 1; G[++ng] = g; K[g] = $1; P[g] = $2 }
	if ($5) splats[g]++
	if ($6 == "") noknob[g] = 1
	else if ($2 == "") knob[g] = $6
	if (!$4) next
	complete[$1, $2, $3] = 1
	runs[g]++
	for (i = 8; i <= NF; i++) keep(g, i)
	next
}
# steps.csv: kernel,proactiveness,run,step,requested,obtained,ms,...
complete[$1, $2, $3] {
	g = $1 "," $2
	lat[g, $4] = lat[g, $4] " " $7
	if ($4 > maxstep) maxstep = $4
}
function label(g) {
	if (P[g] == "") return noknob[g] ? "- (no sysctl)" : knob[g] " (default)"
	return noknob[g] ? P[g] " (no sysctl: not set)" : P[g]
}
END {
	while ((getline l < setup) > 0) print "    " l
	print ""
	print "### Allocation after the idle period"
	print ""
	print "| kernel | proactiveness | runs | huge pages | allocation time (ms) | ms per huge page | direct compactions | pages moved | pages reclaimed | kcompactd CPU ms | kswapd CPU ms | runs with a kernel splat |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (x = 1; x <= ng; x++) {
		g = G[x]
		printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			K[g], label(g), runs[g], mmm(v[g, 17], "%d"), mmm(v[g, 19], "%d"),
			mmm(v[g, 20], "%.2f"), mmm(v[g, 26], "%d"), mmm(v[g, 25], "%d"),
			mmm(v[g, 27], "%d"), mmm(v[g, 21], "%d"), mmm(v[g, 22], "%d"), splats[g]
	}
	print ""
	print "### The background compactor"
	print ""
	printf "| kernel | proactiveness | kcompactd CPU ms: idle | whole run | kswapd CPU ms: idle |"
	printf " pages moved while idle | kcompactd wakeups while idle | free huge blocks: idle start | idle end |"
	for (n = 0; n < nodes; n++) printf " node %d score: idle start | idle end |", n
	printf "\n|---|---|---|---|---|---|---|---|---|"
	for (n = 0; n < nodes; n++) printf "---|---|"
	printf "\n"
	for (x = 1; x <= ng; x++) {
		g = G[x]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |", K[g], label(g),
			mmm(v[g, 9], "%d"), mmm(v[g, 23], "%d"), mmm(v[g, 10], "%d"),
			mmm(v[g, 11], "%d"), mmm(v[g, 12], "%d"), mmm(v[g, 15], "%d"), mmm(v[g, 16], "%d")
		for (n = 0; n < nodes; n++)
			printf " %s | %s |", mmm(v[g, 31 + n], "%g"), mmm(v[g, 31 + nodes + n], "%g")
		printf "\n"
	}
	print ""
	print "Medians over the complete runs, (min-max) where the runs differ; \"-\": the kernel has no such counter or"
	print "thread. Each run is a fresh guest: compaction_proactiveness set (a kernel without the sysctl, vanilla, runs"
	print "as it is and says so), the seed'\''s fill (files of twice the RAM, the tree walked, every second file deleted),"
	print "the idle period, then nr_hugepages raised in steps of 5% of RAM until a step gains nothing. Allocation time:"
	print "the steps'\'' time together; ms per huge page: that over the huge pages obtained; direct compactions"
	print "(compact_stall), pages moved (pgmigrate_success), pages reclaimed (pgsteal) and CPU ms from the end of the"
	print "idle period to the end of the steps. CPU ms: utime + stime of the kcompactd<nid> and kswapd<nid> threads"
	print "(/proc/<pid>/stat); idle: from the end of the fill to the end of the idle period; whole run: from before the"
	print "fill to the end. Pages moved while idle: pgmigrate_success over the idle period. Free huge blocks: free"
	print "blocks of order 9 and more, in huge pages (/proc/buddyinfo). Score: the node'\''s fragmentation score as"
	print "proactive compaction computes it, 100 * (free pages - free pages in blocks of order >= 9) / free pages per"
	print "zone, weighted by the zones'\'' present pages (/proc/zoneinfo): 0 when all free memory is in huge blocks."
	print ""
	print "### Time of each allocation step (ms), median (min-max) over the runs that reached the step"
	print ""
	printf "| step |"
	for (x = 1; x <= ng; x++) printf " %s, %s |", K[G[x]], label(G[x])
	printf "\n|---|"
	for (x = 1; x <= ng; x++) printf "---|"
	printf "\n"
	for (s = 1; s <= maxstep; s++) {
		printf "| %d |", s
		for (x = 1; x <= ng; x++) {
			g = G[x]
			n = mstat(lat[g, s])
			printf " %s%s |", mmm(lat[g, s], "%d"), (n && n < runs[g]) ? " [" n " of " runs[g] "]" : ""
			if (n)
				printf "%d %s %s %s\n", s, MED, MIN, MAX > (dir "/.lat-" x ".dat")
		}
		printf "\n"
	}
	for (x = 1; x <= ng; x++) {
		g = G[x]
		printf "%s, proactiveness %s\n", K[g], (P[g] == "" ? "-" : P[g]) > (dir "/.lat-" x ".title")
	}
}' "$D/runs.csv" "$D/steps.csv" > "$D/summary.md"

if command -v gnuplot >/dev/null 2>&1; then
	c=""
	for t in "$D"/.lat-*.title; do
		[ -f "$t" ] || continue
		f=${t%.title}.dat
		[ -s "$f" ] || continue
		c="$c${c:+, }'$f' using 1:(\$2 > 0 ? \$2 : 0.5):(\$3 > 0 ? \$3 : 0.5):(\$4 > 0 ? \$4 : 0.5) with yerrorlines title '$(cat "$t")'"
	done
	if [ -n "$c" ]; then
		gnuplot <<PLOT 2>&1 | grep -v '^$' >&2 || true
set terminal png noenhanced size 1000,600
set output '$D/step-latency.png'
set title 'nr_hugepages steps after the idle period: median ms, bars min-max over the runs'
set xlabel 'step (5% of RAM each)'
set ylabel 'ms (log scale; 0 ms drawn at 0.5)'
set logscale y
set key below
set grid
plot $c
PLOT
	fi
else
	say "no gnuplot: skipping the plot"
fi
rm -f "$D"/.lat-*
say "report: $D/summary.md, runs.csv, steps.csv, $(ls "$D"/*.png 2>/dev/null | wc -l) plots"
