#!/bin/sh
# make run: the seed's benchmark on vanilla, mainline and ours.
# env: MEM (1G), NODES (2), REPEAT (3), TRACED (1),
#      KERNELS ("vanilla mainline mainline-p0 ours ours-p0"; a -p0 row
#      runs with compaction_proactiveness 0, no proactive compaction);
#      SCALING=1 runs bench/scaling.sh instead
# REPEAT runs of every kernel, untraced: every table's time, count and
# counter comes from them. Then TRACED more runs of each kernel with
# compaction tracepoints (mainline and ours rows only), for the per-attempt
# latency and kcompactd's rounds; their time is reported beside the
# untraced one, never in its place. Every run boots from a copy of one
# fresh disk image; data comes back over the guest's second serial port
# into results/<ts>/.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,13p' "$0"; exit 0 ;; esac

# SCALING=1: the compaction cost against memory size instead
[ "${SCALING:-0}" = 1 ] && exec "$TOP/bench/scaling.sh"

MEM=${MEM:-1G}
NODES=${NODES:-2}
REPEAT=${REPEAT:-3}
TRACED=${TRACED:-1}
KERNELS=${KERNELS:-vanilla mainline mainline-p0 ours ours-p0}

# Reject bad parameters before anything is built or booted.
check_mem "$MEM"
check_nodes "$NODES"
check_repeat "$REPEAT"
case "$TRACED" in [0-9]) ;; *) echo "TRACED='$TRACED' is not a number from 0 to 9" >&2; exit 2 ;; esac
[ -n "$KERNELS" ] || { echo "KERNELS is empty" >&2; exit 2; }
for v in $KERNELS; do
	case "$v" in vanilla|mainline|mainline-p0|ours|ours-p0|debug) ;;
	*) echo "KERNELS: unknown kernel '$v'" >&2; exit 2 ;;
	esac
done
mem_mb=$(mem_mb_of "$MEM")
check_mem_nodes "$mem_mb" "$NODES"

# A row of the table and the kernel it boots: mainline-p0 is mainline,
# ours-p0 ours
variant() { echo "${1%-p0}"; }
bench_kernels $(for v in $KERNELS; do variant "$v"; done | sort -u)

bench_open ""
bench_setup "guest: $MEM, $NODES nodes, 2 cpus; untraced runs: $REPEAT; traced runs: $TRACED"
for v in $KERNELS; do bench_setup "$v: $(grep series "$TOP/build/$(variant "$v")/version")"; done

# Files of 2x RAM, half of them deleted again, plus ext4's own overhead
base=$OUTD/disk-base.img
"$TOP/scripts/disk.sh" "$base" $(( mem_mb * 5 / 2 + 256 ))

# The runs planned, one a line: a run whose data never came is reported
# as such, never left out
r=1
while [ "$r" -le "$REPEAT" ]; do for v in $KERNELS; do echo "$v-$r"; done; r=$((r + 1)); done > "$OUTD/planned"
r=1
while [ "$r" -le "$TRACED" ]; do
	for v in $KERNELS; do case "$v" in mainline|ours|debug) echo "$v-t$r" ;; esac; done
	r=$((r + 1))
done >> "$OUTD/planned"

# one RUN KERNEL TRACE: a run of the seed's workload in a fresh guest
one() {
	cp --sparse=always "$base" "$OUTD/disk.img"
	extra="ZC_TRACE=$3"
	case "$2" in *-p0) extra="$extra ZC_PROACTIVENESS=0" ;; esac
	DISK=$OUTD/disk.img MEM=$MEM NODES=$NODES TIMEOUT=5400 \
		APPEND="ZC_TEST_TIMEOUT=5000 $extra" \
		bench_boot "$1" "$(variant "$2")" seed || true
}

r=1
while [ "$r" -le "$REPEAT" ]; do
	for v in $KERNELS; do one "$v-$r" "$v" 0; done
	r=$((r + 1))
done
# Traced runs: the kernels with a compactor, proactiveness as it comes
r=1
while [ "$r" -le "$TRACED" ]; do
	for v in $KERNELS; do
		case "$v" in mainline|ours|debug) one "$v-t$r" "$v" 1 ;; esac
	done
	r=$((r + 1))
done
rm -f "$OUTD/disk.img" "$base"
bench_close latest
"$TOP/bench/seed-report.sh" "$OUTD" $KERNELS
cat "$OUTD/summary.md"
