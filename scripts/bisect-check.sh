#!/bin/sh
# Every patch of the series builds and boots.  In a worktree of the tree
# at "base", apply patches/0*.patch one at a time and, after each one,
# build ours, mainline and vanilla (bzImage) and the mm/ of ours with CMA
# and memory hotplug (the cma variant), each incrementally in a build
# directory of its own with ccache; a build that fails or warns fails the
# patch.  After a patch that adds something a user can see, boot ours in
# QEMU (1 GiB, 2 nodes) and run the guest programs that apply from that
# patch on (BOOTS below); any failed result or kernel splat fails it.
# Prints KTAP: one line per patch, then a total.  Then, over the whole
# series, scripts/peer-check.sh: mainline's and vanilla's mm/ code at
# base and at the last patch is the same but where a patch says it is
# not.  Exit 1 on any failure.
# usage: bisect-check.sh
# env: BISECT_VARIANTS ("ours mainline vanilla cma"), BOOT (1; 0 builds only),
#      FIRST, LAST (patch numbers, 1..N), PEER (1; 0 leaves out peer-check.sh),
#      KSRC_CACHE
set -eu
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,18p' "$0"; exit 0 ;; esac

BVARIANTS=${BISECT_VARIANTS:-ours mainline vanilla cma}
BOOT=${BOOT:-1}
for v in $BVARIANTS; do
	case "$v" in ours|mainline|vanilla|cma) ;;
	*) echo "BISECT_VARIANTS: '$v' is not one of ours mainline vanilla cma" >&2; exit 2 ;;
	esac
done

# The guest programs that apply from a patch on, by the start of its
# subject: they use only what that patch and the ones before it add.
# Each boot runs the suite guest/suites/bisect-<name>.list.
BOOTS="
mm/vmstat: export the fragmentation index|indices
mm/zone_compaction: add the compaction engine|engine
mm/zone_compaction: add compact_memory|engine
mm/zone_compaction: migrate unevictable pages|unevictable
mm/zone_compaction: compact directly|direct
mm/zone_compaction: pause direct compaction|deferral
mm/zone_compaction: add a KUnit suite|kunit
mm/zone_compaction: one last thorough try|lasttry
mm: let TRANSPARENT_HUGEPAGE build|thp
mm/zone_compaction: compact proactively|daemon
"

[ -f "$TREE/.git/base-done" ] || "$TOP/scripts/tree.sh" >&2
PATCHES=$(ls "$TOP"/patches/0*.patch | grep -v '/0000-cover-letter.patch$')
N=$(echo "$PATCHES" | grep -c .)
FIRST=${FIRST:-1}
LAST=${LAST:-$N}
case "$FIRST$LAST" in *[!0-9]*) die "FIRST and LAST must be patch numbers" ;; esac
[ "$FIRST" -ge 1 ] && [ "$LAST" -le "$N" ] && [ "$FIRST" -le "$LAST" ] ||
	die "FIRST..LAST must lie within 1..$N"

W=$KSRC_CACHE/bisect
if [ ! -d "$W" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$W" base
fi
git -C "$W" am --abort >/dev/null 2>&1 || true
git -C "$W" checkout -q -f --detach base
git -C "$W" clean -q -fdx
mkdir -p "$TOP/build/logs/bisect"
LOGS=$TOP/build/logs/bisect
# The guest programs, and the bisect-*.list suites, of this checkout
[ "$BOOT" = 1 ] && "$TOP/scripts/initramfs.sh" >&2

# Before the THP patch, TRANSPARENT_HUGEPAGE selects COMPACTION, which a
# zone compaction kernel (and a vanilla one) cannot have: there, every
# variant is built with THP off, as the harness built them before.
NOTHP=$LOGS/nothp.config
echo "# CONFIG_TRANSPARENT_HUGEPAGE is not set" > "$NOTHP"

# build VARIANT: configure and build in $KSRC_CACHE/bisect-VARIANT; the
# variant's compactor options must hold, and nothing may warn
build() {
	v=$1 out=$KSRC_CACHE/bisect-$1 log=$LOGS/$i-$1.log
	frags="$TOP/configs/base.config $TOP/configs/$v.config"
	grep -q 'select COMPACTION' "$W/mm/Kconfig" && frags="$frags $NOTHP"
	mkdir -p "$out"
	{ make -C "$W" -s O="$out" tinyconfig &&
	  "$W/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
	  make -C "$W" -s O="$out" olddefconfig; } >"$log" 2>&1 || return 1
	case "$v" in
	ours|cma) want="CONFIG_ZONE_COMPACTION=y" not="CONFIG_COMPACTION=y" ;;
	mainline) want="CONFIG_COMPACTION=y" not="CONFIG_ZONE_COMPACTION=y" ;;
	vanilla) want="" not="CONFIG_COMPACTION=y" ;;
	esac
	[ -z "$want" ] || grep -qx "$want" "$out/.config" || { echo "$want did not hold" >>"$log"; return 1; }
	! grep -qx "$not" "$out/.config" || { echo "$not is set" >>"$log"; return 1; }
	[ "$v" != vanilla ] || ! grep -qx "CONFIG_ZONE_COMPACTION=y" "$out/.config" ||
		{ echo "CONFIG_ZONE_COMPACTION is set" >>"$log"; return 1; }
	target=bzImage
	[ "$v" = cma ] && target=mm/
	make -C "$W" O="$out" CC="$(kernel_cc)" -j"$(( $(nproc) + 1 ))" $target >>"$log" 2>&1 || return 1
	# tinyconfig's merge reports choice overrides as warnings: not ours
	! grep -v 'warning: override:' "$log" | grep -q 'warning:'
}

