#!/bin/sh
# The seed benchmark's report: from DIR/<kernel>-<n>.csv (untraced runs)
# and DIR/<kernel>-t<n>.csv (traced runs), each a guest's data channel
# (guest/bench/seed.c), write runs.csv, steps.csv, attempts.csv, summary.md
# and the PNG plots and pageblock maps into DIR. Every field is looked up
# by name (the guest's "cols" lines, the CSVs' headers). Exit 3 when a
# data file lacks a field the report needs.
# usage: seed-report.sh DIR KERNEL...
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,8p' "$0"; exit 0 ;; esac
D=$1
shift
KERNELS="$*"

# The data files: "<kernel> <run> <traced 0|1> <file>", untraced first
runs() {
	for f in "$D"/*-[0-9].csv "$D"/*-t[0-9].csv; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .csv)
		r=${b##*-}
		case "$r" in t*) echo "${b%-*} ${r#t} 1 $f" ;; *) echo "${b%-*} $r 0 $f" ;; esac
	done
}
runs > "$D/.files"
# Planned runs whose data never came (bench/seed.sh's "planned")
missing=""
if [ -f "$D/planned" ]; then
	while read -r id; do [ -f "$D/$id.csv" ] || missing="$missing $id"; done < "$D/planned"
fi

# steps.csv: one row per step of the untraced runs, the guest's step
# fields by name, a counter the kernel does not have an empty field
first=$(awk '$3 == 0 { print $4; exit }' "$D/.files")
[ -n "$first" ] || die "no untraced run in $D"
stepcols=$(tr -d '\r' < "$first" | grep -m1 '^cols,step,' || true)
[ -n "$stepcols" ] || { echo "$first: no cols,step line" >&2; exit 3; }
echo "$stepcols" | sed 's/^cols,step,/kernel,run,/' > "$D/steps.csv"
while read -r k r tr f; do
	[ "$tr" = 0 ] || continue
	# One header for all: every run must name its step fields alike
	[ "$(tr -d '\r' < "$f" | grep -m1 '^cols,step,' || true)" = "$stepcols" ] ||
		{ echo "$f: its cols,step line differs from $first's" >&2; exit 3; }
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v r="$r" '$1 == "step" { $1 = k "," r; print }' OFS=,
done < "$D/.files" >> "$D/steps.csv"

# runs.csv: one row per run. The allocation phase's sums come from the
# steps, fill_* and whole_* from the counters at the start of the run,
# the start of the allocation phase and the end (background work
# included); CPU times are ms. An empty field: the kernel has no such
# counter or thread, or the run was not traced.
RUNCOLS="kernel,run,traced,trace,complete,splat,mem_kb,limit,pageblocks,prefree,final,pct_ram,pct_limit,first_fail,time_to_fail_s,alloc_s,reclaimed,attempts,deferred,successes,failures,moved,scanned,migrate_scanned,free_scanned,scanned_per_hp,fill_moved,fill_scanned,whole_moved,whole_scanned,kcompactd_ms_alloc,kcompactd_ms_whole,kswapd_ms_alloc,kswapd_ms_whole,proactiveness,floor,moved_over_floor,inodesteal,slabs_scanned,kcompactd_rounds,kcompactd_proactive_rounds,kcompactd_zone_runs,trace_lost"
echo "$RUNCOLS" > "$D/runs.csv"
while read -r k r tr f; do
	splat=0
	[ -s "${f%.csv}.splat" ] && splat=1
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v r="$r" -v tr="$tr" -v splat=$splat "$CSV_AWK"'
	# Sum of two fields, "" when either is missing
	function add(a, b) { return (a == "" || b == "") ? "" : a + b }
	function acc(name, v) { if (!(name in sum)) sum[name] = 0; sum[name] = (sum[name] == "" || v == "") ? "" : sum[name] + v }
	function ms(ticks) { return (ticks == "" || !m["clk_tck"]) ? "" : sprintf("%.0f", ticks * 1000 / m["clk_tck"]) }
	function mv(x) { return x in m ? m[x] : "" }
	$1 == "cols" { cols(); next }
	$1 == "meta" { m[$2] = $3 }
	$1 == "limit" { limit = t("limit", "limit"); blocks = t("limit", "pageblocks") }
	$1 == "fill" { fmv = t("fill", "pgmigrate_success"); fsc = add(t("fill", "compact_migrate_scanned"), t("fill", "compact_free_scanned")) }
	$1 == "whole" { wmv = t("whole", "pgmigrate_success"); wsc = add(t("whole", "compact_migrate_scanned"), t("whole", "compact_free_scanned")) }
	$1 == "cpu" { kc[t("cpu", "phase")] = t("cpu", "kcompactd_ticks"); ks[t("cpu", "phase")] = t("cpu", "kswapd_ticks") }
	$1 == "step" {
		steps++
		req = t("step", "requested"); got = t("step", "obtained")
		tms += t("step", "ms")
		acc("rec", add(t("step", "pgsteal_kswapd"), t("step", "pgsteal_direct")))
		acc("stall", t("step", "compact_stall")); acc("fail", t("step", "compact_fail"))
		acc("succ", t("step", "compact_success")); acc("mv", t("step", "pgmigrate_success"))
		acc("msc", t("step", "compact_migrate_scanned")); acc("fsc", t("step", "compact_free_scanned"))
		acc("def", t("step", "compact_deferred"))
		acc("ist", add(t("step", "pginodesteal"), t("step", "kswapd_inodesteal")))
		acc("slab", t("step", "slabs_scanned"))
		if (!failed && got < req) { failed = 1; tff = tms }
		last = got
	}
	$1 == "done" { done = 1 }
	END {
		if (_BAD) exit 3
		sc = add(sum["msc"], sum["fsc"])
		if (!("trace_lost" in m) || m["trace_lost"] < 0) m["trace_lost"] = ""
		printf "%s,%s,%d,%s,%d,%d,%s,%d,%d,%d,%d,%.1f,%s,%s,%s,%.2f", k, r, tr, mv("trace"), done, splat,
			mv("mem_kb"), limit, blocks, mv("prefree"), last,
			m["mem_kb"] ? last * 2048 * 100 / m["mem_kb"] : 0,
			(limit > 0 ? sprintf("%.1f", last * 100 / limit) : ""), mv("first_fail"),
			failed ? sprintf("%.2f", tff / 1000) : "", tms / 1000
		printf ",%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", sum["rec"], sum["stall"], sum["def"], sum["succ"], sum["fail"],
			sum["mv"], sc, sum["msc"], sum["fsc"], (sc == "" || !last) ? "" : sprintf("%.0f", sc / last)
		printf ",%s,%s,%s,%s,%s,%s,%s,%s", fmv, fsc, wmv, wsc, ms(kc["alloc"]), ms(kc["whole"]), ms(ks["alloc"]), ms(ks["whole"])
		printf ",%s,%s,%s,%s,%s", (mv("proactiveness") < 0 ? "" : mv("proactiveness")), mv("floor"),
			(m["floor"] > 0 && sum["mv"] != "") ? sprintf("%.2f", sum["mv"] / m["floor"]) : "",
			sum["ist"], sum["slab"]
		printf ",%s,%s,%s,%s\n", mv("kcompactd_rounds"), mv("kcompactd_proactive_rounds"),
			mv("kcompactd_zone_runs"), mv("trace_lost")
	}' >> "$D/runs.csv"
done < "$D/.files"

# attempts.csv: every direct compaction of the complete traced runs'
# allocation phases (guest/bench/seed.c, "attempt" lines)
echo "kernel,run,us,migrate_scanned,free_scanned,zones,order,status" > "$D/attempts.csv"
while read -r k r tr f; do
	[ "$tr" = 1 ] && tr -d '\r' < "$f" | grep -q '^done' || continue
	tr -d '\r' < "$f" | awk -F, -v k="$k" -v r="$r" "$CSV_AWK"'
	$1 == "cols" { cols(); next }
	$1 == "attempt" { print k "," r "," t("attempt", "us") "," t("attempt", "migrate_scanned") "," t("attempt", "free_scanned") "," t("attempt", "zones") "," t("attempt", "order") "," t("attempt", "status") }'
done < "$D/.files" >> "$D/attempts.csv"

# summary.md: the untraced runs, every column median (min-max) over the
# complete ones; the first complete untraced run of each kernel for the
# per-step tables and plots
awk -F, -v kernels="$KERNELS" -v setup="$D/setup.txt" -v missing="$missing" "$CSV_AWK$STAT_AWK"'
# The values of column "name" of kernel k, complete untraced runs
function vals(k, name,   i, l) {
	if (!(name in COL)) { printf "runs.csv: no column \"%s\"\n", name > "/dev/stderr"; _BAD = 1; exit 3 }
	l = ""
	for (i = 1; i <= nr; i++)
		if (R[i, "kernel"] == k && R[i, "complete"] && !R[i, "traced"] && R[i, name] != "")
			l = l " " R[i, name]
	return l
}
function cell(k, name, fmt) { return mmm(vals(k, name), fmt) }
FNR == 1 { header(); next }
{
	nr++
	for (n in COL) R[nr, n] = $COL[n]
	if (!c("traced")) {
		all[c("kernel")]++
		if (c("complete")) { runs[c("kernel")]++; every[c("kernel")] = every[c("kernel")] " " c("final") (c("splat") ? " (splat)" : "") }
		else every[c("kernel")] = every[c("kernel")] " (" c("run") ": incomplete)"
		if (c("splat")) splats[c("kernel")]++
	}
}
END {
	if (_BAD) exit 3
	nk = split(kernels, K, " ")
	# A planned run whose data never came counts in "of", and says so
	nm = split(missing, MS, " ")
	for (i = 1; i <= nm; i++) {
		r = MS[i]; sub(/.*-/, "", r); k = MS[i]; sub(/-[^-]*$/, "", k)
		if (r ~ /^t/) continue
		all[k]++; every[k] = every[k] " (" r ": no data)"
	}
	while ((getline l < setup) > 0) print "    " l
	print ""
	print "Untraced runs: every time, count and counter below comes from runs with no tracing."
	print ""
	print "| kernel | complete runs | huge pages | every run | % of RAM | % of LRU+free limit | free huge pages at start | allocation time (s) | pages reclaimed | attempts | deferred | successes | failures | pages moved | pfns scanned per huge page | migration scanner pfns | free scanner pfns | whole run: pages moved | whole run: pfns scanned | kcompactd CPU ms, allocation | kcompactd CPU ms, whole run | runs with a kernel splat |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (x = 1; x <= nk; x++) {
		k = K[x]
		printf "| %s | %d of %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", k, runs[k], all[k],
			cell(k, "final", "%d"), substr(every[k], 2), cell(k, "pct_ram", "%.1f"), cell(k, "pct_limit", "%.1f"),
			cell(k, "prefree", "%d"), cell(k, "alloc_s", "%.2f"), cell(k, "reclaimed", "%d"),
			cell(k, "attempts", "%d"), cell(k, "deferred", "%d"), cell(k, "successes", "%d"),
			cell(k, "failures", "%d"), cell(k, "moved", "%d"), cell(k, "scanned_per_hp", "%d"),
			cell(k, "migrate_scanned", "%d"), cell(k, "free_scanned", "%d"),
			cell(k, "whole_moved", "%d"), cell(k, "whole_scanned", "%d"),
			cell(k, "kcompactd_ms_alloc", "%d"), cell(k, "kcompactd_ms_whole", "%d"), splats[k]
	}
	print ""
	print "Medians over the complete untraced runs, (min-max) where the runs differ; every run: each run'\''s huge pages,"
	print "in run order; \"-\": the kernel has no such counter or thread. Allocation phase: the nr_hugepages steps; whole"
	print "run: from the start of the fill to the end, kcompactd and proactive compaction included. attempts"
	print "(compact_stall): allocations that entered direct compaction and were not skipped; successes and failures split"
	print "them by whether the allocation then got its page; deferred (compact_deferred, ours only): attempts that found"
	print "compaction paused. pfns scanned: compact_migrate_scanned + compact_free_scanned in the allocation phase, both"
	print "kernels in the same units (a free block or a compound page passed over once, an isolated free block as its pages,"
	print "every other pfn once per look; ours also counts its check that a block can be freed before it empties it), and"
	print "each scanner'\''s share in the next two columns. kcompactd CPU ms: utime + stime of every kcompactd thread, all its"
	print "work (asked-for rounds and proactive ones) on both kernels."
	print ""
	print "LRU+free limit: pageblocks whose every page was free or on the LRU just before the allocation phase"
	print "(/proc/kpageflags). It is not a physical limit: pages the kernel holds without a flag count as free, and"
	print "reclaimable slab and mlocked pages as neither, so shrinkers can take a kernel past it (over 100% is shown as it is)."
	for (x = 1; x <= nk; x++) {
		k = K[x]
		printf "- %s: %s of %s pageblocks\n", k, cell(k, "limit", "%d"), cell(k, "pageblocks", "%d")
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
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k, cell(k, "final", "%d"), cell(k, "floor", "%d"),
			cell(k, "moved", "%d"), cell(k, "moved_over_floor", "%.2f"), cell(k, "reclaimed", "%d"),
			cell(k, "inodesteal", "%d"), cell(k, "slabs_scanned", "%d")
	}
}' "$D/runs.csv" > "$D/summary.md"

# The first complete untraced run of each kernel: "kernel run"
awk -F, "$CSV_AWK"'NR == 1 { header(); next }
	!c("traced") && c("complete") && !(c("kernel") in seen) { seen[c("kernel")] = 1; print c("kernel"), c("run") }' "$D/runs.csv" > "$D/.first"
first_run() { awk -v k="$1" '$1 == k { print $2 }' "$D/.first"; }

# Per-step tables of each kernel's first complete run, and the reclaim
# it needed to reach mainline's median count
awk -F, -v kernels="$KERNELS" -v firsts="$D/.first" "$CSV_AWK$STAT_AWK"'
FNR == 1 { delete COL; header(); next }
FILENAME ~ /runs.csv$/ { if (!c("traced") && c("complete")) fin[c("kernel")] = fin[c("kernel")] " " c("final"); next }
{ ns++; for (n in COL) S[ns, n] = $COL[n] }
END {
	if (_BAD) exit 3
	while ((getline l < firsts) > 0) { split(l, a, " "); fr[a[1]] = a[2] }
	nk = split(kernels, K, " ")
	if (mstat(fin["mainline"]) && MED > 0) {
		target = MED
		print ""
		print "Pages reclaimed (first complete run) until the kernel had mainline'\''s median count (" target "):"
		print ""
		for (x = 1; x <= nk; x++) {
			k = K[x]; cum = 0; reached = ""
			if (!(k in fr)) { printf "- %s: no complete run\n", k; continue }
			for (i = 1; i <= ns; i++) {
				if (S[i, "kernel"] != k || S[i, "run"] != fr[k]) continue
				cum += S[i, "pgsteal_kswapd"] + S[i, "pgsteal_direct"]
				if (S[i, "obtained"] >= target) { reached = cum; break }
			}
			printf "- %s: %s\n", k, reached == "" ? "never reached" : reached
		}
	}
	for (x = 1; x <= nk; x++) {
		k = K[x]
		print ""
		if (!(k in fr)) { print "### " k ": no complete untraced run"; continue }
		print "### " k ", run " fr[k] " (untraced)"
		print ""
		print "| step | requested | obtained | time (ms) | reclaimed | attempts | successes | moved | scanned |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= ns; i++) {
			if (S[i, "kernel"] != k || S[i, "run"] != fr[k]) continue
			printf "| %d | %d | %d | %d | %d | %s | %s | %s | %s |\n", S[i, "n"], S[i, "requested"], S[i, "obtained"], S[i, "ms"],
				S[i, "pgsteal_kswapd"] + S[i, "pgsteal_direct"],
				S[i, "compact_stall"] == "" ? "-" : S[i, "compact_stall"],
				S[i, "compact_success"] == "" ? "-" : S[i, "compact_success"],
				S[i, "pgmigrate_success"] == "" ? "-" : S[i, "pgmigrate_success"],
				(S[i, "compact_migrate_scanned"] == "" || S[i, "compact_free_scanned"] == "") ? "-" : S[i, "compact_migrate_scanned"] + S[i, "compact_free_scanned"]
		}
	}
}' "$D/runs.csv" "$D/steps.csv" >> "$D/summary.md"

# The traced runs: per-attempt latency and scanning, kcompactd's rounds,
# and what tracing added to the allocation time
{
	echo
	echo "### Traced runs: direct compaction attempts and kcompactd rounds of the allocation phase"
	echo
	echo "| kernel | traced runs | allocation time traced (s) | untraced (s) | tracing added | attempts | that compacted a zone | time p50 (ms) | p99 | max | pfns scanned p50 | p99 | max | kcompactd rounds asked for | proactive rounds | kcompactd zone runs | events lost |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for k in $KERNELS; do
		cells=$(awk -F, -v k="$k" "$CSV_AWK$STAT_AWK"'NR == 1 { header(); next }
			c("kernel") != k || !c("complete") { next }
			c("traced") && c("trace") != "on" { next }
			c("traced") { n++; if (c("trace_lost") == "") nolost = 1; tt = tt " " c("alloc_s"); kr = kr " " c("kcompactd_rounds"); pr = pr " " c("kcompactd_proactive_rounds")
				     zr = zr " " c("kcompactd_zone_runs"); lost += c("trace_lost") }
			!c("traced") { ut = ut " " c("alloc_s") }
			END {
		if (_BAD) exit 3
				if (!n) exit
				a = mstat(tt) ? MED : 0; b = mstat(ut) ? MED : 0
				printf "%d|%s|%s|%s|%s|%s|%s|%s\n", n, mmm(tt, "%.2f"), mmm(ut, "%.2f"),
					(b > 0 ? sprintf("%+.0f%%", (a - b) * 100 / b) : "-"),
					mmm(kr, "%d"), mmm(pr, "%d"), mmm(zr, "%d"), nolost ? "-" : lost
			}' "$D/runs.csv")
		[ -n "$cells" ] || continue
		IFS='|' read -r n tt ut added kr pr zr lost <<EOF
$cells
EOF
		all=$(awk -F, -v k="$k" 'NR > 1 && $1 == k' "$D/attempts.csv" | wc -l)
		awk -F, -v k="$k" "$CSV_AWK"'NR == 1 { header(); next }
			c("kernel") == k && c("zones") > 0 { print c("us") / 1000 "," c("migrate_scanned") + c("free_scanned") }' \
			"$D/attempts.csv" > "$D/.$k.att"
		z=$(wc -l < "$D/.$k.att")
		set -- $(cut -d, -f1 "$D/.$k.att" | percentiles) $(cut -d, -f2 "$D/.$k.att" | percentiles)
		p1=$1; p2=$2; p3=$3
		[ "$p1" = - ] || { p1=$(printf %.2f "$1"); p2=$(printf %.2f "$2"); p3=$(printf %.2f "$3"); }
		echo "| $k | $n | $tt | $ut | $added | $all | $z | $p1 | $p2 | $p3 | $4 | $5 | $6 | $kr | $pr | $zr | $lost |"
	done
	echo
	echo "Traced runs are extra runs with the compaction tracepoints on in the allocation phase (a run whose kernel"
	echo "could not trace is not one, nor is an incomplete one); they feed only this"
	echo "table, and their time is set beside the untraced median (tracing added: traced over untraced, medians)."
	echo "An attempt is one try_to_compact_pages(): from its event to the last compaction event of the same task"
	echo "before its next attempt; pfns scanned are the nr_scanned of its isolate events (both scanners, the units of"
	echo "the counters). Attempts whose every zone was deferred or skipped are counted but not in the percentiles"
	echo "(nearest rank, as every percentile of these reports). kcompactd rounds asked for: its"
	echo "mm_compaction_kcompactd_wake events for an order, counted the same way on both kernels; proactive rounds: ours"
	echo "emits that event with order -1 for them, 6.1 emits none; kcompactd zone runs: mm_compaction_begin events of"
	echo "the kcompactd threads, asked-for and proactive alike, on both kernels."
} >> "$D/summary.md"

command -v gnuplot >/dev/null || { say "no gnuplot: skipping the plots"; rm -f "$D"/.*.att "$D/.files" "$D/.first"; exit 0; }

# Plots of each kernel's first complete untraced run
plotted=""
for k in $KERNELS; do
	r=$(first_run "$k")
	[ -n "$r" ] || { say "report: $k has no complete untraced run to plot"; continue; }
	plotted="$plotted $k"
	awk -F, -v k="$k" -v r="$r" "$CSV_AWK"'NR == 1 { header(); next }
		c("kernel") == k && c("run") == r { print c("n") "," c("requested") "," c("obtained") "," c("ms") "," c("pgsteal_kswapd") + c("pgsteal_direct") }' \
		"$D/steps.csv" > "$D/.$k.dat"
done
gp() { gnuplot -e "$1" 2>&1 | grep -v '^$' >&2 || true; }
series() { # using-spec
	c=""
	for k in $plotted; do c="$c${c:+, }'$D/.$k.dat' using $1 with linespoints title '$k'"; done
	echo "$c"
}
common="set terminal png size 900,560; set datafile separator ','; set key top left; set grid;"
if [ -n "$plotted" ]; then
	gp "$common set output '$D/hugepages.png'; set title 'Huge pages obtained vs requested (first complete run)'; set xlabel 'requested'; set ylabel 'obtained'; plot $(series '2:3'), x title 'requested' dashtype 2"
	c=""
	for k in $plotted; do
		awk -F, '{ s += $5; print $1 "," s }' "$D/.$k.dat" > "$D/.$k.cum"
		c="$c${c:+, }'$D/.$k.cum' using 1:2 with linespoints title '$k'"
	done
	gp "$common set output '$D/reclaim.png'; set title 'Cumulative pages reclaimed (pgsteal kswapd + direct)'; set xlabel 'step'; set ylabel 'pages'; plot $c"
	gp "$common set output '$D/step-time.png'; set title 'Time of each step (untraced)'; set xlabel 'step'; set ylabel 'ms'; set logscale y; plot $(series '1:($4 > 0 ? $4 : 1)')"
fi
# latency.png: the distribution of the traced runs' attempts' times
c=""
for k in $KERNELS; do
	[ -s "$D/.$k.att" ] || continue
	sort -g -t, -k1,1 "$D/.$k.att" | awk -F, '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i] "," i / NR }' > "$D/.$k.cdf"
	c="$c${c:+, }'$D/.$k.cdf' using 1:2 with lines lw 2 title '$k'"
done
[ -z "$c" ] || gp "$common set output '$D/latency.png'; set title 'Direct compaction attempts of the allocation phase: time (traced runs)'; set xlabel 'ms per attempt'; set ylabel 'fraction of attempts'; set logscale x; set key bottom right; plot $c"

# Pageblock maps of the first complete run: one cell per pageblock, 64 to a row
for k in $plotted; do
	f="$D/$k-$(first_run "$k").csv"
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
rm -f "$D"/.*.dat "$D"/.*.cum "$D"/.*.map "$D"/.*.att "$D"/.*.cdf "$D/.files" "$D/.first"
say "report: $D/summary.md, runs.csv, steps.csv, $(ls "$D"/*.png 2>/dev/null | wc -l) plots"
