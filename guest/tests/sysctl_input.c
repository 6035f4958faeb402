// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/vm/compact_node input handling: malformed writes fail with
 * EINVAL and compact nothing, reads give the node last written, and a
 * compaction of an idle, unfragmented node moves little.
 */
#include "zc.h"

#define PATH "/proc/sys/vm/compact_node"

/* Scanned and moved pages; -1 if the kernel lacks one of the counters */
static long activity(void)
{
	static const char * const names[] = {
		"compact_migrate_scanned", "compact_free_scanned", "compact_pages_moved",
	};
	long v[3];

	if (zc_vmstats(names, v, 3))
		return -1;
	return v[0] + v[1] + v[2];
}

/* Write @len bytes of @s at offset @off; 0 or the errno of the write */
static int write_path_at(const char *path, const char *s, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (pwrite(fd, s, len, off) < 0)
		err = errno;
	close(fd);
	return err;
}

static int write_at(const char *s, size_t len, off_t off)
{
	return write_path_at(PATH, s, len, off);
}

/*
 * extfrag_threshold takes one integer in 0..1000: malformed and out of
 * range writes fail with EINVAL and leave the value as it was.
 */
static void test_extfrag_input(const char *longnum)
{
	static const char * const bad[] = {
		"", "\n", "-1", "1001", "2147483648", "99999999999999999999",
		"abc", "500abc", "500 1", "500,1", "5e2", "+500", "0x", "500.0",
	};
	const char *path = "/proc/sys/vm/extfrag_threshold";
	int i, ok = 0, n = sizeof(bad) / sizeof(bad[0]);
	long before = zc_read_long(path), after;

	for (i = 0; i < n; i++) {
		int err = write_path_at(path, bad[i], strlen(bad[i]), 0);

		if (err == EINVAL || (!bad[i][0] && err == 0))
			ok++;
		else
			ksft_print_msg("extfrag_threshold '%s' gave %s\n", bad[i],
				       err ? strerror(err) : "success");
	}
	ok += write_path_at(path, longnum, strlen(longnum), 0) == EINVAL;
	n++;
	after = zc_read_long(path);
	if (ok == n && after == before && zc_write_long(path, 1000) == 0 &&
	    zc_read_long(path) == 1000 && zc_write_long(path, before) == 0)
		ksft_test_result_pass("extfrag_input: %d malformed writes rejected, value %ld kept, 1000 accepted\n",
				      n, before);
	else
		ksft_test_result_fail("extfrag_input: %d of %d rejected, value %ld -> %ld\n",
				      ok, n, before, after);
}

