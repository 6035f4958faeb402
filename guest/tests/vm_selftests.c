// SPDX-License-Identifier: GPL-2.0
/*
 * Run the tree's own tools/testing/selftests/vm/compaction_test, built
 * unmodified into /tests/compaction_test, and turn its KTAP into one
 * result here. The selftest exits 0 without running anything when its
 * prerequisite (/proc/sys/vm/compact_unevictable_allowed reading 1) is
 * missing, so its exit status alone proves nothing: the result line
 * "ok 1 check_compaction" must be there. On vanilla, which has no
 * compactor and no such file, that is reported as a skip.
 */
#include "zc.h"

#define SELFTEST "/tests/compaction_test"

/* "+N" since @before, or "absent": a missing counter is not a zero */
static const char *delta(char *buf, size_t len, const char *name, long before)
{
	long d = zc_delta(before, zc_vmstat(name));

	if (d < 0)
		snprintf(buf, len, "absent");
	else
		snprintf(buf, len, "+%ld", d);
	return buf;
}

static void test_compaction_test(const char *variant)
{
	long moved0 = zc_vmstat("compact_pages_moved");
	long scanned0 = zc_vmstat("compact_migrate_scanned");
	long stall0 = zc_vmstat("compact_stall");
	int ran = 0, passed = 0, status;
	long huge = -1;
	char line[512], d[3][32];
	double t0 = zc_now();
	FILE *p;

	zc_write_long("/proc/sys/vm/nr_hugepages", 0);
	p = popen(SELFTEST " 2>&1", "r");
	if (!p) {
		ksft_test_result_fail("compaction_test: cannot run %s: %s\n",
				      SELFTEST, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		ksft_print_msg("| %s", line);
		if (!strncmp(line, "1..1", 4))
			ran = 1;
		if (!strncmp(line, "ok 1 check_compaction", 21))
			passed = 1;
		sscanf(line, "# Number of huge pages allocated = %ld", &huge);
	}
	status = pclose(p);
	ksft_print_msg("compaction_test: exit %d, %.1fs, %ld huge pages; compact_stall %s, compact_migrate_scanned %s, compact_pages_moved %s\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1, zc_now() - t0, huge,
		       delta(d[0], sizeof(d[0]), "compact_stall", stall0),
		       delta(d[1], sizeof(d[1]), "compact_migrate_scanned", scanned0),
		       delta(d[2], sizeof(d[2]), "compact_pages_moved", moved0));
	if (!ran && !strcmp(variant, "vanilla")) {
		ksft_test_result_skip("compaction_test: vanilla has no compactor, the selftest's prerequisite fails\n");
		return;
	}
	if (ran && passed && WIFEXITED(status) && !WEXITSTATUS(status))
		ksft_test_result_pass("compaction_test on %s: ok 1 check_compaction, %ld huge pages\n",
				      variant, huge);
	else
		ksft_test_result_fail("compaction_test on %s: %s (exit status %d)\n", variant,
				      !ran ? "the selftest ran nothing (prerequisite failed)" :
				      "not ok 1 check_compaction", status);
}

int main(void)
{
	const char *variant = getenv("ZC_VARIANT");

	ksft_print_header();
	ksft_set_plan(1);
	test_compaction_test(variant ? variant : "unknown");
	ksft_finished();
}
