// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of one full compaction against the size of memory (make run
 * SCALING=1). Every node is filled, from a CPU of its own, with anonymous
 * pages of which every second one is unmapped again: the same fragmented
 * state on every kernel and size. Then the whole of memory is compacted
 * once, by compact_node on each node where the kernel has it (ours) and
 * by compact_memory otherwise (mainline), and the wall time, the pfns
 * both scanners looked at, the pages migrated and the order >= 9 free
 * pages before and after go to the data channel (argv[1]) as
 *
 *   scaling,<MemTotal kB>,<seconds>,<migrate scanned>,<free scanned>,
 *           <pages migrated>,<order>=9 free before>,<after>
 */
#include "zc.h"

#define MARGIN_PCT	6

static char *keep[8];
static size_t keep_len[8];

static int fragment_node(int node)
{
	long margin = zc_node_meminfo(node, "MemTotal") * MARGIN_PCT / 100;
	size_t len = (size_t)zc_node_meminfo(node, "MemTotal") * 1024, i;
	char *hole;

	if (zc_bind_node(node) || zc_bind_mem_node(node))
		return -1;
	keep[node] = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	hole = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (keep[node] == MAP_FAILED || hole == MAP_FAILED)
		return -1;
	for (i = 0; i < len / ZC_PAGE; i++) {
		if (!(i % 256) && zc_node_meminfo(node, "MemFree") < margin)
			break;
		hole[i * ZC_PAGE] = 1;
		keep[node][i * ZC_PAGE] = 1;
	}
	keep_len[node] = len;
	munmap(hole, len);
	return zc_unbind_mem();
}

static unsigned long free9(void)
{
	struct zc_buddy b;
	unsigned long sum = 0;
	int z, o;

	if (zc_read_buddyinfo(&b) <= 0)
		return 0;
	for (z = 0; z < b.nr; z++)
		for (o = ZC_HPAGE_ORDER; o < ZC_MAX_ORDER; o++)
			sum += b.z[z].nr_free[o] << o;
	return sum;
}

int main(int argc, char **argv)
{
	static const char * const names[] = {
		"compact_migrate_scanned", "compact_free_scanned", "pgmigrate_success",
	};
	const char *chan = argc > 1 ? argv[1] : "/dev/ttyS1", *gone;
	int nodes = atoi(getenv("ZC_NODES") ?: "1"), node, ok = 1;
	int ours = !access("/proc/sys/vm/compact_node", F_OK);
	long c0[3], c1[3];
	unsigned long before, after;
	double t;
	FILE *out;

	ksft_print_header();
	ksft_set_plan(1);
	out = fopen(chan, "w");
	if (!out)
		ksft_exit_fail_msg("cannot open the data channel %s: %s\n", chan,
				   strerror(errno));
	if (nodes < 1 || nodes > 8)
		ksft_exit_fail_msg("bad ZC_NODES\n");
	for (node = 0; node < nodes; node++)
		ok &= !fragment_node(node);
	if (!ok)
		ksft_exit_fail_msg("cannot fragment the nodes: %s\n", strerror(errno));
	zc_write_file("/proc/sys/vm/drop_caches", "3");

	before = free9();
	gone = zc_vmstats(names, c0, 3);
	t = zc_now();
	if (ours) {
		for (node = 0; node < nodes; node++)
			ok &= !zc_write_long("/proc/sys/vm/compact_node", node);
	} else {
		ok = !zc_write_file("/proc/sys/vm/compact_memory", "1");
	}
	t = zc_now() - t;
	after = free9();
	if (!gone)
		gone = zc_vmstats(names, c1, 3);
	/*
	 * No row rather than a missing counter's -1 - -1 = 0 pfns scanned,
	 * or the cost of a compaction whose trigger failed
	 */
	if (!gone && ok)
		fprintf(out, "scaling,%ld,%.3f,%ld,%ld,%ld,%lu,%lu\n", zc_meminfo("MemTotal"),
			t, c1[0] - c0[0], c1[1] - c0[1], c1[2] - c0[2], before, after);
	fprintf(out, "done\n");
	fclose(out);
	ksft_test_result(ok && !gone && after > before,
			 "scaling: %s compacted %ld MiB in %.2fs, order>=9 free %lu -> %lu pages%s%s\n",
			 ours ? "compact_node" : "compact_memory",
			 zc_meminfo("MemTotal") >> 10, t, before, after,
			 gone ? "; no row: vmstat has no " : "", gone ? gone : "");
	for (node = 0; node < nodes; node++)
		munmap(keep[node], keep_len[node]);
	ksft_finished();
}
