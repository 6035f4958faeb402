// SPDX-License-Identifier: GPL-2.0
/*
 * The two indices the series adds to /proc/pagetypeinfo, checked against
 * an independent oracle computed here from /proc/buddyinfo, on a fresh
 * and on a fragmented guest, plus their ranges and a read stress test.
 */
#include <signal.h>
#include <sys/wait.h>

#include "zc.h"

#define TRIES 200

struct zc_indices {
	int nr;
	int node[ZC_MAX_ZONES];
	char name[ZC_MAX_ZONES][16];
	long unusable[ZC_MAX_ZONES][ZC_MAX_ORDER];
	long frag[ZC_MAX_ZONES][ZC_MAX_ORDER];
};

static char ptbuf[1 << 17];

/*
 * Parse every row of every section titled @title (one per node). A row
 * is "Node %4d, zone %8s" + padding + exactly ZC_MAX_ORDER integers.
 * Returns the rows found, -1 on a malformed row.
 */
static int parse_section(const char *text, const char *title,
			 long vals[][ZC_MAX_ORDER], int *node, char name[][16])
{
	const char *p = text;
	int nr = 0;

	while ((p = strstr(p, title))) {
		p += strlen(title);
		if (*p++ != '\n')
			return -1;
		while (!strncmp(p, "Node ", 5)) {
			int off, o;

			if (nr == ZC_MAX_ZONES ||
			    sscanf(p, "Node %d, zone %15s%n", &node[nr], name[nr], &off) != 2)
				return -1;
			p += off;
			for (o = 0; o < ZC_MAX_ORDER; o++) {
				char *end;

				vals[nr][o] = strtol(p, &end, 10);
				if (end == p)
					return -1;
				p = end;
			}
			while (*p == ' ')
				p++;
			if (*p++ != '\n')
				return -1;
			nr++;
		}
	}
	return nr;
}

static int read_indices(struct zc_indices *ix)
{
	int n1, n2, node2[ZC_MAX_ZONES];
	char name2[ZC_MAX_ZONES][16];

	if (zc_read_file("/proc/pagetypeinfo", ptbuf, sizeof(ptbuf)) <= 0)
		return -1;
	n1 = parse_section(ptbuf, "Unusable free space index at order",
			   ix->unusable, ix->node, ix->name);
	n2 = parse_section(ptbuf, "Fragmentation index at order",
			   ix->frag, node2, name2);
	if (n1 <= 0 || n1 != n2)
		return -1;
	ix->nr = n1;
	return 0;
}

/* The oracle: the formulas of the series, from buddyinfo counts */
static void oracle(const struct zc_zone *z, int order, long *unusable, long *frag)
{
	unsigned long free_pages = 0, blocks = 0, suitable = 0;
	int o;

	for (o = 0; o < ZC_MAX_ORDER; o++) {
		free_pages += z->nr_free[o] << o;
		blocks += z->nr_free[o];
		if (o >= order)
			suitable += z->nr_free[o] << (o - order);
	}
	*unusable = free_pages ? (long)((free_pages - (suitable << order)) * 1000 / free_pages)
			       : 1000;
	if (!blocks)
		*frag = 0;
	else if (suitable)
		*frag = -1;
	else
		*frag = 1000 - (long)((1000 + free_pages * 1000 / (1UL << order)) / blocks);
}

/*
 * Compare pagetypeinfo with the oracle on a snapshot where two buddyinfo
 * reads around it agree (up to TRIES reads for one: the free lists move
 * while the guest runs). On such a stable snapshot the first difference
 * fails: a retry after a real mismatch could find one that agrees and
 * hide it. Returns 0, or -1 with the difference in msg.
 */
