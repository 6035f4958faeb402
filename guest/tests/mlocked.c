// SPDX-License-Identifier: GPL-2.0
/*
 * Unevictable pages and deferral. Both nodes are filled with mlocked
 * anonymous pages, every second frame left free between them, so that
 * whether compaction can help depends on compact_unevictable_allowed
 * alone:
 *
 * - with 0, compact_node moves none of the mlocked pages (their frames,
 *   read from /proc/self/pagemap, stay the same); with 1 it moves them,
 *   their data intact, and order-9 blocks appear;
 * - with 0, repeated order-9 attempts are deferred for longer and longer
 *   (exponential backoff); an order-8 allocation made while order 9 is
 *   deferred still compacts (order-aware deferral); after a quiet spell,
 *   or once compaction succeeds at order 9, the next failure pauses only
 *   briefly again.
 */
#include <sys/resource.h>
#include <sys/xattr.h>
#include "zc.h"

#define UNEVICTABLE	"/proc/sys/vm/compact_unevictable_allowed"
#define THRESHOLD	"/proc/sys/vm/extfrag_threshold"
#define MARGIN_KB	(24 * 1024)
#define MAX_NODES	2
#define NODE0_HUGE	"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"

struct locked {
	char *keep;
	size_t len, n;
	unsigned long *pfn;
};

static struct locked mem[MAX_NODES];
static int nodes;

static unsigned long pattern(size_t i, int node)
{
	return (i * 0x9E3779B97F4A7C15UL) ^ ((unsigned long)node << 56) ^ 0x5a5a;
}

/*
 * Interleave mlocked pages and holes on @node until it is nearly full.
 * The pages are mlocked as they are faulted in (MLOCK_ONFAULT), never by
 * an mlock() of pages already there: that walk passes over a page that
 * a migration has unmapped (background compaction runs while the node
 * fills), and in 6.1 the migration then maps the new page without
 * mlocking it (mlock_vma_page() sees the VM_IO that mlock_fixup() sets
 * for the walk). Such a page stays on an evictable list, where any
 * compactor may move it. Seen on the debug kernel: 7 and 21 pages of
 * 32000 "moved" with compact_unevictable_allowed=0.
 */
