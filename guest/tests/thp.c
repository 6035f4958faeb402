// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent huge pages on the zone compactor.
 *
 * The THP fault path compacts as /sys/kernel/mm/transparent_hugepage/
 * defrag says, with the meaning it has with CONFIG_COMPACTION: on a node
 * fragmented so that it has no free huge page (every second frame free,
 * guest/lib/zc.c's zc_fragment_node()), a fault in a MADV_HUGEPAGE region
 * compacts directly with "madvise" and gets huge pages; "defer" and
 * "never" do not compact in the fault (compact_stall does not move), and
 * the faults fall back to small pages; "always" compacts for a region
 * that was not madvised too. Such a fault will not retry (__GFP_NORETRY)
 * and should get asynchronous passes only; here the asynchronous pass
 * makes every page, for madvised faults too, so no synchronous pass is
 * ever called for and the log only shows the passes' modes (khugepaged,
 * which compacts synchronously, is kept from compacting meanwhile): the
 * KUnit suite checks that decision, zc_direct_passes(), on its own. All
 * the free huge pages the fragmented node still has are taken by THP
 * faults that may not compact (defrag "never") before the measured ones.
 * Proactive compaction is off meanwhile, and the background compactor
 * settles before the measured faults: a proactive round on the freshly
 * fragmented node makes free huge pages that "defer" and "never" faults
 * then find (seen once: 16 of 16 "defer" faults served huge, with no
 * compaction in the faults).
 *
 * Then THP memory survives compaction while huge pages are split and
 * collapsed: a MADV_HUGEPAGE region is filled with a pattern that
 * encodes where each word lives; half of its huge pages are split
 * (debugfs split_huge_pages), every node is compacted, the split half
 * is collapsed again (MADV_COLLAPSE, which allocates through direct
 * compaction), every node is compacted again, and every word is
 * checked. thp_split_page and thp_collapse_alloc must have moved, and
 * compaction must have moved pages.
 */
#include "zc.h"

#define NODE		1
#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define FILL		"/mnt/zc-thp"
#define HPAGE		(2UL << 20)
#define FAULT_MB	32
#define RANGES		(FAULT_MB / 2)	/* huge page sized ranges faulted */
#define DATA_MB		64
#define EAT_MB		128UL
static long margin_kb;

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

/* A region aligned to a huge page, madvised or not */
static char *map_aligned(size_t len, int huge)
{
	char *a = zc_map_hpage_aligned(len);

	if (a && huge && madvise(a, len, MADV_HUGEPAGE)) {
		munmap(a, len);
		return NULL;
	}
	return a;
}

static long anon_huge_kb(void)
{
	return zc_keyed_value("/proc/self/smaps_rollup", "AnonHugePages", ':');
}

struct fault_run {
	long stall, alloc, fallback, huge_kb;
	long begin_async, begin_sync;
};

/* Count the mm_compaction_begin events in the trace by mode, and clear it */
static int count_begins(struct fault_run *r)
{
	static char line[512];
	FILE *f = fopen(ZC_TRACING "trace", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, "mm_compaction_begin:"))
			continue;
		if (strstr(line, "mode=async"))
			r->begin_async++;
		else
			r->begin_sync++;
	}
	fclose(f);
	return zc_trace_clear();
}

/*
 * On a freshly fragmented node, with defrag @mode (and enabled @enabled),
 * fault FAULT_MB of a region madvised or not (@huge)
 */
static int fault_in(const char *enabled, const char *mode, int huge,
		    struct fault_run *r)
{
	struct zc_frag f;
	size_t len = (size_t)FAULT_MB << 20, i;
	long s0, a0, b0;
	char *p, *eat;
	int pass;

