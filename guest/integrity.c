// SPDX-License-Identifier: GPL-2.0
/*
 * No data lost: fill anonymous, shared (shmem), file-backed and mlocked
 * memory with a pattern that encodes where each word lives, with free
 * frames between them so that compaction has to move them, run
 * compact_node on every node ZC_INTEGRITY_RUNS times in all (default 20;
 * every tenth run is compact_memory instead), and check every word.
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
	char *region[NR_REGIONS], *hole;
	long total_kb = zc_meminfo("MemTotal"), moved;
	int fd, r, i, runs_ok = 0;
	int runs = atoi(getenv("ZC_INTEGRITY_RUNS") ?: "20");
	struct statvfs fs;
	double t;

	ksft_print_header();
	ksft_set_plan(3);

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
	if (region[R_ANON] == MAP_FAILED || region[R_SHMEM] == MAP_FAILED ||
	    region[R_FILE] == MAP_FAILED || region[R_LOCKED] == MAP_FAILED ||
	    hole == MAP_FAILED)
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
	moved = zc_vmstat("compact_pages_moved") - moved;

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

	for (r = 0; r < NR_REGIONS; r++)
		munmap(region[r], r == R_FILE ? file_max * ZC_PAGE : max * ZC_PAGE);
	close(fd);
	unlink("/mnt/zc-data");
	ksft_finished();
}
