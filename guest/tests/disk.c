// SPDX-License-Identifier: GPL-2.0
/*
 * The host-made ext4 image on virtio-blk is what tests use for clean,
 * movable page cache.  init mounts it on /mnt; check it is there, is
 * ext4, and reads back what the host wrote.
 */
#include "zc.h"

int main(void)
{
	static char buf[65536];
	char *line;

	ksft_print_header();
	ksft_set_plan(2);

	if (zc_read_file("/proc/mounts", buf, sizeof(buf)) <= 0)
		ksft_exit_fail_msg("cannot read /proc/mounts\n");
	line = strstr(buf, "/dev/vda /mnt ");
	if (line && !strncmp(line + strlen("/dev/vda /mnt "), "ext4 ", 5))
		ksft_test_result_pass("disk_mounted: /dev/vda is ext4 on /mnt\n");
	else
		ksft_test_result_fail("disk_mounted: no ext4 /dev/vda on /mnt\n");

	if (zc_read_file("/mnt/zc-disk", buf, sizeof(buf)) > 0 &&
	    !strcmp(buf, "zone-compaction test disk\n"))
		ksft_test_result_pass("disk_content: host-written marker reads back\n");
	else
		ksft_test_result_fail("disk_content: /mnt/zc-disk missing or wrong\n");
	ksft_finished();
}
