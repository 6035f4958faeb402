#!/bin/sh
# Developer helper: replace the message of one commit of the cache tree's
# series with the text of MSGFILE, without touching the work tree (so no
# file's mtime changes and nothing is rebuilt). Then run export-series.sh.
# usage: reword.sh COMMIT MSGFILE
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help|"") sed -n '2,5p' "$0"; exit 0 ;; esac
target=$(git -C "$TREE" rev-parse "$1")
msg=$(realpath "$2")
cd "$TREE"
git merge-base --is-ancestor "$target" HEAD || die "$1 is not in the series"
parent=$(git rev-parse "$target^")
for c in $(git rev-list --reverse "$target^..HEAD"); do
	if [ "$c" = "$target" ]; then f=$msg; else f=$(mktemp); git log -1 --format=%B "$c" > "$f"; fi
	parent=$(GIT_AUTHOR_NAME="$(git log -1 --format=%an "$c")" \
		GIT_AUTHOR_EMAIL="$(git log -1 --format=%ae "$c")" \
		GIT_AUTHOR_DATE="$(git log -1 --format=%ad "$c")" \
		git commit-tree "$(git rev-parse "$c^{tree}")" -p "$parent" -F "$f")
	[ "$f" = "$msg" ] || rm -f "$f"
done
git update-ref -m "reword $1" "$(git symbolic-ref HEAD)" "$parent"
say "reworded $(git log -1 --format=%s "$target"); series head now $(git rev-parse --short HEAD)"
