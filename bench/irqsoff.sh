#!/bin/sh
# make irqsoff: the longest irqs-off section during compact_memory and
# during huge page allocation, ours against mainline, both built with the
# irqsoff tracer (variants ours-irqsoff, mainline-irqsoff; not the
# benchmark kernels). Writes results/irqsoff-<ts>/{irqsoff.csv,table.md}.
# env: MEM (1G), ROUNDS (3), SMP (2), NODES (2; every node needs a CPU)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac
MEM=${MEM:-1G}
ROUNDS=${ROUNDS:-3}
SMP=${SMP:-2}
NODES=${NODES:-2}
case "$ROUNDS" in [1-9]) ;; *) die "ROUNDS must be 1..9" ;; esac

OUT=$TOP/results/irqsoff-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
for v in mainline-irqsoff ours-irqsoff; do
	"$TOP/scripts/build.sh" "$v"
done
"$TOP/scripts/initramfs.sh"
echo "kernel,phase,round,max_us,start,end,seconds,huge_pages,stack" > "$OUT/irqsoff.csv"
for v in mainline-irqsoff ours-irqsoff; do
	LOG=$OUT/$v.log MEM=$MEM SMP=$SMP NODES=$NODES TIMEOUT=1800 \
		APPEND="ZC_IRQSOFF_ROUNDS=$ROUNDS" "$TOP/scripts/boot.sh" "$v" irqsoff >/dev/null || true
	"$TOP/scripts/report.sh" "$OUT/$v.log" > "$OUT/$v.report" ||
		die "$v: the guest run failed, see $OUT/$v.report"
	tr -d '\r' < "$OUT/$v.log" | sed -n 's/^ *# irqsoff: //p' |
		sed 's/\([a-z_]*\)=\([^ ]*\) */\2,/g; s/,$//' | sed "s/^/${v%-irqsoff},/" >> "$OUT/irqsoff.csv"
done
# Median (min-max) per kernel and phase; ours must be no longer than mainline
awk -F, 'NR > 1 { k = $1 "," $2; v[k] = v[k] " " $4; n[k]++ }
	function med(s,   a, c, i, j, t) {
		c = split(s, a, " ")
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((c + 1) / 2)] " (" a[1] "-" a[c] ")"
	}
	function top(s,   a, c, i, m) {
		c = split(s, a, " "); m = a[1]
		for (i = 2; i <= c; i++) if (a[i] + 0 > m + 0) m = a[i]
		return m
	}
	END {
		print "| phase | mainline, us | ours, us | ours <= mainline |"
		print "|---|---|---|---|"
		bad = 0
		for (p = 1; p <= 2; p++) {
			ph = p == 1 ? "compact" : "allocate"
			m = "mainline," ph; o = "ours," ph
			ok = (n[m] && n[o] && top(v[o]) + 0 <= top(v[m]) + 0) ? "yes" : "no"
			if (ok == "no") bad = 1
			printf "| %s | %s | %s | %s (worst %s vs %s) |\n", ph, med(v[m]), med(v[o]), ok, top(v[o]), top(v[m])
		}
		exit bad
	}' "$OUT/irqsoff.csv" > "$OUT/table.md" && rc=0 || rc=$?
{
	echo "Longest irqs-off section (irqsoff tracer), $MEM guest, $SMP CPUs, $NODES nodes, $ROUNDS rounds each, median (min-max)"
	echo
	cat "$OUT/table.md"
	echo
	echo "Where the longest sections began and ended:"
	sed 1d "$OUT/irqsoff.csv" | awk -F, '{ print "  " $1 " " $2 " round " $3 ": " $4 " us, " $5 " .. " $6 ", from " $9 }'
} > "$OUT/summary.txt"
cat "$OUT/summary.txt"
say "irqsoff: results in $OUT"
exit $rc