static int check_oracle(struct zc_buddy *b, struct zc_indices *ix, char *msg, size_t len)
{
	struct zc_buddy b2;
	int t, i, o;

	snprintf(msg, len, "buddyinfo never stable");
	for (t = 0; t < TRIES; t++) {
		int bad = 0;

		if (zc_read_buddyinfo(b) <= 0 || read_indices(ix) || zc_read_buddyinfo(&b2) <= 0) {
			snprintf(msg, len, "cannot read or parse the files");
			return -1;
		}
		if (memcmp(b, &b2, sizeof(b2)))
			continue;
		if (ix->nr != b->nr) {
			snprintf(msg, len, "%d index rows for %d zones", ix->nr, b->nr);
			return -1;
		}
		for (i = 0; i < b->nr && !bad; i++) {
			for (o = 0; o < ZC_MAX_ORDER; o++) {
				long u, f;

				oracle(&b->z[i], o, &u, &f);
				if (ix->node[i] != b->z[i].node || strcmp(ix->name[i], b->z[i].name) ||
				    ix->unusable[i][o] != u || ix->frag[i][o] != f) {
					snprintf(msg, len, "node %d %s order %d: unusable %ld (oracle %ld), frag %ld (oracle %ld)",
						 b->z[i].node, b->z[i].name, o,
						 ix->unusable[i][o], u, ix->frag[i][o], f);
					bad = 1;
					break;
				}
			}
		}
		return bad ? -1 : 0;
	}
	return -1;
}

static int check_ranges(const struct zc_indices *ix, char *msg, size_t len)
{
	int i, o;

	for (i = 0; i < ix->nr; i++) {
		for (o = 0; o < ZC_MAX_ORDER; o++) {
			long u = ix->unusable[i][o], f = ix->frag[i][o];

			if (u < 0 || u > 1000 || (o && u < ix->unusable[i][o - 1]) ||
			    f < -1 || f > 1000) {
				snprintf(msg, len, "node %d %s order %d: unusable %ld, frag %ld",
					 ix->node[i], ix->name[i], o, u, f);
				return -1;
			}
		}
	}
	return 0;
}

/* Print the two sections as the kernel wrote them (last read) */
static void print_raw_sections(void)
{
	static const char * const titles[] = {
		"Unusable free space index at order", "Fragmentation index at order",
	};
	unsigned int t;

	for (t = 0; t < 2; t++) {
		const char *p = ptbuf;

		while ((p = strstr(p, titles[t]))) {
			const char *end = strstr(p, "\n\n");
			int len = end ? (int)(end - p) : (int)strlen(p);
			const char *line = p;

			while (line < p + len) {
				const char *nl = memchr(line, '\n', p + len - line);
				int n = nl ? (int)(nl - line) : (int)(p + len - line);

				ksft_print_msg("%.*s\n", n, line);
				line += n + 1;
			}
			p += len;
		}
	}
}

static struct zc_buddy ob;
static struct zc_indices oix;

static void oracle_test(const char *state)
{
	char msg[256];

	if (check_oracle(&ob, &oix, msg, sizeof(msg)))
		ksft_test_result_fail("oracle_%s: %s\n", state, msg);
	else
		ksft_test_result_pass("oracle_%s: %d zones x %d orders equal\n",
				      state, ob.nr, ZC_MAX_ORDER);
	if (check_ranges(&oix, msg, sizeof(msg)))
		ksft_test_result_fail("ranges_%s: %s\n", state, msg);
	else
		ksft_test_result_pass("ranges_%s: unusable in 0..1000 non-decreasing, frag in -1..1000\n",
				      state);
	print_raw_sections();
}

/* A fresh guest has its free memory in big blocks: order 9 is easy */
static void fresh_test(void)
{
	int z = zc_biggest_zone(&ob), i;

	for (i = 0; i < oix.nr; i++)
		if (oix.node[i] == ob.z[z].node && !strcmp(oix.name[i], ob.z[z].name))
			break;
	if (i < oix.nr && oix.frag[i][9] == -1 && oix.unusable[i][9] < 100)
		ksft_test_result_pass("fresh_indices: node %d %s order 9: unusable %ld, frag %ld\n",
				      oix.node[i], oix.name[i], oix.unusable[i][9], oix.frag[i][9]);
	else
		ksft_test_result_fail("fresh_indices: order 9 unusable %ld (want < 100), frag %ld (want -1)\n",
				      i < oix.nr ? oix.unusable[i][9] : -2,
				      i < oix.nr ? oix.frag[i][9] : -2);
}

/*
 * A fragmented guest: the biggest zone must then look fragmented at the
 * huge page order, unusable >= 900 and frag > 500 (thresholds of the
 * issue: with half of the used frames freed one by one, only the few
 * order-9 blocks left outside the filled memory count as usable).
 * Free order-9 blocks that survive are taken as huge pages (direct
 * compaction is kept out, see below) so the fragmentation index is
 * defined. Blocks can form again meanwhile: a proactive round on the
 * freshly fragmented node (proactive compaction is off here, and
 * kcompactd settles first), or reclaim by kswapd, which taking the
 * huge pages can wake, freeing the last pages of a block (seen once:
 * node 1's DMA32 with a free order-9 block, frag -1, after 22 huge pages
 * were taken). So the zone is judged on a snapshot that has no free
 * block of order 9 or more, taking what formed again until one has
 * (at most 20 times); the oracle is checked on every snapshot.
 */
