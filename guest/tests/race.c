// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction racing with the rest of the mm. For each race, two
 * compactors run for ZC_RACE_SECONDS (default 30): one writes every node
 * to compact_node in a loop, the other asks for huge pages and gives them
 * back, which compacts directly because a fragmenter holds every second
 * frame of a third of memory. Against them, two workers of one kind run:
 *
 *   (a) anon: page faults, partial and whole munmap of anonymous memory
 *   (b) file: rewrite, truncate and re-extend a page-cache file, read it
 *       back through read() and mmap()
 *   (c) fork: fork, copy-on-write in parent and child, exit
 *   (d) mlock: mlock and munlock filled memory (compact_unevictable_allowed
 *       is 1, so the compactors move it while it is locked)
 *   (e) mremap: grow, move and shrink mapped regions
 *   (f) proc: read /proc/pagetypeinfo, /proc/buddyinfo and /proc/vmstat
 *       and check that they are well formed
 *
 * Every worker checks every word it wrote (the fragmenter's memory too).
 * A race passes with 0 mismatches, and when both compactors provably ran
 * (compact_pages_moved and direct compactions rose); the host fails the run
 * on any kernel splat, and on a guest that does not come back.
 */
#include <signal.h>
#include <sys/resource.h>
#include "zc.h"

#define WORK_MB		8
#define NR_WORKERS	2

static int seconds = 30, nodes = 1;
static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	stop = 1;
}

/* The word at @i of a region filled with @seed */
static inline unsigned long word(unsigned long seed, size_t i)
{
	unsigned long x = seed ^ (i * 0x9E3779B97F4A7C15UL);

	x ^= x >> 29;
	return x * 0xBF58476D1CE4E5B9UL;
}

static void fill(void *p, size_t len, unsigned long seed)
{
	unsigned long *w = p;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = word(seed, i);
}

/*
 * Words of @p that differ from what fill(@seed) wrote, when @p lies
 * @off bytes into the region that was filled
 */
static long check_at(const void *p, size_t len, unsigned long seed, size_t off)
{
	const unsigned long *w = p;
	size_t i, first = off / sizeof(*w);
	long bad = 0;

	for (i = 0; i < len / sizeof(*w); i++)
		bad += w[i] != word(seed, first + i);
	return bad;
}

static long check(const void *p, size_t len, unsigned long seed)
{
	return check_at(p, len, seed, 0);
}

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Each worker returns the words it found wrong; -1 if it could not run */
static long work_anon(unsigned long seed)
{
	size_t len = WORK_MB << 20, half = len / 2;
	long bad = 0;

	while (!stop) {
		char *p = map(len);

		if (!p)
			return -1;
		fill(p, len, seed);
		bad += check(p, len, seed);
		munmap(p, half);			/* partial munmap */
		bad += check_at(p + half, half, seed, half);
		munmap(p + half, half);
		seed++;
	}
	return bad;
}