	memset(r, 0, sizeof(*r));
	/* Fragment with THP for madvised memory only, or it would be THP */
	if (zc_write_file(THP "enabled", "madvise"))
		return -1;
	if (zc_fragment_node(NODE, FILL, margin_kb, &f)) {
		zc_unfragment(&f);
		return -1;
	}
	/*
	 * The free huge pages the node still has (in the reserve above its
	 * high watermark) go to THPs faulted without compaction first
	 */
	eat = map_aligned(EAT_MB << 20, 1);
	if (!eat || zc_write_file(THP "defrag", "never")) {
		zc_unfragment(&f);
		return -1;
	}
	/* Again once the background compactor is done, for what it made */
	for (i = 0, pass = 0; pass < 2; pass++) {
		b0 = zc_vmstat("thp_fault_fallback");
		for (; i < (EAT_MB << 20) && zc_vmstat("thp_fault_fallback") == b0; i += HPAGE)
			eat[i] = 1;
		zc_kcompactd_quiet(10000, "the faults on the eaten memory");
	}
	if (zc_write_file(THP "enabled", enabled) || zc_write_file(THP "defrag", mode))
		return -1;
	p = map_aligned(len, huge);
	if (!p) {
		munmap(eat, EAT_MB << 20);
		zc_unfragment(&f);
		return -1;
	}
	zc_trace_clear();
	s0 = zc_vmstat("compact_stall");
	a0 = zc_vmstat("thp_fault_alloc");
	b0 = zc_vmstat("thp_fault_fallback");
	for (i = 0; i < len; i += ZC_PAGE)
		p[i] = 1;
	r->stall = zc_vmstat("compact_stall") - s0;
	r->alloc = zc_vmstat("thp_fault_alloc") - a0;
	r->fallback = zc_vmstat("thp_fault_fallback") - b0;
	r->huge_kb = anon_huge_kb();
	count_begins(r);
	munmap(p, len);
	munmap(eat, EAT_MB << 20);
	zc_unfragment(&f);
	ksft_print_msg("enabled=%s defrag=%s %s: compact_stall +%ld, thp_fault_alloc +%ld, thp_fault_fallback +%ld, compaction passes %ld async %ld sync\n",
		       enabled, mode, huge ? "madvised" : "not madvised", r->stall,
		       r->alloc, r->fallback, r->begin_async, r->begin_sync);
	return 0;
}

static void test_defrag(void)
{
	long proactive = zc_read_long(ZC_PROACTIVENESS);
	struct fault_run m, d, n, a;
	int ok;

	if (proactive > 0 && zc_write_long(ZC_PROACTIVENESS, 0))
		ksft_exit_fail_msg("cannot set %s to 0\n", ZC_PROACTIVENESS);
	/* khugepaged must not compact (synchronously) while faults are traced */
	if (zc_write_file(THP "khugepaged/defrag", "0") ||
	    zc_write_file(ZC_TRACING "events/compaction/mm_compaction_begin/enable", "1"))
		ksft_exit_fail_msg("cannot set khugepaged/defrag or trace mm_compaction_begin\n");
	zc_write_file(ZC_TRACING "tracing_on", "1");
	if (fault_in("madvise", "madvise", 1, &m) || fault_in("madvise", "defer", 1, &d) ||
	    fault_in("madvise", "never", 1, &n) || fault_in("always", "always", 0, &a))
		ksft_exit_fail_msg("cannot set up the faults: %s\n", strerror(errno));
	zc_write_file(ZC_TRACING "events/compaction/mm_compaction_begin/enable", "0");
	zc_write_file(THP "enabled", "madvise");
	zc_write_file(THP "defrag", "madvise");
	zc_write_file(THP "khugepaged/defrag", "1");
	if (proactive > 0)
		zc_write_long(ZC_PROACTIVENESS, proactive);

	/*
	 * Each run faults RANGES huge page sized ranges on a node with every
	 * second frame free and no free huge page: a compactor that works
	 * serves them all (measured: 16 of 16 under madvise and always),
	 * and with compaction barred they all fall back under never (16 of
	 * 16). Three quarters leaves room for a range the kernel's own
	 * allocations take meanwhile, and fails a compactor that serves
	 * some faults by chance (a block freed meanwhile) but not as the
	 * mode says. Under defer a fault that falls short wakes kcompactd,
	 * whose blocks serve later faults (measured: 6 huge, 10 fallbacks):
	 * there the fault itself must not compact, and fall back.
	 */
	/* madvise: the madvised faults compact, and get huge pages */
	ok = m.stall > 0 && m.alloc * 4 >= RANGES * 3;
	ksft_test_result(ok, "thp_defrag_madvise: compact_stall +%ld, %ld of %d faults huge (want >= 3/4)\n",
			 m.stall, m.alloc, RANGES);
	/* defer and never: no compaction in the fault, small pages instead */
	ok = d.stall == 0 && n.stall == 0 && d.fallback > 0 &&
	     n.fallback * 4 >= RANGES * 3;
	ksft_test_result(ok, "thp_defrag_defer_never: compact_stall +%ld and +%ld, fallbacks %ld and %ld of %d (want some, and >= 3/4)\n",
			 d.stall, n.stall, d.fallback, n.fallback, RANGES);
	/* always, not madvised: compaction (the passes' modes for the log) */
	ok = a.stall > 0 && a.alloc * 4 >= RANGES * 3;
	ksft_test_result(ok, "thp_defrag_always: compact_stall +%ld, %ld of %d faults huge (want >= 3/4; %ld async and %ld sync passes)\n",
			 a.stall, a.alloc, RANGES, a.begin_async, a.begin_sync);
}