static void fragmented_test(void)
{
	static struct zc_buddy b;
	static struct zc_indices ix;
	size_t len;
	char msg[256];
	char *map;
	int z, i, tries, bad;
	long huge, proactive;

	/* extfrag_threshold 1000 keeps direct compaction out of nr_hugepages */
	zc_write_long("/proc/sys/vm/extfrag_threshold", 1000);
	proactive = zc_read_long(ZC_PROACTIVENESS);
	if (proactive > 0)
		zc_write_long(ZC_PROACTIVENESS, 0);
	map = zc_fragment_anon(24 * 1024, &len);
	if (!map) {
		ksft_test_result_fail("oracle_fragmented: cannot map memory\n");
		ksft_test_result_fail("ranges_fragmented: cannot map memory\n");
		ksft_test_result_fail("fragmented_indices: cannot map memory\n");
		return;
	}
	zc_kcompactd_quiet(10000, "the fragmented indices");
	huge = zc_set_hugepages(100000);
	ksft_print_msg("took %ld surviving free huge pages\n", huge);

	oracle_test("fragmented");
	for (tries = 1; ; tries++) {
		bad = check_oracle(&b, &ix, msg, sizeof(msg));
		if (bad)
			break;
		z = zc_biggest_zone(&b);
		if (!(b.z[z].nr_free[9] + b.z[z].nr_free[10]) || tries == 20)
			break;
		huge = zc_set_hugepages(100000);
	}
	ksft_print_msg("judged on snapshot %d: %ld huge pages taken\n", tries, huge);
	if (bad) {
		ksft_test_result_fail("fragmented_indices: %s\n", msg);
	} else {
		z = zc_biggest_zone(&b);
		for (i = 0; i < ix.nr; i++)
			if (ix.node[i] == b.z[z].node && !strcmp(ix.name[i], b.z[z].name))
				break;
		if (i < ix.nr && ix.unusable[i][9] >= 900 && ix.frag[i][9] > 500)
			ksft_test_result_pass("fragmented_indices: node %d %s order 9: unusable %ld, frag %ld\n",
					      ix.node[i], ix.name[i], ix.unusable[i][9], ix.frag[i][9]);
		else
			ksft_test_result_fail("fragmented_indices: node %d %s order 9: unusable %ld (want >= 900), frag %ld (want > 500)\n",
					      b.z[z].node, b.z[z].name,
					      i < ix.nr ? ix.unusable[i][9] : -2,
					      i < ix.nr ? ix.frag[i][9] : -2);
	}
	zc_set_hugepages(0);
	munmap(map, len);
	zc_write_long("/proc/sys/vm/extfrag_threshold", 500);
	if (proactive > 0)
		zc_write_long(ZC_PROACTIVENESS, proactive);
}

/* 10,000 reads of pagetypeinfo while a child allocates and frees memory */
static void stress_test(void)
{
	static struct zc_indices ix;
	pid_t child = fork();
	int i, bad = 0;

	/* Without the churning child the reads would prove nothing */
	if (child < 0) {
		ksft_test_result_fail("read_stress: fork: %s\n", strerror(errno));
		return;
	}
	if (child == 0) {
		for (;;) {
			size_t sz = 8UL << 20, j;
			char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED)
				_exit(1);
			for (j = 0; j < sz; j += ZC_PAGE)
				m[j] = 1;
			munmap(m, sz);
		}
	}
	for (i = 0; i < 10000; i++) {
		if (read_indices(&ix) || check_ranges(&ix, (char[64]){0}, 64)) {
			bad++;
			if (bad == 1)
				ksft_print_msg("read %d: malformed or out of range\n", i);
		}
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (bad)
		ksft_test_result_fail("read_stress: %d of 10000 reads malformed\n", bad);
	else
		ksft_test_result_pass("read_stress: 10000 reads well formed under churn\n");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(7);
	oracle_test("fresh");
	fresh_test();
	fragmented_test();
	stress_test();
	ksft_finished();
}
