// SPDX-License-Identifier: GPL-2.0
/*
 * First guest checks: the guest is what the harness asked for (NUMA
 * nodes), the /proc files the series extends parse, and a fresh guest
 * hands out half of its memory as huge pages.
 */
#include "zc.h"

static char buf[65536];

/* ZC_NODES comes from the kernel command line (an init env variable). */
static void test_numa_nodes(void)
{
	const char *want = getenv("ZC_NODES");
	int nodes = want ? atoi(want) : 2;
	char expect[16];

	if (nodes > 1)
		snprintf(expect, sizeof(expect), "0-%d\n", nodes - 1);
	else
		snprintf(expect, sizeof(expect), "0\n");
	if (zc_read_file("/sys/devices/system/node/online", buf, sizeof(buf)) <= 0) {
		ksft_test_result_fail("numa_nodes: cannot read node/online\n");
		return;
	}
	if (strcmp(buf, expect)) {
		ksft_test_result_fail("numa_nodes: online is '%.*s', want %d nodes\n",
				      (int)strcspn(buf, "\n"), buf, nodes);
		return;
	}
	ksft_test_result_pass("numa_nodes: %d nodes online\n", nodes);
}

/*
 * buddyinfo must parse, and its free pages must add up to MemFree: both
 * come from the zone free lists, so they differ only by what was
 * allocated between the two reads (allow 2%).
 */
static void test_buddyinfo(void)
{
	struct zc_buddy b;
	unsigned long free_kb;
	long memfree;
	int n = zc_read_buddyinfo(&b);

	memfree = zc_meminfo("MemFree");
	if (n <= 0) {
		ksft_test_result_fail("buddyinfo: does not parse\n");
		return;
	}
	free_kb = zc_free_at_least(&b, -1, 0) * (ZC_PAGE / 1024);
	if (memfree <= 0 || labs((long)free_kb - memfree) > memfree / 50) {
		ksft_test_result_fail("buddyinfo: %d zones, %lu kB free, MemFree %ld kB\n",
				      n, free_kb, memfree);
		return;
	}
	ksft_test_result_pass("buddyinfo: %d zones, %lu kB free, MemFree %ld kB\n",
			      n, free_kb, memfree);
}

/*
 * pagetypeinfo must carry its header and, for every zone of buddyinfo,
 * a row in the block count table whose blocks cover the zone's present
 * pages (from /proc/zoneinfo).
 */
static void test_pagetypeinfo(void)
{
	static char zi[65536];
	struct zc_buddy b;
	char *p;
	int i, order;

	if (zc_read_file("/proc/pagetypeinfo", buf, sizeof(buf)) <= 0 ||
	    zc_read_file("/proc/zoneinfo", zi, sizeof(zi)) <= 0 ||
	    zc_read_buddyinfo(&b) <= 0) {
		ksft_test_result_fail("pagetypeinfo: cannot read inputs\n");
		return;
	}
	if (sscanf(buf, "Page block order: %d", &order) != 1 || order != ZC_HPAGE_ORDER) {
		ksft_test_result_fail("pagetypeinfo: bad header\n");
		return;
	}
	p = strstr(buf, "Number of blocks type");
	if (!p) {
		ksft_test_result_fail("pagetypeinfo: no block count table\n");
		return;
	}
	for (i = 0; i < b.nr; i++) {
		char key[64], *row, *zrow;
		unsigned long blocks = 0, present, v;
		int off;

		snprintf(key, sizeof(key), "Node %d, zone %8s", b.z[i].node, b.z[i].name);
		row = strstr(p, key);
		zrow = strstr(zi, key);
		if (!row || !zrow) {
			ksft_test_result_fail("pagetypeinfo: no row for node %d zone %s\n",
					      b.z[i].node, b.z[i].name);
			return;
		}
		row += strlen(key);
		while (sscanf(row, "%lu%n", &v, &off) == 1) {
			blocks += v;
			row += off;
		}
		zrow = strstr(zrow, "present");
		if (!zrow || sscanf(zrow, "present %lu", &present) != 1) {
			ksft_test_result_fail("pagetypeinfo: zoneinfo has no present\n");
			return;
		}
		if (blocks * 512 < present || (blocks - 1) * 512 > present + 511) {
			ksft_test_result_fail("pagetypeinfo: node %d %s: %lu blocks for %lu pages\n",
					      b.z[i].node, b.z[i].name, blocks, present);
			return;
		}
	}
	ksft_test_result_pass("pagetypeinfo: header and block counts of %d zones\n", b.nr);
}

/*
 * A freshly booted guest has almost all of its memory in free
 * high-order blocks: asking for 50% of RAM as huge pages must give at
 * least 90% of them, with or without a compactor.
 */
static void test_hugepages_fresh(void)
{
	long total_kb = zc_meminfo("MemTotal");
	long want = total_kb / 2 / 2048;
	long got = zc_set_hugepages(want);

	zc_set_hugepages(0);
	if (got < want * 9 / 10) {
		ksft_test_result_fail("hugepages_fresh: %ld of %ld huge pages (want >= 90%%)\n",
				      got, want);
		return;
	}
	ksft_test_result_pass("hugepages_fresh: %ld of %ld huge pages\n", got, want);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(4);
	test_numa_nodes();
	test_buddyinfo();
	test_pagetypeinfo();
	test_hugepages_fresh();
	ksft_finished();
}
