#!/bin/sh
# Stage 5: the guest initramfs, build/initramfs.cpio.gz: busybox-static,
# guest/init, guest/runner.c, the tests guest/tests/*.c and the benchmark
# workloads guest/bench/*.c, each built statically with the library
# guest/lib/zc.c against the tree's tools/testing/selftests/kselftest.h;
# the tree's vm/compaction_test.c; the suite lists guest/suites/*.list.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) echo "usage: $0"; exit 0 ;; esac

BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] && "$BUSYBOX" --list | grep -qx timeout ||
	die "busybox-static is missing (apt-get install busybox-static)"
[ -f "$TREE/tools/testing/selftests/kselftest.h" ] || "$TOP/scripts/tree.sh"

ROOT=$TOP/build/initramfs
rm -rf "$ROOT"
mkdir -p "$ROOT/bin" "$ROOT/tests" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" "$ROOT/mnt"
cp "$BUSYBOX" "$ROOT/bin/busybox"
cp "$TOP/guest/init" "$ROOT/init"
chmod 755 "$ROOT/init"
cp "$TOP"/guest/suites/*.list "$ROOT/tests/"

CFLAGS="-static -O2 -D_GNU_SOURCE -Werror -Wall -Wextra -Wno-unused-parameter -I$TOP/guest/lib -I$TREE/tools/testing/selftests"
LIB=$TOP/build/zc.o
gcc $CFLAGS -c -o "$LIB" "$TOP/guest/lib/zc.c" || die "guest/lib/zc.c does not build"
gcc $CFLAGS -o "$ROOT/tests/runner" "$TOP/guest/runner.c" || die "guest/runner.c does not build"
for src in "$TOP"/guest/tests/*.c "$TOP"/guest/bench/*.c; do
	name=$(basename "$src" .c)
	[ ! -e "$ROOT/tests/$name" ] || die "two guest programs named $name"
	gcc $CFLAGS -o "$ROOT/tests/$name" "$src" "$LIB" -lpthread ||
		die "guest program $name does not build"
done
# The tree's own selftest, built unmodified; guest/vm_selftests.c runs it
VMST=$TREE/tools/testing/selftests/vm
gcc $CFLAGS -Wno-sign-compare -Wno-error -o "$ROOT/tests/compaction_test" \
	"$VMST/compaction_test.c" -lm ||
	die "the tree's vm/compaction_test.c does not build"
for extra in ${ZC_EXTRA_TESTS:-}; do
	cp "$extra" "$ROOT/tests/"
done
(cd "$ROOT" && find . | cpio -o -H newc --quiet) | gzip -1 > "$TOP/build/initramfs.cpio.gz"
say "initramfs: $(ls "$ROOT/tests" | grep -vc '\.list$') guest programs, $(du -k "$TOP/build/initramfs.cpio.gz" | cut -f1) kB"
