// SPDX-License-Identifier: GPL-2.0
/*
 * The background compactor, with CONFIG_COMPACTION's interface: one
 * kcompactd<nid> kernel thread per node with memory, asleep while there
 * is nothing to do; proactive compaction as
 * /proc/sys/vm/compaction_proactiveness (0..100, default 20) says;
 * kcompactd woken by a high-order allocation that falls short; the
 * /sys/devices/system/node/nodeN/compact trigger; the debugfs files
 * extfrag/unusable_index and extfrag/extfrag_index.
 *
 * Proactive compaction works by mainline's fragmentation score,
 * zc_node_score(): the share of a node's free memory that is not in free
 * blocks of order >= 9, its zones weighted by their size. With
 * proactiveness p, low = max(100 - p, 5) and high = min(low + 10, 100):
 * kcompactd starts a round when a node's score is above high (it looks
 * every 500 ms, and at once after a non-zero write to the sysctl) and
 * compacts until each zone's score is at most low. At the default, 20:
 * above 90, down to 80.
 *
 * The node fragmented is the last node with memory (node 1 in the
 * suite's 1 GiB, 2-node guest: one zone, DMA32), the way compact.c and
 * thp.c do it (zc_fragment_node(): every second frame free, between
 * anonymous and clean file pages), which puts its score well above 90.
 *
 * Every setting changed (proactiveness, THP enabled and defrag, and the
 * min_free_kbytes that turning THP on raises) is put back as it was
 * found at the end of each test, and at exit.
 */
#include <sys/stat.h>
#include "zc.h"

#define PROACTIVE	"/proc/sys/vm/compaction_proactiveness"
#define MIN_FREE	"/proc/sys/vm/min_free_kbytes"
#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define EXTFRAG		"/sys/kernel/debug/extfrag/"
#define FILL		"/mnt/zc-daemon"
#define FILL_MB		160
#define HPAGE		(ZC_PAGE << ZC_HPAGE_ORDER)
#define MAX_NODES	8
#define DEFAULT_PROACTIVENESS	20
/* Idle windows: 20 of kcompactd's 500 ms looks at the fragmentation score */
#define IDLE_S		10
#define IDLE_SAMPLES	29
/* Polls look as often as kcompactd does */
#define POLL_MS		500

static int nodes[MAX_NODES], nr_nodes, node;
/* As found at the start, put back by restore_settings() */
static long proactiveness = -1, min_free_kb = -1;
static char thp_enabled[16], thp_defrag[16];
/*
 * A poll ends as soon as its target is met; the cap only bounds a
 * failure. 60 s covers a round that gained nothing, kcompactd's 32 s
 * back-off and a second round, at TCG's speed (build/accel: the usual
 * accelerator here); the debug kernel (KASAN, DEBUG_PAGEALLOC, lockdep)
 * under TCG gets 4 times as long. Neither cap is a measured time.
 */
static double poll_s = 60;

static const char * const counter_names[] = {
	"pgmigrate_success", "compact_migrate_scanned", "compact_free_scanned",
	"compact_daemon_wake", "compact_daemon_migrate_scanned",
	"compact_daemon_free_scanned", "thp_fault_alloc", "thp_fault_fallback",
	"pgscan_kswapd",
};
enum {
	MIGRATED, MIGRATE_SCANNED, FREE_SCANNED, DAEMON_WAKE,
	DAEMON_MIGRATE_SCANNED, DAEMON_FREE_SCANNED, THP_ALLOC, THP_FALLBACK,
	KSWAPD_SCANNED, NR_COUNTERS
};

/*
 * All the counters above in one read of /proc/vmstat; NULL, or the name
 * of one this kernel lacks: a test fails on it, never reads it as 0
 */
static const char *read_counters(long *v)
{
	return zc_vmstats(counter_names, v, NR_COUNTERS);
}

