#!/bin/sh
# Stage 7: the report.  Parses the KTAP of each serial log given and ends
# with "N passed, N failed, N skipped".  A result that is missing because
# the guest died, timed out or a test never finished is a failure, never a
# skip; so is a kernel splat anywhere in a log, and a program that
# exits 0 without printing a result.  With ZC_SKIPS=FILE, a skip that no
# line of FILE expects is a failure too (FILE: "program<TAB>text the
# skip's line contains<TAB>why", # comments).  Exit 1 on any failure.
# usage: [ZC_SKIPS=FILE] report.sh LOG...
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,6p' "$0"; exit 0 ;; esac


for log in "$@"; do
	[ -f "$log" ] || { echo "FAIL $log: no such log"; echo "#counts 0 1 0"; continue; }
	tr -d '\r' < "$log" | awk -v logf="$log" -v splats="$SPLATS" -v kline="$KLINE" '
	function leaf(line, name) {
		name = line
		sub(/^ *(not )?ok [0-9]+ */, "", name)
		if (line ~ /# SKIP/) { skip++; print "SKIP " prog ": " name }
		else if (line ~ /^ *not ok/) { fail++; pfail++; print "FAIL " prog ": " name }
		else { pass++ }
		nleaf++
	}
	/^TAP version/ { tap = 1; next }
	/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
	/^# zc-run: / { prog = substr($0, 11); nleaf = 0; subplan = 0; pfail = 0; skipwhy = ""; inprog = 1; next }
	/^    1\.\.[0-9]+/ {
		if (!inprog) next
		subplan = substr($1, 4) + 0
		if ($0 ~ /# SKIP/) skipwhy = substr($0, index($0, "# SKIP") + 7)
		next
	}
	/^    (not )?ok [0-9]+/ { if (inprog) leaf($0); next }
	/^(not )?ok [0-9]+ / {
		if (!inprog) next
		if (subplan > nleaf) {
			fail += subplan - nleaf
			print "FAIL " prog ": " subplan - nleaf " results missing (plan " subplan ")"
		}
		if ($0 ~ /^not ok/ && pfail == 0 && subplan <= nleaf) {
			fail++; print "FAIL " prog ": " $0
		}
		# A skip must say why: in its own "1..0 # SKIP why" or after
		# the "# SKIP" of its result line
		why = ($0 ~ /# SKIP ./) ? substr($0, index($0, "# SKIP") + 7) : skipwhy
		if (nleaf == 0 && subplan == 0 && $0 ~ /# SKIP/ && why != "") {
			skip++; print "SKIP " prog ": " why
		} else if (nleaf == 0 && subplan == 0 && $0 ~ /# SKIP/) {
			fail++; print "FAIL " prog ": skipped without saying why"
		} else if (nleaf == 0 && subplan == 0 && $0 !~ /^not ok/) {
			fail++; print "FAIL " prog ": exited 0 but printed no results"
		}
		done++; inprog = 0; next
	}
	/^# zc-done/ { finished = 1; next }
	# One failure for each program (or the boot) a kernel splat came in
	$0 ~ kline && $0 ~ splats && !splatted[inprog ? prog : "boot"]++ {
		fail++
		print "FAIL splat in " logf " during " (inprog ? prog : "boot") ": " $0
	}
	END {
		if (!tap) { fail++; print "FAIL " logf ": guest printed no KTAP (boot failed?)" }
		else {
			if (inprog) {
				fail++
				print "FAIL " prog ": did not finish (guest died or timed out), see " logf
			}
			if (plan > done + inprog) {
				fail += plan - done - inprog
				print "FAIL " logf ": " plan - done - inprog " test programs never ran"
			}
			if (!finished && !inprog && plan <= done) {
				fail++; print "FAIL " logf ": guest did not reach the end of the suite"
			}
		}
		print "#counts " pass + 0 " " fail + 0 " " skip + 0
	}'
done | awk -F'\t' -v skips="${ZC_SKIPS:-}" '
	BEGIN {
		while (skips != "" && (getline l < skips) > 0) {
			if (l ~ /^#/ || l !~ /\t/) continue
			split(l, e, "\t"); ne++; EP[ne] = e[1]; ET[ne] = e[2]
		}
	}
	/^#counts / { split($0, n, " "); p += n[2]; f += n[3]; s += n[4]; logs++; next }
	# "SKIP prog: why": expected when a line of ZC_SKIPS names prog and
	# part of why
	skips != "" && /^SKIP / {
		prog = substr($0, 6, index($0, ": ") - 6)
		for (i = 1; i <= ne; i++)
			if (EP[i] == prog && index($0, ET[i])) break
		if (i > ne) { s--; f++; print "FAIL unexpected skip (not in " skips "): " substr($0, 6); next }
	}
	{ print }
	END {
		if (!logs) { print "FAIL report: no log was parsed"; f++ }
		line = p + 0 " passed, " f + 0 " failed"
		if (s) line = line ", " s " skipped"
		print line
		exit f > 0
	}'
