// SPDX-License-Identifier: GPL-2.0
/*
 * make run BENCH=thp: THP fault latency and success on fragmented memory,
 * in the shape of mmtests' thpscale. For each thread count in
 * ZC_THP_THREADS ("1 4 8"), from the same starting point:
 *
 * 1. with THP off, fault anonymous memory down to ZC_THP_MARGIN_MB above
 *    the high watermarks, and unmap the first half of every naturally
 *    aligned huge page of it: holes of half a huge page;
 * 2. fill the holes with clean page cache, read from a file of the ext4
 *    disk that was written (and dropped from the page cache) before;
 * 3. read the physical limit from /proc/kpageflags: the pageblocks whose
 *    every page is free or on the LRU (guest/lib/zc.c's zc_pageblock_map());
 * 4. turn THP on in ZC_THP_MODE and fault a second mapping of
 *    ZC_THP_PERCENT (80) percent of MemAvailable, split between the
 *    threads: "madvise" madvises it (MADV_HUGEPAGE) under enabled and
 *    defrag madvise; "always" does not, under enabled and defrag always
 *    (the fault then will not retry, __GFP_NORETRY). Every thread times
 *    the first touch of each huge page sized range of its part, the fault
 *    that decides whether the range is served huge, and reads the answer
 *    from /proc/self/pagemap and /proc/kpageflags (KPF_THP);
 * 5. unmap everything and drop the page cache.
 *
 * Writes to the data channel (argv[1], default /dev/ttyS1):
 *   meta,<key>,<value>
 *   cols,<type>,<field names>
 *   fault,<threads>,<microseconds>,<huge 0|1>
 *   run,<threads>,<ranges>,<huge>,<limit>,<seconds>,<kcompactd ticks>,<kswapd ticks>,<counter deltas...>
 *   failed,<threads>,<why>
 * A "cols" line names the fields of the lines of its type: the report
 * looks them up by name. The counter deltas are those of counters[]
 * below; a counter the kernel does not have, or a thread (CPU time of
 * every kcompactd<nid> or kswapd<nid> in the fault phase, in ticks of
 * "meta,clk_tck"), is an empty field. A thread count whose setup failed
 * is a "failed" line, never a missing row.
 */
#include <pthread.h>
#include "zc.h"

#define THP		"/sys/kernel/mm/transparent_hugepage/"
#define FILE_PATH	"/mnt/zc-thpscale"
#define HPAGE		(2UL << 20)
#define KPF_THP		22

