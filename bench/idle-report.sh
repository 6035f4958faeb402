#!/bin/sh
# The idle benchmark's report (bench/idle.sh): from
# DIR/<kernel>-<p<proactiveness>|none>-<run>.csv (each run's data channel,
# guest/bench/idle.c) write runs.csv, steps.csv, summary.md and
# step-latency.png into the same directory. Fields are looked up by
# name (the guest's cols lines, the CSVs' headers); exit 3 when one the
# report needs is missing.
# usage: idle-report.sh DIR KERNEL...
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,8p' "$0"; exit 0 ;; esac
D=$1
shift
KERNELS="$*"

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

# steps.csv: one row per step of every run, the guest's step fields by
# name; an empty counter field is a counter the kernel does not have
first=$(head -1 "$D/.runs" | cut -d' ' -f4)
[ -n "$first" ] || die "no run in $D"
tr -d '\r' < "$first" | awk -F, '$1 == "cols" && $2 == "step" { $1 = "kernel,proactiveness"; $2 = "run"; print; exit }' OFS=, > "$D/steps.csv"
[ -s "$D/steps.csv" ] || { echo "$first: no cols,step line" >&2; exit 3; }
while read -r k l r f; do
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v p="$(knob "$l")" -v r="$r" \
		'$1 == "step" { $1 = k "," p "," r; print }' OFS=,
done < "$D/.runs" >> "$D/steps.csv"

# runs.csv: one row per run. Ticks become ms of CPU time with the guest's
# CLK_TCK; an empty field is a counter or thread the kernel does not
# have. The node scores end the row: at the start of the idle period,
# then at its end, by node id.
nodes=$(while read -r k l r f; do tr -d '\r' < "$f"; done < "$D/.runs" |
	awk -F, '$1 == "cols" && $2 == "score" { for (i = 4; i <= NF; i++) if (!($i in s)) { s[$i] = 1; l = l " " $i } } END { print l }')
{
	printf 'kernel,proactiveness,run,complete,splat,proactiveness_read,idle_s'
	printf ',idle_kcompactd_ms,idle_kswapd_ms,idle_moved'
	printf ',idle_daemon_migrate_scanned,idle_daemon_free_scanned'
	printf ',hp_blocks_idle_start,hp_blocks_idle_end,huge_pages,steps,alloc_ms'
	printf ',alloc_kcompactd_ms,alloc_kswapd_ms,whole_kcompactd_ms'
	printf ',whole_kswapd_ms,alloc_moved,alloc_compact_stall,alloc_reclaimed'
	for n in $nodes; do printf ',score_start_%s' "$n"; done
	for n in $nodes; do printf ',score_end_%s' "$n"; done
	echo
} > "$D/runs.csv"
while read -r k l r f; do
	splat=0
	[ -s "${f%.csv}.splat" ] && splat=1
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v p="$(knob "$l")" -v r="$r" -v splat="$splat" \
		-v nodes="$nodes" "$CSV_AWK"'
	# Ticks to ms of CPU time, "" for a thread the kernel does not have
	function ms(x) { return (x == "" || !tck) ? "" : sprintf("%.0f", x * 1000 / tck) }
	function add(a, b) { return (a == "" || b == "") ? "" : a + b }
	$1 == "cols" { cols(); next }
	$1 == "meta" { m[$2] = $3 }
	$1 == "idle" { idle_s = t("idle", "seconds"); ikc = t("idle", "kcompactd_ticks"); iks = t("idle", "kswapd_ticks")
		hp0 = t("idle", "hp_start"); hp1 = t("idle", "hp_end"); moved = t("idle", "pgmigrate_success")
		imsc = t("idle", "compact_daemon_migrate_scanned"); ifsc = t("idle", "compact_daemon_free_scanned") }
	$1 == "score" { nn = split(nodes, N, " "); for (i = 1; i <= nn; i++) score[t("score", "when"), N[i]] = ((("score", N[i]) in TCOL) ? t("score", N[i]) : "") }
	$1 == "alloc" { akc = t("alloc", "kcompactd_ticks"); aks = t("alloc", "kswapd_ticks"); ams = t("alloc", "ms")
		final = t("alloc", "huge_pages"); steps = t("alloc", "steps"); amoved = t("alloc", "pgmigrate_success")
		astall = t("alloc", "compact_stall"); arec = add(t("alloc", "pgsteal_kswapd"), t("alloc", "pgsteal_direct")) }
	$1 == "whole" { wkc = t("whole", "kcompactd_ticks"); wks = t("whole", "kswapd_ticks") }
	$1 == "done" { done = 1 }
	END {
		if (_BAD) exit 3
		tck = m["clk_tck"]
		printf "%s,%s,%s,%d,%d,%s,%s", k, p, r, done, splat, m["proactiveness"], idle_s
		printf ",%s,%s,%s,%s,%s", ms(ikc), ms(iks), moved, imsc, ifsc
		printf ",%s,%s,%s,%s,%s", hp0, hp1, final, steps, ams
		printf ",%s,%s,%s,%s", ms(akc), ms(aks), ms(wkc), ms(wks)
		printf ",%s,%s,%s", amoved, astall, arec
		nn = split(nodes, N, " ")
		for (i = 1; i <= nn; i++) printf ",%s", score["start", N[i]]
		for (i = 1; i <= nn; i++) printf ",%s", score["end", N[i]]
		printf "\n"
	}' >> "$D/runs.csv"
