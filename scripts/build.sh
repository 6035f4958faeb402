#!/bin/sh
# Stage 4: build one variant's bzImage into build/<variant>/.
# Runs tree.sh and config.sh first; uses ccache when present.
# env: ZC_PREBUILT=1 keeps an existing build/VARIANT/bzImage as it is.
set -eu
. "$(dirname "$0")/lib.sh"

variant_arg "${1:-}" "Builds build/VARIANT/bzImage (O=\$KSRC_CACHE/build-VARIANT)."
V=$1

# ZC_PREBUILT=1: use build/VARIANT/bzImage as it is (benchmarking a kernel
# while the tree holds work in progress)
if [ -n "${ZC_PREBUILT:-}" ] && [ -f "$TOP/build/$V/bzImage" ]; then
	say "$V: using the prebuilt build/$V/bzImage ($(grep series "$TOP/build/$V/version"))"
	exit 0
fi

"$TOP/scripts/tree.sh"
"$TOP/scripts/config.sh" "$V"

OUT=$KSRC_CACHE/build-$V
DEST=$TOP/build/$V
mkdir -p "$DEST" "$TOP/build/logs"
LOG=$TOP/build/logs/build-$V.log
CC=$(kernel_cc)
JOBS=$(( $(nproc) + 1 ))

say "$V: building bzImage (-j$JOBS, CC='$CC', log $LOG)"
t0=$(date +%s)
make -C "$TREE" O="$OUT" CC="$CC" -j"$JOBS" bzImage >"$LOG" 2>&1 &
pid=$!
# Progress every 20s; a build with nothing to do ends within 2s
n=0
while kill -0 $pid 2>/dev/null; do
	sleep 2
	n=$((n + 1))
	kill -0 $pid 2>/dev/null || break
	[ $((n % 10)) -eq 0 ] &&
		say "$V: building... $(( $(date +%s) - t0 ))s, $(grep -c '^  CC' "$LOG" || true) files compiled"
done
if ! wait $pid; then
	grep -m5 -E 'error|Error' "$LOG" >&2 || tail -20 "$LOG" >&2
	die "$V: build failed after $(( $(date +%s) - t0 ))s, see $LOG"
fi
cp "$OUT/arch/x86/boot/bzImage" "$OUT/.config" "$DEST/"
{
	echo "variant=$V"
	echo "linux-source-6.1=$(pkg_version)"
	echo "series=$(git -C "$TREE" rev-parse --short HEAD) ($(git -C "$TREE" log --oneline base..HEAD | wc -l) patches)"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$DEST/version"
say "$V: build/$V/bzImage ready in $(( $(date +%s) - t0 ))s ($(pkg_version))"
