#!/bin/sh
# The benchmarks' reporters and judges on canned data (bench/fixtures/),
# in seconds, as KTAP for report.sh (make test runs it with the host
# checks). Each reporter must turn its fixture into exactly the tables
# and CSV of its expected-* files, and must refuse (exit 3) a fixture
# whose data lacks a field it needs; each judge must pass its pass/
# fixture and reject every fail-*/ one; the percentile rule is checked
# on known lists. After a deliberate change of a report, regenerate the
# expected files with: bench/selftest.sh --update
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,9p' "$0"; exit 0 ;; esac
F=$TOP/bench/fixtures
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

n=0
ok() { n=$((n + 1)); printf "    ok %d %s\n" "$n" "$*"; }
nok() { n=$((n + 1)); printf "    not ok %d %s\n" "$n" "$*"; }

# The reporters, on a directory
seed_report() { "$TOP/bench/seed-report.sh" "$1" vanilla mainline ours; }
thp_report() { "$TOP/bench/thp-report.sh" "$1" "vanilla mainline ours" madvise; }
idle_report() { "$TOP/bench/idle-report.sh" "$1" vanilla mainline ours; }

# report NAME FUNC: run reporter FUNC on a copy of fixtures/NAME, compare
# summary.md and runs.csv with fixtures/NAME/expected-*
report() {
	name=$1
	shift
	rm -rf "$W/$name"
	cp -r "$F/$name" "$W/$name"
	rm -f "$W/$name"/expected-*
	if ! "$@" "$W/$name" >"$W/$name.out" 2>&1; then
		nok "${name}_report: exit status $?: $(tail -1 "$W/$name.out")"
		return
	fi
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$W/$name/summary.md" "$F/$name/expected-summary.md"
		cp "$W/$name/runs.csv" "$F/$name/expected-runs.csv"
	fi
	bad=$(awk -F, 'NR == 1 { n = NF; next } NF != n { print FILENAME ": line " FNR " has " NF " fields, the header " n; exit }' "$W/$name/runs.csv")
	if [ -n "$bad" ]; then
		nok "${name}_report: $bad"
	elif ! diff -u "$F/$name/expected-summary.md" "$W/$name/summary.md" > "$W/$name.diff" ||
	     ! diff -u "$F/$name/expected-runs.csv" "$W/$name/runs.csv" >> "$W/$name.diff"; then
		nok "${name}_report: the tables differ from fixtures/$name/expected-*"
		sed 's/^/    # /' "$W/$name.diff" | head -40
	else
		ok "${name}_report: summary.md and runs.csv as expected ($(grep -c . "$W/$name/runs.csv") CSV lines)"
	fi
}

# broken NAME FILES SED CMD...: the fixture with SED applied to FILES (a
# glob) must make the reporter exit 3, naming the missing field
broken() {
	name=$1 file=$2 expr=$3
	shift 3
	rm -rf "$W/$name-broken"
	cp -r "$F/$name" "$W/$name-broken"
	for f in "$W/$name-broken"/$file; do sed -i "$expr" "$f"; done
	if "$@" "$W/$name-broken" >"$W/$name-broken.out" 2>&1; then rc=0; else rc=$?; fi
	if [ "$rc" = 3 ] && grep -q 'no \(field\|column\)' "$W/$name-broken.out"; then
		ok "${name}_report_refuses: $file with '$expr': exit 3, $(grep -m1 'no \(field\|column\)' "$W/$name-broken.out" | sed "s|$W/||")"
	else
		nok "${name}_report_refuses: $file with '$expr': exit $rc, want 3 and a missing field named"
	fi
}

# judge NAME: fixtures/NAME/pass must pass (exit 0), every
# fixtures/NAME/fail-* be rejected: fail-columns, whose runs.csv lacks a
# column the judge reads, with exit 3 naming it, the others with exit 1
# and a "not ok" line
judge() {
	for d in "$F/$1"/pass "$F/$1"/fail-*; do
		case "$d" in
		*/pass) want=0 ;;
		*/fail-columns) want=3 ;;
		*) want=1 ;;
		esac
		if out=$("$TOP/bench/$1.sh" "$d" 2>&1); then rc=0; else rc=$?; fi
		line=$(echo "$out" | head -1 | sed 's/^ *//')
		if [ "$rc" = "$want" ] && { [ "$want" != 3 ] || echo "$out" | grep -q 'no column'; } &&
		   { [ "$want" != 1 ] || echo "$out" | grep -q '^ *not ok 1 '; }; then
			ok "$1 $(basename "$d"): exit $rc as it must: $line"
		else
			nok "$1 $(basename "$d"): exit $rc, want $want: $line"
		fi
	done
}

[ "${1:-}" = --update ] && UPDATE=1
echo "TAP version 13"
echo "1..1"
echo "# zc-run: bench-selftest"
echo "    1..15"
# Nearest rank: p50 of 1..100 is 50, p99 99; of 1..10, 5 and 10; of one value, it
got=$( { seq 1 100 | percentiles; seq 1 10 | percentiles; echo 7 | percentiles; printf '' | percentiles; } | tr '\n' '/')
if [ "$got" = "50 99 100/5 10 10/7 7 7/- - -/" ]; then
	ok "percentile_rule: nearest rank: $got"
else
	nok "percentile_rule: got $got, want 50 99 100/5 10 10/7 7 7/- - -/"
fi
report seed seed_report
# A data file whose step lines lack pgmigrate_success, a THP run line
# without huge: a report that read fields by position would go on
broken seed '*.csv' 's/^cols,step,\(.*\),pgmigrate_success,/cols,step,\1,/' seed_report
report thp thp_report
broken thp ours-madvise-1.csv 's/^cols,run,threads,ranges,huge,/cols,run,threads,ranges,served,/' thp_report
report idle idle_report
broken idle ours-p20-1.csv 's/^cols,alloc,kcompactd_ticks,kswapd_ticks,ms,/cols,alloc,kcompactd_ticks,kswapd_ticks,time,/' idle_report
judge seed-judge
judge thp-judge
echo "ok 1 bench-selftest"
echo "# zc-done"
