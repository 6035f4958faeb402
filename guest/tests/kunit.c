// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit suite of the series (CONFIG_ZONE_COMPACTION_KUNIT_TEST) runs
 * at boot; its KTAP is in /sys/kernel/debug/kunit/zone_compaction/results
 * (CONFIG_KUNIT_DEBUGFS). Each of its test cases becomes one result
 * here, under the plan the suite itself announced, so that a case that
 * never reported counts as missing. No results file is a failure: the
 * variants that run this program are built with the suite.
 */
#include "zc.h"

#define RESULTS "/sys/kernel/debug/kunit/zone_compaction/results"

int main(void)
{
	static char buf[1 << 16];
	int plan = -1, seen = 0;
	char *line, *save;

	ksft_print_header();
	if (zc_read_file(RESULTS, buf, sizeof(buf)) <= 0)
		ksft_exit_fail_msg("%s: %s (suite not built or not run)\n",
				   RESULTS, strerror(errno));
	/* The suite's own lines first, for the log */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *p = line;
		int n, ok;

		while (*p == ' ' || *p == '\t')
			p++;
		ksft_print_msg("| %s\n", p);
		/* Only the indented lines are the cases; the last is the suite */
		if (p == line)
			continue;
		if (plan < 0 && sscanf(p, "1..%d", &n) == 1) {
			plan = n;
			ksft_set_plan(plan);
			continue;
		}
		ok = !strncmp(p, "ok ", 3);
		if (!ok && strncmp(p, "not ok ", 7))
			continue;
		p = strchr(p + (ok ? 3 : 7), ' ');
		if (!p)
			continue;
		p++;
		if (!strncmp(p, "- ", 2))
			p += 2;
		seen++;
		if (strstr(p, "# SKIP"))
			ksft_test_result_skip("kunit %s\n", p);
		else if (ok)
			ksft_test_result_pass("kunit %s\n", p);
		else
			ksft_test_result_fail("kunit %s\n", p);
	}
	if (plan <= 0)
		ksft_exit_fail_msg("no plan in %s\n", RESULTS);
	if (seen < plan)
		ksft_print_msg("%d of %d cases reported\n", seen, plan);
	ksft_finished();
}