/* compaction_proactiveness, -1 when it cannot be read or is not "N\n" */
static long read_proactiveness(void)
{
	char buf[32], *end;
	long v;

	if (zc_read_file(PROACTIVE, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf || strcmp(end, "\n") ? -1 : v;
}

static int set_proactiveness(long v)
{
	return zc_write_long(PROACTIVE, v) || read_proactiveness() != v ? -1 : 0;
}

/* Mainline's fragmentation_score_wmark(): where a round stops, and starts */
static long wmark_low(long p)
{
	return 100 - p > 5 ? 100 - p : 5;
}

static long wmark_high(long p)
{
	return wmark_low(p) + 10 < 100 ? wmark_low(p) + 10 : 100;
}

/* The selected mode of a THP control file ("always [madvise] never") */
static int thp_mode(const char *file, char *mode, size_t size)
{
	char path[96], buf[128], *a, *b;

	snprintf(path, sizeof(path), THP "%s", file);
	if (zc_read_file(path, buf, sizeof(buf)) <= 0 || !(a = strchr(buf, '[')) ||
	    !(b = strchr(a, ']')))
		return -1;
	snprintf(mode, size, "%.*s", (int)(b - a - 1), a + 1);
	return 0;
}

/* Every setting this program changes, back as it was found */
static void restore_settings(void)
{
	char mode[16];

	if (thp_defrag[0] && !thp_mode("defrag", mode, sizeof(mode)) &&
	    strcmp(mode, thp_defrag))
		zc_write_file(THP "defrag", thp_defrag);
	if (thp_enabled[0] && !thp_mode("enabled", mode, sizeof(mode)) &&
	    strcmp(mode, thp_enabled))
		zc_write_file(THP "enabled", thp_enabled);
	/* Turning THP on raised it to khugepaged's reserve */
	if (min_free_kb > 0 && zc_read_long(MIN_FREE) != min_free_kb)
		zc_write_long(MIN_FREE, min_free_kb);
	if (proactiveness >= 0 && read_proactiveness() != proactiveness)
		zc_write_long(PROACTIVE, proactiveness);
}

static void at_exit(void)
{
	restore_settings();
	unlink(FILL);
}

/*
 * One write(2) of @s to @path: 0, or the errno of the open or of the
 * write; *@n gets what write() returned (-1 if the open failed)
 */
static int write_once(const char *path, const char *s, ssize_t *n)
{
	int fd = open(path, O_WRONLY), err = 0;

	*n = -1;
	if (fd < 0)
		return errno;
	*n = write(fd, s, strlen(s));
	if (*n < 0)
		err = errno;
	close(fd);
	return err;
}

static const char *err_name(int err, ssize_t n)
{
	static char buf[64];

	if (err)
		return strerror(err);
	snprintf(buf, sizeof(buf), "success, %zd bytes written", n);
	return buf;
}

/* Free blocks of order >= 9 on @nid, counted in huge pages; -1 if unknown */
static long node_blocks(int nid)
{
	struct zc_buddy b;

	if (zc_read_buddyinfo(&b) <= 0)
		return -1;
	return (long)(zc_free_at_least(&b, nid, ZC_HPAGE_ORDER) >> ZC_HPAGE_ORDER);
}

static int kcompactd_pid(int nid, int *count)
{
	char comm[32];

	snprintf(comm, sizeof(comm), "kcompactd%d", nid);
	return zc_kthread_pid(comm, count);
}

/* utime + stime of kcompactd<node>, -1 if it cannot be read */
static long kcompactd_ticks(int nid)
{
	struct zc_task t;
	int pid = kcompactd_pid(nid, NULL);

	return pid < 0 || zc_task_stat(pid, &t) ? -1 : (long)t.ticks;
}

/*
 * Wait, up to the poll's cap, for a second in which neither kswapd nor
 * any compactor scanned and kcompactd did not wake, ending with kswapd
 * and kcompactd of the node asleep. 0, or -1 if that never came.
 */
static int wait_quiet(void)
{
	long a[NR_COUNTERS], b[NR_COUNTERS];
	char kswapd[32], kcompactd[32];
	struct zc_task t;
	double t0 = zc_now();
	int i, pid[2];

	snprintf(kswapd, sizeof(kswapd), "kswapd%d", node);
	snprintf(kcompactd, sizeof(kcompactd), "kcompactd%d", node);
	pid[0] = zc_kthread_pid(kswapd, NULL);
	pid[1] = zc_kthread_pid(kcompactd, NULL);
	if (pid[0] < 0 || pid[1] < 0 || read_counters(a))
		return -1;
	while (zc_now() - t0 < poll_s) {
		int asleep = 1;

		sleep(1);
		if (read_counters(b))
			return -1;
		for (i = 0; i < 2; i++)
			asleep &= !zc_task_stat(pid[i], &t) && t.state == 'S';
		if (asleep && b[KSWAPD_SCANNED] == a[KSWAPD_SCANNED] &&
		    b[MIGRATE_SCANNED] == a[MIGRATE_SCANNED] &&
		    b[FREE_SCANNED] == a[FREE_SCANNED] && b[DAEMON_WAKE] == a[DAEMON_WAKE])
			return 0;
		memcpy(a, b, sizeof(a));
	}
	return -1;
}

/*
 * Fragment the node, keeping free 12 MiB above its high watermark (as
 * thp.c does; read after any change of min_free_kbytes) so that kswapd,
 * which wakes below the low watermark, stays asleep: while it runs,
 * kcompactd starts no proactive round and ends the one in progress.
 * Returns the node's score afterwards, or -1 (and @f undone).
 */
static long fragment(struct zc_frag *f)
{
	long margin_kb = (long)zc_node_zoneinfo(node, "high") * 4 + 12 * 1024;

	if (zc_fragment_node(node, FILL, margin_kb, f)) {
		zc_unfragment(f);
		return -1;
	}
	return zc_node_score(node);
}

/* 1. One kcompactd<nid> kernel thread for every node with memory */
static void test_threads(void)
{
	char msg[512];
	size_t len = 0;
	int i, pid, count, ok = 1;

	msg[0] = '\0';
	for (i = 0; i < nr_nodes; i++) {
		pid = kcompactd_pid(nodes[i], &count);
		ok &= count == 1;
		if (len < sizeof(msg))
			len += snprintf(msg + len, sizeof(msg) - len,
					"%snode %d: %d kcompactd%d thread(s), pid %d",
					i ? "; " : "", nodes[i], count, nodes[i], pid);
	}
	ksft_test_result(ok, "kcompactd_threads: %s\n", msg);
}

/*
 * 2. On the idle guest, with no node above proactive compaction's high
 * mark, every kcompactd sleeps. Its CPU time, /proc/<pid>/stat's utime +
 * stime, is the task's exact run time cut down to 10 ms ticks, utime
 * and stime each on its own: a thread that ran for microseconds (each
 * 500 ms look at the score) can show one tick more in each, so 2 ticks
 * (20 ms in 10 s, 0.2% of a CPU) are allowed; a compaction round runs
 * for far longer. Its state is sampled 29 times, 345 ms apart, so that
 * the samples fall at ever different points of its 500 ms cycle: a
 * sleeper shows S except while it looks, well under 1% of the time, so
 * one sample may show it running; a busy or blocked thread shows R or D
 * in most.
 */
static void test_idle(void)
{
	struct zc_task t0[MAX_NODES], t;
	int pid[MAX_NODES], sleeping[MAX_NODES] = { 0 };
	long p = proactiveness >= 0 ? proactiveness : DEFAULT_PROACTIVENESS;
	long score, grew, high = wmark_high(p);
	char msg[512];
	size_t len = 0;
	int i, s, ok = 1;

	for (i = 0; i < nr_nodes; i++) {
		score = zc_node_score(nodes[i]);
		if (score < 0) {
			ksft_test_result_fail("kcompactd_idle: cannot compute node %d's fragmentation score\n",
					      nodes[i]);
			return;
		}
		/* Above the high mark, a round is what kcompactd should do */
		if (score > high) {
			ksft_test_result_skip("kcompactd_idle: node %d's fragmentation score is %ld, above the high mark %ld: proactive compaction has work to do, the guest is not unfragmented\n",
					      nodes[i], score, high);
			return;
		}
		pid[i] = kcompactd_pid(nodes[i], NULL);
		if (pid[i] < 0 || zc_task_stat(pid[i], &t0[i])) {
			ksft_test_result_fail("kcompactd_idle: no kcompactd%d to watch\n", nodes[i]);
			return;
		}
	}
	for (s = 0; s < IDLE_SAMPLES; s++) {
		usleep(IDLE_S * 1000000 / IDLE_SAMPLES);
		for (i = 0; i < nr_nodes; i++)
			if (!zc_task_stat(pid[i], &t) && t.state == 'S')
				sleeping[i]++;
	}
	msg[0] = '\0';
	for (i = 0; i < nr_nodes; i++) {
		grew = zc_task_stat(pid[i], &t) ? -1 : (long)(t.ticks - t0[i].ticks);
		ok &= grew >= 0 && grew <= 2 && sleeping[i] >= IDLE_SAMPLES - 1;
		if (len < sizeof(msg))
			len += snprintf(msg + len, sizeof(msg) - len,
					"%skcompactd%d +%ld ticks in %d s, S in %d of %d samples",
					i ? "; " : "", nodes[i], grew, IDLE_S, sleeping[i],
					IDLE_SAMPLES);
	}
	ksft_test_result(ok, "kcompactd_idle: %s (want <= 2 ticks, >= %d samples S)\n",
			 msg, IDLE_SAMPLES - 1);
}

/* 3. The default is mainline's, 20 (read before this program wrote it) */
static void test_default(void)
{
	ksft_test_result(proactiveness == DEFAULT_PROACTIVENESS,
			 "proactiveness_default: reads %ld, want %d\n",
			 proactiveness, DEFAULT_PROACTIVENESS);
}

/*
 * 4. Out of range, non-numeric, two values and an empty write fail with
 * EINVAL and leave the value as it was. Mainline's handler
 * (proc_dointvec_minmax()) answers "" with a 0-byte success and takes
 * "20 30" as a 2-byte write of 20; this interface refuses both.
 */
static void test_bad_input(void)
{
	static const char * const bad[] = { "-1", "101", "abc", "20 30", "" };
	int i, err, ok = 0, nbad = sizeof(bad) / sizeof(bad[0]);
	long before = read_proactiveness(), after;
	ssize_t n;

	for (i = 0; i < nbad; i++) {
		err = write_once(PROACTIVE, bad[i], &n);
		if (err == EINVAL)
			ok++;
		else
			ksft_print_msg("compaction_proactiveness '%s' gave %s, want EINVAL\n",
				       bad[i], err_name(err, n));
	}
	after = read_proactiveness();
	ksft_test_result(before >= 0 && ok == nbad && after == before,
			 "proactiveness_bad_input: %d of %d malformed writes EINVAL, value %ld -> %ld\n",
			 ok, nbad, before, after);
	restore_settings();
}

/*
 * 5. Both ends of the range are taken and read back. 100 first: it
 * starts a round at once (low mark 5), which 0 ends, its low mark being
 * 100; then the value found is written back.
 */
static void test_range(void)
{
	long before = read_proactiveness(), v100 = -1, v0 = -1, after;

	if (!zc_write_long(PROACTIVE, 100))
		v100 = read_proactiveness();
	if (!zc_write_long(PROACTIVE, 0))
		v0 = read_proactiveness();
	if (before >= 0)
		zc_write_long(PROACTIVE, before);
	after = read_proactiveness();
	ksft_test_result(v100 == 100 && v0 == 0 && before >= 0 && after == before,
			 "proactiveness_range: 100 reads %ld, 0 reads %ld, %ld written back reads %ld\n",
			 v100, v0, before, after);
	restore_settings();
}

/*
 * One " N.NNN" of an extfrag file (spaces, an optional minus, digits, a
 * dot, three digits, and the space that ends every value) in
 * thousandths; moves *@p past the digits. -1 if it is not one.
 */
static int parse_index(const char **p, long *v)
{
	const char *s = *p;
	long whole = 0, frac = 0;
	int neg = 0, digits = 0, i;

	if (*s != ' ')
		return -1;
	while (*s == ' ')
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	for (; *s >= '0' && *s <= '9' && digits < 7; digits++)
		whole = whole * 10 + (*s++ - '0');
	if (!digits || *s++ != '.')
		return -1;
	for (i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			return -1;
		frac = frac * 10 + (*s++ - '0');
	}
	if (*s != ' ')
		return -1;
	*v = (neg ? -1 : 1) * (whole * 1000 + frac);
	*p = s;
	return 0;
}

/*
 * A debugfs extfrag file in mainline's format (mm/vmstat.c,
 * unusable_show_print() and extfrag_show_print()): a line per populated
 * zone, "Node %d, zone %8s ", then one value per order 0..10, "%d.%03d "
 * ("%2d.%03d " for the fragmentation index); the zones those of
 * /proc/buddyinfo, in its order. The unusable free space index is in
 * 0.000..1.000 and never falls as the order grows (a free block that
 * serves an order serves every lower one). The fragmentation index is
 * -1.000 for an order a free block serves, else in 0.000..1.000, so its
 * -1.000s come first. Returns the number of lines, or -1 with what is
 * wrong in @why.
 */
static int check_extfrag(const char *file, int fragindex, char *why, size_t size)
{
	static char buf[16384];
	struct zc_buddy b;
	const char *p = buf;
	char path[96], zone[16];
	long v[ZC_MAX_ORDER], n;
	int line = 0, nid, off, o;

	snprintf(path, sizeof(path), EXTFRAG "%s", file);
	n = zc_read_file(path, buf, sizeof(buf));
	if (n <= 0) {
		snprintf(why, size, "cannot read %s: %s", path, n ? strerror(-n) : "empty");
		return -1;
	}
	if (zc_read_buddyinfo(&b) <= 0) {
		snprintf(why, size, "cannot parse /proc/buddyinfo");
		return -1;
	}
	for (; *p; line++) {
		if (line == b.nr) {
			snprintf(why, size, "more lines than buddyinfo's %d zones", b.nr);
			return -1;
		}
		if (sscanf(p, "Node %d, zone %15s%n", &nid, zone, &off) != 2) {
			snprintf(why, size, "line %d does not start 'Node N, zone NAME'", line + 1);
			return -1;
		}
		if (nid != b.z[line].node || strcmp(zone, b.z[line].name)) {
			snprintf(why, size, "line %d is node %d zone %s, buddyinfo's is node %d zone %s",
				 line + 1, nid, zone, b.z[line].node, b.z[line].name);
			return -1;
		}
		p += off;
		for (o = 0; o < ZC_MAX_ORDER; o++) {
			if (parse_index(&p, &v[o])) {
				snprintf(why, size, "line %d: value %d is not ' N.NNN '", line + 1, o);
				return -1;
			}
		}
		while (*p == ' ')
			p++;
		if (*p++ != '\n') {
			snprintf(why, size, "line %d: more than %d values", line + 1, ZC_MAX_ORDER);
			return -1;
		}
		for (o = 0; o < ZC_MAX_ORDER; o++) {
			int in_range = v[o] >= 0 && v[o] <= 1000;
			int ok = fragindex ? in_range || (v[o] == -1000 && (!o || v[o - 1] == -1000)) :
					     in_range && (!o || v[o] >= v[o - 1]);

			if (!ok) {
				snprintf(why, size, "line %d (node %d %s): order %d is %ld/1000%s",
					 line + 1, nid, zone, o, v[o],
					 fragindex ? ", not -1.000 after -1.000s nor in 0..1" :
					 ", not in 0..1 or lower than the order before");
				return -1;
			}
		}
	}
	if (line != b.nr) {
		snprintf(why, size, "%d lines for buddyinfo's %d zones", line, b.nr);
		return -1;
	}
	return line;
}

/* 6, 7. Each extfrag file reads in mainline's format */
static void test_extfrag(const char *file, int fragindex)
{
	char why[192] = "";
	int lines = check_extfrag(file, fragindex, why, sizeof(why));

	const char *name = fragindex ? "extfrag_index" : "extfrag_unusable_index";

	if (lines > 0)
		ksft_test_result_pass("%s: %s: %d zones, %d values each, in range\n",
				      name, file, lines, ZC_MAX_ORDER);
	else
		ksft_test_result_fail("%s: %s\n", name, why);
}

/* 8. Both are read-only: mode 0444, and a write fails */
static void test_extfrag_read_only(void)
{
	static const char * const files[] = { "unusable_index", "extfrag_index" };
	char path[96], msg[256];
	struct stat st;
	size_t len = 0;
	int i, err, ok = 1;
	unsigned int mode;
	ssize_t n;

	msg[0] = '\0';
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), EXTFRAG "%s", files[i]);
		mode = stat(path, &st) ? 0 : st.st_mode & 07777;
		err = write_once(path, "1", &n);
		ok &= mode == 0444 && err;
		if (len < sizeof(msg))
			len += snprintf(msg + len, sizeof(msg) - len, "%s%s mode %04o, write: %s",
					i ? "; " : "", files[i], mode, err_name(err, n));
	}
	ksft_test_result(ok, "extfrag_read_only: %s\n", msg);
}