static inline unsigned long pattern(size_t page, size_t word)
{
	return (page * 0x9E3779B97F4A7C15UL) ^ word ^ 0x71bUL;
}

static int compact_all(void)
{
	char id[8];
	int n, err = 0;

	for (n = 0; n < 8; n++) {
		snprintf(id, sizeof(id), "%d", n);
		if (zc_node_meminfo(n, "MemTotal") <= 0)
			break;
		err |= zc_write_file("/proc/sys/vm/compact_node", id);
	}
	return err;
}

static void test_integrity(void)
{
	size_t len = (size_t)DATA_MB << 20, pages = len / ZC_PAGE, i, k, bad = 0;
	long split0 = zc_vmstat("thp_split_page"), coll0 = zc_vmstat("thp_collapse_alloc");
	long moved0 = zc_vmstat("compact_pages_moved"), huge0, huge1, huge2;
	char cmd[96];
	unsigned long *w;
	char *p;
	int collapsed;

	zc_write_file(THP "enabled", "madvise");
	zc_write_file(THP "defrag", "madvise");
	p = map_aligned(len, 1);
	if (!p)
		ksft_exit_fail_msg("cannot map %d MiB\n", DATA_MB);
	for (i = 0; i < pages; i++) {
		w = (unsigned long *)(p + i * ZC_PAGE);
		for (k = 0; k < ZC_PAGE / sizeof(*w); k++)
			w[k] = pattern(i, k);
	}
	huge0 = anon_huge_kb();
	/* Split the first half's huge pages */
	snprintf(cmd, sizeof(cmd), "%d,0x%lx,0x%lx", getpid(), (unsigned long)p,
		 (unsigned long)(p + len / 2));
	zc_write_file("/sys/kernel/debug/split_huge_pages", cmd);
	huge1 = anon_huge_kb();
	compact_all();
	collapsed = !madvise(p, len / 2, MADV_COLLAPSE);
	huge2 = anon_huge_kb();
	compact_all();
	for (i = 0; i < pages; i++) {
		w = (unsigned long *)(p + i * ZC_PAGE);
		for (k = 0; k < ZC_PAGE / sizeof(*w); k++)
			bad += w[k] != pattern(i, k);
	}
	munmap(p, len);
	ksft_print_msg("AnonHugePages %ld kB filled, %ld kB after the split, %ld kB after MADV_COLLAPSE (%s); thp_split_page +%ld, thp_collapse_alloc +%ld, pages moved +%ld\n",
		       huge0, huge1, huge2, collapsed ? "ok" : strerror(errno),
		       zc_vmstat("thp_split_page") - split0,
		       zc_vmstat("thp_collapse_alloc") - coll0,
		       zc_vmstat("compact_pages_moved") - moved0);
	ksft_test_result(!bad && huge0 > 0 && huge1 < huge0 && huge2 > huge1 &&
			 zc_vmstat("thp_split_page") > split0 &&
			 zc_vmstat("thp_collapse_alloc") > coll0 &&
			 zc_vmstat("compact_pages_moved") > moved0,
			 "thp_integrity: %zu bad words of %zu, huge pages split and collapsed, memory compacted\n",
			 bad, pages * (ZC_PAGE / sizeof(*w)));
}

int main(void)
{
	long min_free = zc_read_long("/proc/sys/vm/min_free_kbytes");

	ksft_print_header();
	ksft_set_plan(4);
	if (access(THP "defrag", W_OK))
		ksft_exit_fail_msg("no %sdefrag: this kernel has no THP\n", THP);
	/*
	 * The guest boots with THP off; turning it on starts khugepaged,
	 * which raises min_free_kbytes to its recommended reserve. The
	 * fragmented node keeps 12 MiB free above its high watermark.
	 */
	if (zc_write_file(THP "enabled", "madvise"))
		ksft_exit_fail_msg("cannot turn THP on\n");
	margin_kb = zc_node_zoneinfo(NODE, "high") * 4 + 12 * 1024;
	if (zc_make_file(FILL, 160))
		ksft_exit_fail_msg("cannot write %s\n", FILL);
	if (zc_bind_node(NODE) || zc_bind_mem_node(NODE))
		ksft_exit_fail_msg("cannot bind to node %d\n", NODE);
	test_defrag();
	test_integrity();
	zc_unbind_mem();
	unlink(FILL);
	/* THP off again, and the reserve the tests after this one expect */
	zc_write_file(THP "enabled", "never");
	zc_write_long("/proc/sys/vm/min_free_kbytes", min_free);
	ksft_finished();
}