static FILE *out;
static const char *mode;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static const char * const counters[] = {
	"compact_stall", "compact_success", "compact_fail",
	"compact_migrate_scanned", "compact_free_scanned",
	"compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
	"pgmigrate_success", "thp_fault_alloc", "thp_fault_fallback",
	"pgsteal_kswapd", "pgsteal_direct",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

/* ",<value>", or "," for -1: a counter or thread the kernel lacks */
static void print_field(long v)
{
	if (v < 0)
		fprintf(out, ",");
	else
		fprintf(out, ",%ld", v);
}

static void read_counters(long *v)
{
	unsigned int i;

	/* A counter the kernel lacks (no compactor) reads as -1 in both */
	for (i = 0; i < NR_COUNTERS; i++)
		v[i] = zc_vmstat(counters[i]);
}

struct worker {
	char *base;
	size_t len;
	int threads, kpf, huge, ranges;
	double *us;
	char *is_huge;
};

/* Is the page mapped at @addr part of a THP? */
static int is_thp(int kpf, const void *addr)
{
	unsigned long pfn = zc_pfn(addr);
	unsigned long long f;

	if (!pfn || pread(kpf, &f, sizeof(f), pfn * sizeof(f)) != sizeof(f))
		return 0;
	return !!(f & (1ULL << KPF_THP));
}

static void *fault_part(void *arg)
{
	struct worker *w = arg;
	size_t off, i;

	for (off = 0; off < w->len; off += HPAGE) {
		double t = zc_now();

		w->base[off] = 1;
		w->us[w->ranges] = (zc_now() - t) * 1e6;
		w->is_huge[w->ranges] = is_thp(w->kpf, w->base + off);
		w->huge += w->is_huge[w->ranges];
		w->ranges++;
		/* The rest of a range that was not served huge, small pages */
		if (!w->is_huge[w->ranges - 1])
			for (i = ZC_PAGE; i < HPAGE; i += ZC_PAGE)
				w->base[off + i] = 1;
	}
	return NULL;
}

static int thp_set(const char *enabled, const char *defrag)
{
	return zc_write_file(THP "enabled", enabled) || zc_write_file(THP "defrag", defrag);
}

static int run(int threads, long margin_mb, long percent)
{
	static char map[1 << 16];
	struct worker w[16];
	pthread_t tid[16];
	long c0[NR_COUNTERS], c1[NR_COUNTERS], limit, high_kb;
	long kc0, kc1, ks0, ks1;
	size_t anon_len, thp_len, part, off;
	char *anon, *thp, buf[1 << 16];
	double t;
	int fd, kpf, i, n, ranges = 0, huge = 0;
	unsigned int k;

	/* 1. Small pages only while the memory is laid out */
	if (thp_set("never", "madvise"))
		return -1;
	high_kb = zc_node_zoneinfo(0, "high") * 4;
	for (n = 1; n < 8 && zc_node_meminfo(n, "MemTotal") > 0; n++)
		high_kb += zc_node_zoneinfo(n, "high") * 4;
	anon_len = (size_t)(zc_meminfo("MemFree") - high_kb - margin_mb * 1024) * 1024;
	anon_len &= ~(HPAGE - 1);
	anon = zc_map_hpage_aligned(anon_len);
	if (!anon)
		return -1;
	for (off = 0; off < anon_len; off += ZC_PAGE)
		anon[off] = 1;
	for (off = 0; off < anon_len; off += HPAGE)
		munmap(anon + off, HPAGE / 2);

	/* 2. The holes filled with clean page cache */
	fd = open(FILE_PATH, O_RDONLY);
	if (fd < 0)
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	while (read(fd, buf, sizeof(buf)) > 0 &&
	       zc_meminfo("MemFree") > high_kb + margin_mb * 1024)
		;

	/* 3. What a compactor with reclaim could make of it */
	if (zc_pageblock_map(map, sizeof(map) - 1, &limit, NULL, NULL) < 0)
		return -1;

	/* 4. The measured faults */
	thp_len = (size_t)(zc_meminfo("MemAvailable") * percent / 100) * 1024;
	thp_len -= thp_len % (HPAGE * threads);
	part = thp_len / threads;
	thp = zc_map_hpage_aligned(thp_len);
	kpf = open("/proc/kpageflags", O_RDONLY);
	if (!thp || kpf < 0)
		return -1;
	if (!strcmp(mode, "madvise")) {
		if (madvise(thp, thp_len, MADV_HUGEPAGE) || thp_set("madvise", "madvise"))
			return -1;
	} else if (thp_set("always", "always")) {
		return -1;
	}
	read_counters(c0);
	kc0 = zc_kthread_ticks("kcompactd", NULL);
	ks0 = zc_kthread_ticks("kswapd", NULL);
	t = zc_now();
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ .base = thp + i * part, .len = part,
					.threads = threads, .kpf = kpf };
		w[i].us = calloc(part / HPAGE, sizeof(double));
		w[i].is_huge = calloc(part / HPAGE, 1);
		if (!w[i].us || !w[i].is_huge ||
		    pthread_create(&tid[i], NULL, fault_part, &w[i]))
			return -1;
	}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	t = zc_now() - t;
	kc1 = zc_kthread_ticks("kcompactd", NULL);
	ks1 = zc_kthread_ticks("kswapd", NULL);
	read_counters(c1);
	thp_set("never", "madvise");

	for (i = 0; i < threads; i++) {
		int r;

		pthread_mutex_lock(&out_lock);
		for (r = 0; r < w[i].ranges; r++)
			fprintf(out, "fault,%d,%.1f,%d\n", threads, w[i].us[r], w[i].is_huge[r]);
		pthread_mutex_unlock(&out_lock);
		ranges += w[i].ranges;
		huge += w[i].huge;
		free(w[i].us);
		free(w[i].is_huge);
	}
	fprintf(out, "run,%d,%d,%d,%ld,%.3f", threads, ranges, huge, limit, t);
	print_field(zc_delta(kc0, kc1));
	print_field(zc_delta(ks0, ks1));
	for (k = 0; k < NR_COUNTERS; k++)
		print_field(c0[k] < 0 || c1[k] < 0 ? -1 : c1[k] - c0[k]);
	fprintf(out, "\n");
	ksft_print_msg("thpscale: %s, %d threads: %d of %d ranges huge (limit %ld pageblocks), %.2f s\n",
		       mode, threads, huge, ranges, limit, t);

	/* 5. Back to the starting point */
	munmap(thp, thp_len);
	for (off = 0; off < anon_len; off += HPAGE)
		munmap(anon + off + HPAGE / 2, HPAGE / 2);
	close(kpf);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	zc_write_file("/proc/sys/vm/drop_caches", "3");
	return 0;
}

