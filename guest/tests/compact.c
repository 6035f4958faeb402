// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/vm/compact_node on a fragmented node: free memory at the huge
 * page order grows, the move counters rise, the other node is left alone
 * (no zone of it is compacted: mm_compaction_begin names each zone run by
 * its start pfn), and nr_hugepages then gets more huge pages without any
 * reclaim.
 */
#include "zc.h"

#define FILE_MB	160
#define NODE	0
#define OTHER	1
#define BEGIN	ZC_TRACING "events/compaction/mm_compaction_begin/enable"
#define MAX_Z	8

/*
 * The start pfns of node @node's zones with pages (/proc/zoneinfo's
 * "start_pfn:"), at most MAX_Z; how many.
 */
static int zone_starts(int node, unsigned long *start)
{
	static char zi[1 << 16];
	char key[32];
	const char *p = zi, *next, *f;
	int n = 0;

	if (zc_read_file("/proc/zoneinfo", zi, sizeof(zi)) <= 0)
		return 0;
	snprintf(key, sizeof(key), "Node %d, zone", node);
	while (n < MAX_Z && (p = strstr(p, key))) {
		next = strstr(p + 1, "\nNode ");
		f = strstr(p, "start_pfn:");
		p++;
		if (!f || (next && f > next) ||
		    sscanf(f + strlen("start_pfn:"), "%lu", &start[n]) != 1)
			continue;
		n++;
	}
	return n;
}

/*
 * The mm_compaction_begin events of this task (the write to compact_node
 * compacts in its context; a background round is another task's) in
 * the trace: how many began in a zone starting at one of @a's @na pfns
 * (*@in_a), at one of @b's (*@in_b)
 */
static void begin_events(const unsigned long *a, int na, const unsigned long *b,
			 int nb, int *in_a, int *in_b)
{
	static char line[512];
	unsigned long zs;
	FILE *f = fopen(ZC_TRACING "trace", "r");
	const char *p;
	int i;

	*in_a = *in_b = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char task[64], *dash;

		/* "<comm>-<pid> [<cpu>] ...": this task's events only */
		if (sscanf(line, " %63s", task) != 1 || !(dash = strrchr(task, '-')) ||
		    atoi(dash + 1) != getpid())
			continue;
		p = strstr(line, "mm_compaction_begin: zone_start=");
		if (!p || sscanf(p + strlen("mm_compaction_begin: zone_start="), "%lx", &zs) != 1)
			continue;
		for (i = 0; i < na; i++)
			*in_a += a[i] == zs;
		for (i = 0; i < nb; i++)
			*in_b += b[i] == zs;
	}
	if (f)
		fclose(f);
}

struct counters {
	long migrate_scanned, free_scanned, moved, blocks, steal;
};

/* A counter this kernel lacks is fatal: -1 - -1 would read as "0 moved" */
static void read_counters(struct counters *c)
{
	static const char * const names[] = {
		"compact_migrate_scanned", "compact_free_scanned",
		"compact_pages_moved", "compact_blocks_moved",
		"pgsteal_kswapd", "pgsteal_direct",
	};
	long v[sizeof(names) / sizeof(names[0])];
	const char *gone = zc_vmstats(names, v, sizeof(names) / sizeof(names[0]));

	if (gone)
		ksft_exit_fail_msg("no %s in /proc/vmstat\n", gone);
	c->migrate_scanned = v[0];
	c->free_scanned = v[1];
	c->moved = v[2];
	c->blocks = v[3];
	c->steal = v[4] + v[5];
}

static struct zc_trace_saved trace_saved;

