// SPDX-License-Identifier: GPL-2.0
/*
 * The negative control of the runner's state check (make test's control
 * boot only, guest/suites/control.list): change compaction_proactiveness (THP's
 * defrag mode on a kernel without it) and exit 0 without restoring it.
 * The runner must write the old value back and fail this program, and
 * the program after it must find the old value.
 */
#include "zc.h"

#define THP_DEFRAG	"/sys/kernel/mm/transparent_hugepage/defrag"

int main(void)
{
	const char *what;
	char val[64];

	ksft_print_header();
	ksft_set_plan(1);
	if (!access(ZC_PROACTIVENESS, W_OK)) {
		long p = zc_read_long(ZC_PROACTIVENESS);

		snprintf(val, sizeof(val), "%d", p == 0 ? 1 : 0);
		what = ZC_PROACTIVENESS;
	} else {
		snprintf(val, sizeof(val), "never");
		what = THP_DEFRAG;
	}
	if (zc_write_file(what, val))
		ksft_exit_fail_msg("cannot write %s to %s\n", val, what);
	ksft_test_result_pass("drift_left: %s set to %s and left so\n", what, val);
	ksft_finished();
}
