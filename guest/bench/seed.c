// SPDX-License-Identifier: GPL-2.0
/*
 * The seed's benchmark, scaled to the guest. Fill memory by writing, in
 * parallel, files of 128 pages whose total is twice the RAM; walk the
 * file tree (the seed ran updatedb); delete every second file; then
 * raise nr_hugepages in steps of 5% of RAM until a step gains nothing.
 *
 * The fill and the steps are zc.c's zc_seed_fragment() and
 * zc_hugepage_steps(), which guest/bench/idle.c runs too. Results go to the
 * data channel (argv[1], the guest's second serial port) as CSV lines;
 * the console gets progress and a KTAP summary.
 *
 *   meta,<key>,<value>
 *   limit,<blocks free or movable>,<pageblocks>
 *   map,<before|after>,<one letter per pageblock>
 *   step,<n>,<requested>,<obtained>,<ms>,<counter deltas ...>
 *   fill,<counter deltas from the start to the allocation phase>
 *   whole,<counter deltas from the start to the end of the run>
 *   cpu,<fill|alloc|whole>,<kcompactd ticks>,<kswapd ticks>
 *   attempt,<us>,<migrate pfns scanned>,<free pfns scanned>,<zones>,<order>,<status>
 *   cols,<type>,<field names>
 *
 * A "cols" line names the fields of every other line of its type, in
 * order: the reports look fields up by name. The counters are those of
 * counters[] in that order; one this kernel does not have is an empty
 * field, never a zero, as is the CPU time of a thread it does not have
 * (ticks of USER_HZ, "meta,clk_tck"; every kcompactd<nid> or
 * kswapd<nid> summed). The whole-run deltas
 * include what background compaction (kcompactd, proactive compaction)
 * did during the fill and between the steps.
 *
 * With ZC_TRACE=1, on a kernel with the compaction tracepoints, the
 * allocation phase is traced (otherwise nothing is: the timings of a
 * traced run include the tracing's cost, so make run times other runs)
 * and each direct compaction of the allocation phase is an attempt line, from the events under
 * CONFIG_COMPACTION's names: it starts at mm_compaction_try_to_compact_pages
 * and ends at the last event of the same task before its next attempt;
 * the pfns are the nr_scanned of its mm_compaction_isolate_* events, and
 * zones the mm_compaction_end events of its zone runs (0: every zone was
 * passed over, deferred or skipped), status that of the last of them. Background compaction (kcompactd)
 * is not an attempt; its rounds are counted the same way on both kernels:
 * "meta,kcompactd_rounds" its mm_compaction_kcompactd_wake events for an
 * order (requested rounds: 6.1's proactive rounds emit none, ours' emit
 * order -1, "meta,kcompactd_proactive_rounds"), "meta,kcompactd_zone_runs"
 * the mm_compaction_begin events of kcompactd threads (every zone run,
 * requested or proactive, on both). "meta,trace_lost" counts events the
 * buffer lost.
 */
#include "zc.h"

#define MAX_TASKS	64

static FILE *out;

