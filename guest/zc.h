/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tests: reading /proc and /sys files,
 * parsing buddyinfo, vmstat and meminfo, and turning memory into a
 * fragmented state.  Every test prints KTAP through kselftest.h.
 */
#ifndef ZC_H
#define ZC_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest.h"

#define ZC_MAX_ORDER	11	/* MAX_ORDER on x86_64 in 6.1 */
#define ZC_MAX_ZONES	16
#define ZC_PAGE		4096UL
#define ZC_HPAGE_ORDER	9

struct zc_zone {
	int node;
	char name[16];
	unsigned long nr_free[ZC_MAX_ORDER];
};

struct zc_buddy {
	int nr;
	struct zc_zone z[ZC_MAX_ZONES];
};

/* Read a whole (small) file into buf; returns bytes read or -errno. */
static inline long zc_read_file(const char *path, char *buf, size_t size)
{
	long n, total = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1) {
		n = read(fd, buf + total, size - 1 - total);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		total += n;
	}
	buf[total] = '\0';
	close(fd);
	return total;
}

/* Write a string to a file; returns 0 or -errno of the write. */
static inline int zc_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

static inline long zc_read_long(const char *path)
{
	char buf[64];

	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static inline int zc_write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return zc_write_file(path, buf);
}

/*
 * Parse /proc/buddyinfo.  Returns the number of zones parsed, or -1 when
 * a line does not have the "Node N, zone NAME" prefix and 11 counts.
 */
static inline int zc_parse_buddyinfo(const char *text, struct zc_buddy *b)
{
	const char *p = text;

	b->nr = 0;
	while (*p) {
		struct zc_zone *z = &b->z[b->nr];
		int off, o;

		if (b->nr == ZC_MAX_ZONES)
			return -1;
		if (sscanf(p, "Node %d, zone %15s%n", &z->node, z->name, &off) != 2)
			return -1;
		p += off;
		for (o = 0; o < ZC_MAX_ORDER; o++) {
			char *end;

			z->nr_free[o] = strtoul(p, &end, 10);
			if (end == p)
				return -1;
			p = end;
		}
		while (*p == ' ')
			p++;
		if (*p != '\n')
			return -1;
		p++;
		b->nr++;
	}
	return b->nr;
}

static inline int zc_read_buddyinfo(struct zc_buddy *b)
{
	static char buf[8192];

	if (zc_read_file("/proc/buddyinfo", buf, sizeof(buf)) <= 0)
		return -1;
	return zc_parse_buddyinfo(buf, b);
}

/* Free pages held in blocks of at least @order, over all zones. */
static inline unsigned long zc_free_at_least(const struct zc_buddy *b, int node,
					     int order)
{
	unsigned long pages = 0;
	int i, o;

	for (i = 0; i < b->nr; i++) {
		if (node >= 0 && b->z[i].node != node)
			continue;
		for (o = order; o < ZC_MAX_ORDER; o++)
			pages += b->z[i].nr_free[o] << o;
	}
	return pages;
}

/* Value of one "name value" line of /proc/vmstat, -1 if absent. */
static inline long zc_vmstat(const char *name)
{
	static char buf[16384];
	size_t len = strlen(name);
	char *p = buf;

	if (zc_read_file("/proc/vmstat", buf, sizeof(buf)) <= 0)
		return -1;
	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtol(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* Value in kB of one /proc/meminfo field, -1 if absent. */
static inline long zc_meminfo(const char *name)
{
	static char buf[8192];
	size_t len = strlen(name);
	char *p = buf;

	if (zc_read_file("/proc/meminfo", buf, sizeof(buf)) <= 0)
		return -1;
	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return strtol(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* Set nr_hugepages and return what the kernel actually allocated. */
static inline long zc_set_hugepages(long nr)
{
	if (zc_write_long("/proc/sys/vm/nr_hugepages", nr))
		return -1;
	return zc_read_long("/proc/sys/vm/nr_hugepages");
}

#endif /* ZC_H */