int main(void)
{
	static char longnum[6000], longspace[6000];
	const char *nodes_env = getenv("ZC_NODES");
	int nodes = nodes_env ? atoi(nodes_env) : 2;
	char n1[16], n2[16], buf[64];
	struct { const char *what, *s; } bad[] = {
		{ "empty line", "\n" },
		{ "spaces", "   " },
		{ "negative", "-1" },
		{ "INT_MIN", "-2147483648" },
		{ "nr_node_ids", n1 },
		{ "nr_node_ids+1", n2 },
		{ "MAX_NUMNODES", "1024" },
		{ "INT_MAX", "2147483647" },
		{ "INT_MAX+1", "2147483648" },
		{ "2^64", "18446744073709551616" },
		{ "20 digits", "99999999999999999999" },
		{ "non-numeric", "abc" },
		{ "trailing junk", "0abc" },
		{ "trailing dot", "0." },
		{ "decimal", "0.5" },
		{ "exponent", "1e0" },
		{ "plus sign", "+0" },
		{ "double minus", "--0" },
		{ "two values", "0 1" },
		{ "two lines", "0\n1\n" },
		{ "comma list", "0,1" },
		{ "range", "0-1" },
		{ "name", "node0" },
		{ "tab junk", "0\tx" },
		{ "6000 digits", longnum },
		{ "0, 6000 spaces, 1", longspace },
	};
	int i, bad_ok = 0, nbad = sizeof(bad) / sizeof(bad[0]);
	long a0, a1, moved, present;
	int err;

	ksft_print_header();
	ksft_set_plan(6);
	snprintf(n1, sizeof(n1), "%d", nodes);
	snprintf(n2, sizeof(n2), "%d", nodes + 1);
	memset(longnum, '7', sizeof(longnum) - 1);
	memset(longspace, ' ', sizeof(longspace) - 1);
	longspace[0] = '0';
	longspace[sizeof(longspace) - 2] = '1';

	if (zc_read_long(PATH) < 0)
		ksft_exit_fail_msg("no %s\n", PATH);

	a0 = activity();
	for (i = 0; i < nbad; i++) {
		err = write_at(bad[i].s, strlen(bad[i].s), 0);
		if (err == EINVAL)
			bad_ok++;
		else
			ksft_print_msg("'%s' gave %s, want EINVAL\n", bad[i].what,
				       err ? strerror(err) : "success");
	}
	/* A write at a non-zero offset is not a node id either */
	err = write_at("0", 1, 3);
	if (err == EINVAL)
		bad_ok++;
	else
		ksft_print_msg("write at offset 3 gave %s, want EINVAL\n",
			       err ? strerror(err) : "success");
	a1 = activity();
	if (bad_ok == nbad + 1)
		ksft_test_result_pass("bad_input: %d malformed writes all EINVAL\n", bad_ok);
	else
		ksft_test_result_fail("bad_input: %d of %d malformed writes EINVAL\n",
				      bad_ok, nbad + 1);
	/* A missing counter is a failure, not "unchanged" */
	if (a0 >= 0 && a1 >= 0 && a1 == a0)
		ksft_test_result_pass("bad_input_compacts_nothing: counters unchanged\n");
	else if (a0 < 0 || a1 < 0)
		ksft_test_result_fail("bad_input_compacts_nothing: no compact_*_scanned or compact_pages_moved in /proc/vmstat\n");
	else
		ksft_test_result_fail("bad_input_compacts_nothing: scan/move counters moved by %ld\n",
				      a1 - a0);

	/* Reads give the node last written */
	if (zc_write_file(PATH, "1\n") == 0 && zc_read_file(PATH, buf, sizeof(buf)) > 0 &&
	    !strcmp(buf, "1\n") && zc_write_file(PATH, "0") == 0 &&
	    zc_read_file(PATH, buf, sizeof(buf)) > 0 && !strcmp(buf, "0\n"))
		ksft_test_result_pass("read_last_written: reads 1 then 0\n");
	else
		ksft_test_result_fail("read_last_written: read '%s'\n", buf);

	/*
	 * An idle, unfragmented node has little to move: under 1% of its
	 * present pages (the page cache and binaries of the test itself).
	 */
	moved = zc_vmstat("compact_pages_moved");
	err = zc_write_file(PATH, "1");
	/* A missing counter fails: -1 - -1 would read as 0 pages moved */
	moved = zc_delta(moved, zc_vmstat("compact_pages_moved"));
	present = zc_node_zoneinfo(1, "present");
	if (!err && moved >= 0 && present > 0 && moved * 100 <= present)
		ksft_test_result_pass("idle_node_moves_little: %ld pages moved of %ld present\n",
				      moved, present);
	else
		ksft_test_result_fail("idle_node_moves_little: err %d, %ld pages moved of %ld present\n",
				      err, moved, present);

	test_extfrag_input(longnum);

	/*
	 * And the guest is still alive and writes still work: node 0 (the
	 * last write was node 1) reads back, and its compaction scanned.
	 */
	buf[0] = '\0';
	a0 = activity();
	err = zc_write_file(PATH, "0");
	a1 = activity();
	if (zc_read_file(PATH, buf, sizeof(buf)) <= 0)
		buf[0] = '\0';
	if (!err && !strcmp(buf, "0\n") && a0 >= 0 && a1 > a0)
		ksft_test_result_pass("valid_after_bad: a valid write still compacts: reads '0', %ld pfns scanned or pages moved\n",
				      a1 - a0);
	else
		ksft_test_result_fail("valid_after_bad: write gave %s, reads '%.*s' (want '0'), activity %ld -> %ld (want a rise)\n",
				      err ? strerror(-err) : "success",
				      (int)strcspn(buf, "\n"), buf, a0, a1);
	ksft_finished();
}
