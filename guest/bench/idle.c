// SPDX-License-Identifier: GPL-2.0
/*
 * make run BENCH=idle: huge page allocation latency with a background
 * compactor. Set vm.compaction_proactiveness to ZC_IDLE_PROACTIVE (left
 * as it is when unset); fragment memory with the seed's workload, as
 * guest/bench/seed.c does (zc.c's zc_seed_fragment()); let the guest idle
 * for ZC_IDLE_SECONDS (30), while only the background compactor
 * (kcompactd, proactive compaction) may work; then raise nr_hugepages in
 * steps of 5% of RAM until a step gains nothing, timing each step
 * (zc_hugepage_steps()).
 *
 * Results go to the data channel (argv[1], the guest's second serial
 * port) as CSV lines; the console gets progress and a KTAP summary.
 *
 *   meta,<key>,<value>
 *   idle,<seconds>,<kcompactd ticks>,<kswapd ticks>,<free huge blocks at start>,<at end>,<counter deltas ...>
 *   score,<start|end>,<node 0>,<node 1>,...
 *   step,<n>,<requested>,<obtained>,<ms>,<counter deltas ...>
 *   alloc,<kcompactd ticks>,<kswapd ticks>,<ms>,<huge pages>,<steps>,<counter deltas ...>
 *   whole,<kcompactd ticks>,<kswapd ticks>,<counter deltas ...>
 *   cols,<type>,<field names>
 *   done
 *
 * A "cols" line names the fields of the lines of its type: the report
 * looks them up by name (a score line's nodes are node<id>).
 * The counters are those of counters[] in that order, the first four
 * the background compactor's: pages moved and kcompactd's wakeups and
 * scanned pfns. Ticks are CPU time, utime + stime of /proc/<pid>/stat in
 * units of "meta,clk_tck", of the kernel threads kcompactd<nid> (both
 * compactors name their thread so) and kswapd<nid> of the nodes with
 * memory, summed. A counter or thread this kernel does not have is an
 * empty field, never a zero; so is "meta,proactiveness" on a kernel
 * without compaction_proactiveness ("meta,proactiveness_file,absent"),
 * where nothing was set.
 *
 * idle counts from the end of the fill (its last sync) to the end of the
 * idle period; free huge blocks are free blocks of order 9 and more, in
 * huge pages (/proc/buddyinfo). The score lines give the fragmentation
 * score of each node with memory (/sys/devices/system/node/has_memory,
 * in its order) at the start and the end of the idle period, as
 * proactive compaction computes it (zc.c's zc_node_score()): 0 when all
 * free memory is in free huge blocks, 100 when none is. alloc counts
 * from the end of the idle period to the end of the steps, its ms is the
 * steps' own time; whole counts from before the fill to the end.
 */
#include "zc.h"

#define PROACTIVENESS	"/proc/sys/vm/compaction_proactiveness"
#define MAX_NODES	64

static FILE *out;

