#!/bin/sh
# make test: the benchmarks' reporters and judges on their fixtures,
# tree, series, build ours, initramfs, host checks, boot ours with the
# guest suite, a 4 GiB integrity run, the suite again on the debug
# kernel, the small benchmark and THP benchmark, the splat scan's
# negative control, report. Ends with each stage's seconds and
# "N passed, N failed".
# env: ZC_RACE_SECONDS (12), ZC_DEBUG_RACE_SECONDS (10), ZC_DEBUG=0|full,
#      ZC_PROVOKE_WARN=1 (one WARN in the main suite: make test must fail)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac

t0=$(date +%s)
# stage NAME: the previous stage ends, NAME begins; their seconds are
# printed before the report
stages=""
ts=$t0
sname=""
stage() {
	now=$(date +%s)
	[ -z "$sname" ] || stages="$stages$sname $(( now - ts ))
"
	sname=$1
	ts=$now
	[ -z "$1" ] || say "stage: $1"
}
mkdir -p "$TOP/build/logs"
stage bench-selftest
"$TOP/bench/selftest.sh" > "$TOP/build/logs/bench-selftest.log" || true
cat "$TOP/build/logs/bench-selftest.log"
logs="$TOP/build/logs/bench-selftest.log"
stage build-ours
"$TOP/scripts/build.sh" ours
"$TOP/scripts/initramfs.sh"
stage host-checks
"$TOP/scripts/host-checks.sh" > "$TOP/build/logs/host.log"
cat "$TOP/build/logs/host.log"
logs="$logs $TOP/build/logs/host.log"

# The whole suite on ours, races of ZC_RACE_SECONDS (12) each
# No log of an earlier run may stand in for one this run did not write
rm -f "$TOP"/build/logs/*-test.log "$TOP"/build/logs/*-scale.log "$TOP"/build/logs/*-debug.log \
	"$TOP"/build/logs/*-control.log "$TOP"/build/logs/*-absent.log
stage suite-ours
MEM=1G NODES=2 APPEND="ZC_RACE_SECONDS=${ZC_RACE_SECONDS:-12}${ZC_PROVOKE_WARN:+ ZC_PROVOKE_WARN=1}" \
	"$TOP/scripts/boot.sh" ours test || true
logs="$logs $TOP/build/logs/ours-test.log"

# Data integrity at scale: a 4 GiB guest, 100 compactions. Node 0 gets
# 1 MiB more than node 1, so that the node boundary falls inside a
# pageblock (guest/tests/layout.c checks that it does, and the zones on both
# sides of it)
stage integrity-4g
MEM=4G NODES=2 NODE_SKEW_MB=1 DISK_MB=2048 APPEND="ZC_INTEGRITY_RUNS=100" \
	"$TOP/scripts/boot.sh" ours scale || true
logs="$logs $TOP/build/logs/ours-scale.log"

# The suite again under the debug kernel (KASAN, lockdep, DEBUG_VM,
# DEBUG_PAGEALLOC, DEBUG_LIST), with shorter races. It runs ~3x slower
# under TCG, so it runs guest/suites/debug.list: every program that exercises a
# different path of the engine (compact_node, direct compaction, mlocked
# pages, deferral, the races, hostile input, the tree's selftest), not
# disk, sysctl_input (hostile covers it), integrity (ours runs it at
# 1 and 4 GiB) and direct (the OOM and full-memory runs take most of
# its time). ZC_DEBUG=full runs the whole suite, ZC_DEBUG=0 skips it.
if [ "${ZC_DEBUG:-1}" != 0 ]; then
	suite=debug
	[ "${ZC_DEBUG:-1}" = full ] && suite=test
	stage build-debug
	"$TOP/scripts/build.sh" debug
	stage suite-debug
	MEM=1G NODES=2 NODE_SKEW_MB=1 TIMEOUT=2400 APPEND="ZC_RACE_SECONDS=${ZC_DEBUG_RACE_SECONDS:-10} ZC_TEST_TIMEOUT=1200" \
		"$TOP/scripts/boot.sh" debug $suite || true
	logs="$logs $TOP/build/logs/debug-$suite.log"
fi

stage bench-check
"$TOP/bench/seed-check.sh" > "$TOP/build/logs/bench-check.log" || true
cat "$TOP/build/logs/bench-check.log"
# the guest's own log too: its KTAP and any splat during the benchmark
logs="$logs $TOP/build/logs/bench-check.log $TOP/build/bench-check/ours-1.log"

stage thp-check
"$TOP/bench/thp-check.sh" > "$TOP/build/logs/thp-check.log" || true
cat "$TOP/build/logs/thp-check.log"
logs="$logs $TOP/build/logs/thp-check.log $TOP/build/thp-check/ours-madvise-1.log"

# Negative controls: a guest in which lkdtm provokes one WARN must fail
# the report, or a clean report above would prove nothing; and so must a
# program that leaves a setting changed (guest/tests/drift.c), which the
# runner writes back before the next program (guest/tests/drift_after.c).
stage negative-control
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
	echo "    1..4"
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
	drift=$(echo "$out" | grep -a '^FAIL drift: ' | grep -a 'left settings changed' | head -1)
	back=$(tr -d '\r' < "$ctl" | grep -a '# runner: left changed: .*written back' | head -1 | sed 's/^ *# //')
	if [ -n "$drift" ] && [ -n "$back" ]; then
		echo "    ok 3 control_drift_fails: report.sh: $drift; $back"
	else
		echo "    not ok 3 control_drift_fails: no failure of drift for a setting left changed, or not written back"
	fi
	if echo "$out" | grep -aq '^FAIL drift_after' || ! tr -d '\r' < "$ctl" | grep -aq '^ *ok 1 drift_restored'; then
		echo "    not ok 4 control_drift_restored: drift_after did not find the setting restored"
	else
		echo "    ok 4 control_drift_restored: $(tr -d '\r' < "$ctl" | grep -a '^ *ok 1 drift_restored' | sed 's/^ *ok 1 //')"
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
stage absent
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

stage ""
total=$(( $(date +%s) - t0 ))
echo "# stage seconds"
printf '%s' "$stages" | awk '{ printf "#   %-18s %5d\n", $1, $2 }'
echo "#   total              $(printf '%5d' "$total")"
# The contract: a cold make test within 40 minutes
[ "$total" -le 2400 ] || echo "# WARNING: make test took $((total / 60)) minutes, over the 40 of the contract"
say "report (${total}s in all, linux-source-6.1 $(pkg_version))"
ZC_SKIPS=$TOP/guest/expected-skips "$TOP/scripts/report.sh" $logs