/*
 * 9. Proactiveness 0 leaves a fragmented idle node alone for 10 s:
 * nothing migrated, scanned by any compactor or woke kcompactd, and no
 * free block of order >= 9 appeared (reclaim cannot make one: kswapd is
 * asleep, and every used frame of the node sits between free ones).
 * Nothing else in the idle guest migrates or compacts, so any growth is
 * a fault. The node must score above the default's high mark (90), or
 * the default would leave it alone too and there is nothing to check.
 * Leaves the node fragmented at proactiveness 0 for the next test;
 * returns its score, or -1.
 */
static long test_proactive_off(struct zc_frag *f)
{
	long c0[NR_COUNTERS], c1[NR_COUNTERS], b0, b1, score, ticks0, ticks1;
	long high = wmark_high(DEFAULT_PROACTIVENESS);
	const char *gone;

	if (set_proactiveness(0)) {
		ksft_test_result_fail("proactive_off_leaves_node: cannot set compaction_proactiveness to 0\n");
		return -1;
	}
	score = fragment(f);
	if (score < 0) {
		ksft_test_result_fail("proactive_off_leaves_node: cannot fragment node %d\n", node);
		return -1;
	}
	zc_print_buddy_node("fragmented", node);
	gone = read_counters(c0);
	b0 = node_blocks(node);
	ticks0 = kcompactd_ticks(node);
	sleep(IDLE_S);
	gone = gone ?: read_counters(c1);
	b1 = node_blocks(node);
	ticks1 = kcompactd_ticks(node);
	if (gone)
		ksft_test_result_fail("proactive_off_leaves_node: no %s in /proc/vmstat\n", gone);
	else if (score <= high)
		ksft_test_result_fail("proactive_off_leaves_node: node %d scores %ld after fragmenting, not above %ld: nothing to check\n",
				      node, score, high);
	else
		ksft_test_result(c1[MIGRATED] == c0[MIGRATED] &&
				 c1[MIGRATE_SCANNED] == c0[MIGRATE_SCANNED] &&
				 c1[DAEMON_WAKE] == c0[DAEMON_WAKE] &&
				 c1[DAEMON_MIGRATE_SCANNED] == c0[DAEMON_MIGRATE_SCANNED] &&
				 b0 >= 0 && b1 <= b0,
				 "proactive_off_leaves_node: node %d scores %ld; in %d s pgmigrate_success +%ld, compact_migrate_scanned +%ld, compact_daemon_wake +%ld, compact_daemon_migrate_scanned +%ld, free order>=9 blocks %ld -> %ld, kcompactd%d +%ld ticks (want no growth)\n",
				 node, score, IDLE_S, c1[MIGRATED] - c0[MIGRATED],
				 c1[MIGRATE_SCANNED] - c0[MIGRATE_SCANNED],
				 c1[DAEMON_WAKE] - c0[DAEMON_WAKE],
				 c1[DAEMON_MIGRATE_SCANNED] - c0[DAEMON_MIGRATE_SCANNED],
				 b0, b1, node, zc_delta(ticks0, ticks1));
	return score;
}

