#!/bin/sh
# Stage 6: boot one variant in QEMU (TCG) and run a guest suite.
# usage: boot.sh VARIANT SUITE
# env: MEM (1G), SMP (2), NODES (2), TIMEOUT (seconds, 900), DISK (image,
#      default: a fresh one of DISK_MB, 512, MiB), APPEND (extra kernel parameters),
#      LOG (serial log, default build/logs/VARIANT-SUITE.log), DATA (file
#      that receives the guest's second serial port, its data channel),
#      NODE_SKEW_MB (0: node 0 gets this much more memory, the last node
#      this much less, so that a node boundary falls inside a pageblock),
#      KERNEL (the bzImage, default build/VARIANT/bzImage)
# The serial console goes to stdout and to LOG.  Exit status: QEMU's, or
# 124 when the guest ran into TIMEOUT and was killed.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,11p' "$0"; exit 0 ;; esac
V=$1
SUITE=${2:-test}
MEM=${MEM:-1G}
SMP=${SMP:-2}
NODES=${NODES:-2}
TIMEOUT=${TIMEOUT:-900}
valid_variant "$V" || { echo "unknown VARIANT '$V' (valid: $VARIANTS)" >&2; exit 2; }
# A suite is a list in guest/suites/; a misspelt one would run nothing
case "$SUITE" in
shell) ;;
*[!a-z0-9_-]*|"") echo "bad SUITE '$SUITE'" >&2; exit 2 ;;
*) [ -s "$TOP/guest/suites/$SUITE.list" ] ||
	{ echo "unknown SUITE '$SUITE': no guest/suites/$SUITE.list" >&2; exit 2; } ;;
esac

case "$MEM" in
*G) mem_mb=$(( ${MEM%G} * 1024 )) ;;
*M) mem_mb=${MEM%M} ;;
*) die "MEM '$MEM' must look like 512M or 4G" ;;
esac
case "$mem_mb$SMP$NODES" in *[!0-9]*) die "MEM/SMP/NODES must be numbers" ;; esac
[ "$NODES" -ge 1 ] && [ "$NODES" -le 8 ] || die "NODES must be 1..8"
[ $(( mem_mb % NODES )) -eq 0 ] || die "MEM ($mem_mb MiB) does not split evenly over $NODES nodes"

KERNEL=${KERNEL:-$TOP/build/$V/bzImage}
[ -f "$KERNEL" ] || die "no $KERNEL: run 'make kernel VARIANT=$V'"
[ -f "$TOP/build/initramfs.cpio.gz" ] || "$TOP/scripts/initramfs.sh"
mkdir -p "$TOP/build/logs"
LOG=${LOG:-$TOP/build/logs/$V-$SUITE.log}
# A log left from an earlier boot must never be read as this one's
rm -f "$LOG"
if [ -z "${DISK:-}" ]; then
	DISK=$TOP/build/disk-$V-$SUITE.img
	"$TOP/scripts/disk.sh" "$DISK" "${DISK_MB:-512}"
fi

# Node n gets the memory backend m<n> and CPUs n, n+NODES, ... Every CPU
# is a socket of its own: two nodes sharing one socket (QEMU's default)
# share a last-level cache across nodes, which the kernel warns about
# (topology_sane).
numa=""
n=0
skew=${NODE_SKEW_MB:-0}
case "$skew" in *[!0-9]*) die "NODE_SKEW_MB must be a number" ;; esac
[ "$skew" -eq 0 ] || { [ "$NODES" -ge 2 ] && [ "$skew" -lt $(( mem_mb / NODES )) ]; } ||
	die "NODE_SKEW_MB needs NODES >= 2 and less than a node's memory"
while [ $n -lt "$NODES" ]; do
	size=$(( mem_mb / NODES ))
	[ $n -eq 0 ] && size=$(( size + skew ))
	[ $n -eq $(( NODES - 1 )) ] && [ $n -ne 0 ] && size=$(( size - skew ))
	numa="$numa -object memory-backend-ram,id=m$n,size=${size}M"
	numa="$numa -numa node,nodeid=$n,memdev=m$n"
	c=$n
	while [ $c -lt "$SMP" ]; do
		numa="$numa,cpus=$c"
		c=$((c + NODES))
	done
	n=$((n + 1))