static const char * const counters[] = {
	"pgsteal_kswapd", "pgsteal_direct", "pgscan_kswapd", "pgscan_direct",
	"compact_stall", "compact_fail", "compact_success", "pgmigrate_success",
	"compact_migrate_scanned", "compact_free_scanned", "compact_deferred",
	"compact_daemon_wake", "compact_daemon_migrate_scanned",
	"compact_daemon_free_scanned",
	/* page cache dropped with the inodes that shrinkers evicted */
	"pginodesteal", "kswapd_inodesteal", "slabs_scanned",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

static const char * const trace_events[] = {
	"mm_compaction_try_to_compact_pages", "mm_compaction_end",
	"mm_compaction_isolate_migratepages", "mm_compaction_isolate_freepages",
	"mm_compaction_begin", "mm_compaction_kcompactd_wake",
};
#define NR_TRACE_EVENTS (sizeof(trace_events) / sizeof(trace_events[0]))

/*
 * Make the buffer (8 MiB a CPU, allocated before the fill so that both
 * kernels fill the same memory) and enable the events, tracing still off.
 * Returns -1 when the kernel has no compaction tracepoints.
 */
static int trace_setup(void)
{
	char path[160];
	unsigned int i;

	if (access(ZC_TRACING "events/compaction", F_OK) ||
	    zc_write_file(ZC_TRACING "tracing_on", "0") ||
	    zc_write_file(ZC_TRACING "buffer_size_kb", "8192"))
		return -1;
	for (i = 0; i < NR_TRACE_EVENTS; i++) {
		snprintf(path, sizeof(path), ZC_TRACING "events/compaction/%s/enable",
			 trace_events[i]);
		if (zc_write_file(path, "1"))
			return -1;
	}
	return 0;
}

/* Empty the buffer (an open with O_TRUNC does) and start tracing */
static int trace_start(void)
{
	if (zc_trace_clear())
		return -1;
	return zc_write_file(ZC_TRACING "tracing_on", "1");
}

struct attempt {
	int pid;
	double t0, t1;
	long migrate, free;
	int zones, order;
	char status[24];
};

static void attempt_print(const struct attempt *a)
{
	fprintf(out, "attempt,%.0f,%ld,%ld,%d,%d,%s\n", (a->t1 - a->t0) * 1e6,
		a->migrate, a->free, a->zones, a->order,
		a->zones ? a->status : "none");
}

/*
 * One trace line: "<comm>-<pid> [<cpu>] <flags> <secs>: <event>: <fields>".
 * Returns the event name (in @line) or NULL.
 */
static char *trace_parse(char *line, int *pid, double *ts)
{
	char *cpu = strstr(line, " ["), *ev, *dash, *t;

	if (line[0] == '#' || !cpu)
		return NULL;
	ev = strstr(cpu, ": mm_compaction_");
	if (!ev)
		return NULL;
	*ev = '\0';
	t = strrchr(cpu, ' ');
	*cpu = '\0';
	dash = strrchr(line, '-');
	if (!t || !dash)
		return NULL;
	*pid = atoi(dash + 1);
	*ts = atof(t + 1);
	return ev + 2;
}

/* Stop tracing and write an attempt line per direct compaction */
static long trace_report(void)
{
	static struct attempt open_[MAX_TASKS];
	static char line[1024];
	long rounds = 0, proactive = 0, zone_runs = 0;
	int n = 0, i, pid;
	long count = 0;
	FILE *f;
	double ts;
	char *ev;

	zc_write_file(ZC_TRACING "tracing_on", "0");
	f = fopen(ZC_TRACING "trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct attempt *a = NULL;
		char *nr;

		ev = trace_parse(line, &pid, &ts);
		if (!ev)
			continue;
		/* The background compactor's rounds and zone runs */
		if (strstr(line, "kcompactd")) {
			if (!strncmp(ev, "mm_compaction_begin:", 20))
				zone_runs++;
			nr = strstr(ev, "order=");
			if (!strncmp(ev, "mm_compaction_kcompactd_wake:", 29) && nr) {
				if (atoi(nr + 6) >= 0)
					rounds++;
				else
					proactive++;
			}
			continue;
		}
		nr = NULL;
		for (i = 0; i < n; i++)
			if (open_[i].pid == pid)
				a = &open_[i];
		if (!strncmp(ev, "mm_compaction_try_to_compact_pages:", 35)) {
			if (a) {
				attempt_print(a);
				count++;
			} else if (n < MAX_TASKS) {
				a = &open_[n++];
			} else {
				continue;
			}
			memset(a, 0, sizeof(*a));
			a->pid = pid;
			a->t0 = a->t1 = ts;
			nr = strstr(ev, "order=");
			a->order = nr ? atoi(nr + 6) : -1;
			continue;
		}
		if (!a)
			continue;	/* kcompactd, or a task traced mid-attempt */
		a->t1 = ts;
		nr = strstr(ev, "nr_scanned=");
		if (!strncmp(ev, "mm_compaction_end:", 18)) {
			char *st = strstr(ev, "status=");

			a->zones++;
			if (st)
				sscanf(st + 7, "%23[a-z_]", a->status);
		}
		else if (nr && !strncmp(ev, "mm_compaction_isolate_migratepages:", 35))
			a->migrate += atol(nr + 11);
		else if (nr && !strncmp(ev, "mm_compaction_isolate_freepages:", 32))
			a->free += atol(nr + 11);
	}
	fclose(f);
	zc_write_file(ZC_TRACING "events/compaction/enable", "0");
	for (i = 0; i < n; i++) {
		attempt_print(&open_[i]);
		count++;
	}
	fprintf(out, "meta,trace_lost,%ld\n", zc_trace_lost());
	fprintf(out, "meta,kcompactd_rounds,%ld\nmeta,kcompactd_proactive_rounds,%ld\n",
		rounds, proactive);
	fprintf(out, "meta,kcompactd_zone_runs,%ld\n", zone_runs);
	return count;
}

/* Each counter's name after @first (a list of field names), as a cols line */
static void print_cols(const char *type, const char *first)
{
	unsigned int i;

	fprintf(out, "cols,%s%s%s", type, *first ? "," : "", first);
	for (i = 0; i < NR_COUNTERS; i++)
		fprintf(out, ",%s", counters[i]);
	fprintf(out, "\n");
}

struct cpu {
	long kcompactd, kswapd;
};

static void cpu_take(struct cpu *c)
{
	c->kcompactd = zc_kthread_ticks("kcompactd", NULL);
	c->kswapd = zc_kthread_ticks("kswapd", NULL);
}

/* ",<value>", or "," for -1: a thread the kernel lacks */
static void print_field(long v)
{
	if (v < 0)
		fprintf(out, ",");
	else
		fprintf(out, ",%ld", v);
}

static void cpu_print(const char *phase, const struct cpu *a, const struct cpu *b)
{
	fprintf(out, "cpu,%s", phase);
	print_field(zc_delta(a->kcompactd, b->kcompactd));
	print_field(zc_delta(a->kswapd, b->kswapd));
	fprintf(out, "\n");
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * The cost floor: the fewest pages any compactor would have had to move
 * to make @n huge pages out of the memory as it was before the
 * allocation phase, without reclaim: the LRU pages of the @n blocks of
 * the limit that hold the fewest (@used, @nr of them). Reclaim lowers
 * what must be moved, so a kernel that reclaimed can move less; beyond
 * the limit the floor is that of every block of it.
 */
static long cost_floor(long *used, long nr, long n)
{
	long i, sum = 0;

	qsort(used, nr, sizeof(*used), cmp_long);
	for (i = 0; i < n && i < nr; i++)
		sum += used[i];
	return sum;
}

static struct zc_trace_saved trace_saved;

int main(int argc, char **argv)
{
	static char map[1 << 16];
	static long used[1 << 16];
	long total_kb = zc_meminfo("MemTotal");
	long limit, blocks, prefree, hp_total, proactive0;
	long blocks_moved0, migrate_fail0, hist[6] = { 0 };
	long start[NR_COUNTERS], alloc0[NR_COUNTERS], end[NR_COUNTERS];
	const char *proactive = getenv("ZC_PROACTIVENESS");
	const char *trace = getenv("ZC_TRACE");
	struct cpu cpu0, cpu1, cpu2;
	const char *thp;
	struct zc_steps st;
	struct zc_seed fill;
	struct zc_buddy b;
	int traced;

	ksft_print_header();
	ksft_set_plan(3);
	/* Put back at the end: the runner fails a program that changes it */
	if (zc_trace_save(&trace_saved))
		ksft_exit_fail_msg("cannot read the trace settings\n");
	out = zc_data_channel(argc, argv);
	if (!out)
		ksft_exit_fail_msg("no data channel\n");
	fprintf(out, "meta,mem_kb,%ld\n", total_kb);
	fprintf(out, "meta,kernel,%s\n", getenv("ZC_VARIANT") ? getenv("ZC_VARIANT") : "?");
	thp = zc_thp_never();
	if (!thp)
		ksft_exit_fail_msg("cannot set %s to never\n", ZC_THP_ENABLED);
	fprintf(out, "meta,thp,%s\n", thp);
	/* ZC_PROACTIVENESS: proactive compaction for this run, put back after */
	proactive0 = zc_read_long("/proc/sys/vm/compaction_proactiveness");
	if (proactive &&
	    zc_write_file("/proc/sys/vm/compaction_proactiveness", proactive))
		ksft_exit_fail_msg("cannot set compaction_proactiveness to %s\n",
				   proactive);
	fprintf(out, "meta,proactiveness,%ld\n",
		zc_read_long("/proc/sys/vm/compaction_proactiveness"));
	if (trace && !strcmp(trace, "1")) {
		traced = !trace_setup();
		fprintf(out, "meta,trace,%s\n", traced ? "on" : "absent");
	} else {
		traced = 0;
		fprintf(out, "meta,trace,off\n");
	}
	fprintf(out, "meta,clk_tck,%ld\n", sysconf(_SC_CLK_TCK));
	print_cols("step", "n,requested,obtained,ms");
	print_cols("fill", "");
	print_cols("whole", "");
	fprintf(out, "cols,cpu,phase,kcompactd_ticks,kswapd_ticks\n");
	fprintf(out, "cols,attempt,us,migrate_scanned,free_scanned,zones,order,status\n");
	fprintf(out, "cols,limit,limit,pageblocks\n");
	zc_vmstats(counters, start, NR_COUNTERS);
	cpu_take(&cpu0);

	if (zc_seed_fragment(out, "bench", &fill))
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (fill.failed)
		ksft_test_result_fail("bench_fill: %d writers failed\n", fill.failed);
	else
		ksft_test_result_pass("bench_fill: %ld files written by %d writers\n",
				      fill.files, ZC_SEED_WRITERS);

	/* Just before the allocation phase: free lists, map and limit */
	zc_read_buddyinfo(&b);
	prefree = zc_free_at_least(&b, -1, ZC_HPAGE_ORDER) >> ZC_HPAGE_ORDER;
	blocks = zc_pageblock_map(map, sizeof(map) - 1, &limit, hist, used);
	fprintf(out, "meta,prefree,%ld\nlimit,%ld,%ld\nmap,before,%s\n", prefree, limit,
		blocks, map);
	ksft_print_msg("bench: blocks in the limit by LRU pages: %ld <103, %ld <205, %ld <308, %ld <410, %ld <512, %ld 512\n",
		       hist[0], hist[1], hist[2], hist[3], hist[4], hist[5]);
	if (blocks > 0)
		ksft_test_result_pass("bench_limit: %ld of %ld pageblocks free or movable, %ld free huge pages\n",
				      limit, blocks, prefree);
	else
		ksft_test_result_fail("bench_limit: cannot read /proc/kpageflags\n");

	if (traced && trace_start())
		ksft_exit_fail_msg("cannot start the compaction trace\n");
	zc_vmstats(counters, alloc0, NR_COUNTERS);
	cpu_take(&cpu1);
	fprintf(out, "fill");
	zc_print_deltas(out, start, alloc0, NR_COUNTERS);
	blocks_moved0 = zc_vmstat("compact_blocks_moved");
	migrate_fail0 = zc_vmstat("pgmigrate_fail");
	zc_hugepage_steps(out, "bench", counters, NR_COUNTERS, &st);
	zc_vmstats(counters, end, NR_COUNTERS);
	cpu_take(&cpu2);
	cpu_print("fill", &cpu0, &cpu1);
	cpu_print("alloc", &cpu1, &cpu2);
	cpu_print("whole", &cpu0, &cpu2);
	if (traced)
		ksft_print_msg("bench: %ld direct compaction attempts traced\n",
			       trace_report());
	fprintf(out, "whole");
	zc_print_deltas(out, start, end, NR_COUNTERS);
	/* limit is still the one of the map before the allocation phase */
	if (limit > 0)
		fprintf(out, "meta,floor,%ld\n", cost_floor(used, limit, st.final));
	blocks = zc_pageblock_map(map, sizeof(map) - 1, &limit, NULL, NULL);
	fprintf(out, "map,after,%s\nmeta,final,%ld\nmeta,first_fail,%d\n",
		map, st.final, st.first_fail);
	hp_total = zc_seed_end(out, &fill, &st);
	fclose(out);
	/*
	 * Where the moves went: pageblocks pages were moved out of (ours
	 * counts them) against huge pages obtained, and pages that would
	 * not migrate, each of which keeps its block from merging.
	 */
	if (blocks_moved0 >= 0)
		ksft_print_msg("bench: allocation phase: pages moved out of %ld pageblocks\n",
			       zc_vmstat("compact_blocks_moved") - blocks_moved0);
	ksft_print_msg("bench: allocation phase: %ld pages failed to migrate\n",
		       zc_vmstat("pgmigrate_fail") - migrate_fail0);
	if (st.steps > 0 && hp_total == st.final)
		ksft_test_result_pass("bench_alloc: %ld huge pages (HugePages_Total %ld), %ld were free before, %d steps\n",
				      st.final, hp_total, prefree, st.steps);
	else
		ksft_test_result_fail("bench_alloc: steps recorded %ld huge pages in %d steps, HugePages_Total %ld\n",
				      st.final, st.steps, hp_total);
	zc_set_hugepages(0);
	zc_trace_restore(&trace_saved);
	if (proactive && proactive0 >= 0)
		zc_write_long("/proc/sys/vm/compaction_proactiveness", proactive0);
	ksft_finished();
}