/*
 * 10. Writing 20 compacts that node (score @score0) down to the low
 * mark, 80, within the poll's cap, and pages were scanned and migrated
 * doing it. Mainline counts a proactive round in neither
 * compact_daemon_wake nor compact_daemon_migrate_scanned (only
 * kcompactd_do_work() does), so those and kcompactd's CPU time are
 * given, not judged.
 */
static void test_proactive_on(struct zc_frag *f, long score0)
{
	long c0[NR_COUNTERS], c1[NR_COUNTERS], score = -1, ticks0, ticks1;
	long low = wmark_low(DEFAULT_PROACTIVENESS), high = wmark_high(DEFAULT_PROACTIVENESS);
	const char *gone;
	double t0, t = 0;
	int err;

	if (score0 <= high) {
		ksft_test_result_fail("proactive_compacts_node: no node fragmented above %ld to compact (score %ld)\n",
				      high, score0);
		if (score0 >= 0)
			zc_unfragment(f);
		restore_settings();
		return;
	}
	gone = read_counters(c0);
	ticks0 = kcompactd_ticks(node);
	t0 = zc_now();
	err = zc_write_long(PROACTIVE, DEFAULT_PROACTIVENESS);
	while (!err && (t = zc_now() - t0) < poll_s) {
		score = zc_node_score(node);
		if (score >= 0 && score <= low)
			break;
		usleep(POLL_MS * 1000);
	}
	gone = gone ?: read_counters(c1);
	ticks1 = kcompactd_ticks(node);
	zc_print_buddy_node("after proactive compaction", node);
	if (err)
		ksft_test_result_fail("proactive_compacts_node: writing %d gave %s\n",
				      DEFAULT_PROACTIVENESS, strerror(-err));
	else if (gone)
		ksft_test_result_fail("proactive_compacts_node: no %s in /proc/vmstat\n", gone);
	else
		ksft_test_result(score >= 0 && score <= low && c1[MIGRATED] > c0[MIGRATED] &&
				 c1[MIGRATE_SCANNED] > c0[MIGRATE_SCANNED],
				 "proactive_compacts_node: node %d score %ld -> %ld in %.1f s (want <= %ld within %.0f s); pgmigrate_success +%ld, compact_migrate_scanned +%ld (want > 0); compact_daemon_wake +%ld, compact_daemon_migrate_scanned +%ld, kcompactd%d +%ld ticks\n",
				 node, score0, score, t, low, poll_s,
				 c1[MIGRATED] - c0[MIGRATED],
				 c1[MIGRATE_SCANNED] - c0[MIGRATE_SCANNED],
				 c1[DAEMON_WAKE] - c0[DAEMON_WAKE],
				 c1[DAEMON_MIGRATE_SCANNED] - c0[DAEMON_MIGRATE_SCANNED],
				 node, zc_delta(ticks0, ticks1));
	zc_unfragment(f);
	restore_settings();
}