done

extra=""
[ "$V" = debug ] && extra="debug_pagealloc=on"
# Every variant has THP; it boots off, as a hugetlbfs user would boot it,
# so that khugepaged neither runs nor raises min_free_kbytes (its
# recommended reserve is ~45 MiB in a 1 GiB, 2-node guest, against ~4 MiB)
# for the tests and the benchmark. guest/tests/thp.c turns it on for itself.
extra="$extra transparent_hugepage=never"
# The console prints errors and worse as they happen; the guest's init
# prints every warning-level line of the kernel log after each program,
# where report.sh finds them without console lines cutting into KTAP.
append="console=ttyS0 panic=-1 loglevel=4 zc_suite=$SUITE ZC_NODES=$NODES ZC_VARIANT=$V $extra ${APPEND:-}"

# KVM when /dev/kvm works, TCG otherwise; probed once per machine. A
# /dev/kvm that opens may still fail the first vCPU (a host that hides
# MSRs from a nested guest aborts QEMU at reset), or run it without ever
# making progress (seen here: no output, 100% CPU). So the probe boots
# the kernel under test for up to 20 s and takes KVM only if the
# kernel's banner reaches the serial console.
accel_file=$TOP/build/accel
if [ ! -s "$accel_file" ]; then
	accel=tcg
	if [ -w /dev/kvm ]; then
		timeout 20 qemu-system-x86_64 -machine q35 -accel kvm -cpu host \
			-m 256 -nodefaults -display none -monitor none \
			-serial stdio -kernel "$KERNEL" -no-reboot \
			-append "console=ttyS0 panic=-1" </dev/null 2>/dev/null |
			grep -q -m1 "Linux version" && accel=kvm
	fi
	echo "$accel" > "$accel_file"
fi
accel=$(cat "$accel_file")
cpu=max
[ "$accel" = kvm ] && cpu=host

set -- qemu-system-x86_64 -machine q35 -accel "$accel" -cpu "$cpu" \
	-m "${mem_mb}M" -smp "$SMP,sockets=$SMP,cores=1,threads=1" $numa \
	-kernel "$KERNEL" -initrd "$TOP/build/initramfs.cpio.gz" -append "$append" \
	-drive "file=$DISK,format=raw,if=virtio,cache=unsafe" \
	${QEMU_EXTRA:-} -no-reboot
if [ "$SUITE" = shell ]; then
	exec "$@" -nographic
fi

say "boot: $V, suite $SUITE, $MEM, $SMP cpus, $NODES nodes, QEMU $accel, timeout ${TIMEOUT}s, log $LOG"
t0=$(date +%s)
rcfile=$(mktemp)
echo "# qemu: $accel, $SMP cpus, $NODES nodes, ${mem_mb} MiB${NODE_SKEW_MB:+, node 0 +${NODE_SKEW_MB} MiB}" > "$LOG"
# A line on stderr every minute, so that long runs are not silent
(
	n=0
	while sleep 5; do
		[ -f "$rcfile" ] && [ ! -s "$rcfile" ] || exit 0
		n=$((n + 1))
		[ $((n % 12)) -eq 0 ] || continue
		last=$(tail -c 2000 "$LOG" | tr -d '\r' | grep -a '[^ ]' | tail -1 | cut -c1-100)
		say "boot: $V/$SUITE running, $(( $(date +%s) - t0 ))s: $last"
	done
) >/dev/null &
beat=$!
{
	# set -e would end this group at a failing QEMU before the status
	# is saved: keep it in one command
	timeout -k 5 "$TIMEOUT" "$@" -display none -monitor none -serial stdio \
		${DATA:+-serial file:$DATA} </dev/null 2>&1 && qrc=0 || qrc=$?
	echo "$qrc" > "$rcfile"
} | tee -a "$LOG"
rc=$(cat "$rcfile")
rm -f "$rcfile"
kill "$beat" 2>/dev/null || true
[ "$rc" = 124 ] && say "boot: $V/$SUITE TIMED OUT after ${TIMEOUT}s"
say "boot: $V/$SUITE ended after $(( $(date +%s) - t0 ))s (status $rc)"
exit "$rc"
