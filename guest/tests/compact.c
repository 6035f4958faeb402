// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/vm/compact_node on a fragmented node: free memory at the huge
 * page order grows, the move counters rise, the other node is left alone,
 * and nr_hugepages then gets more huge pages without any reclaim.
 */
#include "zc.h"

#define FILE_MB	160
#define NODE	0
#define OTHER	1

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

int main(void)
{
	struct counters c0, c1, c2;
	struct zc_buddy b0, b1;
	struct zc_frag f;
	unsigned long before, after, other0, other1, free_pages, spanned;
	long h0, h1, moved, scanned;
	double t;

	ksft_print_header();
	ksft_set_plan(5);
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

	read_counters(&c0);
	t = zc_now();
	if (zc_write_file("/proc/sys/vm/compact_node", "0"))
		ksft_exit_fail_msg("write to compact_node failed\n");
	t = zc_now() - t;
	read_counters(&c1);
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
	 * Only node 0 was compacted: the scanners together look at each of
	 * its pfns about once (25% slack for rescanned blocks), which they
	 * could not do if node 1 were scanned too; and node 1's free
	 * huge-page-sized memory is unchanged (5% noise).
	 */
	spanned = zc_node_zoneinfo(NODE, "spanned");
	scanned = (c1.migrate_scanned - c0.migrate_scanned) +
		  (c1.free_scanned - c0.free_scanned);
	if (scanned > 0 && (unsigned long)scanned <= spanned * 5 / 4 &&
	    other1 * 20 >= other0 * 19 && other1 * 20 <= other0 * 21)
		ksft_test_result_pass("compact_other_node: %ld pfns scanned for %lu spanned; node %d order>=9 free %lu -> %lu\n",
				      scanned, spanned, OTHER, other0, other1);
	else
		ksft_test_result_fail("compact_other_node: %ld pfns scanned for %lu spanned; node %d order>=9 free %lu -> %lu\n",
				      scanned, spanned, OTHER, other0, other1);

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
	/* Compaction moves pages; it must not have reclaimed them (64 = noise) */
	if (c2.steal - c0.steal <= 64)
		ksft_test_result_pass("compact_no_reclaim: %ld pages reclaimed\n", c2.steal - c0.steal);
	else
		ksft_test_result_fail("compact_no_reclaim: %ld pages reclaimed (want <= 64)\n",
				      c2.steal - c0.steal);

	zc_node_hugepages(NODE, 0);
	zc_unfragment(&f);
	unlink("/mnt/zc-fill");
	ksft_finished();
}
