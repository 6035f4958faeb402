#!/bin/sh
# Stage 1: the kernel tree.  Installs linux-source-6.1 if missing, extracts it
# into $KSRC_CACHE/linux as a git repo with a pristine "base" commit, and
# applies patches/0*.patch (not the cover letter) with git am onto branch
# "series".  Re-running with an unchanged series does nothing; a changed
# series is re-applied from base.  Files whose content did not change keep
# their old mtime, so incremental builds stay incremental.
set -eu
. "$(dirname "$0")/lib.sh"

case "${1:-}" in
-h|--help)
	echo "usage: $0    (env: KSRC_CACHE=$KSRC_CACHE)"
	echo "Prepare the 6.1 tree and apply the series from $TOP/patches."
	exit 0 ;;
esac

TARBALL=/usr/src/linux-source-6.1.tar.xz
if [ ! -f "$TARBALL" ]; then
	say "installing linux-source-6.1 with apt"
	apt-get install -y --no-install-recommends linux-source-6.1 >/dev/null ||
		die "apt-get install linux-source-6.1 failed"
fi
VERSION=$(pkg_version)
say "linux-source-6.1 $VERSION"

mkdir -p "$KSRC_CACHE"
# A tree extracted from another version of linux-source-6.1 is stale:
# extract it again (work in it that is not in patches/ is kept unless
# ZC_RESET=1, as below)
if [ -f "$TREE/.git/base-done" ] && [ "$(cat "$TREE/.git/base-done")" != "$VERSION" ]; then
	if [ -z "${ZC_RESET:-}" ] && [ -f "$TREE/.git/series-head" ] &&
	   { [ "$(git -C "$TREE" rev-parse HEAD)" != "$(cat "$TREE/.git/series-head")" ] ||
	     [ -n "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; }; then
		die "$TREE is from linux-source-6.1 $(cat "$TREE/.git/base-done") and has local work; export it with scripts/export-series.sh, or set ZC_RESET=1"
	fi
	say "the tree is from linux-source-6.1 $(cat "$TREE/.git/base-done"), the package is $VERSION: extracting again"
	rm -f "$TREE/.git/base-done"
	# every build directory holds objects of the old source
	rm -rf "$KSRC_CACHE"/build-*
fi
if [ ! -f "$TREE/.git/base-done" ]; then
	t0=$(date +%s)
	rm -rf "$TREE" "$KSRC_CACHE/extract"
	mkdir -p "$KSRC_CACHE/extract"
	say "extracting $TARBALL (about a minute)"
	tar -C "$KSRC_CACHE/extract" -xf "$TARBALL"
	mv "$KSRC_CACHE/extract/linux-source-6.1" "$TREE"
	rmdir "$KSRC_CACHE/extract"
	say "committing the pristine tree as 'base'"
	cd "$TREE"
	git init -q
	git config user.name "zone-compaction harness"
	git config user.email "harness@localhost"
	git config gc.auto 0
	git add -A -f
	# A fixed date makes the commit, and so the series' base-commit
	# line, the same on every machine for the same package version
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
		git commit -q -m "linux-source-6.1 $VERSION"
	git tag -f base >/dev/null
	git checkout -q -b series
	echo "$VERSION" > .git/base-done
	say "tree ready in $(( $(date +%s) - t0 ))s"
fi
cd "$TREE"

PATCHES=$(ls "$TOP"/patches/0*.patch 2>/dev/null | grep -v '/0000-cover-letter.patch$' || true)
want=$(cat $PATCHES /dev/null | sha256sum | cut -d' ' -f1)
have=$(cat .git/series-hash 2>/dev/null || true)
if [ "$want" = "$have" ]; then
	say "series unchanged ($(echo "$PATCHES" | grep -c . || true) patches), tree up to date"
	[ "$(git rev-parse HEAD)" = "$(cat .git/series-head 2>/dev/null)" ] &&
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		say "note: the tree has local work beyond patches/; it is what gets built"
	exit 0
fi

old=$(git rev-parse -q --verify HEAD)
# Never throw away work done in the tree itself: commits or edits that are
# not what the last application of patches/ produced.
if [ -z "${ZC_RESET:-}" ] && [ -f .git/series-head ] &&
   { [ "$old" != "$(cat .git/series-head)" ] ||
     [ -n "$(git status --porcelain --untracked-files=no)" ]; }; then
	die "$TREE has local commits or changes; export them with scripts/export-series.sh, or set ZC_RESET=1 to discard them"
fi
mtimes=$KSRC_CACHE/mtimes.$$
git diff --name-only base "$old" | while read -r f; do
	[ -f "$f" ] && stat -c '%Y %n' "$f"
done > "$mtimes"
say "applying $(echo "$PATCHES" | grep -c . || true) patches onto base"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f -B series base
for p in $PATCHES; do
	if ! out=$(git am -q "$p" 2>&1); then
		say "patch does not apply: $(basename "$p")"
		printf '%s\n' "$out" >&2
		git am --abort >/dev/null 2>&1 || true
		git reset -q --hard base
		rm -f .git/series-hash
		exit 1
	fi
	say "  applied $(basename "$p")"
done

# Files the old series already had, byte for byte, get their old mtime back.
changed=$(git diff --name-only "$old" HEAD)
while read -r t f; do
	[ -f "$f" ] || continue
	echo "$changed" | grep -qxF "$f" || touch -d "@$t" "$f"
done < "$mtimes"
rm -f "$mtimes"
echo "$want" > .git/series-hash
git rev-parse HEAD > .git/series-head
say "series applied: $(git log --oneline base..HEAD | wc -l) commits on branch series"
