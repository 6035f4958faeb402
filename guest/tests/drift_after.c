// SPDX-License-Identifier: GPL-2.0
/*
 * After guest/tests/drift.c in make test's control boot: the runner must have
 * written compaction_proactiveness (or THP's defrag mode) back to what
 * the guest booted with (6.1's default 20, THP's madvise).
 */
#include "zc.h"

#define THP_DEFRAG	"/sys/kernel/mm/transparent_hugepage/defrag"

int main(void)
{
	char buf[128];

	ksft_print_header();
	ksft_set_plan(1);
	if (!access(ZC_PROACTIVENESS, R_OK)) {
		long p = zc_read_long(ZC_PROACTIVENESS);

		ksft_test_result(p == 20, "drift_restored: %s is %ld (want the default 20)\n",
				 ZC_PROACTIVENESS, p);
	} else {
		if (zc_read_file(THP_DEFRAG, buf, sizeof(buf)) <= 0)
			ksft_exit_fail_msg("cannot read %s\n", THP_DEFRAG);
		buf[strcspn(buf, "\n")] = '\0';
		ksft_test_result(!!strstr(buf, "[madvise]"), "drift_restored: %s is '%s' (want madvise)\n",
				 THP_DEFRAG, buf);
	}
	ksft_finished();
}