/*
 * 11. A THP fault that cannot compact (defrag "defer") on a fragmented
 * node wakes kcompactd (through kswapd), which compacts the node until a
 * huge page is free: with no further allocation, a free block of order
 * >= 9 appears within the poll's cap and compact_daemon_wake grew.
 * Proactiveness 0, so that only the failed allocation can wake it. The
 * free huge pages the node still has are first taken by THP faults that
 * wake nothing (defrag "never"), as thp.c does; the measured fault is a
 * single one, so that no later fault takes the block kcompactd makes,
 * and its region is unmapped at once and the eaten one madvised
 * NOHUGEPAGE, so that khugepaged has nothing to collapse into it.
 *
 * kcompactd passes over a zone whose compaction at the order is
 * deferred, and an earlier program's failed compactions may have left
 * order 9 deferred on the node (failed.c's, just before this one in
 * debug.list). A direct compaction that gets its huge page ends the
 * deferral (compaction_defer_reset()), so before the eating one huge
 * page is asked of the node through nr_hugepages and given back, and the
 * kswapd and kcompactd work that request started is waited out.
 */
static void test_after_failed_thp(void)
{
	long c0[NR_COUNTERS], c1[NR_COUNTERS], c2[NR_COUNTERS] = { 0 };
	long b0 = -1, b1 = -1, score = -1, fb, h0 = -1, h1 = -1;
	const char *gone = NULL;
	size_t eat_len = 0, i;
	char *eat = NULL, *p;
	char why[160] = "";
	struct zc_frag f;
	double t0, t = 0;

	memset(&f, 0, sizeof(f));
	/* THP on first: it raises min_free_kbytes, which the margin follows */
	if (set_proactiveness(0) || zc_write_file(THP "enabled", "madvise")) {
		snprintf(why, sizeof(why), "cannot set proactiveness 0 and THP enabled=madvise");
		goto out;
	}
	score = fragment(&f);
	if (score < 0) {
		snprintf(why, sizeof(why), "cannot fragment node %d", node);
		goto out;
	}
	if (zc_bind_mem_node(node)) {
		snprintf(why, sizeof(why), "cannot bind to node %d", node);
		goto out;
	}
	h0 = zc_node_hugepages(node, 0);
	if (h0 >= 0) {
		h1 = zc_node_hugepages(node, h0 + 1);
		zc_node_hugepages(node, h0);
	}
	if (wait_quiet()) {
		snprintf(why, sizeof(why), "kswapd%d and kcompactd%d not quiet within %.0f s of the huge page asked for",
			 node, node, poll_s);
		goto out;
	}
	/* Every free huge page of the node, and faults to spare for a fallback */
	b0 = node_blocks(node);
	eat_len = (size_t)(b0 + 4) * HPAGE;
	eat = zc_map_hpage_aligned(eat_len);
	if (b0 < 0 || !eat || madvise(eat, eat_len, MADV_HUGEPAGE) ||
	    zc_write_file(THP "defrag", "never")) {
		snprintf(why, sizeof(why), "cannot map and madvise %zu bytes, or set defrag never",
			 eat_len);
		goto out;
	}
	fb = zc_vmstat("thp_fault_fallback");
	for (i = 0; i < eat_len && zc_vmstat("thp_fault_fallback") == fb; i += HPAGE)
		eat[i] = 1;
	madvise(eat, eat_len, MADV_NOHUGEPAGE);
	if (zc_write_file(THP "defrag", "defer")) {
		snprintf(why, sizeof(why), "cannot set defrag defer");
		goto out;
	}

	gone = read_counters(c0);
	b0 = node_blocks(node);
	p = zc_map_hpage_aligned(HPAGE);
	if (!p || madvise(p, HPAGE, MADV_HUGEPAGE)) {
		snprintf(why, sizeof(why), "cannot map a huge page's region");
		goto out;
	}
	p[0] = 1;
	gone = gone ?: read_counters(c1);
	munmap(p, HPAGE);
	if (gone)
		goto out;
	if (c1[THP_FALLBACK] - c0[THP_FALLBACK] != 1 || c1[THP_ALLOC] != c0[THP_ALLOC]) {
		snprintf(why, sizeof(why), "the fault did not fall short: thp_fault_alloc +%ld, thp_fault_fallback +%ld",
			 c1[THP_ALLOC] - c0[THP_ALLOC], c1[THP_FALLBACK] - c0[THP_FALLBACK]);
		goto out;
	}
	t0 = zc_now();
	do {
		usleep(POLL_MS * 1000);
		t = zc_now() - t0;
		gone = read_counters(c2);
		b1 = node_blocks(node);
	} while (!gone && t < poll_s && !(b1 > b0 && c2[DAEMON_WAKE] > c0[DAEMON_WAKE]));
	zc_print_buddy_node("after the failed fault", node);
out:
	if (gone)
		ksft_test_result_fail("kcompactd_after_failed_thp: no %s in /proc/vmstat\n", gone);
	else if (why[0])
		ksft_test_result_fail("kcompactd_after_failed_thp: %s\n", why);
	else
		ksft_test_result(b0 >= 0 && b1 > b0 && c2[DAEMON_WAKE] > c0[DAEMON_WAKE],
				 "kcompactd_after_failed_thp: node %d (score %ld) free order>=9 blocks %ld -> %ld in %.1f s (want growth within %.0f s); compact_daemon_wake +%ld (want > 0), compact_daemon_migrate_scanned +%ld, compact_daemon_free_scanned +%ld, pgmigrate_success +%ld; the huge page that ended any deferral: %s\n",
				 node, score, b0, b1, t, poll_s,
				 c2[DAEMON_WAKE] - c0[DAEMON_WAKE],
				 c2[DAEMON_MIGRATE_SCANNED] - c0[DAEMON_MIGRATE_SCANNED],
				 c2[DAEMON_FREE_SCANNED] - c0[DAEMON_FREE_SCANNED],
				 c2[MIGRATED] - c0[MIGRATED], h1 > h0 ? "got" : "not got");
	if (eat)
		munmap(eat, eat_len);
	zc_unbind_mem();
	zc_unfragment(&f);
	restore_settings();
}