done < "$D/.runs"
rm -f "$D/.runs"

# summary.md: per kernel and proactiveness, every column the median
# (min-max) over the complete runs. The headline is the time of each
# step; ms per huge page only over the steps every complete run reached,
# so that kernels that got very different counts are not set side by
# side. Also the plot's data: per group, "step median min max".
awk -F, -v setup="$D/setup.txt" -v nodes="$nodes" -v dir="$D" "$CSV_AWK$STAT_AWK"'
function keep(g, name) { if (c(name) != "") v[g, name] = v[g, name] " " c(name) }
function cell(g, name, fmt) { return mmm(v[g, name], fmt) }
FNR == 1 { delete COL; header(); next }
FILENAME ~ /runs.csv$/ {
	g = c("kernel") "," c("proactiveness")
	if (!(g in seen)) { seen[g] = 1; G[++ng] = g; K[g] = c("kernel"); P[g] = c("proactiveness") }
	if (c("splat")) splats[g]++
	if (c("proactiveness_read") == "") noknob[g] = 1
	else if (c("proactiveness") == "") knob[g] = c("proactiveness_read")
	if (!c("complete")) next
	complete[c("kernel"), c("proactiveness"), c("run")] = 1
	runs[g]++
	for (n in COL) keep(g, n)
	if (minsteps == "" || c("steps") < minsteps) minsteps = c("steps")
	next
}
complete[c("kernel"), c("proactiveness"), c("run")] {
	g = c("kernel") "," c("proactiveness")
	s = c("n")
	lat[g, s] = lat[g, s] " " c("ms")
	if (s > maxstep) maxstep = s
	key = g SUBSEP c("run")
	if (s <= minsteps) { cms[key] += c("ms"); if (s == minsteps) chp[key] = c("obtained") }
	if (!(key in rseen)) { rseen[key] = 1; RK[++nrk] = key }
}
function label(g) {
	if (P[g] == "") return noknob[g] ? "- (no sysctl)" : knob[g] " (default)"
	return noknob[g] ? P[g] " (no sysctl: not set)" : P[g]
}
END {
	if (_BAD) exit 3
	while ((getline l < setup) > 0) print "    " l
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
	# ms per huge page over steps 1..minsteps, per run, then per group
	for (i = 1; i <= nrk; i++) {
		split(RK[i], a, SUBSEP)
		g = a[1]
		if (chp[RK[i]] > 0) { mph[g] = mph[g] " " cms[RK[i]] / chp[RK[i]]; hpc[g] = hpc[g] " " chp[RK[i]]; tc[g] = tc[g] " " cms[RK[i]] }
	}
	print ""
	printf "### Steps 1-%d, which every complete run reached\n", minsteps
	print ""
	print "| kernel | proactiveness | runs | huge pages at step " minsteps " | time of steps 1-" minsteps " (ms) | ms per huge page |"
	print "|---|---|---|---|---|---|"
	for (x = 1; x <= ng; x++) {
		g = G[x]
		printf "| %s | %s | %d | %s | %s | %s |\n", K[g], label(g), runs[g], mmm(hpc[g], "%d"), mmm(tc[g], "%d"), mmm(mph[g], "%.2f")
	}
	print ""
	print "### The whole allocation phase"
	print ""
	print "| kernel | proactiveness | runs | huge pages | steps | allocation time (ms) | direct compactions | pages moved | pages reclaimed | kcompactd CPU ms | kswapd CPU ms | runs with a kernel splat |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (x = 1; x <= ng; x++) {
		g = G[x]
		printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n",
			K[g], label(g), runs[g], cell(g, "huge_pages", "%d"), cell(g, "steps", "%d"), cell(g, "alloc_ms", "%d"),
			cell(g, "alloc_compact_stall", "%d"), cell(g, "alloc_moved", "%d"),
			cell(g, "alloc_reclaimed", "%d"), cell(g, "alloc_kcompactd_ms", "%d"), cell(g, "alloc_kswapd_ms", "%d"), splats[g]
	}
	print ""
	print "### The background compactor"
	print ""
	nn = split(nodes, N, " ")
	printf "| kernel | proactiveness | kcompactd CPU ms: idle | whole run | kswapd CPU ms: idle |"
	printf " pages moved while idle | free huge blocks: idle start | idle end |"
	for (n = 1; n <= nn; n++) printf " %s score: idle start | idle end |", N[n]
	printf "\n|---|---|---|---|---|---|---|---|"
	for (n = 1; n <= nn; n++) printf "---|---|"
	printf "\n"
	for (x = 1; x <= ng; x++) {
		g = G[x]
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |", K[g], label(g),
			cell(g, "idle_kcompactd_ms", "%d"), cell(g, "whole_kcompactd_ms", "%d"), cell(g, "idle_kswapd_ms", "%d"),
			cell(g, "idle_moved", "%d"), cell(g, "hp_blocks_idle_start", "%d"), cell(g, "hp_blocks_idle_end", "%d")
		for (n = 1; n <= nn; n++)
			printf " %s | %s |", cell(g, "score_start_" N[n], "%g"), cell(g, "score_end_" N[n], "%g")
		printf "\n"
	}
	print ""
	print "Medians over the complete runs, (min-max) where the runs differ; \"-\": the kernel has no such counter or"
	print "thread; [n of m]: a step only n of the m runs reached. Each run is a fresh guest: compaction_proactiveness"
	print "set (a kernel without the sysctl, vanilla, runs as it is and says so), the seed'\''s fill (files of twice the"
	print "RAM, the tree walked, every second file deleted), the idle period, then nr_hugepages raised in steps of 5%"
	print "of RAM until a step gains nothing. ms per huge page: the time of the steps every complete run reached over"
	print "the huge pages held after the last of them, per run (a kernel that goes on to more steps is not charged for"
	print "them, nor credited with their pages). Direct compactions (compact_stall), pages moved (pgmigrate_success),"
	print "pages reclaimed (pgsteal) and CPU ms from the end of the idle period to the end of the steps. CPU ms: utime +"
	print "stime of the kcompactd<nid> and kswapd<nid> threads (/proc/<pid>/stat), all the background compactor'\''s work"
	print "on both kernels; idle: from the end of the fill to the end of the idle period; whole run: from before the fill"
	print "to the end. kcompactd'\''s wakeups are not counted here: 6.1'\''s proactive rounds do not count in compact_daemon_wake,"
	print "ours'\'' do. Free huge blocks: free blocks of order 9 and more, in huge pages (/proc/buddyinfo). Score: the"
	print "node'\''s fragmentation score as proactive compaction computes it (/proc/zoneinfo): 0 when all free memory is in"
	print "huge blocks."
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
