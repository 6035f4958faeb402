// SPDX-License-Identifier: GPL-2.0
/*
 * The compaction tracepoints under CONFIG_COMPACTION's names
 * (events/compaction/): they exist, and what they report adds up to the
 * vmstat counters, exactly, over a compact_node run and over huge page
 * allocations that compact directly; and over the latter, the free side
 * looks at no more than four pfns (free list entries) per page it takes.
 * The tracer keeps every event in a buffer big enough for both
 * (checked: a lost event fails the test).
 */
#include "zc.h"

#define FILE_MB		160
#define NODE		0
#define MAX_LINE	512

static const char * const events[] = {
	"mm_compaction_try_to_compact_pages", "mm_compaction_suitable",
	"mm_compaction_deferred", "mm_compaction_begin",
	"mm_compaction_end", "mm_compaction_finished",
	"mm_compaction_isolate_migratepages",
	"mm_compaction_isolate_freepages", "mm_compaction_migratepages",
	"mm_compaction_defer_compaction", "mm_compaction_defer_reset",
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

/* The counters the events add up to, in the order of struct sums */
static const char * const counters[] = {
	"compact_migrate_scanned", "compact_free_scanned",
	"compact_pages_moved", "compact_pagemigrate_failed",
	"compact_deferred",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

struct sums {
	long v[NR_COUNTERS];	/* the same quantities, from the events */
	long begin, end, end_success, end_complete, tries, tries_order9;
	long free_taken;	/* nr_taken of the free scanner's events */
};

static void read_counters(long *v)
{
	const char *gone = zc_vmstats(counters, v, NR_COUNTERS);

	if (gone)
		ksft_exit_fail_msg("no %s in /proc/vmstat\n", gone);
}

/* Sum the events of the trace buffer, then empty it */
static int read_trace(struct sums *s)
{
	char line[MAX_LINE];
	unsigned long a, b;
	FILE *f = fopen(ZC_TRACING "trace", "r");
	char *p;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if ((p = strstr(line, "mm_compaction_isolate_migratepages: ")) &&
		    (p = strstr(p, "nr_scanned=")) && sscanf(p, "nr_scanned=%lu", &a) == 1)
			s->v[0] += a;
		else if ((p = strstr(line, "mm_compaction_isolate_freepages: ")) &&
			 (p = strstr(p, "nr_scanned=")) &&
			 sscanf(p, "nr_scanned=%lu nr_taken=%lu", &a, &b) == 2) {
			s->v[1] += a;
			s->free_taken += b;
		}
		else if ((p = strstr(line, "mm_compaction_migratepages: ")) &&
			 sscanf(p, "mm_compaction_migratepages: nr_migrated=%lu nr_failed=%lu",
				&a, &b) == 2) {
			s->v[2] += a;
			s->v[3] += b;
		} else if (strstr(line, "mm_compaction_deferred: ")) {
			s->v[4]++;
		} else if (strstr(line, "mm_compaction_begin: ")) {
			s->begin++;
		} else if (strstr(line, "mm_compaction_end: ")) {
			s->end++;
			s->end_success += !!strstr(line, "status=success");
			s->end_complete += !!strstr(line, "status=complete");
		} else if ((p = strstr(line, "mm_compaction_try_to_compact_pages: "))) {
			s->tries++;
			s->tries_order9 += !!strstr(p, "order=9 ");
		}
	}
	fclose(f);
	return zc_trace_clear();
}

/* Do the event sums match the counters' deltas? Prints both. */
static int sums_match(const char *what, const struct sums *s,
		      const long *c0, const long *c1)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < NR_COUNTERS; i++) {
		long d = c1[i] - c0[i];

		ksft_print_msg("%s: %s +%ld, events %ld\n", what, counters[i], d, s->v[i]);
		bad |= d != s->v[i];
	}
	return bad;
}

static struct zc_trace_saved trace_saved;

