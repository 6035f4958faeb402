// SPDX-License-Identifier: GPL-2.0
/*
 * First guest checks: the guest is what the harness asked for (NUMA
 * nodes), the /proc files the series extends parse, the kernel has the
 * series' files and counters (its four /proc/sys/vm files, the two index
 * sections of /proc/pagetypeinfo and its /proc/vmstat counters: on a
 * kernel without CONFIG_ZONE_COMPACTION these fail), and a fresh guest
 * hands out half of its memory as huge pages.
 */
#include <sys/stat.h>

#include "zc.h"

static char buf[65536];
static int nodes;

/* ZC_NODES comes from the kernel command line (an init env variable). */
static void test_numa_nodes(void)
{
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
 * The series' sysctls, with the modes the series gives them, each
 * reading one integer in its range (compact_memory is write-only).
 */
static void test_sysctls(void)
{
	static const struct {
		const char *name;
		unsigned int mode;
		long min, max;	/* max -1: the last node */
	} files[] = {
		{ "compact_node", 0644, 0, -1 },
		{ "compact_memory", 0200, 0, 0 },
		{ "extfrag_threshold", 0644, 0, 1000 },
		{ "compact_unevictable_allowed", 0644, 0, 1 },
	};
	int i, n = sizeof(files) / sizeof(files[0]), good = 0;
	char path[96], val[64], *end;

	for (i = 0; i < n; i++) {
		long max = files[i].max < 0 ? nodes - 1 : files[i].max, v;
		struct stat st;

		snprintf(path, sizeof(path), "/proc/sys/vm/%s", files[i].name);
		if (stat(path, &st)) {
			ksft_print_msg("%s: %s\n", path, strerror(errno));
			continue;
		}
		if ((st.st_mode & 0777) != files[i].mode) {
			ksft_print_msg("%s: mode %03o, want %03o\n", path,
				       st.st_mode & 0777, files[i].mode);
			continue;
		}
		if (!(files[i].mode & 0444)) {
			good++;
			continue;
		}
		if (zc_read_file(path, val, sizeof(val)) <= 0) {
			ksft_print_msg("%s: unreadable\n", path);
			continue;
		}
		v = strtol(val, &end, 10);
		if (end == val || strcmp(end, "\n") || v < files[i].min || v > max) {
			ksft_print_msg("%s: reads '%.*s', want one integer in %ld..%ld\n",
				       path, (int)strcspn(val, "\n"), val, files[i].min, max);
			continue;
		}
		good++;
	}
	ksft_test_result(good == n,
			 "series_sysctls: %d of %d of compact_node, compact_memory, extfrag_threshold, compact_unevictable_allowed present, with their modes and values in range\n",
			 good, n);
}

/*
 * Every row of every section titled @title (one section per node): for
 * each zone of @b, one "Node N, zone NAME" row of ZC_MAX_ORDER integers
 * in @min..@max. Returns the rows checked, or -1 with the reason in @msg.
 */
static int check_section(const char *text, const char *title, long min, long max,
			 const struct zc_buddy *b, char *msg, size_t len)
{
	int seen[ZC_MAX_ZONES] = { 0 };
	const char *p = text;
	int rows = 0, i;

	while ((p = strstr(p, title))) {
		p += strlen(title);
		if (*p++ != '\n')
			return snprintf(msg, len, "'%s' is not a line", title), -1;
		while (!strncmp(p, "Node ", 5)) {
			char name[16];
			int node, off, o;

			if (sscanf(p, "Node %d, zone %15s%n", &node, name, &off) != 2)
				return snprintf(msg, len, "%s: bad row", title), -1;
			p += off;
			for (o = 0; o < ZC_MAX_ORDER; o++) {
				char *end;
				long v = strtol(p, &end, 10);

				if (end == p || v < min || v > max)
					return snprintf(msg, len,
							"%s: node %d %s order %d: not in %ld..%ld",
							title, node, name, o, min, max), -1;
				p = end;
			}
			while (*p == ' ')
				p++;
			if (*p++ != '\n')
				return snprintf(msg, len, "%s: node %d %s: not %d values",
						title, node, name, ZC_MAX_ORDER), -1;
			for (i = 0; i < b->nr; i++)
				if (b->z[i].node == node && !strcmp(b->z[i].name, name))
					seen[i]++;
			rows++;
		}
	}
	if (!rows)
		return snprintf(msg, len, "no '%s' section", title), -1;
	for (i = 0; i < b->nr; i++)
		if (seen[i] != 1)
			return snprintf(msg, len, "%s: %d rows for node %d %s, want 1",
					title, seen[i], b->z[i].node, b->z[i].name), -1;
	return rows;
}

/*
 * The two sections the series adds to /proc/pagetypeinfo, one row per
 * zone of buddyinfo: the unusable free space index (0..1000) and the
 * fragmentation index (0..1000, -1 when a block of the order is free).
 * indices.c checks their values against an oracle.
 */
static void test_index_sections(void)
{
	static char pt[1 << 17];
	char msg[160] = "";
	struct zc_buddy b;
	int unusable = -1, frag = -1;

	if (zc_read_file("/proc/pagetypeinfo", pt, sizeof(pt)) <= 0 ||
	    zc_read_buddyinfo(&b) <= 0) {
		ksft_test_result_fail("index_sections: cannot read pagetypeinfo or buddyinfo\n");
		return;
	}
	unusable = check_section(pt, "Unusable free space index at order", 0, 1000,
				 &b, msg, sizeof(msg));
	if (unusable >= 0)
		frag = check_section(pt, "Fragmentation index at order", -1, 1000,
				     &b, msg, sizeof(msg));
	if (unusable > 0 && frag > 0)
		ksft_test_result_pass("index_sections: unusable free space index and fragmentation index, %d rows each for %d zones\n",
				      unusable, b.nr);
	else
		ksft_test_result_fail("index_sections: %s\n", msg);
}

/* The /proc/vmstat counters the series adds (patches 5, 9 and 11) */
static void test_counters(void)
{
	static const char * const names[] = {
		"compact_migrate_scanned", "compact_free_scanned",
		"compact_blocks_moved", "compact_pages_moved",
		"compact_pagemigrate_failed", "compact_stall", "compact_fail",
		"compact_success", "compact_deferred",
	};
	int i, n = sizeof(names) / sizeof(names[0]), found = 0;
	long v[sizeof(names) / sizeof(names[0])];
	char absent[512] = "";
	size_t len = 0;

	zc_vmstats(names, v, n);
	for (i = 0; i < n; i++) {
		if (v[i] >= 0)
			found++;
		else
			len += snprintf(absent + len, sizeof(absent) - len, " %s", names[i]);
	}
	if (found == n)
		ksft_test_result_pass("series_counters: all %d compact_* counters in /proc/vmstat\n",
				      n);
	else
		ksft_test_result_fail("series_counters: %d of %d in /proc/vmstat, missing:%s\n",
				      found, n, absent);
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
	const char *want = getenv("ZC_NODES");

	nodes = want ? atoi(want) : 2;
	ksft_print_header();
	ksft_set_plan(7);
	test_numa_nodes();
	test_buddyinfo();
	test_pagetypeinfo();
	test_sysctls();
	test_index_sections();
	test_counters();
	test_hugepages_fresh();
	ksft_finished();
}
