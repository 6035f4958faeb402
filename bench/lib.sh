# The benchmarks' shared skeleton: sourced by every driver, reporter and
# judge in bench/, never run. It sources scripts/lib.sh (TOP, say, die,
# the parameter checks, splat_scan) and adds:
#
#   bench_kernels V...       build those variants and the initramfs (with
#                            ZC_PREBUILT=1, keep the built ones as they are)
#   bench_open NAME          results/NAME-<ts>/ as $OUTD (NAME "" for the
#                            seed's benchmark: results/<ts>/), with setup.txt;
#                            $OUTDIR instead, emptied, when it is set (make
#                            test's small versions: a directory of their own)
#   bench_setup LINE...      append lines to setup.txt
#   bench_boot RUN V SUITE   boot variant V with guest suite SUITE, its data
#                            channel in $OUTD/RUN.csv and serial log in
#                            $OUTD/RUN.log; true when the run wrote "done"
#                            and had no kernel splat ($OUTD/RUN.splat)
#   bench_close LINK         record the accelerator, point results/LINK at
#                            $OUTD (not an $OUTDIR), print the matrix's time
#
# and, for the reporters and judges, awk libraries used as
# awk "$CSV_AWK$STAT_AWK"'...':
#
#   CSV_AWK   header(): at a CSV's first line, learn its columns;
#             c(name): the field of the current line in column "name"
#             (a name the header lacks stops awk with exit 3: a column
#             is never read by position; an END block begins with
#             "if (_BAD) exit 3"); has(name); for the guests'
#             data channels, typed lines: cols(): at a "cols,<type>,..."
#             line, learn that type's fields; t(type, name)
#   STAT_AWK  mstat(list), mmm(list, fmt): median (min-max) of a list;
#             rank(n, p): the nearest-rank percentile's index, the one
#             rule of every report (the smallest value with at least p%
#             of the n values at or below it)
. "$(dirname "$0")/../scripts/lib.sh"

bench_kernels() {
	for _v in "$@"; do "$TOP/scripts/build.sh" "$_v"; done
	if [ -n "${ZC_PREBUILT:-}" ] && [ -f "$TOP/build/initramfs.cpio.gz" ]; then
		say "bench: using the prebuilt build/initramfs.cpio.gz"
	else
		"$TOP/scripts/initramfs.sh"
	fi
}

bench_open() {
	if [ -n "${OUTDIR:-}" ]; then
		OUTD=$OUTDIR
		rm -rf "$OUTD"
	else
		OUTD=$TOP/results/${1:+$1-}$(date -u +%Y%m%d-%H%M%S)
	fi
	mkdir -p "$OUTD"
	_bench_t0=$(date +%s)
	echo "linux-source-6.1 $(pkg_version)" > "$OUTD/setup.txt"
}

bench_setup() {
	for l in "$@"; do echo "$l"; done >> "$OUTD/setup.txt"
}

# usage: [DISK=... MEM=... NODES=... TIMEOUT=... APPEND=...] bench_boot RUN VARIANT SUITE
bench_boot() {
	_r=$1
	say "bench: $_r ($2, suite $3)"
	rm -f "$OUTD/$_r.csv" "$OUTD/$_r.log" "$OUTD/$_r.splat"
	DATA=$OUTD/$_r.csv LOG=$OUTD/$_r.log "$TOP/scripts/boot.sh" "$2" "$3" >/dev/null ||
		say "bench: $_r: boot status $?"
	# The guest's own summary lines, for the console
	grep -a '^ *# [a-z]*: ' "$OUTD/$_r.log" | grep -av kmsg | tail -2 | sed 's/^ */    /' >&2 || true
	_ok=1
	grep -aq '^done' "$OUTD/$_r.csv" 2>/dev/null ||
		{ say "bench: $_r did not finish, see $OUTD/$_r.log"; _ok=0; }
	# A kernel splat marks the run in the tables
	if splat_scan "$OUTD/$_r.log" "$OUTD/$_r.splat"; then
		say "bench: $_r: KERNEL SPLAT: $(head -1 "$OUTD/$_r.splat")"
		_ok=0
	fi
	[ "$_ok" = 1 ]
}

bench_close() {
	# boot.sh chose KVM or TCG on the first boot (build/accel)
	echo "accelerator: QEMU $(cat "$TOP/build/accel" 2>/dev/null || echo unknown)" >> "$OUTD/setup.txt"
	say "bench: all runs done in $(( $(date +%s) - _bench_t0 ))s"
	[ -n "${OUTDIR:-}" ] || ln -sfn "$(basename "$OUTD")" "$TOP/results/$1"
}

# The guest parameters of the benchmarks, checked before anything is
# built or booted: a bad one prints why and exits 2.
check_mem() {
	case "$1" in
	512M|1G|2G|3G|4G|6G|8G) ;;
	*) echo "MEM='$1' is not one of 512M 1G 2G 3G 4G 6G 8G" >&2; exit 2 ;;
	esac
}
check_nodes() {
	case "$1" in
	1|2|4) ;;
	*) echo "NODES='$1' is not one of 1 2 4" >&2; exit 2 ;;
	esac
}
check_repeat() {
	case "$1" in
	[1-9]) ;;
	*) echo "REPEAT='$1' is not a number from 1 to 9" >&2; exit 2 ;;
	esac
}
# MEM (checked) in MiB
mem_mb_of() {
	case "$1" in *G) echo $(( ${1%G} * 1024 )) ;; *M) echo "${1%M}" ;; esac
}
# A 512 MiB guest cannot be split into 4 nodes
check_mem_nodes() {
	[ "$1" = 512 ] && [ "$2" = 4 ] && { echo "MEM=512M is too small for 4 nodes" >&2; exit 2; }
	return 0
}

CSV_AWK='
function header(   i) { for (i = 1; i <= NF; i++) COL[$i] = i }
function has(name) { return name in COL }
function c(name) {
	if (!(name in COL)) {
		printf "%s: no column \"%s\"\n", FILENAME, name > "/dev/stderr"
		_BAD = 1
		exit 3
	}
	return $COL[name]
}
function cols(   i) { for (i = 3; i <= NF; i++) TCOL[$2, $i] = i - 1; TYPED[$2] = 1 }
function t(type, name) {
	if (!((type, name) in TCOL)) {
		printf "%s: no field \"%s\" in \"%s\" lines\n", FILENAME, name, type > "/dev/stderr"
		_BAD = 1
		exit 3
	}
	return $TCOL[type, name]
}
'

STAT_AWK='
function rank(n, p,   i) {
	i = int(n * p / 100)
	if (i < n * p / 100) i++
	return i < 1 ? 1 : i
}
function mstat(list,   a, n, i, j, x) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) a[i] += 0
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
	MED = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	MIN = a[1]; MAX = a[n]
	return n
}
function mmm(list, fmt) {
	if (!mstat(list)) return "-"
	if (MIN == MAX) return sprintf(fmt, MED)
	return sprintf(fmt " (" fmt "-" fmt ")", MED, MIN, MAX)
}
'

# The p50, p99 and max (nearest rank) of the numbers on stdin, one a
# line: "p50 p99 max", or "- - -" when there are none
percentiles() {
	sort -g | awk "$STAT_AWK"'{ v[NR] = $1 }
		END { if (!NR) { print "- - -"; exit }
		      print v[rank(NR, 50)], v[rank(NR, 99)], v[NR] }'
}