/*
 * 12, 13. nodeN/compact takes "1" only, on the fragmented node, at
 * proactiveness 0 so that only the write compacts. "2", "abc" and "1 1"
 * fail with EINVAL and compact nothing: no pfn scanned, no page
 * migrated, no free block of order >= 9 appeared. An empty write never
 * reaches the attribute (fs/sysfs/file.c, sysfs_kf_write(): 0 bytes,
 * success), so it counts as refused when it writes nothing and compacts
 * nothing. Then "1" returns once the node is compacted: the free blocks
 * of order >= 9 grew (or no fragmentation is left, score 0), and the
 * migration scanner ran.
 */
static void test_node_compact(void)
{
	static const char * const bad[] = { "2", "abc", "", "1 1" };
	long c0[NR_COUNTERS], c1[NR_COUNTERS], c2[NR_COUNTERS], b0, b1, b2, score, score2;
	long high = wmark_high(DEFAULT_PROACTIVENESS);
	int i, err, ok = 0, nbad = sizeof(bad) / sizeof(bad[0]);
	const char *gone;
	struct zc_frag f;
	char path[64];
	ssize_t n;
	double t;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact", node);
	if (access(path, F_OK) || set_proactiveness(0)) {
		ksft_test_result_fail("node_compact_bad_input: no %s, or cannot set proactiveness 0\n", path);
		ksft_test_result_fail("node_compact_grows_free: no %s, or cannot set proactiveness 0\n", path);
		restore_settings();
		return;
	}
	score = fragment(&f);
	if (score <= high) {
		char why[96];

		if (score < 0)
			snprintf(why, sizeof(why), "cannot fragment node %d", node);
		else
			snprintf(why, sizeof(why), "node %d scores %ld after fragmenting, want > %ld",
				 node, score, high);
		ksft_test_result_fail("node_compact_bad_input: %s\n", why);
		ksft_test_result_fail("node_compact_grows_free: %s\n", why);
		if (score >= 0)
			zc_unfragment(&f);
		restore_settings();
		return;
	}
	gone = read_counters(c0);
	b0 = node_blocks(node);
	for (i = 0; i < nbad; i++) {
		err = write_once(path, bad[i], &n);
		if (err == EINVAL || (!bad[i][0] && !err && n == 0))
			ok++;
		else
			ksft_print_msg("node%d/compact '%s' gave %s, want EINVAL\n", node, bad[i],
				       err_name(err, n));
	}
	gone = gone ?: read_counters(c1);
	b1 = node_blocks(node);
	if (gone)
		ksft_test_result_fail("node_compact_bad_input: no %s in /proc/vmstat\n", gone);
	else
		ksft_test_result(ok == nbad && c1[MIGRATE_SCANNED] == c0[MIGRATE_SCANNED] &&
				 c1[FREE_SCANNED] == c0[FREE_SCANNED] &&
				 c1[MIGRATED] == c0[MIGRATED] && b0 >= 0 && b1 <= b0,
				 "node_compact_bad_input: %d of %d refused; compact_migrate_scanned +%ld, compact_free_scanned +%ld, pgmigrate_success +%ld, free order>=9 blocks %ld -> %ld (want no growth)\n",
				 ok, nbad, c1[MIGRATE_SCANNED] - c0[MIGRATE_SCANNED],
				 c1[FREE_SCANNED] - c0[FREE_SCANNED],
				 c1[MIGRATED] - c0[MIGRATED], b0, b1);

	t = zc_now();
	err = write_once(path, "1", &n);
	t = zc_now() - t;
	gone = gone ?: read_counters(c2);
	b2 = node_blocks(node);
	score2 = zc_node_score(node);
	zc_print_buddy_node("after node compact", node);
	if (gone)
		ksft_test_result_fail("node_compact_grows_free: no %s in /proc/vmstat\n", gone);
	else
		ksft_test_result(!err && n == 1 && b1 >= 0 && (b2 > b1 || score2 == 0) &&
				 c2[MIGRATE_SCANNED] > c1[MIGRATE_SCANNED],
				 "node_compact_grows_free: '1' gave %s in %.2f s; node %d free order>=9 blocks %ld -> %ld, score %ld -> %ld; compact_migrate_scanned +%ld, pgmigrate_success +%ld\n",
				 err_name(err, n), t, node, b1, b2, score, score2,
				 c2[MIGRATE_SCANNED] - c1[MIGRATE_SCANNED],
				 c2[MIGRATED] - c1[MIGRATED]);
	zc_unfragment(&f);
	restore_settings();
}

