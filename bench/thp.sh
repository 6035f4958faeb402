#!/bin/sh
# make run BENCH=thp: THP fault latency and success on fragmented memory
# (guest/thpscale.c, in the shape of mmtests' thpscale), for vanilla (THP
# without a compactor), mainline and ours, in defrag modes madvise and
# always, from 1, 4 and 8 threads. Writes results/thp-<ts>/: summary.md,
# runs.csv, faults per kernel and mode, latency-<mode>.png.
# env: MEM (1G), NODES (2), KERNELS ("vanilla mainline ours"),
#      MODES ("madvise always"), THREADS ("1 4 8"), PERCENT (80)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,8p' "$0"; exit 0 ;; esac
MEM=${MEM:-1G}
NODES=${NODES:-2}
KERNELS=${KERNELS:-vanilla mainline ours}
MODES=${MODES:-madvise always}
THREADS=${THREADS:-1 4 8}
PERCENT=${PERCENT:-80}
check_mem "$MEM"
for v in $KERNELS; do
	case "$v" in vanilla|mainline|ours) ;;
	*) echo "KERNELS: unknown kernel '$v'" >&2; exit 2 ;;
	esac
done
for m in $MODES; do
	case "$m" in madvise|always) ;;
	*) echo "MODES: '$m' is not madvise or always" >&2; exit 2 ;;
	esac
done
mem_mb=$(mem_mb_of "$MEM")

for v in $KERNELS; do "$TOP/scripts/build.sh" "$v"; done
"$TOP/scripts/initramfs.sh"
ts=$(date -u +%Y%m%d-%H%M%S)
OUTD=$TOP/results/thp-$ts
mkdir -p "$OUTD"
{
	echo "linux-source-6.1 $(pkg_version)"
	echo "guest: $MEM, $NODES nodes, 2 cpus; threads: $THREADS; second mapping: $PERCENT% of MemAvailable"
	for v in $KERNELS; do echo "$v: $(grep series "$TOP/build/$v/version")"; done
} > "$OUTD/setup.txt"

# One fresh guest and disk per kernel and mode; the disk holds a file as
# large as RAM for the page cache that fills the holes
for m in $MODES; do
	for v in $KERNELS; do
		say "thp bench: $v, defrag $m"
		"$TOP/scripts/disk.sh" "$OUTD/disk.img" $(( mem_mb * 3 / 2 + 256 ))
		DISK=$OUTD/disk.img DATA=$OUTD/$v-$m.csv LOG=$OUTD/$v-$m.log \
			MEM=$MEM NODES=$NODES TIMEOUT=3600 \
			APPEND="ZC_TEST_TIMEOUT=3000 ZC_THP_MODE=$m ZC_THP_PERCENT=$PERCENT ZC_THP_THREADS=$(echo "$THREADS" | tr ' ' ,)" \
			"$TOP/scripts/boot.sh" "$v" thpscale >/dev/null || say "thp bench: $v $m: boot status $?"
		grep -a '# thpscale:' "$OUTD/$v-$m.log" >&2 || true
		grep -aq '^done' "$OUTD/$v-$m.csv" 2>/dev/null ||
			say "thp bench: $v $m did not finish, see $OUTD/$v-$m.log"
		if splat_scan "$OUTD/$v-$m.log" "$OUTD/$v-$m.splat"; then
			say "thp bench: $v $m: KERNEL SPLAT: $(head -1 "$OUTD/$v-$m.splat")"
		fi
	done
done
rm -f "$OUTD/disk.img"
ln -sfn "thp-$ts" "$TOP/results/latest-thp"
"$TOP/scripts/thp-report.sh" "$OUTD" "$KERNELS" "$MODES"
cat "$OUTD/summary.md"
