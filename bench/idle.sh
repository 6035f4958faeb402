#!/bin/sh
# make run BENCH=idle: huge page allocation latency with a background
# compactor (guest/bench/idle.c). Per kernel and compaction_proactiveness, in a
# fresh guest each time: the seed's fill, IDLE seconds of idling, then
# nr_hugepages in steps of 5% of RAM, each step timed. Writes
# results/idle-<ts>/: summary.md, runs.csv, steps.csv, step-latency.png.
# env: MEM (1G), NODES (2), REPEAT (3), KERNELS ("mainline ours";
#      vanilla, which has no compactor, runs once a repeat, with no
#      proactiveness), PROACTIVE ("0 20"), IDLE (seconds, 30)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,9p' "$0"; exit 0 ;; esac
MEM=${MEM:-1G}
NODES=${NODES:-2}
REPEAT=${REPEAT:-3}
KERNELS=${KERNELS:-mainline ours}
PROACTIVE=${PROACTIVE:-0 20}
IDLE=${IDLE:-30}

# Reject bad parameters before anything is built or booted.
check_mem "$MEM"
check_nodes "$NODES"
check_repeat "$REPEAT"
[ -n "$KERNELS" ] || { echo "KERNELS is empty" >&2; exit 2; }
for v in $KERNELS; do
	case "$v" in vanilla|mainline|ours) ;;
	*) echo "KERNELS: unknown kernel '$v'" >&2; exit 2 ;;
	esac
done
[ -n "$PROACTIVE" ] || { echo "PROACTIVE is empty" >&2; exit 2; }
for p in $PROACTIVE; do
	case "$p" in
	[0-9]|[1-9][0-9]|100) ;;
	*) echo "PROACTIVE: '$p' is not a number from 0 to 100" >&2; exit 2 ;;
	esac
done
case "$IDLE" in
""|*[!0-9]*|0*|?????*) idle_ok=0 ;;
*) idle_ok=1; [ "$IDLE" -le 3600 ] || idle_ok=0 ;;
esac
[ "$idle_ok" = 1 ] || { echo "IDLE='$IDLE' is not a number of seconds from 1 to 3600" >&2; exit 2; }
mem_mb=$(mem_mb_of "$MEM")
check_mem_nodes "$mem_mb" "$NODES"

# The proactiveness values a kernel runs with: vanilla has no compactor
# and no compaction_proactiveness, so it runs once, as "none"
labels() {
	if [ "$1" = vanilla ]; then
		echo none
	else
		for p in $PROACTIVE; do printf 'p%s ' "$p"; done
	fi
}

bench_kernels $KERNELS
bench_open idle
bench_setup "guest: $MEM, $NODES nodes, 2 cpus; repeats: $REPEAT; idle: $IDLE s; compaction_proactiveness: $PROACTIVE"
for v in $KERNELS; do bench_setup "$v: $(grep series "$TOP/build/$v/version")"; done

# Files of 2x RAM, half of them deleted again, plus ext4's own overhead
base=$OUTD/disk-base.img
"$TOP/scripts/disk.sh" "$base" $(( mem_mb * 5 / 2 + 256 ))

r=1
while [ "$r" -le "$REPEAT" ]; do
	for v in $KERNELS; do
		for l in $(labels "$v"); do
			cp --sparse=always "$base" "$OUTD/disk.img"
			extra=""
			[ "$l" = none ] || extra="ZC_IDLE_PROACTIVE=${l#p}"
			DISK=$OUTD/disk.img MEM=$MEM NODES=$NODES TIMEOUT=$(( 5400 + IDLE )) \
				APPEND="ZC_TEST_TIMEOUT=$(( 5000 + IDLE )) ZC_IDLE_SECONDS=$IDLE $extra" \
				bench_boot "$v-$l-$r" "$v" idle || true
		done
	done
	r=$((r + 1))
done
rm -f "$OUTD/disk.img" "$base"
bench_close latest-idle
"$TOP/bench/idle-report.sh" "$OUTD" $KERNELS
cat "$OUTD/summary.md"
