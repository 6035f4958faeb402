#!/bin/sh
# Run the tree's scripts/checkpatch.pl on every patch of the series.
# Prints one KTAP result line per patch (indented, for host-checks.sh) and
# checkpatch's complaints; exit 1 if any patch has an error or warning.
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,4p' "$0"; exit 0 ;; esac
[ -f "$TREE/scripts/checkpatch.pl" ] || "$TOP/scripts/tree.sh" >&2

n=0
bad=0
for p in "$TOP"/patches/0*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	# spdxcheck.py needs python3-ply: use the system python3, not a local one
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl -q --no-summary "$p" 2>&1 || true)
	if [ -z "$out" ]; then
		echo "    ok $n checkpatch $(basename "$p")"
	else
		echo "    not ok $n checkpatch $(basename "$p")"
		printf '%s\n' "$out" | sed 's/^/    # /'
		bad=1
	fi
done
exit $bad