static int fragment_locked(int node, struct locked *l)
{
	char *hole;
	size_t i;

	if (zc_bind_node(node) || zc_bind_mem_node(node))
		return -1;
	l->len = (size_t)zc_node_meminfo(node, "MemTotal") * 1024;
	l->keep = mmap(NULL, l->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	hole = mmap(NULL, l->len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (l->keep == MAP_FAILED || hole == MAP_FAILED)
		return -1;
	if (mlock2(l->keep, l->len, MLOCK_ONFAULT))
		return -1;
	for (i = 0; i < l->len / ZC_PAGE; i++) {
		if (!(i % 256) && zc_node_meminfo(node, "MemFree") < MARGIN_KB)
			break;
		hole[i * ZC_PAGE] = 1;
		*(unsigned long *)(l->keep + i * ZC_PAGE) = pattern(i, node);
	}
	l->n = i;
	munmap(hole, l->len);
	l->pfn = calloc(l->n, sizeof(*l->pfn));
	zc_unbind_mem();
	return l->pfn ? 0 : -1;
}

static void unfragment(void)
{
	int node;

	for (node = 0; node < nodes; node++) {
		munmap(mem[node].keep, mem[node].len);
		free(mem[node].pfn);
		memset(&mem[node], 0, sizeof(mem[node]));
	}
}

/* Pages whose data differs from what was written */
static size_t bad_pages(void)
{
	size_t i, bad = 0;
	int node;

	for (node = 0; node < nodes; node++)
		for (i = 0; i < mem[node].n; i++)
			bad += *(unsigned long *)(mem[node].keep + i * ZC_PAGE) !=
			       pattern(i, node);
	return bad;
}

/* Record the frames of node @node's pages; return how many changed */
static size_t frames_changed(int node, int record)
{
	struct locked *l = &mem[node];
	size_t i, changed = 0;

	for (i = 0; i < l->n; i++) {
		unsigned long pfn = zc_pfn(l->keep + i * ZC_PAGE);

		changed += pfn != l->pfn[i];
		if (record)
			l->pfn[i] = pfn;
	}
	return changed;
}

#define KPF_UNEVICTABLE	18
#define KPF_MLOCKED	33	/* include/linux/kernel-page-flags.h */

/*
 * How many of node @node's recorded frames do not hold an mlocked page on
 * the unevictable list, as /proc/kpageflags says? -1 if it cannot be read.
 */
static long frames_not_locked(int node)
{
	const unsigned long long want = 1ULL << KPF_UNEVICTABLE | 1ULL << KPF_MLOCKED;
	struct locked *l = &mem[node];
	int fd = open("/proc/kpageflags", O_RDONLY);
	unsigned long long f;
	long bad = 0;
	size_t i;

	if (fd < 0)
		return -1;
	for (i = 0; i < l->n; i++) {
		if (pread(fd, &f, sizeof(f), l->pfn[i] * sizeof(f)) != sizeof(f)) {
			bad = -1;
			break;
		}
		bad += (f & want) != want;
	}
	close(fd);
	return bad;
}

static unsigned long order9_free(int node)
{
	struct zc_buddy b;

	if (zc_read_buddyinfo(&b) <= 0)
		return 0;
	return zc_free_at_least(&b, node, ZC_HPAGE_ORDER);
}

/* compact_node on node 0 with the given compact_unevictable_allowed */
static void test_compact_node(int allowed)
{
	long scanned = zc_vmstat("compact_migrate_scanned");
	unsigned long before = order9_free(0), after;
	size_t changed, bad;
	long loose;

	zc_write_long(UNEVICTABLE, allowed);
	/*
	 * The write applies to the runs that start after it: a background
	 * run that began before, with the default 1 (a proactive round on
	 * the freshly fragmented node), may still move mlocked pages. Once
	 * no kcompactd is busy, every run reads the new value. (Seen once on
	 * the debug kernel without this wait: 21 of 32256 pages moved.)
	 */
	zc_kcompactd_quiet(10000, "the frames of the mlocked pages");
	frames_changed(0, 1);
	loose = frames_not_locked(0);
	zc_write_long("/proc/sys/vm/compact_node", 0);
	changed = frames_changed(0, 1);
	scanned = zc_vmstat("compact_migrate_scanned") - scanned;
	after = order9_free(0);
	bad = bad_pages();
	ksft_print_msg("compact_unevictable_allowed=%d: %zu of %zu mlocked pages moved, order>=9 free %lu -> %lu pages, %ld pfns scanned, %zu pages differ\n",
		       allowed, changed, mem[0].n, before, after, scanned, bad);
	/*
	 * Every page must have been mlocked and unevictable when its frame
	 * was recorded: a page that was not may be moved by any compactor,
	 * and its move would say nothing of the sysctl.
	 */
	if (!allowed)
		ksft_test_result(!loose && !changed && scanned > 0 && !bad,
				 "mlocked_kept: allowed=0: %zu of %zu mlocked pages moved (want 0), %ld pfns scanned, %ld pages not mlocked and unevictable at the start (want 0)\n",
				 changed, mem[0].n, scanned, loose);
	else
		ksft_test_result(changed >= mem[0].n / 4 && after >= before + 20 * 512 && !bad,
				 "mlocked_moved: allowed=1: %zu of %zu mlocked pages moved (want >= 1/4), order>=9 free %lu -> %lu (want +10240), %zu differ\n",
				 changed, mem[0].n, before, after, bad);
}

/* One order-9 attempt on node 0; returns the compactions that ran */
static long attempt9(long *deferred)
{
	long ran = zc_compactions(), def = zc_vmstat("compact_deferred");

	zc_node_hugepages(0, zc_read_long(NODE0_HUGE) + 1);
	if (deferred)
		*deferred = zc_vmstat("compact_deferred") - def;
	return zc_compactions() - ran;
}

/*
 * Attempt order 9 on node 0 for @secs: when each attempt that compacted
 * ended in @t and, unless @start is NULL, when it began in @start
 */
static int compaction_times(double secs, double *start, double *t, int max,
			    long *attempts)
{
	double t0 = zc_now(), s;
	int n = 0;

	*attempts = 0;
	while ((s = zc_now()) - t0 < secs) {
		if (attempt9(NULL) && n < max) {
			if (start)
				start[n] = s - t0;
			t[n++] = zc_now() - t0;
		}
		(*attempts)++;
		usleep(2000);
	}
	return n;
}

/* On a failure: node 0's free HighAtomic pages and its pageblock types */
static void print_reserves(void)
{
	static char buf[16384];
	char *line, *save;

	if (zc_read_file("/proc/pagetypeinfo", buf, sizeof(buf)) <= 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "Number of blocks") || !strncmp(line, "Node 0,", 7) ||
		    (!strncmp(line, "Node    0,", 10) && strstr(line, "HighAtomic")))
			ksft_print_msg("%s\n", line);
}

/*
 * A pause is the time from the end of one compaction to the start of the
 * attempt that runs the next; deferral sets it, 20 ms doubling with each
 * failure in a row up to 1.28 s. So in 4 s of failing attempts the last
 * pause must be at least 4x the first (2 doublings; without backoff the
 * pauses stay alike), and at most a quarter of the attempts may compact.
 * The window starts after a quiet spell as long as the longest pause,
 * so that the failures start over at 20 ms: a CI run that began with
 * the pause already at 320 ms, left from the tests before, saw 328 ms
 * then 1283 ms. Pauses are measured from the end of one compaction to
 * the start of the attempt that runs the next, so that a slow
 * compaction does not count as pause.
 */
static void test_exponential(void)
{
	long s0 = zc_vmstat("compact_success"), f0 = zc_vmstat("compact_fail");
	long m0 = zc_vmstat("compact_migrate_scanned"), fs0 = zc_vmstat("compact_free_scanned");
	long p0 = zc_vmstat("compact_pages_moved"), r0 = zc_vmstat("pgsteal_direct");
	long h0 = zc_read_long(NODE0_HUGE), free0 = zc_node_meminfo(0, "MemFree");
	double start[64], t[64], first = 0, last = 0;
	long attempts;
	int n, i, ok;

	usleep(2700 * 1000);
	n = compaction_times(4.0, start, t, 64, &attempts);
	ksft_print_msg("in 4s: compact_success +%ld, compact_fail +%ld, node 0 huge pages %ld -> %ld, MemFree %ld -> %ld kB\n",
		       zc_vmstat("compact_success") - s0, zc_vmstat("compact_fail") - f0,
		       h0, zc_read_long(NODE0_HUGE), free0, zc_node_meminfo(0, "MemFree"));
	ksft_print_msg("in 4s: migrate scanned +%ld, free scanned +%ld, pages moved +%ld, pgsteal_direct +%ld\n",
		       zc_vmstat("compact_migrate_scanned") - m0, zc_vmstat("compact_free_scanned") - fs0,
		       zc_vmstat("compact_pages_moved") - p0, zc_vmstat("pgsteal_direct") - r0);
	for (i = 1; i < n && i < 12; i++)
		ksft_print_msg("compaction %d: attempt at %.3fs took %.0f ms, %.0f ms after the end of the one before\n",
			       i + 1, start[i], (t[i] - start[i]) * 1000,
			       (start[i] - t[i - 1]) * 1000);
	if (n > 1) {
		first = start[1] - t[0];
		last = start[n - 1] - t[n - 2];
	}
	ok = n >= 4 && last >= 4 * first && n * 4 <= attempts;
	if (ok)
		ksft_test_result_pass("deferral_exponential: %ld attempts in 4s, %d compactions, pause %.0f ms after the first, %.0f ms before the last\n",
				      attempts, n, first * 1000, last * 1000);
	else
		ksft_test_result_fail("deferral_exponential: %ld attempts in 4s, %d compactions (want >= 4, <= attempts/4), pauses %.0f ms then %.0f ms (want the last >= 4x the first)\n",
				      attempts, n, first * 1000, last * 1000);
	if (!ok)
		print_reserves();
}

/*
 * A pipe of 64 MiB needs one order-8 allocation, the array of its 16384
 * pipe_buffers (640 KiB, a kmalloc_large()). Order 8 is below the order
 * that is deferred and free blocks of it are rare in memory mlocked every
 * second frame, so a handful of these pipes use them up and the next one
 * must compact. They stay open until pipes_close().
 */
#define PIPE_BYTES	(64 << 20)
#define MAX_PIPES	256

static int pipe_fds[2 * MAX_PIPES];
static int nr_pipes;

static int pipe_open(void)
{
	int *fd = pipe_fds + 2 * nr_pipes;

	if (nr_pipes == MAX_PIPES || pipe(fd))
		return -1;
	if (fcntl(fd[1], F_SETPIPE_SZ, PIPE_BYTES) < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	nr_pipes++;
	return 0;
}

static void pipes_close(void)
{
	while (nr_pipes) {
		nr_pipes--;
		close(pipe_fds[2 * nr_pipes]);
		close(pipe_fds[2 * nr_pipes + 1]);
	}
}

/*
 * Open pipes until one of them needs a compaction; returns the
 * compactions that ran. Compaction of mlocked pages is allowed
 * meanwhile, so that it can succeed.
 */
static long order8_stalls(void)
{
	long ran = zc_compactions();

	zc_write_long(UNEVICTABLE, 1);
	while (zc_compactions() == ran && !pipe_open())
		;
	zc_write_long(UNEVICTABLE, 0);
	return zc_compactions() - ran;
}

/* Attempt order 9 until one compacts (and fails): a pause begins now */
static long fresh_pause(void)
{
	double t0 = zc_now();
	long attempts = 0;

	while (!attempt9(NULL) && zc_now() - t0 < 3.0) {
		attempts++;
		usleep(2000);
	}
	return attempts;
}

static void test_order_aware(void)
{
	long deferred = 0, deferred2 = 0, stall9, stall9b = 0, stall8, waited;
	double t0, ms;
	int served;

	/*
	 * A failure has just paused order 9 for 1.28s (the pause is at its
	 * longest after test_exponential): an attempt is counted deferred,
	 * not compacted. The order-8 allocations that follow must compact
	 * all the same, and an order-9 attempt after them must still be
	 * deferred: order 9's pause was in force while order 8 compacted,
	 * and order 8's success did not end it. Those compactions (and the
	 * background compactor they wake, with mlocked pages allowed) may
	 * leave free order-9 blocks: the attempts served from them need no
	 * compaction and say nothing of the pause, and are made until one
	 * is not (seen once on the debug kernel: the attempt after the
	 * order-8 compactions got a huge page, neither deferred nor
	 * compacted).
	 */
	waited = fresh_pause();
	t0 = zc_now();
	stall9 = attempt9(&deferred);
	stall8 = order8_stalls();
	for (served = 0; served < 64; served++) {
		long huge = zc_read_long(NODE0_HUGE);

		stall9b = attempt9(&deferred2);
		if (stall9b || deferred2 || zc_read_long(NODE0_HUGE) <= huge)
			break;
	}
	ms = (zc_now() - t0) * 1000;
	ksft_print_msg("pause began after %ld attempts; order 9: deferred +%ld, compactions +%ld; %d pipes of 64 MiB: compactions +%ld; order 9 again: %d served from free blocks, then deferred +%ld, compactions +%ld; %.0f ms\n",
		       waited, deferred, stall9, nr_pipes, stall8, served, deferred2, stall9b, ms);
	ksft_test_result(deferred > 0 && !stall9 && stall8 > 0 && deferred2 > 0 && !stall9b,
			 "deferral_order_aware: order 9 deferred (+%ld, %ld compactions), then order 8 compacts (+%ld compactions after %d allocations), then order 9 still deferred (+%ld, %ld compactions), in %.0f ms\n",
			 deferred, stall9, stall8, nr_pipes, deferred2, stall9b, ms);
	pipes_close();
}

/* Attempt order 9 until one is deferred (at most 3s); that one's count */
static long deferred_now(void)
{
	double t0 = zc_now();
	long deferred = 0;

	while (attempt9(&deferred) >= 0 && !deferred && zc_now() - t0 < 3.0)
		usleep(2000);
	return deferred;
}

/*
 * After a quiet spell as long as the longest pause, failures start over.
 * Order 9 must first be seen deferred (else a kernel that never defers
 * would pass), and the failing attempts after the spell must still be
 * deferred between their compactions: short pauses, not none.
 */
static void test_quiet_resets(void)
{
	long attempts, before, d0, during;
	double t[8];
	int n;

	before = deferred_now();
	/* A pause is at most 1.28s: it and a quiet spell as long are over */
	usleep(2700 * 1000);
	d0 = zc_vmstat("compact_deferred");
	n = compaction_times(0.6, NULL, t, 8, &attempts);
	during = d0 < 0 || zc_vmstat("compact_deferred") < 0 ? -1 :
		 zc_vmstat("compact_deferred") - d0;
	ksft_test_result(before > 0 && n >= 3 && during > 0,
			 "deferral_quiet_resets: order 9 deferred before (+%ld, want > 0); after 2.7s without attempts, %d compactions in 0.6s of %ld failing attempts (want >= 3: 20, 40, 80 ms pauses), %ld deferred between them (want > 0)\n",
			 before, n, attempts, during);
}

static void test_success_resets(void)
{
	long got, attempts;
	double t[8];
	int n;

	long s0, s1, s2, d0, d1, d2, pre;

	/* Failures until the pause is the longest, 1.28s: deferred meanwhile */
	d0 = zc_vmstat("compact_deferred");
	compaction_times(3.0, NULL, t, 8, &attempts);
	pre = d0 < 0 || zc_vmstat("compact_deferred") < 0 ? -1 :
	      zc_vmstat("compact_deferred") - d0;
	zc_write_long(UNEVICTABLE, 1);
	/* Past that pause, but not a quiet spell (2.56s) */
	usleep(1350 * 1000);
	s0 = zc_vmstat("compact_success");
	got = zc_node_hugepages(0, zc_read_long(NODE0_HUGE) + 1);
	s1 = zc_vmstat("compact_success");
	zc_write_long(UNEVICTABLE, 0);
	/* The next failure must pause briefly, not for the last long pause */
	d1 = zc_vmstat("compact_deferred");
	zc_node_hugepages(0, got + 64);
	s2 = zc_compactions();
	n = compaction_times(0.6, NULL, t, 8, &attempts);
	d2 = zc_vmstat("compact_deferred");
	ksft_print_msg("allowed=1: node 0 huge pages -> %ld, compact_success +%ld; then allowed=0: %d compactions in 0.6s (%ld attempts, compactions +%ld, deferred +%ld)\n",
		       got, s1 - s0, n, attempts,
		       zc_compactions() - s2, d2 - d1);
	/*
	 * Deferral must be seen at work before the success (else a kernel
	 * that never defers would pass) and after it (short pauses, not
	 * none: the failing attempts between the compactions are deferred).
	 */
	ksft_test_result(pre > 0 && s0 >= 0 && s1 > s0 && n >= 2 && d1 >= 0 && d2 > d1,
			 "deferral_success_resets: %ld attempts deferred before (want > 0); compaction of mlocked pages succeeded (compact_success +%ld); afterwards %d compactions in 0.6s (want >= 2), %ld attempts deferred between them (want > 0)\n",
			 pre, s1 - s0, n, d1 < 0 || d2 < 0 ? -1 : d2 - d1);
}

int main(void)
{
	long threshold = zc_read_long(THRESHOLD), free_huge;
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	int node, ok = 1;
	size_t bad;

	ksft_print_header();
	ksft_set_plan(7);
	nodes = atoi(getenv("ZC_NODES") ?: "1");
	if (nodes > MAX_NODES)
		nodes = MAX_NODES;
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	/*
	 * Nothing reclaimable: a pause also ends when reclaim frees a block's
	 * worth of pages, and here only mlocked pages may stand in the way.
	 */
	sync();
	zc_write_file("/proc/sys/vm/drop_caches", "3");
	zc_write_long(UNEVICTABLE, 0);
	for (node = 0; node < nodes; node++)
		ok &= !fragment_locked(node, &mem[node]);
	if (!ok)
		ksft_exit_fail_msg("cannot fill the nodes with mlocked pages: %s\n", strerror(errno));
	zc_bind_node(0);
	ksft_print_msg("mlocked pages: node 0 %zu, node 1 %zu\n", mem[0].n, mem[1].n);

	test_compact_node(0);
	test_compact_node(1);

	/*
	 * Again, fragmented. Take every huge page there is: the free ones,
	 * and those that compaction can make by moving what is not mlocked
	 * (other tasks' pages, page cache read since). After that, only
	 * mlocked pages stand in the way, and every order-9 compaction
	 * fails as the deferral tests need.
	 */
	unfragment();
	zc_write_long(UNEVICTABLE, 0);
	for (node = 0; node < nodes; node++)
		ok &= !fragment_locked(node, &mem[node]);
	zc_bind_node(0);
	zc_write_long(THRESHOLD, 1000);
	free_huge = zc_set_hugepages(100000);
	zc_write_long(THRESHOLD, threshold);
	ksft_print_msg("huge pages: %ld free ones taken, %ld more by compaction\n",
		       free_huge, zc_set_hugepages(100000) - free_huge);

	test_exponential();
	test_order_aware();
	test_quiet_resets();
	test_success_resets();

	bad = bad_pages();
	ksft_test_result(!bad, "mlocked_data: %zu pages of %zu differ after all compactions\n",
			 bad, mem[0].n + mem[1].n);
	zc_set_hugepages(0);
	zc_write_long(UNEVICTABLE, 1);
	unfragment();
	ksft_finished();
}
