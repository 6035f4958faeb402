#!/bin/sh
# make test: tree, series, build ours, initramfs, host checks, boot ours
# with the guest suite, report.  Ends with "N passed, N failed".
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,3p' "$0"; exit 0 ;; esac

t0=$(date +%s)
"$TOP/scripts/build.sh" ours
"$TOP/scripts/initramfs.sh"
mkdir -p "$TOP/build/logs"
say "host checks"
"$TOP/scripts/host-checks.sh" > "$TOP/build/logs/host.log"
cat "$TOP/build/logs/host.log"
logs="$TOP/build/logs/host.log"

MEM=1G NODES=2 "$TOP/scripts/boot.sh" ours test || true
logs="$logs $TOP/build/logs/ours-test.log"

say "report ($(( $(date +%s) - t0 ))s in all, linux-source-6.1 $(pkg_version))"
"$TOP/scripts/report.sh" $logs
