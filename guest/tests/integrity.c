// SPDX-License-Identifier: GPL-2.0
/*
 * No data lost: fill anonymous, shared (shmem), file-backed and mlocked
 * memory with a pattern that encodes where each word lives, with free
 * frames between them so that compaction has to move them, run
 * compact_node on every node ZC_INTEGRITY_RUNS times in all (default 20;
 * every tenth run is compact_memory instead), and check every word. The
 * frame of every page, from /proc/self/pagemap before and after the
 * compactions, shows that the pages checked are pages that were moved.
 */
#include <sys/statvfs.h>
#include "zc.h"

#define MARGIN_KB	(24 * 1024)

enum { R_ANON, R_SHMEM, R_FILE, R_LOCKED, NR_REGIONS };
static const char * const region_name[] = { "anon", "shmem", "file", "mlocked" };

static inline unsigned long pattern(int r, size_t page, size_t word)
{
	return ((unsigned long)r << 56) ^ (page * 0x9E3779B97F4A7C15UL) ^ word;
}

static void fill_page(char *p, int r, size_t page)
{
	unsigned long *w = (unsigned long *)p;
	size_t i;

	for (i = 0; i < ZC_PAGE / sizeof(*w); i++)
		w[i] = pattern(r, page, i);
}

/*
 * Pages of @r whose frame changed since @before (both frames known), and
 * those no longer present (@gone) or whose frame was unknown (@unknown)
 */
static size_t frames_moved(char *base, size_t pages, const unsigned long *before,
			   size_t *gone, size_t *unknown)
{
	unsigned long now[512];
	size_t i, k, chunk, moved = 0;

	for (i = 0; i < pages; i += chunk) {
		chunk = pages - i < 512 ? pages - i : 512;
		if (zc_pfns(base + i * ZC_PAGE, chunk, now)) {
			*unknown += pages - i;
			break;
		}
		for (k = 0; k < chunk; k++) {
			if (!before[i + k])
				(*unknown)++;
			else if (!now[k])
				(*gone)++;
			else
				moved += now[k] != before[i + k];
		}
	}
	return moved;
}

static size_t check_region(char *base, int r, size_t pages)
{
	size_t bad = 0, p, i;

	for (p = 0; p < pages; p++) {
		unsigned long *w = (unsigned long *)(base + p * ZC_PAGE);

		for (i = 0; i < ZC_PAGE / sizeof(*w); i++)
			bad += w[i] != pattern(r, p, i);
	}
	return bad;
}