static long work_file(unsigned long seed)
{
	size_t len = WORK_MB << 20;
	char path[64];
	char *buf = map(len), *m;
	long bad = 0;
	int fd;

	snprintf(path, sizeof(path), "/mnt/zc-race-%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !buf)
		return -1;
	while (!stop) {
		size_t cut = (seed % 7 + 1) * (len / 8);

		fill(buf, len, seed);
		if (pwrite(fd, buf, len, 0) != (ssize_t)len)
			return -1;
		memset(buf, 0, len);
		if (pread(fd, buf, len, 0) != (ssize_t)len)
			return -1;
		bad += check(buf, len, seed);
		m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return -1;
		bad += check(m, len, seed);
		munmap(m, len);
		/* Truncate into the middle, then the tail must read as zeroes */
		if (ftruncate(fd, cut) || ftruncate(fd, len))
			return -1;
		if (pread(fd, buf, len, 0) != (ssize_t)len)
			return -1;
		bad += check(buf, cut, seed);
		for (size_t i = cut; i < len; i += sizeof(long))
			bad += *(long *)(buf + i) != 0;
		seed++;
	}
	close(fd);
	unlink(path);
	return bad;
}

static long work_fork(unsigned long seed)
{
	size_t len = WORK_MB << 20, half = len / 2;
	char *p = map(len);
	long bad = 0;

	if (!p)
		return -1;
	while (!stop) {
		int status;
		pid_t pid;

		fill(p, len, seed);
		pid = fork();
		for (int tries = 0; pid < 0 && errno == ENOMEM && tries < 100; tries++) {
			usleep(10 * 1000);	/* huge pages hold the memory */
			pid = fork();
		}
		if (pid < 0)
			return -1;
		if (!pid) {
			long b = check(p, len, seed);

			fill(p, half, ~seed);		/* copy-on-write */
			b += check(p, half, ~seed) +
			     check_at(p + half, half, seed, half);
			_exit(b ? 1 : 0);
		}
		fill(p + half, half, seed + 1);		/* parent's own COW */
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
		bad += check(p, half, seed);
		seed++;
	}
	return bad;
}

static long work_mlock(unsigned long seed)
{
	size_t len = WORK_MB << 20;
	char *p = map(len);
	long bad = 0;

	if (!p)
		return -1;
	while (!stop) {
		fill(p, len, seed);
		if (mlock(p, len))
			return -1;
		usleep(20 * 1000);	/* locked while compaction moves it */
		bad += check(p, len, seed);
		munlock(p, len);
		bad += check(p, len, seed);
		seed++;
	}
	return bad;
}

static long work_mremap(unsigned long seed)
{
	size_t len = (WORK_MB << 20) / 2;
	long bad = 0;

	while (!stop) {
		char *p = map(len), *q;

		if (!p)
			return -1;
		fill(p, len, seed);
		q = mremap(p, len, 2 * len, MREMAP_MAYMOVE);
		if (q == MAP_FAILED)
			return -1;
		bad += check(q, len, seed);
		fill(q + len, len, seed + 1);
		p = mremap(q, 2 * len, len, 0);		/* shrink in place */
		if (p == MAP_FAILED)
			return -1;
		bad += check(p, len, seed);
		munmap(p, len);
		seed += 2;
	}
	return bad;
}

/* Each file must read whole and have the lines it always has */
static long work_proc(unsigned long seed)
{
	static char buf[1 << 17];
	static const struct { const char *path, *must; } files[] = {
		{ "/proc/pagetypeinfo", "Fragmentation index at order" },
		{ "/proc/pagetypeinfo", "Unusable free space index at order" },
		{ "/proc/buddyinfo", "zone" },
		{ "/proc/vmstat", "compact_pages_moved " },
	};
	long bad = 0;

	while (!stop) {
		size_t i = seed++ % (sizeof(files) / sizeof(files[0]));
		long n = zc_read_file(files[i].path, buf, sizeof(buf));

		bad += n <= 0 || !strstr(buf, files[i].must) || buf[n - 1] != '\n';
	}
	return bad;
}

/*
 * The compactors: compact_node over every node, and huge page churn.
 * Each exits 0 only when it did its work (a write to compact_node that
 * succeeded, none that failed; a round that got huge pages), 3
 * otherwise: a compactor that ran but did nothing has not raced.
 */
static void compact_nodes_loop(void)
{
	long writes = 0, errors = 0;
	int node = 0;

	while (!stop) {
		if (zc_write_long("/proc/sys/vm/compact_node", node))
			errors++;
		else
			writes++;
		node = (node + 1) % nodes;
		usleep(20 * 1000);
	}
	if (errors)
		fprintf(stderr, "compact_node: %ld of %ld writes failed\n", errors, errors + writes);
	_exit(writes && !errors ? 0 : 3);
}

static void hugepage_loop(long target)
{
	long rounds = 0;

	while (!stop) {
		rounds += zc_set_hugepages(target) > 0;
		zc_set_hugepages(0);
	}
	_exit(rounds ? 0 : 3);
}

/*
 * A child running @fn(@arg) until the alarm; its pid, or -1 if fork()
 * failed: the caller must not wait for (or signal) a -1 pid, which would
 * reap (or hit) any child at all.
 */
static pid_t spawn(void (*fn)(long), long arg)
{
	pid_t pid = fork();

	if (pid < 0)
		ksft_print_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		signal(SIGALRM, on_alarm);
		alarm(seconds);
		fn(arg);
		_exit(2);
	}
	return pid;
}

static void compact_nodes_fn(long unused) { compact_nodes_loop(); }
static void hugepage_fn(long target) { hugepage_loop(target); }

