// SPDX-License-Identifier: GPL-2.0
/*
 * A node boundary inside a pageblock (boot.sh NODE_SKEW_MB): the zones
 * on both sides of it are compacted without either scanner taking the
 * other zone's pages. First the layout is checked to be what the test
 * needs, a zone whose first pageblock begins in another node's zone;
 * then every node is compacted, and afterwards each zone's free lists
 * (buddyinfo) must add up to its NR_FREE_PAGES (zoneinfo, folded with
 * stat_refresh): a free page taken from another zone's lists, or freed
 * into them, under the wrong lock breaks that sum or the lists (the
 * debug kernel checks every list operation).
 */
#include "zc.h"

#define PAGEBLOCK	512UL	/* pages in a pageblock on x86_64 */

struct zinfo {
	int node;
	char name[16];
	unsigned long start, spanned, present, nr_free;
};

/* The populated zones of /proc/zoneinfo; returns how many, -1 on error */
static int read_zoneinfo(struct zinfo *z, int max)
{
	static char buf[65536];
	char *p = buf;
	int n = 0;

	if (zc_read_file("/proc/zoneinfo", buf, sizeof(buf)) <= 0)
		return -1;
	while ((p = strstr(p, "Node ")) && n < max) {
		char *next = strstr(p + 1, "\nNode ");
		struct zinfo *c = &z[n];
		char *f;

		if (sscanf(p, "Node %d, zone %15s", &c->node, c->name) != 2)
			return -1;
		if (next)
			*next = '\0';
		f = strstr(p, "start_pfn:");
		c->start = f ? strtoul(f + 10, NULL, 10) : 0;
		f = strstr(p, "spanned");
		c->spanned = f ? strtoul(f + 7, NULL, 10) : 0;
		f = strstr(p, "present");
		c->present = f ? strtoul(f + 7, NULL, 10) : 0;
		f = strstr(p, "nr_free_pages");
		c->nr_free = f ? strtoul(f + 13, NULL, 10) : 0;
		if (c->present)
			n++;
		if (!next)
			break;
		*next = '\n';
		p = next + 1;
	}
	return n;
}

/* Index of a zone whose first pageblock holds pfns of another node's zone */
static int find_shared_block(const struct zinfo *z, int n, int *other)
{
	int i, j;

	for (i = 0; i < n; i++) {
		unsigned long block = z[i].start & ~(PAGEBLOCK - 1);

		if (z[i].start == block)
			continue;
		for (j = 0; j < n; j++) {
			unsigned long end = z[j].start + z[j].spanned;

			if (z[j].node != z[i].node && end > block &&
			    end <= z[i].start) {
				*other = j;
				return i;
			}
		}
	}
	return -1;
}

int main(void)
{
	struct zinfo z[ZC_MAX_ZONES];
	struct zc_buddy b;
	int n, i, j, o, shared, other = -1, nodes, bad = 0;
	long scanned0, scanned1;

	ksft_print_header();
	ksft_set_plan(3);
	n = read_zoneinfo(z, ZC_MAX_ZONES);
	if (n <= 0)
		ksft_exit_fail_msg("cannot parse /proc/zoneinfo\n");
	for (i = 0; i < n; i++)
		ksft_print_msg("node %d %-8s start_pfn %lu spanned %lu present %lu\n",
			       z[i].node, z[i].name, z[i].start, z[i].spanned,
			       z[i].present);
	shared = find_shared_block(z, n, &other);
	if (shared < 0)
		ksft_test_result_fail("shared_pageblock: no zone begins inside a pageblock of another node's zone (NODE_SKEW_MB?)\n");
	else
		ksft_test_result_pass("shared_pageblock: node %d %s starts at pfn %lu, inside the pageblock at %lu where node %d %s ends at %lu\n",
				      z[shared].node, z[shared].name, z[shared].start,
				      z[shared].start & ~(PAGEBLOCK - 1), z[other].node,
				      z[other].name, z[other].start + z[other].spanned);

	nodes = 0;
	for (i = 0; i < n; i++)
		if (z[i].node + 1 > nodes)
			nodes = z[i].node + 1;
	scanned0 = zc_vmstat("compact_migrate_scanned");
	for (i = 0; i < nodes; i++)
		if (zc_write_long("/proc/sys/vm/compact_node", i))
			bad++;
	scanned1 = zc_vmstat("compact_migrate_scanned");
	if (bad || scanned0 < 0 || scanned1 <= scanned0)
		ksft_test_result_fail("compact_nodes: %d of %d compact_node writes failed, compact_migrate_scanned %ld -> %ld\n",
				      bad, nodes, scanned0, scanned1);
	else
		ksft_test_result_pass("compact_nodes: %d nodes compacted, %ld pfns scanned\n",
				      nodes, scanned1 - scanned0);

	/* Fold the per-CPU counter deltas, then compare zone by zone */
	zc_write_file("/proc/sys/vm/stat_refresh", "1");
	n = read_zoneinfo(z, ZC_MAX_ZONES);
	if (n <= 0 || zc_read_buddyinfo(&b) <= 0)
		ksft_exit_fail_msg("cannot read zoneinfo or buddyinfo\n");
	bad = 0;
	for (i = 0; i < n; i++) {
		unsigned long lists = 0;

		for (j = 0; j < b.nr; j++) {
			if (b.z[j].node != z[i].node || strcmp(b.z[j].name, z[i].name))
				continue;
			for (o = 0; o < ZC_MAX_ORDER; o++)
				lists += b.z[j].nr_free[o] << o;
		}
		/*
		 * An idle guest: the pages that move between the two reads
		 * are this program's own, a few dozen at most; 256 pages
		 * (1 MiB) is far below a whole free block of the other zone
		 */
		ksft_print_msg("node %d %-8s free lists %lu pages, nr_free_pages %lu\n",
			       z[i].node, z[i].name, lists, z[i].nr_free);
		if (lists > z[i].nr_free + 256 || z[i].nr_free > lists + 256)
			bad++;
	}
	if (bad)
		ksft_test_result_fail("free_lists_match: %d zones whose free lists and NR_FREE_PAGES differ by more than 256 pages\n",
				      bad);
	else
		ksft_test_result_pass("free_lists_match: every zone's free lists add up to its NR_FREE_PAGES (within 256 pages)\n");
	ksft_finished();
}
