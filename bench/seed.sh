#!/bin/sh
# make run: the seed's benchmark on vanilla, mainline and ours.
# env: MEM (1G), NODES (2), REPEAT (3),
#      KERNELS ("vanilla mainline mainline-p0 ours ours-p0"; a -p0 row
#      runs with compaction_proactiveness 0, no proactive compaction);
#      SCALING=1 runs scripts/scaling.sh instead
# Every kernel boots from a copy of one fresh disk image; each run's data
# comes back over the guest's second serial port into results/<ts>/.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,5p' "$0"; exit 0 ;; esac

# SCALING=1: the compaction cost against memory size instead
[ "${SCALING:-0}" = 1 ] && exec "$TOP/scripts/scaling.sh"

MEM=${MEM:-1G}
NODES=${NODES:-2}
REPEAT=${REPEAT:-3}
KERNELS=${KERNELS:-vanilla mainline mainline-p0 ours ours-p0}

# Reject bad parameters before anything is built or booted.
check_mem "$MEM"
check_nodes "$NODES"
check_repeat "$REPEAT"
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
for v in $KERNELS; do
	"$TOP/scripts/build.sh" "$(variant "$v")"
done
"$TOP/scripts/initramfs.sh"

ts=$(date -u +%Y%m%d-%H%M%S)
OUTD=$TOP/results/$ts
mkdir -p "$OUTD"
{
	echo "linux-source-6.1 $(pkg_version)"
	echo "guest: $MEM, $NODES nodes, 2 cpus, QEMU \$ACCEL; repeats: $REPEAT"
	for v in $KERNELS; do echo "$v: $(grep series "$TOP/build/$(variant "$v")/version")"; done
} > "$OUTD/setup.txt"

# Files of 2x RAM, half of them deleted again, plus ext4's own overhead
base=$OUTD/disk-base.img
"$TOP/scripts/disk.sh" "$base" $(( mem_mb * 5 / 2 + 256 ))

t0=$(date +%s)
r=1
while [ "$r" -le "$REPEAT" ]; do
	for v in $KERNELS; do
		say "bench: $v, run $r of $REPEAT"
		cp --sparse=always "$base" "$OUTD/disk.img"
		extra=""
		case "$v" in *-p0) extra="ZC_PROACTIVENESS=0" ;; esac
		DISK=$OUTD/disk.img DATA=$OUTD/$v-$r.csv LOG=$OUTD/$v-$r.log \
			MEM=$MEM NODES=$NODES TIMEOUT=5400 \
			APPEND="ZC_TEST_TIMEOUT=5000 $extra" \
			"$TOP/scripts/boot.sh" "$(variant "$v")" bench >/dev/null ||
			say "bench: $v run $r: boot status $?"
		grep -a '# bench:' "$OUTD/$v-$r.log" | tail -1 >&2 || true
		grep -aq '^done' "$OUTD/$v-$r.csv" 2>/dev/null ||
			say "bench: $v run $r did not finish, see $OUTD/$v-$r.log"
		# A kernel splat marks the run's row in the table
		if splat_scan "$OUTD/$v-$r.log" "$OUTD/$v-$r.splat"; then
			say "bench: $v run $r: KERNEL SPLAT: $(head -1 "$OUTD/$v-$r.splat")"
		fi
	done
	r=$((r + 1))
done
rm -f "$OUTD/disk.img" "$base"
# boot.sh chose KVM or TCG on the first boot (build/accel)
sed -i "s/QEMU \$ACCEL/QEMU $(cat "$TOP/build/accel" 2>/dev/null || echo unknown)/" "$OUTD/setup.txt"
say "bench: all runs done in $(( $(date +%s) - t0 ))s"

ln -sfn "$ts" "$TOP/results/latest"
"$TOP/scripts/bench-report.sh" "$OUTD" $KERNELS
cat "$OUTD/summary.md"