int main(void)
{
	long c0[NR_COUNTERS], c1[NR_COUNTERS], lost, h, proactive;
	struct zc_frag f;
	struct sums s;
	char path[128];
	size_t i;
	int missing = 0;

	ksft_print_header();
	ksft_set_plan(4);
	/* Put back at the end: the runner fails a program that changes it */
	if (zc_trace_save(&trace_saved))
		ksft_exit_fail_msg("cannot read the trace settings\n");

	for (i = 0; i < NR_EVENTS; i++) {
		snprintf(path, sizeof(path), ZC_TRACING "events/compaction/%s/format", events[i]);
		if (access(path, R_OK)) {
			ksft_print_msg("no %s\n", path);
			missing++;
		}
	}
	if (missing)
		ksft_test_result_fail("trace_events: %d of %zu compaction events missing\n",
				      missing, NR_EVENTS);
	else
		ksft_test_result_pass("trace_events: all %zu compaction events under mainline's names\n",
				      NR_EVENTS);

	/*
	 * The background compactor's runs count too, but one that spans a
	 * read of the counters counts there at its end and in the trace
	 * batch by batch, and a proactive round on a freshly fragmented
	 * node may end short of complete (seen once beside compact_node: 2
	 * runs, 1 complete): proactive compaction is off for the test and
	 * the threads settle before each first read.
	 */
	proactive = zc_read_long(ZC_PROACTIVENESS);
	if (proactive > 0 && zc_write_long(ZC_PROACTIVENESS, 0))
		ksft_exit_fail_msg("cannot set %s to 0\n", ZC_PROACTIVENESS);
	/* 8 MiB a CPU holds a 1 GiB guest's runs several times over */
	if (zc_write_file(ZC_TRACING "buffer_size_kb", "8192") ||
	    zc_trace_clear() ||
	    zc_write_file(ZC_TRACING "events/compaction/enable", "1") ||
	    zc_write_file(ZC_TRACING "tracing_on", "1"))
		ksft_exit_fail_msg("cannot enable events/compaction: %s\n", strerror(errno));
	if (zc_make_file("/mnt/zc-trace", FILE_MB))
		ksft_exit_fail_msg("cannot write /mnt/zc-trace\n");

	/* A full compaction of one node: one run per zone, scanners meet */
	if (zc_fragment_node(NODE, "/mnt/zc-trace", 12 * 1024, &f))
		ksft_exit_fail_msg("cannot fragment node %d\n", NODE);
	zc_kcompactd_quiet(10000, "the events of one compaction");
	if (read_trace(&s))
		ksft_exit_fail_msg("cannot read or clear the trace: %s\n", strerror(errno));
	read_counters(c0);
	if (zc_write_file("/proc/sys/vm/compact_node", "0"))
		ksft_exit_fail_msg("write to compact_node failed\n");
	read_counters(c1);
	lost = zc_trace_lost();
	if (read_trace(&s))
		ksft_exit_fail_msg("cannot read or clear the trace: %s\n", strerror(errno));
	zc_unfragment(&f);
	ksft_print_msg("compact_node: %ld begin, %ld end (%ld complete), %ld lost\n",
		       s.begin, s.end, s.end_complete, lost);
	if (!sums_match("compact_node", &s, c0, c1) && lost == 0 && s.begin > 0 &&
	    s.begin == s.end && s.end_complete == s.end && c1[2] > c0[2])
		ksft_test_result_pass("trace_compact_node: %ld runs, all complete; scanned, moved and failed add up to vmstat\n",
				      s.end);
	else
		ksft_test_result_fail("trace_compact_node: the events do not add up (see above; want every run complete, none lost, pages moved)\n");

	/* Direct compaction: huge pages on a fragmented node */
	if (zc_fragment_node(NODE, "/mnt/zc-trace", 12 * 1024, &f))
		ksft_exit_fail_msg("cannot fragment node %d\n", NODE);
	zc_kcompactd_quiet(10000, "the events of one compaction");
	if (read_trace(&s))
		ksft_exit_fail_msg("cannot read or clear the trace: %s\n", strerror(errno));
	read_counters(c0);
	h = zc_node_hugepages(NODE, zc_node_meminfo(NODE, "MemTotal") / 2048 / 2);
	zc_kcompactd_quiet(10000, "the events of the direct compactions");
	read_counters(c1);
	lost = zc_trace_lost();
	if (read_trace(&s))
		ksft_exit_fail_msg("cannot read or clear the trace: %s\n", strerror(errno));
	zc_node_hugepages(NODE, 0);
	zc_unfragment(&f);
	if (proactive > 0)
		zc_write_long(ZC_PROACTIVENESS, proactive);
	zc_write_file(ZC_TRACING "events/compaction/enable", "0");
	unlink("/mnt/zc-trace");
	ksft_print_msg("direct: %ld huge pages, %ld order-9 direct compactions, %ld runs (%ld success), %ld lost\n",
		       h, s.tries_order9, s.end, s.end_success, lost);
	/*
	 * Every run that made its page ends with "success", and there must
	 * be one: half of a fragmented node cannot be had without them.
	 */
	if (!sums_match("direct", &s, c0, c1) && lost == 0 && s.begin == s.end &&
	    s.tries_order9 > 0 && s.end_success > 0)
		ksft_test_result_pass("trace_direct: %ld huge pages, %ld direct compactions, %ld runs made the page; the events add up to vmstat\n",
				      h, s.tries_order9, s.end_success);
	else
		ksft_test_result_fail("trace_direct: the events do not add up (see above; want order-9 tries, a success, none lost)\n");

	/*
	 * The free side of direct compaction follows the pages it takes,
	 * not the size of the zone: it reads the free lists, where each
	 * entry it looks at is taken, or is sent to the list's tail and not
	 * looked at again in that run. Entries below the migration scanner
	 * and the runs that end early add some (2.5 looks per page here),
	 * so the bound is four. A free scanner that walks pfns down from
	 * the end of the zone, past the blocks it filled before, looks at
	 * more: 9.1 pfns per page taken here before the free lists were
	 * used, 19 on the seed's benchmark at 1 GiB.
	 */
	ksft_print_msg("direct: free scanner looked at %ld, took %ld pages\n",
		       s.v[1], s.free_taken);
	if (s.free_taken > 0 && s.v[1] <= 4 * s.free_taken)
		ksft_test_result_pass("direct_free_side: %ld looked at for %ld pages taken (bound: 4 per page)\n",
				      s.v[1], s.free_taken);
	else
		ksft_test_result_fail("direct_free_side: %ld looked at for %ld pages taken (bound: 4 per page)\n",
				      s.v[1], s.free_taken);
	zc_trace_restore(&trace_saved);
	ksft_finished();
}