int main(void)
{
	const char *variant = getenv("ZC_VARIANT");
	struct zc_frag f;
	long score;

	ksft_print_header();
	ksft_set_plan(13);
	proactiveness = read_proactiveness();
	min_free_kb = zc_read_long(MIN_FREE);
	if (thp_mode("enabled", thp_enabled, sizeof(thp_enabled)) ||
	    thp_mode("defrag", thp_defrag, sizeof(thp_defrag)))
		thp_enabled[0] = thp_defrag[0] = '\0';
	atexit(at_exit);
	if (variant && !strcmp(variant, "debug"))
		poll_s *= 4;
	nr_nodes = zc_node_list("/sys/devices/system/node/has_memory", nodes, MAX_NODES);
	if (nr_nodes <= 0)
		ksft_exit_fail_msg("cannot read /sys/devices/system/node/has_memory\n");
	node = nodes[nr_nodes - 1];
	ksft_print_msg("nodes with memory: %d, fragmenting node %d; proactiveness %ld, THP %s/%s, min_free_kbytes %ld\n",
		       nr_nodes, node, proactiveness, thp_enabled, thp_defrag, min_free_kb);

	/* First, while the guest is as idle as this program found it */
	test_threads();
	test_idle();
	test_default();
	test_bad_input();
	test_range();
	test_extfrag("unusable_index", 0);
	test_extfrag("extfrag_index", 1);
	test_extfrag_read_only();

	if (zc_make_file(FILL, FILL_MB))
		ksft_exit_fail_msg("cannot write %s\n", FILL);
	score = test_proactive_off(&f);
	test_proactive_on(&f, score);
	test_after_failed_thp();
	test_node_compact();
	ksft_finished();
}