static long (*current_work)(unsigned long);
static void worker_fn(long seed)
{
	long bad = current_work(seed);

	_exit(bad < 0 ? 2 : bad ? 1 : 0);
}

/* A third of memory, every second frame held and checked */
static char *frag;
static size_t frag_len;
static long frag_errors;

static void fragment(void)
{
	size_t i, n = (size_t)zc_meminfo("MemTotal") * 1024 / 3 / ZC_PAGE;
	char *hole = map(n * ZC_PAGE);

	frag = map(n * ZC_PAGE);
	frag_len = n * ZC_PAGE;
	if (!hole || !frag)
		ksft_exit_fail_msg("cannot map the fragmenter: %s\n", strerror(errno));
	for (i = 0; i < n; i++) {
		hole[i * ZC_PAGE] = 1;
		fill(frag + i * ZC_PAGE, ZC_PAGE, i);
	}
	munmap(hole, n * ZC_PAGE);
}

static long frag_bad(void)
{
	size_t i;
	long bad = 0;

	for (i = 0; i < frag_len / ZC_PAGE; i++)
		bad += check(frag + i * ZC_PAGE, ZC_PAGE, i);
	return bad;
}


static void race(const char *name, long (*work)(unsigned long))
{
	long moved, stall, target, bad;

	/* A fresh fragmenter per race, so that every race compacts */
	bad = frag ? frag_bad() : 0;
	if (frag)
		munmap(frag, frag_len);
	fragment();
	moved = zc_vmstat("compact_pages_moved");
	stall = zc_compactions();
	/* More than the free blocks hold, less than all of free memory */
	target = zc_meminfo("MemFree") * 3 / 4 / 2048;
	frag_errors += bad;
	pid_t comp[2], w[NR_WORKERS];
	int i, status, failed = 0, broken = 0, compactors = 0;
	double t0 = zc_now();

	current_work = work;
	comp[0] = spawn(compact_nodes_fn, 0);
	comp[1] = spawn(hugepage_fn, target);
	for (i = 0; i < NR_WORKERS; i++)
		w[i] = spawn(worker_fn, 1000 * (i + 1));
	for (i = 0; i < NR_WORKERS; i++) {
		if (w[i] < 0 || waitpid(w[i], &status, 0) != w[i] || !WIFEXITED(status))
			broken++;
		else if (WEXITSTATUS(status) == 1)
			failed++;
		else if (WEXITSTATUS(status) == 2)
			broken++;
	}
	for (i = 0; i < 2; i++)
		compactors += comp[i] > 0 && waitpid(comp[i], &status, 0) == comp[i] &&
			      WIFEXITED(status) && WEXITSTATUS(status) == 0;
	zc_set_hugepages(0);
	/* A missing counter fails the race: -1 - -1 would read as 0 */
	moved = zc_delta(moved, zc_vmstat("compact_pages_moved"));
	stall = zc_delta(stall, zc_compactions());
	ksft_test_result(!failed && !broken && compactors == 2 && moved > 0 && stall > 0,
			 "race_%s: %.0fs, %d of %d workers saw wrong data, %d could not run; %d of 2 compactors did their work; compact_pages_moved +%ld, direct compactions +%ld (want > 0)\n",
			 name, zc_now() - t0, failed, NR_WORKERS, broken, compactors, moved,
			 stall);
}

int main(void)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	long bad;

	ksft_print_header();
	ksft_set_plan(7);
	seconds = atoi(getenv("ZC_RACE_SECONDS") ?: "30");
	nodes = atoi(getenv("ZC_NODES") ?: "1");
	if (seconds < 1 || nodes < 1)
		ksft_exit_fail_msg("bad ZC_RACE_SECONDS or ZC_NODES\n");
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	zc_write_long("/proc/sys/vm/compact_unevictable_allowed", 1);
	ksft_print_msg("%ds per race, %d nodes, fragmenter of a third of memory\n",
		       seconds, nodes);

	race("anon", work_anon);
	race("file", work_file);
	race("fork", work_fork);
	race("mlock", work_mlock);
	race("mremap", work_mremap);
	race("proc", work_proc);

	bad = frag_bad() + frag_errors;
	ksft_test_result(!bad, "race_fragmenter: %ld words wrong in the fragmenters of the 6 races (%zu MiB each)\n",
			 bad, frag_len >> 20);
	ksft_finished();
}
