#!/bin/sh
# make test: tree, series, build ours, initramfs, host checks, boot ours
# with the guest suite, a 4 GiB integrity run, the suite again on the
# debug kernel, the small benchmark and THP benchmark, the splat scan's
# negative control, report.  Ends with "N passed, N failed".
# env: ZC_RACE_SECONDS (12), ZC_DEBUG_RACE_SECONDS (10), ZC_DEBUG=0|full,
#      ZC_PROVOKE_WARN=1 (one WARN in the main suite: make test must fail)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,5p' "$0"; exit 0 ;; esac

t0=$(date +%s)
"$TOP/scripts/build.sh" ours
"$TOP/scripts/initramfs.sh"
mkdir -p "$TOP/build/logs"
say "host checks"
"$TOP/scripts/host-checks.sh" > "$TOP/build/logs/host.log"
cat "$TOP/build/logs/host.log"
logs="$TOP/build/logs/host.log"

# The whole suite on ours, races of ZC_RACE_SECONDS (12) each
# No log of an earlier run may stand in for one this run did not write
rm -f "$TOP"/build/logs/*-test.log "$TOP"/build/logs/*-scale.log "$TOP"/build/logs/*-debug.log \
	"$TOP"/build/logs/*-control.log "$TOP"/build/logs/*-absent.log
MEM=1G NODES=2 APPEND="ZC_RACE_SECONDS=${ZC_RACE_SECONDS:-12}${ZC_PROVOKE_WARN:+ ZC_PROVOKE_WARN=1}" \
	"$TOP/scripts/boot.sh" ours test || true
logs="$logs $TOP/build/logs/ours-test.log"

# Data integrity at scale: a 4 GiB guest, 100 compactions. Node 0 gets
# 1 MiB more than node 1, so that the node boundary falls inside a
# pageblock (guest/layout.c checks that it does, and the zones on both
# sides of it)
MEM=4G NODES=2 NODE_SKEW_MB=1 DISK_MB=2048 APPEND="ZC_INTEGRITY_RUNS=100" \
	"$TOP/scripts/boot.sh" ours scale || true
logs="$logs $TOP/build/logs/ours-scale.log"

# The suite again under the debug kernel (KASAN, lockdep, DEBUG_VM,
# DEBUG_PAGEALLOC, DEBUG_LIST), with shorter races. It runs ~3x slower
# under TCG, so it runs guest/debug.list: every program that exercises a
# different path of the engine (compact_node, direct compaction, mlocked
# pages, deferral, the races, hostile input, the tree's selftest), not
# disk, sysctl_input (hostile covers it), integrity (ours runs it at
# 1 and 4 GiB) and direct (the OOM and full-memory runs take most of
# its time). ZC_DEBUG=full runs the whole suite, ZC_DEBUG=0 skips it.
if [ "${ZC_DEBUG:-1}" != 0 ]; then
	suite=debug
	[ "${ZC_DEBUG:-1}" = full ] && suite=test
	"$TOP/scripts/build.sh" debug
	MEM=1G NODES=2 NODE_SKEW_MB=1 TIMEOUT=2400 APPEND="ZC_RACE_SECONDS=${ZC_DEBUG_RACE_SECONDS:-10} ZC_TEST_TIMEOUT=1200" \
		"$TOP/scripts/boot.sh" debug $suite || true
	logs="$logs $TOP/build/logs/debug-$suite.log"
fi

say "benchmark, small version (ours, 512 MiB)"
"$TOP/scripts/bench-check.sh" > "$TOP/build/logs/bench-check.log" || true
cat "$TOP/build/logs/bench-check.log"
# the guest's own log too: its KTAP and any splat during the benchmark
logs="$logs $TOP/build/logs/bench-check.log $TOP/build/bench-check/ours-1.log"

say "THP benchmark, small version (ours, defrag madvise, 1 thread)"
"$TOP/scripts/thp-check.sh" > "$TOP/build/logs/thp-check.log" || true
cat "$TOP/build/logs/thp-check.log"
logs="$logs $TOP/build/logs/thp-check.log $TOP/results/latest-thp/ours-madvise.log"

# Negative control: a guest in which lkdtm provokes one WARN must fail
# the report, or a clean report above would prove nothing.
say "negative control: one provoked WARN must fail the report"
MEM=512M NODES=1 APPEND="ZC_PROVOKE_WARN=1" \
	"$TOP/scripts/boot.sh" ours control >/dev/null 2>&1 || true
ctl=$TOP/build/logs/ours-control.log
out=$("$TOP/scripts/report.sh" "$ctl" 2>&1) && crc=0 || crc=$?
# Quote the report without the kernel-line prefix, so that the quote is
# not itself taken for a splat below
flag=$(echo "$out" | grep -a '^FAIL splat' | grep -a 'lkdtm' | head -1 | sed 's/.*\(WARNING:\)/\1/')
{
	echo "TAP version 13"
	echo "1..1"
	echo "# zc-run: negative-control"
	echo "    1..2"
	if grep -aq 'WARNING:.*lkdtm' "$ctl"; then
		echo "    ok 1 control_warn_provoked: the guest's kernel log has lkdtm's WARNING"
	else
		echo "    not ok 1 control_warn_provoked: no lkdtm WARNING in $ctl"
	fi
	if [ "$crc" = 1 ] && [ -n "$flag" ]; then
		echo "    ok 2 control_report_fails: report.sh exit 1, flagged: $flag"
	else
		echo "    not ok 2 control_report_fails: report.sh exit $crc and no splat line naming lkdtm"
	fi
	echo "ok 1 negative-control"
	echo "# zc-done"
} > "$TOP/build/logs/control.log"
cat "$TOP/build/logs/control.log"
logs="$logs $TOP/build/logs/control.log"

# The series' interfaces must be absent from the other kernels. Their cold
# builds would double the time of a fresh run, so they are checked when
# they were built before (make kernel VARIANT=...), and reported as
# skipped otherwise.
for v in vanilla mainline; do
	if [ -f "$TOP/build/$v/bzImage" ] || [ -f "$KSRC_CACHE/build-$v/vmlinux" ]; then
		"$TOP/scripts/build.sh" "$v"
		MEM=1G NODES=2 "$TOP/scripts/boot.sh" "$v" absent || true
		logs="$logs $TOP/build/logs/$v-absent.log"
	else
		printf 'TAP version 13\n1..1\n# zc-run: absent-%s\nok 1 absent-%s # SKIP %s not built: make kernel VARIANT=%s\n# zc-done\n' \
			"$v" "$v" "$v" "$v" > "$TOP/build/logs/$v-absent.log"
		logs="$logs $TOP/build/logs/$v-absent.log"
	fi
done

say "report ($(( $(date +%s) - t0 ))s in all, linux-source-6.1 $(pkg_version))"
"$TOP/scripts/report.sh" $logs
