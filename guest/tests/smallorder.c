// SPDX-License-Identifier: GPL-2.0
/*
 * Small orders keep the protection CONFIG_COMPACTION gives them: order-2
 * and order-3 GFP_KERNEL allocations that only compaction can serve get
 * their pages, with no OOM kill and no failure. Runs on ours and on
 * mainline (the absent suite), so that the two are judged alike.
 *
 * Memory is filled with anonymous pages and every second one freed again
 * (zc_fragment_anon()), on every node: with no swap and the page cache
 * dropped there is nothing to reclaim, and nearly all free memory is in
 * free blocks of order 0 and 1 (kmalloc_large() takes no mempolicy, so
 * the allocations fall back to any node that has a block). A child
 * process then resizes pipes. A pipe's buffer array is one kcalloc() of
 * 40 bytes a slot with GFP_KERNEL_ACCOUNT; above 8 KiB, kmalloc() takes
 * whole pages, so 256 slots (F_SETPIPE_SZ of 1 MiB) are an order-2
 * allocation and 512 slots (2 MiB) an order-3 one, which the allocator
 * may not fail and which end in the OOM killer when nothing helps.
 */
#include <sys/resource.h>

#include "zc.h"

#define MARGIN_KB	(24 * 1024)
#define PROACTIVENESS	"/proc/sys/vm/compaction_proactiveness"
#define MAX_PIPES	16384
/*
 * Pages asked for beyond those already free in blocks of order >= 2:
 * 64 MiB, about 2700 allocations that compaction must make room for,
 * a quarter of what the holes hold.
 */
#define BEYOND_FREE	16384

struct result {
	long made[2], failed[2];	/* order-2, order-3 arrays */
	long pages;			/* pages the arrays took */
	double worst_ms;
	int done;
};

/* Free pages in blocks of @order or more, over every node */
static long free_blocks(int nodes, int order)
{
	struct zc_buddy b;
	long free = 0;
	int node;

	if (zc_read_buddyinfo(&b) <= 0)
		return -1;
	for (node = 0; node < nodes; node++)
		free += zc_free_at_least(&b, node, order);
	return free;
}

/* The child: resize pipes, alternately to 1 MiB and 2 MiB, up to @pages */
static void make_arrays(struct result *r, long pages)
{
	static int fds[MAX_PIPES][2];
	int n;

	for (n = 0; n < MAX_PIPES && r->pages < pages; n++) {
		int big = n & 1;
		double t = zc_now(), ms;

		if (pipe(fds[n]))
			break;
		if (fcntl(fds[n][0], F_SETPIPE_SZ, big ? 2 << 20 : 1 << 20) < 0) {
			r->failed[big]++;
		} else {
			r->made[big]++;
			r->pages += big ? 8 : 4;
		}
		ms = (zc_now() - t) * 1000;
		if (ms > r->worst_ms)
			r->worst_ms = ms;
	}
	r->done = 1;
}

int main(void)
{
	struct rlimit files = { 2 * MAX_PIPES + 64, 2 * MAX_PIPES + 64 };
	long kills0, kills, stall0, success0, stall, success, free2, want;
	long moved0, moved, wakes0, wakes, proactiveness;
	const char *variant = getenv("ZC_VARIANT") ?: "?";
	struct result *r;
	int status = 0;
	char *keep;
	size_t len;
	int nodes;
	pid_t child;

	ksft_print_header();
	ksft_set_plan(1);
	if (zc_vmstat("compact_stall") < 0)
		ksft_exit_skip("small_orders: %s has no compactor\n", variant);
	if (setrlimit(RLIMIT_NOFILE, &files))
		ksft_exit_fail_msg("cannot raise RLIMIT_NOFILE: %s\n", strerror(errno));
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));

	/*
	 * No proactive compaction: it would make free blocks of order >= 2
	 * before anyone asks, and the allocations would not need compaction
	 * when they are made. kcompactd still runs when kswapd hands over
	 * to it. Restored at the end.
	 */
	proactiveness = zc_read_long(PROACTIVENESS);
	zc_write_long(PROACTIVENESS, 0);
	sync();
	zc_write_file("/proc/sys/vm/drop_caches", "3");
	nodes = atoi(getenv("ZC_NODES") ?: "1");
	keep = zc_fragment_anon(MARGIN_KB, &len);
	if (!keep)
		ksft_exit_fail_msg("cannot fill memory: %s\n", strerror(errno));
	zc_kcompactd_quiet(20000, "the free blocks left");
	free2 = free_blocks(nodes, 2);
	if (free2 < 0)
		ksft_exit_fail_msg("cannot read /proc/buddyinfo\n");
	want = free2 + BEYOND_FREE;
	ksft_print_msg("%d nodes: %ld kB free, %ld pages in free blocks of order >= 2; asking for %ld pages of order 2 and 3\n",
		       nodes, zc_meminfo("MemFree"), free2, want);

	kills0 = zc_vmstat("oom_kill");
	stall0 = zc_vmstat("compact_stall");
	success0 = zc_vmstat("compact_success");
	moved0 = zc_vmstat("pgmigrate_success");
	wakes0 = zc_vmstat("compact_daemon_wake");
	/* The parent is never the OOM killer's choice; the child may be */
	zc_write_file("/proc/self/oom_score_adj", "-1000");
	child = fork();
	if (child == 0) {
		zc_write_file("/proc/self/oom_score_adj", "0");
		make_arrays(r, want);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		ksft_exit_fail_msg("cannot run the child: %s\n", strerror(errno));
	zc_write_file("/proc/self/oom_score_adj", "0");
	kills = zc_vmstat("oom_kill") - kills0;
	stall = zc_vmstat("compact_stall") - stall0;
	success = zc_vmstat("compact_success") - success0;
	moved = zc_vmstat("pgmigrate_success") - moved0;
	wakes = zc_vmstat("compact_daemon_wake") - wakes0;
	munmap(keep, len);
	zc_write_long(PROACTIVENESS, proactiveness);

	ksft_print_msg("%ld order-2 and %ld order-3 arrays made, %ld and %ld failed, %ld pages; slowest %.1f ms; compact_stall +%ld, compact_success +%ld, compact_daemon_wake +%ld, pgmigrate_success +%ld, oom_kill +%ld; child %s\n",
		       r->made[0], r->made[1], r->failed[0], r->failed[1], r->pages,
		       r->worst_ms, stall, success, wakes, moved, kills,
		       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exited");
	/*
	 * Every allocation served, none failed, no kill; and compaction
	 * (direct, or kcompactd after kswapd) must have moved pages, or the
	 * test did not measure what it says: the free blocks it counted
	 * were not all there was.
	 */
	ksft_test_result(r->done && WIFEXITED(status) && !r->failed[0] &&
			 !r->failed[1] && kills == 0 && r->pages >= want &&
			 moved > 0,
			 "small_orders: %s: %ld pages of order-2/3 allocations, %ld beyond the free blocks (want %d), %ld failed (want 0), oom_kill +%ld (want 0), pgmigrate_success +%ld (want > 0)\n",
			 variant, r->pages, r->pages - free2, BEYOND_FREE,
			 r->failed[0] + r->failed[1], kills, moved);
	ksft_finished();
}