echo "TAP version 13"
echo "1..$(( LAST - FIRST + 1 ))"
t0=$(date +%s)
passed=0 failed=0 booted=0 i=0
for p in $PATCHES; do
	i=$(( i + 1 ))
	[ "$i" -le "$LAST" ] || break
	git -C "$W" am -q "$p" >"$LOGS/$i-am.log" 2>&1 || {
		echo "not ok $i - $(basename "$p") does not apply"
		failed=$(( failed + 1 )); break
	}
	[ "$i" -ge "$FIRST" ] || continue
	subj=$(git -C "$W" log -1 --format=%s)
	say "patch $i/$N: $subj"
	bad="" times=""
	for v in $BVARIANTS; do
		s=$(date +%s)
		if build "$v"; then
			times="$times $v $(( $(date +%s) - s ))s"
		else
			bad="$bad $v"
			times="$times $v FAILED"
		fi
	done
	suite=$(echo "$BOOTS" | while IFS='|' read -r prefix name; do
		[ -n "$prefix" ] || continue
		case "$subj" in "$prefix"*) echo "$name"; break ;; esac
	done || true)
	if [ "$BOOT" = 1 ] && [ -n "$suite" ] && [ -z "$bad" ]; then
		# boot.sh boots build/<variant>/bzImage: point a variant of
		# its own at this build
		mkdir -p "$TOP/build/bisect"
		cp "$KSRC_CACHE/bisect-ours/arch/x86/boot/bzImage" "$TOP/build/bisect/bzImage"
		blog=$LOGS/$i-boot-$suite.log
		s=$(date +%s)
		# node 0 1 MiB larger: the node boundary inside a pageblock,
		# as guest/tests/layout.c expects
		KERNEL=$TOP/build/bisect/bzImage LOG=$blog MEM=1G NODES=2 \
			NODE_SKEW_MB=1 TIMEOUT=1800 \
			"$TOP/scripts/boot.sh" ours "bisect-$suite" >/dev/null 2>&1 || true
		"$TOP/scripts/report.sh" "$blog" >"$blog.report" 2>&1 && rc=0 || rc=$?
		res=$(tail -1 "$blog.report")
		times="$times; boot bisect-$suite: $res ($(( $(date +%s) - s ))s)"
		booted=$(( booted + 1 ))
		[ "$rc" = 0 ] || bad="$bad boot"
	fi
	if [ -z "$bad" ]; then
		echo "ok $i - $subj #$times"
		passed=$(( passed + 1 ))
	else
		echo "not ok $i - $subj # failed:$bad;$times (logs: build/logs/bisect/$i-*.log)"
		failed=$(( failed + 1 ))
	fi
done
echo "# $passed passed, $failed failed; $booted boots; $(( $(date +%s) - t0 ))s"
peer=0
if [ "${PEER:-1}" = 1 ]; then
	"$TOP/scripts/peer-check.sh" > "$LOGS/peer.tap" && peer=0 || peer=1
	sed 's/^/# peer: /' "$LOGS/peer.tap"
fi
[ "$failed" = 0 ] && [ "$peer" = 0 ]
