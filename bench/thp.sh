#!/bin/sh
# make run BENCH=thp: THP fault latency and success on fragmented memory
# (guest/bench/thpscale.c, in the shape of mmtests' thpscale), for vanilla (THP
# without a compactor), mainline and ours, in defrag modes madvise and
# always, from 1, 4 and 8 threads, REPEAT times each in a fresh guest.
# Writes results/thp-<ts>/: summary.md, runs.csv, the data channel and
# serial log of every run, latency-<mode>.png. Nothing is traced.
# env: MEM (1G), NODES (2), REPEAT (3), KERNELS ("vanilla mainline ours"),
#      MODES ("madvise always"), THREADS ("1 4 8"), PERCENT (80),
#      OUTDIR (a directory of the caller's instead of results/thp-<ts>;
#      results/latest-thp is then left alone)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,11p' "$0"; exit 0 ;; esac
MEM=${MEM:-1G}
NODES=${NODES:-2}
REPEAT=${REPEAT:-3}
KERNELS=${KERNELS:-vanilla mainline ours}
MODES=${MODES:-madvise always}
THREADS=${THREADS:-1 4 8}
PERCENT=${PERCENT:-80}

# Reject bad parameters before anything is built or booted.
check_mem "$MEM"
check_nodes "$NODES"
check_repeat "$REPEAT"
mem_mb=$(mem_mb_of "$MEM")
check_mem_nodes "$mem_mb" "$NODES"
[ -n "$KERNELS" ] || { echo "KERNELS is empty" >&2; exit 2; }
for v in $KERNELS; do
	case "$v" in vanilla|mainline|ours) ;;
	*) echo "KERNELS: unknown kernel '$v'" >&2; exit 2 ;;
	esac
done
[ -n "$MODES" ] || { echo "MODES is empty" >&2; exit 2; }
for m in $MODES; do
	case "$m" in madvise|always) ;;
	*) echo "MODES: '$m' is not madvise or always" >&2; exit 2 ;;
	esac
done
[ -n "$THREADS" ] || { echo "THREADS is empty" >&2; exit 2; }
for t in $THREADS; do
	case "$t" in [1-9]|1[0-6]) ;;
	*) echo "THREADS: '$t' is not a number from 1 to 16" >&2; exit 2 ;;
	esac
done
case "$PERCENT" in [1-9]|[1-9][0-9]) ;;
*) echo "PERCENT='$PERCENT' is not a number from 1 to 99" >&2; exit 2 ;;
esac

bench_kernels $KERNELS
bench_open thp
bench_setup "guest: $MEM, $NODES nodes, 2 cpus; threads: $THREADS; second mapping: $PERCENT% of MemAvailable; runs: $REPEAT"
for v in $KERNELS; do bench_setup "$v: $(grep series "$TOP/build/$v/version")"; done

# The runs planned and their thread counts, one a line: a run or thread
# count whose data never came is a row that says so
r=1
while [ "$r" -le "$REPEAT" ]; do
	for m in $MODES; do for v in $KERNELS; do echo "$v-$m-$r $THREADS"; done; done
	r=$((r + 1))
done > "$OUTD/planned"

# One fresh guest and disk per kernel, mode and run; the disk holds a
# file as large as RAM for the page cache that fills the holes
r=1
while [ "$r" -le "$REPEAT" ]; do
	for m in $MODES; do
		for v in $KERNELS; do
			"$TOP/scripts/disk.sh" "$OUTD/disk.img" $(( mem_mb * 3 / 2 + 256 ))
			DISK=$OUTD/disk.img MEM=$MEM NODES=$NODES TIMEOUT=3600 \
				APPEND="ZC_TEST_TIMEOUT=3000 ZC_THP_MODE=$m ZC_THP_PERCENT=$PERCENT ZC_THP_THREADS=$(echo "$THREADS" | tr ' ' ,)" \
				bench_boot "$v-$m-$r" "$v" thpscale || true
		done
	done
	r=$((r + 1))
done
rm -f "$OUTD/disk.img"
bench_close latest-thp
"$TOP/bench/thp-report.sh" "$OUTD" "$KERNELS" "$MODES"
cat "$OUTD/summary.md"
