# Shared settings for the host scripts: sourced, never run.
# KSRC_CACHE holds the kernel tree and the O= build dirs, outside the repo.
KSRC_CACHE=${KSRC_CACHE:-$HOME/.cache/zone-compaction}
TREE=$KSRC_CACHE/linux
TOP=$(cd "$(dirname "$0")/.." && pwd)
# ours-irqsoff and mainline-irqsoff: ours and mainline with the irqsoff
# latency tracer (configs/irqsoff.config), for scripts/irqsoff.sh only
VARIANTS="vanilla mainline ours debug cma ours-irqsoff mainline-irqsoff"

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Debian package version of the source the tree came from, e.g. 6.1.192-3.
pkg_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo unknown
}

valid_variant() {
	case " $VARIANTS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# The VARIANT argument of a script: --help prints usage and exits 0, an
# invalid one prints usage and exits 2. Call it directly, not in $(...).
# usage: variant_arg "$1" "what the script does"; V=$1
variant_arg() {
	case "${1:-}" in -h|--help)
		echo "usage: $0 VARIANT    (VARIANT: $VARIANTS)" >&2
		echo "$2" >&2
		exit 0 ;;
	esac
	if ! valid_variant "${1:-}"; then
		echo "usage: $0 VARIANT    (VARIANT: $VARIANTS)" >&2
		echo "unknown VARIANT '${1:-}'" >&2
		exit 2
	fi
}

# What the kernel prints when one of its own checks fires (x86): WARN,
# BUG and oopses, lockdep, KASAN/UBSAN, DEBUG_LIST, DEBUG_VM's page dumps,
# bad pages, RCU stalls, hung tasks, soft lockups; "[#N]" is the oops
# counter that die() prints after every trap name (divide error, stack
# segment, ...). report.sh and splat_scan match it against kernel lines
# only (see KLINE).
SPLATS='[[]#[0-9]+[]]|WARNING:|BUG:|kernel BUG at|Oops|general protection fault|invalid opcode|possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|page dumped because|list_add corruption|list_del corruption|Bad page|KASAN|UBSAN|detected stall|blocked for more than|refcount_t:|Kernel panic'
# A kernel line: the console's "[ seconds]" prefix, or the guest init's
# "# kmsg: <level>" copy of the kernel log.
KLINE='(^ *[[] *[0-9]+[.][0-9]+[]] |# kmsg: <[0-9]>)'

# The kernel splats of serial log $1 into file $2; true when there is one
# (and $2 holds them), false otherwise (and $2 is gone).
splat_scan() {
	if tr -d '\r' < "$1" | grep -aE "$KLINE" | grep -aE "$SPLATS" > "$2"; then
		return 0
	fi
	rm -f "$2"
	return 1
}

# The compiler for kernel builds: through ccache when it is installed
kernel_cc() {
	if command -v ccache >/dev/null; then echo "ccache gcc"; else echo gcc; fi
}
