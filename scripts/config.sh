#!/bin/sh
# Stage 3: the kernel configuration of one variant.
# tinyconfig + configs/base.config + configs/<variant>.config, then
# olddefconfig; fails naming any requested option olddefconfig dropped
# (merge_config.sh only warns).
set -eu
. "$(dirname "$0")/lib.sh"

variant_arg "${1:-}" "Writes \$KSRC_CACHE/build-VARIANT/.config and checks it."
V=$1

OUT=$KSRC_CACHE/build-$V
mkdir -p "$OUT"
# A variant "a-b" is configs/a.config plus configs/b.config
FRAGS="$TOP/configs/base.config"
for part in $(echo "$V" | tr '-' ' '); do
	FRAGS="$FRAGS $TOP/configs/$part.config"
done

cd "$TREE"
make -s O="$OUT" tinyconfig >/dev/null
./scripts/kconfig/merge_config.sh -m -O "$OUT" "$OUT/.config" $FRAGS >"$OUT/merge.log" 2>&1 ||
	{ cat "$OUT/merge.log" >&2; die "merge_config.sh failed"; }
make -s O="$OUT" olddefconfig >/dev/null

# Every option the fragments set must hold in the final .config; where
# two fragments set one, the later wins, as in merge_config.sh.
bad=0
last=$(cat $FRAGS | awk '
	/^CONFIG_[A-Za-z0-9_]*=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]* is not set$/ { o = $2 }
	o != "" { if (!(o in v)) ord[n++] = o; v[o] = $0; o = "" }
	END { for (i = 0; i < n; i++) print v[ord[i]] }')
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		opt=${line%%=*}
		grep -qxF "$line" "$OUT/.config" || {
			got=$(grep "^$opt=" "$OUT/.config" || echo "not set")
			say "$V: $opt requested as '${line#*=}' but is '${got#*=}'"
			bad=1
		} ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=[ym]" "$OUT/.config"; then
			say "$V: $opt requested off but is on"
			bad=1
		fi ;;
	esac
done <<EOF2
$last
EOF2
[ $bad -eq 0 ] || die "$V: requested options were dropped from .config"
say "$V: .config ok ($(grep -c '=y' "$OUT/.config") options built in)"
