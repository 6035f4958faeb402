#!/bin/sh
# Developer helper: write the commits base..series of the cache tree to
# patches/ as git format-patch output, with the cover letter's subject and
# text taken from doc/cover-letter.txt (first line: subject).
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) echo "usage: $0"; exit 0 ;; esac

cd "$TREE"
[ -z "$(git status --porcelain --untracked-files=no)" ] || die "tree has uncommitted changes"
rm -f "$TOP"/patches/*.patch
git -c user.name="Zone Compaction Developers" \
	-c user.email="maintainers@users.noreply.a-seed-2e5f1848.example" \
	format-patch -q --cover-letter --no-signature --zero-commit \
	--base=base --subject-prefix="${ZC_PREFIX:-PATCH v2}" \
	-o "$TOP/patches" base..series
COVER=$TOP/patches/0000-cover-letter.patch
subject=$(head -1 "$TOP/doc/cover-letter.txt")
tail -n +3 "$TOP/doc/cover-letter.txt" > "$KSRC_CACHE/blurb.txt"
awk -v subj="$subject" -v blurb="$KSRC_CACHE/blurb.txt" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < blurb) > 0) print l; next }
	{ print }' "$COVER" > "$COVER.new"
mv "$COVER.new" "$COVER"
rm -f "$KSRC_CACHE/blurb.txt"
# The tree already is what the patches describe: record it as applied.
cat $(ls "$TOP"/patches/0*.patch | grep -v '/0000-cover-letter.patch$') |
	sha256sum | cut -d' ' -f1 > .git/series-hash
git rev-parse HEAD > .git/series-head
ls "$TOP/patches"
