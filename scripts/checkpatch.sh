#!/bin/sh
# Run the tree's scripts/checkpatch.pl --strict on every patch of the series:
# errors and warnings anywhere, and --strict's checks on mm/ files, fail.
# Prints one KTAP result line per patch (indented, for host-checks.sh) and
# checkpatch's complaints; exit 1 if any patch has an error or warning.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,5p' "$0"; exit 0 ;; esac
[ -f "$TREE/scripts/checkpatch.pl" ] || "$TOP/scripts/tree.sh" >&2

n=0
bad=0
for p in "$TOP"/patches/0*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	# spdxcheck.py needs python3-ply: use the system python3, not a local one
	# --strict: its CHECKs count for the files under mm/ (trace event
	# headers and include/linux/compaction.h keep their own layout);
	# errors and warnings count everywhere
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl -q --strict --no-summary "$p" 2>&1 |
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /^(ERROR|WARNING)/ || (/^CHECK/ && /FILE: mm\//) { print }' || true)
	if [ -z "$out" ]; then
		echo "    ok $n checkpatch $(basename "$p")"
	else
		echo "    not ok $n checkpatch $(basename "$p")"
		printf '%s\n' "$out" | sed 's/^/    # /'
		bad=1
	fi
done
exit $bad