int main(void)
{
	struct counters c0, c1, c2;
	struct zc_buddy b0, b1;
	struct zc_frag f;
	unsigned long before, after, other0, other1, free_pages, spanned;
	unsigned long zs_node[MAX_Z], zs_other[MAX_Z];
	int nz_node, nz_other, runs_node, runs_other, traced;
	long h0, h1, moved, scanned, lost;
	double t;

	ksft_print_header();
	ksft_set_plan(5);
	/* Put back at the end: the runner fails a program that changes it */
	if (zc_trace_save(&trace_saved))
		ksft_exit_fail_msg("cannot read the trace settings\n");
	if (zc_read_long("/proc/sys/vm/compact_node") < 0)
		ksft_exit_fail_msg("no /proc/sys/vm/compact_node\n");
	if (zc_make_file("/mnt/zc-fill", FILE_MB))
		ksft_exit_fail_msg("cannot write /mnt/zc-fill\n");
	if (zc_fragment_node(NODE, "/mnt/zc-fill", 12 * 1024, &f))
		ksft_exit_fail_msg("cannot fragment node %d\n", NODE);
	ksft_print_msg("node %d filled: %zu anon + %zu file pages kept\n",
		       NODE, f.anon_pages, f.file_pages);

	/* What the free lists give without compaction, taken and given back */
	if (zc_read_buddyinfo(&b0) <= 0)
		ksft_exit_fail_msg("cannot parse /proc/buddyinfo\n");
	before = zc_free_at_least(&b0, NODE, 9);
	other0 = zc_free_at_least(&b0, OTHER, 9);
	free_pages = zc_free_at_least(&b0, NODE, 0);
	h0 = zc_node_hugepages(NODE, before >> 9);
	zc_node_hugepages(NODE, 0);
	zc_print_buddy_node("before", NODE);

	/* The zone runs of the compaction, by the zone each began in */
	nz_node = zone_starts(NODE, zs_node);
	nz_other = zone_starts(OTHER, zs_other);
	traced = !zc_write_file(ZC_TRACING "tracing_on", "0") &&
		 !zc_trace_clear() && !zc_write_file(BEGIN, "1") &&
		 !zc_write_file(ZC_TRACING "tracing_on", "1");
	read_counters(&c0);
	t = zc_now();
	if (zc_write_file("/proc/sys/vm/compact_node", "0"))
		ksft_exit_fail_msg("write to compact_node failed\n");
	t = zc_now() - t;
	read_counters(&c1);
	zc_write_file(ZC_TRACING "tracing_on", "0");
	lost = zc_trace_lost();
	begin_events(zs_node, nz_node, zs_other, nz_other, &runs_node, &runs_other);
	zc_write_file(BEGIN, "0");
	zc_trace_clear();
	if (zc_read_buddyinfo(&b1) <= 0)
		ksft_exit_fail_msg("cannot parse /proc/buddyinfo\n");
	after = zc_free_at_least(&b1, NODE, 9);
	other1 = zc_free_at_least(&b1, OTHER, 9);
	zc_print_buddy_node("after", NODE);

	/*
	 * Half of the node's used frames were freed one by one, so nearly
	 * all of its free memory is order-0. A full run must put at least a
	 * quarter of the free memory into order >= 9 blocks, and at least 4x
	 * what was there (the margin left free before filling).
	 */
	if (after >= 4 * before && after >= free_pages / 4)
		ksft_test_result_pass("compact_grows_free: order>=9 free %lu -> %lu pages of %lu free, %.2fs\n",
				      before, after, free_pages, t);
	else
		ksft_test_result_fail("compact_grows_free: order>=9 free %lu -> %lu pages of %lu free (want >= 4x and >= 1/4)\n",
				      before, after, free_pages);

	moved = c1.moved - c0.moved;
	if (moved > 0 && c1.blocks > c0.blocks)
		ksft_test_result_pass("compact_counters: pages_moved +%ld, blocks_moved +%ld, migrate_scanned +%ld, free_scanned +%ld\n",
				      moved, c1.blocks - c0.blocks,
				      c1.migrate_scanned - c0.migrate_scanned,
				      c1.free_scanned - c0.free_scanned);
	else
		ksft_test_result_fail("compact_counters: pages_moved +%ld, blocks_moved +%ld\n",
				      moved, c1.blocks - c0.blocks);

	/*
	 * Only node 0 was compacted: every zone run the write began (one
	 * mm_compaction_begin each, none lost) began in a zone of node 0,
	 * none in a zone of node 1; and the scanners together looked at
	 * each of node 0's pfns about once (25% slack for rescanned
	 * blocks). Node 1 is mostly free, so its free memory alone would
	 * barely change if it were compacted too: the events say which
	 * zones ran.
	 */
	spanned = zc_node_zoneinfo(NODE, "spanned");
	scanned = (c1.migrate_scanned - c0.migrate_scanned) +
		  (c1.free_scanned - c0.free_scanned);
	if (!traced || lost || !nz_node || !nz_other)
		ksft_test_result_fail("compact_other_node: cannot tell the zones (trace %s, %ld events lost, %d and %d zones in /proc/zoneinfo)\n",
				      traced ? "on" : "off", lost, nz_node, nz_other);
	else if (runs_node > 0 && !runs_other && scanned > 0 &&
		 (unsigned long)scanned <= spanned * 5 / 4)
		ksft_test_result_pass("compact_other_node: %d zone runs in node %d, %d in node %d; %ld pfns scanned for %lu spanned; node %d order>=9 free %lu -> %lu\n",
				      runs_node, NODE, runs_other, OTHER, scanned, spanned,
				      OTHER, other0, other1);
	else
		ksft_test_result_fail("compact_other_node: %d zone runs in node %d, %d in node %d (want some, and none); %ld pfns scanned for %lu spanned\n",
				      runs_node, NODE, runs_other, OTHER, scanned, spanned);

	/*
	 * The free lists held after >> 9 huge pages' worth of order >= 9
	 * blocks right after the run: allocating them needs no further
	 * compaction. At least half of them (a 2x margin for what the kernel
	 * and this test allocate meanwhile), more than before compaction and
	 * at least twice as many.
	 */
	h1 = zc_node_hugepages(NODE, after >> 9);
	read_counters(&c2);
	if (h0 >= 0 && h1 > h0 && h1 >= 2 * h0 && h1 >= (long)(after >> 9) / 2)
		ksft_test_result_pass("hugepages_after_compaction: %ld huge pages before, %ld of %lu after\n",
				      h0, h1, after >> 9);
	else
		ksft_test_result_fail("hugepages_after_compaction: %ld huge pages before, %ld of %lu after (want more than before, >= 2x, and >= half of the blocks)\n",
				      h0, h1, after >> 9);
	/*
	 * Compaction moves pages; it must not have reclaimed them (64 =
	 * noise). Judged over the write to compact_node alone: the huge
	 * page allocation after it takes the node's free blocks, which can
	 * take its free memory below the low watermark and wake kswapd
	 * (the debug kernel, whose own allocations are larger, once counted
	 * 192 pages reclaimed when the window held both).
	 */
	if (c1.steal - c0.steal <= 64)
		ksft_test_result_pass("compact_no_reclaim: %ld pages reclaimed during compact_node, %ld during the huge page allocation after it\n",
				      c1.steal - c0.steal, c2.steal - c1.steal);
	else
		ksft_test_result_fail("compact_no_reclaim: %ld pages reclaimed during compact_node (want <= 64), %ld during the huge page allocation after it\n",
				      c1.steal - c0.steal, c2.steal - c1.steal);

	zc_node_hugepages(NODE, 0);
	zc_unfragment(&f);
	unlink("/mnt/zc-fill");
	zc_trace_restore(&trace_saved);
	ksft_finished();
}
