#!/bin/sh
# The peer is 6.1: mainline and vanilla are built from the series tree,
# so show that the series leaves them as 6.1 is. In the bisect worktree,
# build mm/ of each variant at "base" and at the series' last patch, with
# the same configuration fragments, and compare the code of every
# function of every object (objdump -d without addresses or raw bytes,
# branch and call targets by symbol, so that a function that only moved
# within its file compares equal) and the symbols its relocations name.
# A function that differs, or exists at one end only, must be one a
# patch says it changes, listed in EXPECTED below with the reason; any
# other difference, or an expected one that is not there any more,
# fails. vanilla is built with THP off at both ends: at
# base THP selects COMPACTION, and a vanilla kernel cannot have it.
# Prints KTAP; exit 1 on any failure.
# usage: peer-check.sh    (env: PEER_VARIANTS "mainline vanilla", KSRC_CACHE,
#        PEER_BUILD=0: compare the objects an earlier run built)
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,12p' "$0"; exit 0 ;; esac
PV=${PEER_VARIANTS:-mainline vanilla}

# "variant object:function: why" a patch changes it under that config
EXPECTED="
mainline mm/vmscan.o:shrink_node_slab: patch 17 (mm/vmscan: add shrink_node_slab()) takes drop_slab_node()'s loop over the memcgs into a function of its own; drop_slab_node(), which now calls it, compiles as before
mainline mm/page_alloc.o:__alloc_pages_slowpath.constprop.0: patch 9 sets can_compact to gfp_compaction_allowed() || zone_compaction_allowed(), the second constant false without ZONE_COMPACTION; gcc's code for the function differs by a few instructions (a register swap, a zero store to a stack slot, one jump); the source logic is unchanged
vanilla mm/vmscan.o:shrink_node_slab: patch 17, as for mainline
"

