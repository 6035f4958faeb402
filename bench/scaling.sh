#!/bin/sh
# make run SCALING=1: the cost of one full compaction of the same
# fragmented memory by ours (compact_node on every node) and mainline
# (compact_memory), in guests of SIZES (512M 1G 2G 4G), one node each.
# Writes results/scaling-<ts>/scaling.{csv,md,png}; the cost should grow
# linearly with the size of memory. A size a kernel could not run is a
# row that says so, never a missing one.
# env: SIZES, KERNELS ("mainline ours")
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,7p' "$0"; exit 0 ;; esac

SIZES=${SIZES:-512M 1G 2G 4G}
KERNELS=${KERNELS:-mainline ours}
for m in $SIZES; do
	case "$m" in 512M|1G|2G|3G|4G|6G|8G) ;;
	*) echo "SIZES: '$m' is not one of 512M 1G 2G 3G 4G 6G 8G" >&2; exit 2 ;;
	esac
done
for k in $KERNELS; do
	case "$k" in mainline|ours) ;;
	*) echo "KERNELS: '$k' is not mainline or ours" >&2; exit 2 ;;
	esac
done
bench_kernels $KERNELS
bench_open scaling
bench_setup "guest: one node, 2 cpus; sizes: $SIZES"
for k in $KERNELS; do bench_setup "$k: $(grep series "$TOP/build/$k/version")"; done
echo "kernel,mem_kb,seconds,migrate_scanned,free_scanned,migrated,free9_before,free9_after" > "$OUTD/scaling.csv"
splatted="" missing=""
for m in $SIZES; do
	for k in $KERNELS; do
		MEM=$m NODES=1 TIMEOUT=1800 bench_boot "$k-$m" "$k" scaling || true
		[ ! -s "$OUTD/$k-$m.splat" ] || splatted="$splatted $k-$m"
		line=$(tr -d '\r' < "$OUTD/$k-$m.csv" 2>/dev/null | grep '^scaling,' || true)
		[ -n "$line" ] || { missing="$missing $k-$m"; continue; }
		echo "$k,${line#scaling,}" >> "$OUTD/scaling.csv"
	done
done

# Table: per kernel and size; then, per kernel, scanned per MiB at the
# largest size over that at the smallest: 1.0 is linear
awk -F, 'NR > 1 {
	mib = $2 / 1024; sc = $4 + $5
	printf "| %s | %d | %.2f | %d | %d | %d | %.0f | %.4f |\n", $1, mib, $3, $4, $5, $6, sc / mib, $3 / mib * 1024
	if (!($1 in lo) || mib < lom[$1]) { lo[$1] = sc / mib; lom[$1] = mib; lot[$1] = $3 / mib }
	if (!($1 in hi) || mib > him[$1]) { hi[$1] = sc / mib; him[$1] = mib; hit[$1] = $3 / mib }
}
END {
	print ""
	for (k in lo)
		printf "%s: pfns scanned per MiB at %d MiB / at %d MiB = %.2f; seconds per MiB: %.2f\n",
			k, him[k], lom[k], hi[k] / lo[k], (lot[k] > 0 ? hit[k] / lot[k] : 0)
}' "$OUTD/scaling.csv" > "$OUTD/.rows"
{
	echo "One full compaction of the same fragmented memory (every second page"
	echo "of anonymous memory unmapped), one node, QEMU $(cat "$TOP/build/accel" 2>/dev/null || echo unknown), 2 cpus."
	echo
	echo "| kernel | MiB | seconds | migrate scanned | free scanned | pages migrated | pfns scanned per MiB | seconds per GiB |"
	echo "|---|---|---|---|---|---|---|---|"
	cat "$OUTD/.rows"
	[ -z "$missing" ] || { echo; echo "Sizes that gave no result (see their logs):$missing"; }
	[ -z "$splatted" ] || { echo; echo "Runs with a kernel splat (see their .splat files):$splatted"; }
} > "$OUTD/scaling.md"
rm -f "$OUTD/.rows"

for k in $KERNELS; do
	awk -F, -v k="$k" '$1 == k { print $2 / 1024 "," $3 "," $4 + $5 }' "$OUTD/scaling.csv" > "$OUTD/.$k.dat"
done
plot() {
	c=""
	for k in $KERNELS; do c="$c${c:+, }'$OUTD/.$k.dat' using 1:$1 with linespoints title '$k'"; done
	echo "$c"
}
gnuplot -e "set terminal png size 1100,450; set output '$OUTD/scaling.png'; set datafile separator ',';
	set multiplot layout 1,2; set key left top; set xlabel 'guest memory (MiB)'; set grid;
	set title 'Time of one full compaction'; set ylabel 'seconds'; plot $(plot 2);
	set title 'Pages scanned (both scanners)'; set ylabel 'pfns'; plot $(plot 3);
	unset multiplot" 2>&1 | grep -v '^$' >&2 || true
rm -f "$OUTD"/.*.dat
bench_close latest-scaling
cat "$OUTD/scaling.md"
