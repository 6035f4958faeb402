// SPDX-License-Identifier: GPL-2.0
/*
 * Direct compaction: high-order allocations (huge pages through
 * nr_hugepages) compact before they reclaim; extfrag_threshold gates
 * it (deferral is tested by mlocked.c); and a full
 * machine neither deadlocks nor loses its watermarks.
 */
#include <sys/wait.h>

#include "zc.h"

#define FILE_MB		128
#define NR_HUGE		"/proc/sys/vm/nr_hugepages"
#define THRESHOLD	"/proc/sys/vm/extfrag_threshold"

static int nodes;

struct counters {
	long stall, fail, success, deferred, steal;
};

static void read_counters(struct counters *c)
{
	c->stall = zc_vmstat("compact_stall");
	c->fail = zc_vmstat("compact_fail");
	c->success = zc_vmstat("compact_success");
	c->deferred = zc_vmstat("compact_deferred");
	c->steal = zc_vmstat("pgsteal_kswapd") + zc_vmstat("pgsteal_direct");
}

/* Huge pages the free lists could hand out right now */
static long free_huge(void)
{
	struct zc_buddy b;

	if (zc_read_buddyinfo(&b) <= 0)
		return -1;
	return zc_free_at_least(&b, -1, ZC_HPAGE_ORDER) >> ZC_HPAGE_ORDER;
}

/* Each node gets page cache of its own file, /mnt/zc-fill-<node> */
static void fragment_all(struct zc_frag *f)
{
	char file[32];
	int n;

	for (n = 0; n < nodes; n++) {
		snprintf(file, sizeof(file), "/mnt/zc-fill-%d", n);
		zc_fragment_node(n, file, 12 * 1024, &f[n]);
	}
}

static void unfragment_all(struct zc_frag *f)
{
	int n;

	zc_set_hugepages(0);
	for (n = 0; n < nodes; n++)
		zc_unfragment(&f[n]);
}

/*
 * Page cache and anonymous memory with every second frame free: the
 * free lists hold few huge pages, compaction can make many. Asking for
 * half of RAM must compact (stall and success rise), give at least 2x
 * what the free lists had, and reclaim fewer pages than the new huge
 * pages hold (compaction, not reclaim, made them).
 */
static void test_hugepages_direct(void)
{
	struct zc_frag f[8];
	struct counters c0, c1;
	long avail, want, got;
	double t;

	fragment_all(f);
	avail = free_huge();
	want = zc_meminfo("MemTotal") / 2 / 2048;
	read_counters(&c0);
	t = zc_now();
	got = zc_set_hugepages(want);
	t = zc_now() - t;
	read_counters(&c1);
	ksft_print_msg("direct: %ld free huge pages before, asked %ld, got %ld in %.2fs; stall %ld fail %ld success %ld, reclaimed %ld\n",
		       avail, want, got, t, c1.stall - c0.stall, c1.fail - c0.fail,
		       c1.success - c0.success, c1.steal - c0.steal);
	if (c1.stall > c0.stall && c1.success > c0.success && got >= 2 * avail &&
	    got > avail && c1.steal - c0.steal < (got - avail) * 512)
		ksft_test_result_pass("hugepages_direct: %ld -> %ld huge pages, %ld stalls, %ld successes, %ld pages reclaimed\n",
				      avail, got, c1.stall - c0.stall,
				      c1.success - c0.success, c1.steal - c0.steal);
	else
		ksft_test_result_fail("hugepages_direct: %ld -> %ld huge pages (want >= 2x), %ld stalls, %ld successes, %ld reclaimed (want < %ld)\n",
				      avail, got, c1.stall - c0.stall, c1.success - c0.success,
				      c1.steal - c0.steal, (got - avail) * 512);
	unfragment_all(f);
}

/*
 * extfrag_threshold 1000 declares every failure a lack of memory: no
 * compaction at all. 0 declares every one fragmentation: compaction.
 */
static void test_gate(void)
{
	struct zc_frag f[8];
	struct counters c0, c1, c2;
	long avail;

	fragment_all(f);
	avail = free_huge();
	zc_write_long(THRESHOLD, 1000);
	read_counters(&c0);
	zc_set_hugepages(avail + 8);
	read_counters(&c1);
	zc_set_hugepages(0);
	usleep(1500 * 1000);	/* past the longest deferral, 1.28s */
	zc_write_long(THRESHOLD, 0);
	zc_set_hugepages(avail + 8);
	read_counters(&c2);
	zc_write_long(THRESHOLD, 500);
	if (c1.stall == c0.stall && c2.stall > c1.stall)
		ksft_test_result_pass("extfrag_gate: stalls +%ld at 1000, +%ld at 0\n",
				      c1.stall - c0.stall, c2.stall - c1.stall);
	else
		ksft_test_result_fail("extfrag_gate: stalls +%ld at 1000 (want 0), +%ld at 0 (want > 0)\n",
				      c1.stall - c0.stall, c2.stall - c1.stall);
	unfragment_all(f);
}

/* free >= min watermark in every zone, from /proc/zoneinfo */
static int watermarks_ok(char *msg, size_t len)
{
	static char zi[65536];
	char *p = zi;

	if (zc_read_file("/proc/zoneinfo", zi, sizeof(zi)) <= 0)
		return 0;
	while ((p = strstr(p, "\n  pages free"))) {
		unsigned long free, min;

		if (sscanf(p, "\n  pages free %lu\n        boost %*u\n        min %lu", &free, &min) != 2)
			return 0;
		if (free < min) {
			snprintf(msg, len, "a zone has %lu free pages, min %lu", free, min);
			return 0;
		}
		p++;
	}
	return 1;
}

/*
 * Memory full of page cache and anonymous memory, then huge pages until
 * failure: the write returns (the suite's timeout catches a deadlock),
 * every zone keeps its min watermark, and a new process still runs.
 */
static void test_full_memory(void)
{
	struct zc_frag f[8];
	char msg[128] = "zoneinfo unreadable";
	long got;
	int status = -1, wm;
	pid_t pid;
	double t;

	fragment_all(f);
	t = zc_now();
	got = zc_set_hugepages(100000);
	t = zc_now() - t;
	wm = watermarks_ok(msg, sizeof(msg));
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (got >= 0 && wm && status == 0)
		ksft_test_result_pass("full_memory: %ld huge pages in %.1fs, watermarks kept, exec works\n",
				      got, t);
	else
		ksft_test_result_fail("full_memory: got %ld, watermarks %s, exec status %d\n",
				      got, wm ? "ok" : msg, status);
	unfragment_all(f);
}

int main(void)
{
	const char *env = getenv("ZC_NODES");
	int i;

	nodes = env ? atoi(env) : 2;
	ksft_print_header();
	ksft_set_plan(3);
	if (zc_read_long(THRESHOLD) != 500)
		ksft_exit_fail_msg("extfrag_threshold missing or not 500\n");
	for (i = 0; i < nodes; i++) {
		char file[32];

		snprintf(file, sizeof(file), "/mnt/zc-fill-%d", i);
		if (zc_make_file(file, FILE_MB))
			ksft_exit_fail_msg("cannot write %s\n", file);
	}
	test_hugepages_direct();
	test_gate();
	test_full_memory();
	for (i = 0; i < nodes; i++) {
		char file[32];

		snprintf(file, sizeof(file), "/mnt/zc-fill-%d", i);
		unlink(file);
	}
	ksft_finished();
}