int main(void)
{
	const char *nodes_env = getenv("ZC_NODES");
	int nodes = nodes_env ? atoi(nodes_env) : 2;
	size_t max, n, pages[NR_REGIONS] = { 0 }, bad = 0, bytes, file_max;
	size_t first[NR_REGIONS], moved_r[NR_REGIONS], moved_all = 0, recorded = 0;
	size_t gone = 0, unknown = 0;
	char *region[NR_REGIONS], *hole, msg[256];
	unsigned long *pfn;
	long total_kb = zc_meminfo("MemTotal"), moved;
	int fd, r, i, each, runs_ok = 0;
	int runs = atoi(getenv("ZC_INTEGRITY_RUNS") ?: "20");
	struct statvfs fs;
	double t;

	ksft_print_header();
	ksft_set_plan(4);

	max = (size_t)total_kb * 1024 / ZC_PAGE;
	/*
	 * The file is sparse: a page written through the mapping that the
	 * disk has no block for raises SIGBUS. Use at most a third of RAM
	 * and 7/8 of the disk's free blocks, whichever is smaller.
	 */
	if (statvfs("/mnt", &fs))
		ksft_exit_fail_msg("statvfs /mnt: %s\n", strerror(errno));
	file_max = (size_t)fs.f_bavail * fs.f_frsize / ZC_PAGE / 8 * 7;
	if (file_max > max / 3)
		file_max = max / 3;
	fd = open("/mnt/zc-data", O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || ftruncate(fd, file_max * ZC_PAGE))
		ksft_exit_fail_msg("cannot create /mnt/zc-data\n");
	region[R_ANON] = mmap(NULL, max * ZC_PAGE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	region[R_SHMEM] = mmap(NULL, max * ZC_PAGE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	region[R_FILE] = mmap(NULL, file_max * ZC_PAGE, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0);
	region[R_LOCKED] = mmap(NULL, max * ZC_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	hole = mmap(NULL, max * ZC_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	/* One frame per page filled, at most max; resident before the fill */
	pfn = mmap(NULL, max * sizeof(*pfn), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (region[R_ANON] == MAP_FAILED || region[R_SHMEM] == MAP_FAILED ||
	    region[R_FILE] == MAP_FAILED || region[R_LOCKED] == MAP_FAILED ||
	    hole == MAP_FAILED || pfn == MAP_FAILED)
		ksft_exit_fail_msg("mmap failed\n");

	/* anon, shmem, file, mlocked, hole, ... until nearly full */
	zc_write_long("/proc/sys/vm/compact_unevictable_allowed", 1);
	for (n = 0; n < max; n++) {
		r = n % 5;
		if (!(n % 1024) && zc_meminfo("MemFree") < MARGIN_KB)
			break;
		if (r == 4) {
			hole[n / 5 * ZC_PAGE] = 1;
			continue;
		}
		if (r == R_FILE && pages[r] >= file_max)
			r = R_ANON;
		fill_page(region[r] + pages[r] * ZC_PAGE, r, pages[r]);
		pages[r]++;
	}
	if (mlock(region[R_LOCKED], pages[R_LOCKED] * ZC_PAGE))
		ksft_exit_fail_msg("mlock: %s\n", strerror(errno));
	munmap(hole, max * ZC_PAGE);
	bytes = (pages[R_ANON] + pages[R_SHMEM] + pages[R_FILE] + pages[R_LOCKED]) * ZC_PAGE;
	ksft_print_msg("filled %zu anon, %zu shmem, %zu file, %zu mlocked pages: %zu MiB of %ld MiB\n",
		       pages[R_ANON], pages[R_SHMEM], pages[R_FILE], pages[R_LOCKED],
		       bytes >> 20, total_kb >> 10);

	/* The frame of every page filled, before any compaction */
	for (r = 0; r < NR_REGIONS; r++) {
		first[r] = recorded;
		if (zc_pfns(region[r], pages[r], pfn + first[r]))
			ksft_exit_fail_msg("cannot read /proc/self/pagemap: %s\n",
					   strerror(errno));
		recorded += pages[r];
	}

	moved = zc_vmstat("compact_pages_moved");
	t = zc_now();
	for (i = 0; i < runs; i++) {
		char id[16];

		snprintf(id, sizeof(id), "%d", i % nodes);
		if (i % 10 == 9)
			runs_ok += !zc_write_file("/proc/sys/vm/compact_memory", "1");
		else
			runs_ok += !zc_write_file("/proc/sys/vm/compact_node", id);
	}
	t = zc_now() - t;
	moved = moved < 0 || zc_vmstat("compact_pages_moved") < 0 ? -1 :
		zc_vmstat("compact_pages_moved") - moved;

	/* Frames again, before check_region() could fault anything back in */
	for (r = 0; r < NR_REGIONS; r++) {
		moved_r[r] = frames_moved(region[r], pages[r], pfn + first[r], &gone,
					  &unknown);
		moved_all += moved_r[r];
	}

	for (r = 0; r < NR_REGIONS; r++) {
		size_t b = check_region(region[r], r, pages[r]);

		if (b)
			ksft_print_msg("%s: %zu words differ\n", region_name[r], b);
		bad += b;
	}

	/* At least half of RAM must be under test, or the test proves little */
	if (bytes >= (size_t)total_kb * 1024 / 2)
		ksft_test_result_pass("integrity_coverage: %zu MiB checked (>= 50%% of RAM)\n",
				      bytes >> 20);
	else
		ksft_test_result_fail("integrity_coverage: only %zu MiB of %ld MiB filled\n",
				      bytes >> 20, total_kb >> 10);
	if (runs_ok == runs && moved > 0)
		ksft_test_result_pass("integrity_compactions: %d compact_node/compact_memory runs in %.1fs moved %ld pages\n",
				      runs_ok, t, moved);
	else
		ksft_test_result_fail("integrity_compactions: %d of %d runs succeeded, %ld pages moved\n",
				      runs_ok, runs, moved);
	if (!bad)
		ksft_test_result_pass("integrity_data: 0 of %zu words (%zu MiB) differ\n", bytes / 8, bytes >> 20);
	else
		ksft_test_result_fail("integrity_data: %zu of %zu words differ\n", bad, bytes / 8);

	/*
	 * The data check proves something only for pages that were moved.
	 * One frame in five is a hole, so a full compaction of a node has
	 * its scanners meet about a fifth of the way up (the pages below,
	 * 4/5 of x, fill the holes above, 1/5 of N - x: x = N/5) and moves
	 * some 16% of the node's frames, nearly all of them ours. So at
	 * least 1% of the pages under test must have changed frame (a
	 * margin of over 10x), and at least one page of each kind, so that
	 * every kind's check covers migrated pages. A frame unknown before
	 * (pagemap reads 0 without CAP_SYS_ADMIN) or a page gone since
	 * (reclaimed) does not count as moved.
	 */
	snprintf(msg, sizeof(msg), "anon %zu/%zu, shmem %zu/%zu, file %zu/%zu, mlocked %zu/%zu",
		 moved_r[R_ANON], pages[R_ANON], moved_r[R_SHMEM], pages[R_SHMEM],
		 moved_r[R_FILE], pages[R_FILE], moved_r[R_LOCKED], pages[R_LOCKED]);
	for (r = 0, each = 1; r < NR_REGIONS; r++)
		each &= !pages[r] || moved_r[r] > 0;
	ksft_test_result(recorded && moved_all * 100 >= recorded && each,
			 "integrity_frames_moved: %zu of %zu pages changed frame (want >= 1%% and >= 1 of each kind): %s; %zu gone, %zu frames unknown\n",
			 moved_all, recorded, msg, gone, unknown);

	for (r = 0; r < NR_REGIONS; r++)
		munmap(region[r], r == R_FILE ? file_max * ZC_PAGE : max * ZC_PAGE);
	munmap(pfn, max * sizeof(*pfn));
	close(fd);
	unlink("/mnt/zc-data");
	ksft_finished();
}