"$TOP/scripts/tree.sh" >&2
W=$KSRC_CACHE/bisect
if [ ! -d "$W" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$W" base
fi
head=$(git -C "$TREE" rev-parse series)
LOGS=$TOP/build/logs/peer
mkdir -p "$LOGS"
NOTHP=$LOGS/nothp.config
echo "# CONFIG_TRANSPARENT_HUGEPAGE is not set" > "$NOTHP"

# build VARIANT END: mm/ of VARIANT at END (base or head) into
# $KSRC_CACHE/peer-VARIANT-END, one object list and dump per object
build() {
	v=$1 end=$2 out=$KSRC_CACHE/peer-$1-$2 log=$LOGS/$1-$2.log
	rev=base
	[ "$end" = head ] && rev=$head
	if [ "${PEER_BUILD:-1}" = 0 ] && [ -d "$out/mm" ]; then
		say "peer: $v at $end: the objects built before"
	else
		git -C "$W" am --abort >/dev/null 2>&1 || true
		git -C "$W" checkout -q -f --detach "$rev"
		git -C "$W" clean -q -fdx
		frags="$TOP/configs/base.config $TOP/configs/$v.config"
		[ "$v" = vanilla ] && frags="$frags $NOTHP"
		mkdir -p "$out"
		say "peer: $v at $end: mm/"
		{ make -C "$W" -s O="$out" tinyconfig &&
		  "$W/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
		  make -C "$W" -s O="$out" olddefconfig &&
		  make -C "$W" O="$out" CC="$(kernel_cc)" -j"$(( $(nproc) + 1 ))" mm/; } >"$log" 2>&1 ||
			die "peer: $v at $end does not build, see $log"
	fi
	rm -rf "$out/.dump"
	mkdir -p "$out/.dump"
	(cd "$out" && find mm -name '*.o' ! -name 'built-in.a' ! -name '*.mod.o' | sort) > "$out/.objects"
	while read -r o; do
		d=$out/.dump/$(echo "$o" | tr / _)
		# One line a function: its name, then its instructions without
		# addresses or bytes, targets by symbol; sorted by name
		objdump -d --no-show-raw-insn "$out/$o" | tail -n +4 |
			awk '/^[0-9a-f]+ <[^>]+>:$/ { if (name != "") print name "\t" body; name = $2; body = ""; next }
			     NF { sub(/^ *[0-9a-f]+:\t/, ""); gsub(/[0-9a-f]+ </, "<"); body = body ";" $0 }
			     END { if (name != "") print name "\t" body }' | sort > "$d.fn"
		objdump -r "$out/$o" | awk 'NF == 3 && $1 ~ /^[0-9a-f]+$/ { sub(/[-+]0x[0-9a-f]+$/, "", $3); print $2, $3 }' | sort > "$d.rel"
	done < "$out/.objects"
}

echo "TAP version 13"
echo "1..$(echo $PV | wc -w)"
n=0 failed=0
for v in $PV; do
	n=$((n + 1))
	build "$v" base
	build "$v" head
	a=$KSRC_CACHE/peer-$v-base b=$KSRC_CACHE/peer-$v-head
	echo "# zc-run: peer-$v"
	# The configurations: only the series' own option may differ
	cdiff=$(diff "$a/.config" "$b/.config" | grep '^[<>] ' | grep -v 'ZONE_COMPACTION' || true)
	same=0 diffs="" nfn=0
	objs=$(sort -u "$a/.objects" "$b/.objects")
	for o in $objs; do
		d=$(echo "$o" | tr / _)
		if ! grep -qx "$o" "$a/.objects" || ! grep -qx "$o" "$b/.objects"; then
			diffs="$diffs $o(only-at-$(grep -qx "$o" "$a/.objects" && echo base || echo head))"
			continue
		fi
		nfn=$((nfn + $(wc -l < "$b/.dump/$d.fn")))
		if cmp -s "$a/.dump/$d.fn" "$b/.dump/$d.fn" && cmp -s "$a/.dump/$d.rel" "$b/.dump/$d.rel"; then
			same=$((same + 1))
			continue
		fi
		# The functions that differ or are at one end only
		fns=$(diff "$a/.dump/$d.fn" "$b/.dump/$d.fn" | sed -n 's/^[<>] \([^\t]*\)\t.*/\1/p' | tr -d '<>:' | sort -u)
		for fn in $fns; do diffs="$diffs $o:$fn"; done
		# Relocations that differ where no function does
		[ -n "$fns" ] || cmp -s "$a/.dump/$d.rel" "$b/.dump/$d.rel" || diffs="$diffs $o:(relocations)"
		diff "$a/.dump/$d.fn" "$b/.dump/$d.fn" | tr ';' '\n' > "$LOGS/$v-$d.diff" || true
	done
	nobj=$(echo "$objs" | wc -w)
	echo "    1..3"
	if [ -z "$cdiff" ]; then
		echo "    ok 1 ${v}_config: base and head give the same .config but for CONFIG_ZONE_COMPACTION"
	else
		echo "    not ok 1 ${v}_config: the .config differs: $(echo "$cdiff" | tr '\n' ' ')"
	fi
	unexpected=""
	for o in $diffs; do
		echo "$EXPECTED" | grep -q "^$v $o:" || unexpected="$unexpected $o"
	done
	missing=""
	for o in $(echo "$EXPECTED" | awk -v v="$v" '$1 == v { sub(/:$/, "", $2); print $2 }'); do
		case " $diffs " in *" $o "*) ;; *) missing="$missing $o" ;; esac
	done
	if [ -z "$unexpected" ]; then
		echo "    ok 2 ${v}_code: $same of $nobj mm/ objects identical ($nfn functions: code without addresses, relocation symbols); differing functions, each as a patch says:${diffs:- none}"
	else
		echo "    not ok 2 ${v}_code: $same of $nobj identical; differing where no patch says so:$unexpected (diffs in build/logs/peer/)"
	fi
	if [ -z "$missing" ]; then
		echo "    ok 3 ${v}_expected: every difference EXPECTED lists is there"
	else
		echo "    not ok 3 ${v}_expected: listed as changed but identical:$missing (drop them from EXPECTED)"
	fi
	echo "$EXPECTED" | awk -v v="$v" '$1 == v { $1 = ""; print "    #" $0 }'
	if [ -z "$cdiff$unexpected$missing" ]; then
		echo "ok $n peer-$v"
	else
		echo "not ok $n peer-$v"
		failed=$((failed + 1))
	fi
done
git -C "$W" checkout -q -f --detach base
echo "# zc-done"
[ "$failed" = 0 ]
