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

# steps.csv: one row per step of every run
echo "kernel,run,step,requested,obtained,ms,pgsteal_kswapd,pgsteal_direct,pgscan_kswapd,pgscan_direct,compact_stall,compact_fail,compact_success,pgmigrate_success,compact_migrate_scanned,compact_free_scanned" > "$D/steps.csv"
for f in "$D"/*-[0-9].csv; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .csv)
	tr -d '\r' < "$f" | awk -F, -v k="${b%-*}" -v r="${b##*-}" '$1 == "step" { $1 = ""; print k "," r substr($0, 1) }' OFS=, >> "$D/steps.csv"
done

# runs.csv: one row per run
echo "kernel,run,mem_kb,limit,pageblocks,prefree,final,first_fail,time_to_fail_s,alloc_s,reclaimed,stalls,successes,moved,scanned,complete" > "$D/runs.csv"
for f in "$D"/*-[0-9].csv; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .csv)
	tr -d '\r' < "$f" | awk -F, -v k="${b%-*}" -v r="${b##*-}" '
	$1 == "meta" { m[$2] = $3 }
	$1 == "limit" { limit = $2; blocks = $3 }
	$1 == "step" {
		ms += $5; rec += $6 + $7; st += $10; su += $12; mv += $13; sc += $14 + $15
		if (!failed && $4 < $3) { failed = 1; tff = ms }
		last = $4
	}
	$1 == "done" { done = 1 }
	END {
		printf "%s,%s,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%d,%d,%d,%d,%d,%d\n", k, r, m["mem_kb"],
			limit, blocks, m["prefree"], last, m["first_fail"], tff / 1000, ms / 1000,
			rec, st, su, mv, sc, done
	}' >> "$D/runs.csv"
done

# summary.md: medians over the runs, and the steps of each kernel's first run
awk -F, -v kernels="$KERNELS" -v setup="$D/setup.txt" '
function median(k, col,   n, i, j, t, a) {
	n = 0
	for (i = 1; i <= nr; i++) if (row[i, 1] == k && row[i, 16]) a[++n] = row[i, col] + 0
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	cnt[k] = n; lo[k] = a[1]; hi[k] = a[n]
	return n ? (n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2) : 0
}
FNR == 1 { next }
FILENAME ~ /runs.csv$/ { nr++; for (i = 1; i <= NF; i++) row[nr, i] = $i; next }
{ srow[++ns] = $0 }
END {
	nk = split(kernels, K, " ")
	while ((getline l < setup) > 0) print "    " l
	print ""
	print "| kernel | runs | huge pages (min-max) | % of RAM | % of limit | time to first failure (s) | allocation time (s) | pages reclaimed | stalls | successes | pages moved | pages scanned per huge page |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (x = 1; x <= nk; x++) {
		k = K[x]
		fin = median(k, 7); l = lo[k]; h = hi[k]; n = cnt[k]
		mem = median(k, 3); lim = median(k, 4)
		final[k] = fin
		printf "| %s | %d | %d (%d-%d) | %.1f | %.1f | %.2f | %.2f | %d | %d | %d | %d | %s |\n", k, n, fin, l, h,
			mem ? fin * 2048 * 100 / mem : 0, lim ? fin * 100 / lim : 0,
			median(k, 9), median(k, 10), median(k, 11), median(k, 12), median(k, 13),
			median(k, 14), fin ? sprintf("%.0f", median(k, 15) / fin) : "-"
	}
	print ""
	print "Limit: pageblocks whose every page was free or on the LRU just before the"
	print "allocation phase (from /proc/kpageflags), median " median(K[1], 4) " of " median(K[1], 5) "."
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
		print "| step | requested | obtained | time (ms) | reclaimed | stalls | successes | moved | scanned |"
		print "|---|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= ns; i++) {
			split(srow[i], s, ",")
			if (s[1] != k || s[2] != 1) continue
			printf "| %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", s[3], s[4], s[5], s[6],
				s[7] + s[8], s[11], s[13], s[14], s[15] + s[16]
		}
	}
}' "$D/runs.csv" "$D/steps.csv" > "$D/summary.md"

command -v gnuplot >/dev/null || { say "no gnuplot: skipping the plots"; exit 0; }

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
gp "$common set output '$D/latency.png'; set title 'Time of each step'; set xlabel 'step'; set ylabel 'ms'; set logscale y; plot $(series '3:($6 > 0 ? $6 : 1)')"

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
rm -f "$D"/.*.dat "$D"/.*.cum "$D"/.*.map
say "report: $D/summary.md, runs.csv, steps.csv, $(ls "$D"/*.png 2>/dev/null | wc -l) plots"