static const char * const counters[] = {
	"pgmigrate_success", "compact_daemon_wake",
	"compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
	"compact_stall", "compact_success", "compact_fail",
	"compact_migrate_scanned", "compact_free_scanned",
	"pgsteal_kswapd", "pgsteal_direct",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

/* A point in time: the threads' CPU ticks (-1: no such thread), counters */
struct snap {
	long kcompactd, kswapd;
	long c[NR_COUNTERS];
};

static int nodes[MAX_NODES], nr_nodes;

static void snap_take(struct snap *s)
{
	s->kcompactd = zc_kthread_ticks("kcompactd", NULL);
	s->kswapd = zc_kthread_ticks("kswapd", NULL);
	zc_vmstats(counters, s->c, NR_COUNTERS);
}

/* ",<value>", or "," for -1: a counter or thread the kernel lacks */
static void field(long v)
{
	if (v < 0)
		fprintf(out, ",");
	else
		fprintf(out, ",%ld", v);
}

/* ",<kcompactd ticks>,<kswapd ticks>" from @a to @b */
static void print_ticks(const struct snap *a, const struct snap *b)
{
	field(zc_delta(a->kcompactd, b->kcompactd));
	field(zc_delta(a->kswapd, b->kswapd));
}

/* Free blocks of order 9 and more, in huge pages; -1 if unreadable */
static long free_huge_blocks(const struct zc_buddy *b)
{
	if (b->nr <= 0)
		return -1;
	return zc_free_at_least(b, -1, ZC_HPAGE_ORDER) >> ZC_HPAGE_ORDER;
}

/* The fragmentation score of every node with memory, -1 if unknown */
static void node_scores(long *score)
{
	int i;

	for (i = 0; i < nr_nodes; i++)
		score[i] = zc_node_score(nodes[i]);
}

/*
 * A "score,@when,..." line with the nodes' scores @score, and the same
 * after "@when" in @msg (of @len) for the console. Returns the number of
 * nodes with a score.
 */
static int print_scores(const char *when, const long *score, char *msg,
			size_t len)
{
	int i, scored = 0;
	size_t n;

	fprintf(out, "score,%s", when);
	n = snprintf(msg, len, "%s", when);
	for (i = 0; i < nr_nodes; i++) {
		field(score[i]);
		if (score[i] < 0)
			continue;
		if (n < len)
			n += snprintf(msg + n, len - n, " %ld", score[i]);
		scored++;
	}
	fprintf(out, "\n");
	return scored;
}

/* A cols line: the fields @first, then each counter's name */
static void print_cols(const char *type, const char *first)
{
	unsigned int i;

	fprintf(out, "cols,%s,%s", type, first);
	for (i = 0; i < NR_COUNTERS; i++)
		fprintf(out, ",%s", counters[i]);
	fprintf(out, "\n");
}

/* Sleep @seconds, signals notwithstanding */
static void idle_for(int seconds)
{
	struct timespec ts = { .tv_sec = seconds };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Set compaction_proactiveness to @want (NULL: leave it) and say on the
 * data channel what it is. Returns 0 when the file is there, -1 when the
 * kernel has no such file: then nothing was set.
 */
static int set_proactiveness(const char *want)
{
	long v;

	if (want) {
		if (!*want || want[strspn(want, "0123456789")])
			ksft_exit_fail_msg("ZC_IDLE_PROACTIVE='%s' is not a number\n",
					   want);
		fprintf(out, "meta,proactiveness_asked,%s\n", want);
	}
	if (access(PROACTIVENESS, F_OK)) {
		fprintf(out, "meta,proactiveness,\nmeta,proactiveness_file,absent\n");
		ksft_print_msg("idle: no %s on this kernel, nothing set\n",
			       PROACTIVENESS);
		return -1;
	}
	if (want && zc_write_file(PROACTIVENESS, want))
		ksft_exit_fail_msg("cannot set compaction_proactiveness to %s\n",
				   want);
	v = zc_read_long(PROACTIVENESS);
	if (v < 0 || (want && v != atol(want)))
		ksft_exit_fail_msg("compaction_proactiveness reads %ld%s%s\n",
				   v, want ? " after writing " : "",
				   want ? want : "");
	fprintf(out, "meta,proactiveness,%ld\nmeta,proactiveness_file,present\n",
		v);
	return 0;
}

int main(int argc, char **argv)
{
	const char *secs_env = getenv("ZC_IDLE_SECONDS");
	int seconds = secs_env ? atoi(secs_env) : 30;
	struct snap start, idle0, idle1, alloc1;
	long score0[MAX_NODES], score1[MAX_NODES];
	char msg0[256], msg1[256];
	long hp0, hp1, hp_total, proactive0, tck = sysconf(_SC_CLK_TCK);
	int proactive, nkc, nksw, i, scored;
	struct zc_buddy b0, b1;
	struct zc_steps st;
	struct zc_seed fill;
	const char *thp;
	double t;

	ksft_print_header();
	ksft_set_plan(3);
	if (seconds < 1 || seconds > 3600)
		ksft_exit_fail_msg("ZC_IDLE_SECONDS='%s' is not 1 to 3600\n",
				   secs_env);
	out = zc_data_channel(argc, argv);
	if (!out)
		ksft_exit_fail_msg("no data channel\n");
	fprintf(out, "meta,mem_kb,%ld\nmeta,kernel,%s\n", zc_meminfo("MemTotal"),
		getenv("ZC_VARIANT") ? getenv("ZC_VARIANT") : "?");
	fprintf(out, "meta,clk_tck,%ld\nmeta,idle_s,%d\n", tck, seconds);
	thp = zc_thp_never();
	if (!thp)
		ksft_exit_fail_msg("cannot set %s to never\n", ZC_THP_ENABLED);
	fprintf(out, "meta,thp,%s\n", thp);
	proactive0 = zc_read_long(PROACTIVENESS);
	proactive = !set_proactiveness(getenv("ZC_IDLE_PROACTIVE"));
	nr_nodes = zc_node_list("/sys/devices/system/node/has_memory", nodes,
				MAX_NODES);
	if (nr_nodes <= 0)
		ksft_exit_fail_msg("cannot read the nodes with memory\n");
	zc_kthread_ticks("kcompactd", &nkc);
	zc_kthread_ticks("kswapd", &nksw);
	fprintf(out, "meta,kcompactd_threads,%d\nmeta,kswapd_threads,%d\n",
		nkc, nksw);
	print_cols("idle", "seconds,kcompactd_ticks,kswapd_ticks,hp_start,hp_end");
	print_cols("step", "n,requested,obtained,ms");
	print_cols("alloc", "kcompactd_ticks,kswapd_ticks,ms,huge_pages,steps");
	print_cols("whole", "kcompactd_ticks,kswapd_ticks");
	fprintf(out, "cols,score,when");
	for (i = 0; i < nr_nodes; i++)
		fprintf(out, ",node%d", nodes[i]);
	fprintf(out, "\n");
	snap_take(&start);

	if (zc_seed_fragment(out, "idle", &fill))
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (fill.failed)
		ksft_test_result_fail("idle_fill: %d writers failed\n",
				      fill.failed);
	else
		ksft_test_result_pass("idle_fill: %ld files written by %d writers\n",
				      fill.files, ZC_SEED_WRITERS);

	/* Idle: this task sleeps, the background compactor may work */
	zc_read_buddyinfo(&b0);
	node_scores(score0);
	snap_take(&idle0);
	t = zc_now();
	ksft_print_msg("idle: idling for %d s\n", seconds);
	idle_for(seconds);
	snap_take(&idle1);
	t = zc_now() - t;
	zc_read_buddyinfo(&b1);
	node_scores(score1);
	hp0 = free_huge_blocks(&b0);
	hp1 = free_huge_blocks(&b1);
	fprintf(out, "idle,%.1f", t);
	print_ticks(&idle0, &idle1);
	field(hp0);
	field(hp1);
	zc_print_deltas(out, idle0.c, idle1.c, NR_COUNTERS);
	print_scores("start", score0, msg0, sizeof(msg0));
	scored = print_scores("end", score1, msg1, sizeof(msg1));
	for (i = 0; i < nr_nodes; i++)
		zc_print_buddy_node("idle: after idling,", nodes[i]);
	/*
	 * What the background compactor did while idle is a measurement,
	 * for the report to set beside the other kernel's, not a pass; what
	 * is checked here is that it was measured: the free lists and every
	 * node's score read, and a kcompactd thread per node wherever
	 * compaction_proactiveness exists.
	 */
	ksft_print_msg("idle: %.0f s idle: kcompactd %ld ticks, kswapd %ld ticks, %ld pages moved, free huge blocks %ld -> %ld, node scores %s, %s\n",
		       t, zc_delta(idle0.kcompactd, idle1.kcompactd),
		       zc_delta(idle0.kswapd, idle1.kswapd),
		       zc_delta(idle0.c[0], idle1.c[0]), hp0, hp1, msg0, msg1);
	if (hp0 < 0 || hp1 < 0 || scored != nr_nodes)
		ksft_test_result_fail("idle_measured: cannot read /proc/buddyinfo or every node's /proc/zoneinfo\n");
	else if (proactive && nkc != nr_nodes)
		ksft_test_result_fail("idle_measured: compaction_proactiveness, but %d kcompactd threads for %d nodes\n",
				      nkc, nr_nodes);
	else
		ksft_test_result_pass("idle_measured: free lists and %d node scores read, %d kcompactd threads\n",
				      scored, nkc);

	zc_hugepage_steps(out, "idle", counters, NR_COUNTERS, &st);
	snap_take(&alloc1);
	fprintf(out, "alloc");
	print_ticks(&idle1, &alloc1);
	fprintf(out, ",%.0f,%ld,%d", st.ms, st.final, st.steps);
	zc_print_deltas(out, idle1.c, alloc1.c, NR_COUNTERS);
	fprintf(out, "whole");
	print_ticks(&start, &alloc1);
	zc_print_deltas(out, start.c, alloc1.c, NR_COUNTERS);
	fprintf(out, "meta,final,%ld\nmeta,first_fail,%d\n", st.final,
		st.first_fail);
	hp_total = zc_seed_end(out, &fill, &st);
	fclose(out);
	if (st.steps > 0 && hp_total == st.final)
		ksft_test_result_pass("idle_alloc: %ld huge pages (HugePages_Total %ld) in %d steps, %.0f ms, kcompactd %ld ticks\n",
				      st.final, hp_total, st.steps, st.ms,
				      zc_delta(idle1.kcompactd, alloc1.kcompactd));
	else
		ksft_test_result_fail("idle_alloc: steps recorded %ld huge pages in %d steps, HugePages_Total %ld\n",
				      st.final, st.steps, hp_total);
	zc_set_hugepages(0);
	if (proactive0 >= 0)
		zc_write_long(PROACTIVENESS, proactive0);
	ksft_finished();
}