int main(int argc, char **argv)
{
	const char *list = getenv("ZC_THP_THREADS");
	long min_free = zc_read_long("/proc/sys/vm/min_free_kbytes"), thp_min_free;
	long margin_mb = getenv("ZC_THP_MARGIN_MB") ? atol(getenv("ZC_THP_MARGIN_MB")) : 16;
	long percent = getenv("ZC_THP_PERCENT") ? atol(getenv("ZC_THP_PERCENT")) : 80;
	long file_mb = zc_meminfo("MemTotal") / 1024;
	char threads[64], *tok, *save;
	int ok = 0, runs = 0;

	mode = getenv("ZC_THP_MODE") ? getenv("ZC_THP_MODE") : "madvise";
	ksft_print_header();
	ksft_set_plan(1);
	out = zc_data_channel(argc, argv);
	if (!out)
		ksft_exit_fail_msg("no data channel\n");
	if (strcmp(mode, "madvise") && strcmp(mode, "always"))
		ksft_exit_fail_msg("ZC_THP_MODE '%s' is not madvise or always\n", mode);
	if (access(THP "enabled", W_OK))
		ksft_exit_fail_msg("this kernel has no THP\n");
	fprintf(out, "meta,kernel,%s\nmeta,mode,%s\nmeta,mem_kb,%ld\nmeta,percent,%ld\n",
		getenv("ZC_VARIANT") ? getenv("ZC_VARIANT") : "?", mode,
		zc_meminfo("MemTotal"), percent);
	fprintf(out, "meta,clk_tck,%ld\n", sysconf(_SC_CLK_TCK));
	fprintf(out, "cols,fault,threads,us,huge\n");
	fprintf(out, "cols,failed,threads,why\n");
	fprintf(out, "cols,run,threads,ranges,huge,limit,seconds,kcompactd_ticks,kswapd_ticks");
	for (unsigned int k = 0; k < NR_COUNTERS; k++)
		fprintf(out, ",%s", counters[k]);
	fprintf(out, "\n");
	/*
	 * Turning THP on starts khugepaged, which raises min_free_kbytes to
	 * its recommended reserve; turning it off lowers it again
	 * (set_recommended_min_free_kbytes() recalculates the default when
	 * THP is off), and every run lays memory out with THP off. Learn the
	 * THP reserve once and write it as the user's value, which both
	 * keep: memory is laid out and faulted under the one reserve a THP
	 * user has (put back as it was after the runs).
	 */
	if (thp_set("madvise", "madvise"))
		ksft_exit_fail_msg("cannot set THP's mode\n");
	thp_min_free = zc_read_long("/proc/sys/vm/min_free_kbytes");
	if (thp_min_free <= 0 ||
	    zc_write_long("/proc/sys/vm/min_free_kbytes", thp_min_free) ||
	    thp_set("never", "madvise") ||
	    zc_read_long("/proc/sys/vm/min_free_kbytes") != thp_min_free)
		ksft_exit_fail_msg("cannot keep min_free_kbytes at THP's %ld with THP off\n",
				   thp_min_free);
	fprintf(out, "meta,min_free_kbytes,%ld\nmeta,min_free_kbytes_before,%ld\n",
		thp_min_free, min_free);
	/* The page cache to fill the holes with: as much as RAM */
	if (zc_make_file(FILE_PATH, file_mb))
		ksft_exit_fail_msg("cannot write %s\n", FILE_PATH);
	snprintf(threads, sizeof(threads), "%s", list ? list : "1 4 8");
	for (tok = strtok_r(threads, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		int n = atoi(tok);

		if (n < 1 || n > 16)
			ksft_exit_fail_msg("ZC_THP_THREADS: %s is not 1-16\n", tok);
		runs++;
		if (!run(n, margin_mb, percent)) {
			ok++;
		} else {
			ksft_print_msg("thpscale: %d threads: setup failed: %s\n", n, strerror(errno));
			fprintf(out, "failed,%d,setup failed: %s\n", n, strerror(errno));
		}
	}
	unlink(FILE_PATH);
	/* The reserve as the guest had it before THP was turned on */
	zc_write_long("/proc/sys/vm/min_free_kbytes", min_free);
	fprintf(out, "done\n");
	ksft_test_result(ok == runs && runs > 0, "thpscale: %s, %d of %d runs complete\n",
			 mode, ok, runs);
	ksft_finished();
}
