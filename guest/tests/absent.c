// SPDX-License-Identifier: GPL-2.0
/*
 * Run on vanilla and mainline: the interfaces of the series exist only
 * with CONFIG_ZONE_COMPACTION. Mainline has its own compact_memory.
 */
#include <sys/stat.h>

#include "zc.h"

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int main(void)
{
	static char buf[1 << 17];
	const char *variant = getenv("ZC_VARIANT");
	int mainline = variant && !strcmp(variant, "mainline");

	ksft_print_header();
	ksft_set_plan(4);
	if (!exists("/proc/sys/vm/compact_node"))
		ksft_test_result_pass("no_compact_node: absent on %s\n", variant);
	else
		ksft_test_result_fail("no_compact_node: present on %s\n", variant);

	if (zc_read_file("/proc/pagetypeinfo", buf, sizeof(buf)) > 0 &&
	    strstr(buf, "Number of blocks type") &&
	    !strstr(buf, "Unusable free space index") && !strstr(buf, "Fragmentation index"))
		ksft_test_result_pass("no_index_sections: pagetypeinfo has neither index\n");
	else
		ksft_test_result_fail("no_index_sections: pagetypeinfo unreadable or has an index\n");

	if (zc_vmstat("compact_pages_moved") < 0 && zc_vmstat("compact_blocks_moved") < 0)
		ksft_test_result_pass("no_move_counters: vmstat has no compact_*_moved\n");
	else
		ksft_test_result_fail("no_move_counters: vmstat has compact_*_moved\n");

	if (exists("/proc/sys/vm/compact_memory") == mainline)
		ksft_test_result_pass("compact_memory: %s on %s\n",
				      mainline ? "present" : "absent", variant);
	else
		ksft_test_result_fail("compact_memory: %s on %s\n",
				      mainline ? "absent" : "present", variant);
	ksft_finished();
}
