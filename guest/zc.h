/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tests: reading /proc and /sys files,
 * parsing buddyinfo, vmstat, meminfo and a task's stat, the fragmentation
 * score proactive compaction works by, and turning memory into a
 * fragmented state; for the benchmarks, the seed's workload, its
 * allocation steps and the data channel.  Every test prints KTAP
 * through kselftest.h.
 */
#ifndef ZC_H
#define ZC_H

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

	memset(b, 0, sizeof(*b));
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

/* Value of the line "<name><sep> value" of @text, -1 if absent */
static inline long zc_keyed_in(const char *text, const char *name, char sep)
{
	size_t len = strlen(name);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == sep)
			return strtol(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/*
 * Value of the line "<name><sep> value" of a /proc file of such lines,
 * -1 if absent.
 */
static inline long zc_keyed_value(const char *path, const char *name, char sep)
{
	static char buf[16384];

	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return zc_keyed_in(buf, name, sep);
}

#define ZC_TRACING	"/sys/kernel/debug/tracing/"

/* Empty the trace buffer: tracefs does that on an open with O_TRUNC */
static inline int zc_trace_clear(void)
{
	int fd = open(ZC_TRACING "trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Events lost to a full trace buffer, over all CPUs; -1 if unreadable */
static inline long zc_trace_lost(void)
{
	char path[96];
	long lost = 0, v;
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), ZC_TRACING "per_cpu/cpu%d/stats", cpu);
		if (access(path, R_OK))
			break;
		v = zc_keyed_value(path, "overrun", ':');
		if (v < 0)
			return -1;
		lost += v;
	}
	return cpu ? lost : -1;
}

/* One /proc/vmstat counter, -1 if absent. */
static inline long zc_vmstat(const char *name)
{
	return zc_keyed_value("/proc/vmstat", name, ' ');
}

/*
 * @n /proc/vmstat counters from one read of the file into @v. Returns
 * NULL, or the name of the first counter this kernel does not have (its
 * value is -1): a caller must fail on it, never read it as a zero.
 */
static inline const char *zc_vmstats(const char * const *names, long *v, int n)
{
	static char buf[16384];
	const char *missing = NULL;
	int i;

	if (zc_read_file("/proc/vmstat", buf, sizeof(buf)) <= 0)
		buf[0] = '\0';
	for (i = 0; i < n; i++) {
		v[i] = zc_keyed_in(buf, names[i], ' ');
		if (v[i] < 0 && !missing)
			missing = names[i];
	}
	return missing;
}

/*
 * Direct compactions that were not deferred, -1 if a counter is absent.
 * compact_stall counts a deferred attempt too (as CONFIG_COMPACTION
 * does), and ours counts each deferred attempt once in compact_deferred.
 */
static inline long zc_compactions(void)
{
	static const char * const names[] = { "compact_stall", "compact_deferred" };
	long v[2];

	return zc_vmstats(names, v, 2) ? -1 : v[0] - v[1];
}

/* @now - @before of a counter; -1 when either reading is -1 (absent) */
static inline long zc_delta(long before, long now)
{
	return before < 0 || now < 0 ? -1 : now - before;
}

/* One /proc/meminfo field in kB, -1 if absent. */
static inline long zc_meminfo(const char *name)
{
	return zc_keyed_value("/proc/meminfo", name, ':');
}

/* Set nr_hugepages and return what the kernel actually allocated. */
static inline long zc_set_hugepages(long nr)
{
	if (zc_write_long("/proc/sys/vm/nr_hugepages", nr))
		return -1;
	return zc_read_long("/proc/sys/vm/nr_hugepages");
}


/*
 * Fill memory with anonymous pages until MemFree drops to @margin_kb,
 * then free every second page: the freed frames sit between frames still
 * in use, so free memory is left in order-0 blocks. Returns the mapping
 * (its length in *len), or NULL. Uses MADV_DONTNEED, one call per hole.
 */
static inline char *zc_fragment_anon(long margin_kb, size_t *len)
{
	size_t chunk = 16UL << 20, total = 0, max;
	char *map;
	size_t i;

	max = (size_t)zc_meminfo("MemTotal") * 1024;
	map = mmap(NULL, max, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	while (total + chunk <= max && zc_meminfo("MemFree") > margin_kb) {
		long left = zc_meminfo("MemFree") - margin_kb;
		size_t step = chunk;

		if ((size_t)left * 1024 < step)
			step = (size_t)left * 1024 & ~(ZC_PAGE - 1);
		for (i = 0; i < step; i += ZC_PAGE)
			map[total + i] = 1;
		total += step;
		if (step < chunk)
			break;
	}
	for (i = 0; i < total; i += 2 * ZC_PAGE)
		madvise(map + i, ZC_PAGE, MADV_DONTNEED);
	*len = max;
	return map;
}

/* Index of the zone with the most present pages, from /proc/zoneinfo */
static inline int zc_biggest_zone(const struct zc_buddy *b)
{
	static char zi[65536];
	unsigned long best = 0;
	int i, best_i = 0;

	if (zc_read_file("/proc/zoneinfo", zi, sizeof(zi)) <= 0)
		return 0;
	for (i = 0; i < b->nr; i++) {
		char key[64], *p;
		unsigned long present;

		snprintf(key, sizeof(key), "Node %d, zone %8s", b->z[i].node, b->z[i].name);
		p = strstr(zi, key);
		p = p ? strstr(p, "present") : NULL;
		if (p && sscanf(p, "present %lu", &present) == 1 && present > best) {
			best = present;
			best_i = i;
		}
	}
	return best_i;
}


/* A field of /sys/devices/system/node/nodeN/meminfo, in kB, -1 if absent */
static inline long zc_node_meminfo(int node, const char *name)
{
	char path[64], key[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(key, sizeof(key), "Node %d %s:", node, name);
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Run on the first CPU of @node, so that allocations are local to it */
static inline int zc_bind_node(int node)
{
	char path[64], buf[64];
	cpu_set_t set;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (zc_read_file(path, buf, sizeof(buf)) <= 0 || buf[0] < '0' || buf[0] > '9')
		return -1;
	CPU_ZERO(&set);
	CPU_SET(atoi(buf), &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Allocate memory, the kernel's for this task too, only on node @node */
static inline int zc_bind_mem_node(int node)
{
	unsigned long mask = 1UL << node;

	/* MPOL_BIND is 2; glibc has no wrapper without libnuma */
	return syscall(SYS_set_mempolicy, 2, &mask, sizeof(mask) * 8);
}

/* Undo zc_bind_mem_node(): MPOL_DEFAULT */
static inline int zc_unbind_mem(void)
{
	return syscall(SYS_set_mempolicy, 0, NULL, 0);
}

static inline int zc_pagemap_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	return fd;
}

/* The frame of a pagemap entry: bits 0-54 when bit 63 (present) is set */
static inline unsigned long zc_pagemap_pfn(unsigned long long e)
{
	return e >> 63 ? e & ((1ULL << 55) - 1) : 0;
}

/*
 * Physical frame of the page mapped at @addr, 0 if none (pagemap; the
 * frame reads as 0 without CAP_SYS_ADMIN too)
 */
static inline unsigned long zc_pfn(const void *addr)
{
	unsigned long long e;
	off_t off = (unsigned long)addr / ZC_PAGE * sizeof(e);
	int fd = zc_pagemap_fd();

	if (fd < 0 || pread(fd, &e, sizeof(e), off) != sizeof(e))
		return 0;
	return zc_pagemap_pfn(e);
}

/*
 * Frames of the @n pages mapped from @addr on into @pfn, 0 for a page not
 * present, one pread per 512 pages. Returns 0, or -1 if pagemap cannot
 * be read.
 */
static inline int zc_pfns(const void *addr, size_t n, unsigned long *pfn)
{
	unsigned long long e[512];
	off_t off = (unsigned long)addr / ZC_PAGE * sizeof(e[0]);
	int fd = zc_pagemap_fd();
	size_t i, k, chunk;

	if (fd < 0)
		return -1;
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < 512 ? n - i : 512;
		if (pread(fd, e, chunk * sizeof(e[0]), off + i * sizeof(e[0])) !=
		    (ssize_t)(chunk * sizeof(e[0])))
			return -1;
		for (k = 0; k < chunk; k++)
			pfn[i + k] = zc_pagemap_pfn(e[k]);
	}
	return 0;
}

/* Write @mb MiB to @path, sync it and drop it from the page cache */
static inline int zc_make_file(const char *path, long mb)
{
	static char block[1 << 20];
	long i;
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	if (fd < 0)
		return -1;
	for (i = 0; i < mb; i++) {
		memset(block, (int)i, sizeof(block));
		if (write(fd, block, sizeof(block)) != sizeof(block)) {
			close(fd);
			return -1;
		}
	}
	fsync(fd);
	close(fd);
	sync();
	return zc_write_file("/proc/sys/vm/drop_caches", "3");
}

struct zc_frag {
	char *keep;		/* anonymous pages that stay */
	size_t len;		/* length of each mapping */
	int fd;			/* file whose clean page cache stays */
	size_t file_pages;	/* file pages read */
	size_t anon_pages;	/* anonymous pages kept */
};

/* Undo zc_fragment_node(), also after it failed */
static inline void zc_unfragment(struct zc_frag *f)
{
	if (f->keep && f->keep != MAP_FAILED)
		munmap(f->keep, f->len);
	if (f->fd > 0) {
		posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
		close(f->fd);
	}
	memset(f, 0, sizeof(*f));
}

/*
 * Fill node @node, from a CPU of its own, with interleaved frames of
 * anonymous memory, clean page cache of @file (read one page at a time,
 * no readahead) and anonymous memory that is then unmapped, until the
 * node's MemFree is down to @margin_kb. Every second frame ends up free,
 * between frames of movable memory. Undo with zc_unfragment().
 */
static inline int zc_fragment_node(int node, const char *file, long margin_kb,
				   struct zc_frag *f)
{
	char buf[ZC_PAGE];
	char *hole;
	size_t n, max;
	off_t fsize;

	memset(f, 0, sizeof(*f));
	if (zc_bind_node(node) || zc_node_meminfo(node, "MemTotal") <= 0)
		return -1;
	f->fd = open(file, O_RDONLY);
	if (f->fd < 0)
		return -1;
	fsize = lseek(f->fd, 0, SEEK_END);
	posix_fadvise(f->fd, 0, 0, POSIX_FADV_RANDOM);
	f->len = (size_t)zc_node_meminfo(node, "MemTotal") * 1024;
	max = f->len / ZC_PAGE;
	f->keep = mmap(NULL, f->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	hole = mmap(NULL, f->len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (f->keep == MAP_FAILED || hole == MAP_FAILED) {
		if (hole != MAP_FAILED)
			munmap(hole, f->len);
		zc_unfragment(f);
		return -1;
	}
	for (n = 0; n < max; n++) {
		if (!(n % 256) && zc_node_meminfo(node, "MemFree") < margin_kb)
			break;
		hole[n * ZC_PAGE] = 1;
		if ((off_t)((f->file_pages + 1) * ZC_PAGE) <= fsize && (n & 1)) {
			if (pread(f->fd, buf, ZC_PAGE, f->file_pages * ZC_PAGE) == ZC_PAGE)
				f->file_pages++;
		} else {
			f->keep[f->anon_pages++ * ZC_PAGE] = 1;
		}
	}
	/* hole[] held every other frame: unmapping it leaves the holes */
	munmap(hole, f->len);
	return 0;
}

/* Sum of "spanned" (or another zoneinfo field) over the zones of @node */
static inline unsigned long zc_node_zoneinfo(int node, const char *field)
{
	static char zi[65536];
	char key[32], fkey[48];
	unsigned long sum = 0, v;
	char *p = zi;

	if (zc_read_file("/proc/zoneinfo", zi, sizeof(zi)) <= 0)
		return 0;
	snprintf(key, sizeof(key), "Node %d, zone", node);
	snprintf(fkey, sizeof(fkey), "\n        %s ", field);
	while ((p = strstr(p, key))) {
		char *next = strstr(p + 1, "Node "), *f = strstr(p, fkey);

		if (f && (!next || f < next) &&
		    sscanf(f + strlen(fkey), "%lu", &v) == 1)
			sum += v;
		p += strlen(key);
	}
	return sum;
}

/*
 * The node ids of a sysfs node list such as
 * /sys/devices/system/node/has_memory ("0", "0-1", "0,2-3") into @ids,
 * at most @max of them. Returns how many, or -1 when the file cannot be
 * read or an item is neither a number nor a range.
 */
static inline int zc_node_list(const char *path, int *ids, int max)
{
	char buf[256], *p = buf, *end;
	long a, b;
	int n = 0;

	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	while (*p && *p != '\n') {
		a = strtol(p, &end, 10);
		if (end == p || a < 0)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -1;
			p = end;
		}
		for (; a <= b; a++) {
			if (n == max)
				return -1;
			ids[n++] = (int)a;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return n;
}

/* PF_KTHREAD (include/linux/sched.h): the task is a kernel thread */
#define ZC_PF_KTHREAD	0x00200000UL

struct zc_task {
	char state;		/* R, S, D, I, ... */
	unsigned long flags;	/* PF_* */
	unsigned long ticks;	/* utime + stime, in clock ticks (USER_HZ) */
};

/*
 * Fields 3 (state), 9 (flags), 14 and 15 (utime and stime) of
 * /proc/<pid>/stat, counted from the comm's last closing parenthesis (a
 * comm may hold spaces and parentheses). Returns 0, or -1 when the task
 * is gone or the line does not parse.
 */
static inline int zc_task_stat(int pid, struct zc_task *t)
{
	char path[32], buf[1024], *p;
	unsigned long utime, stime;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %lu %lu",
			 &t->state, &t->flags, &utime, &stime) != 4)
		return -1;
	t->ticks = utime + stime;
	return 0;
}

/*
 * Pid of the kernel thread whose comm is @comm (PF_KTHREAD: a user task
 * of the same name does not count), -1 if there is none. *@count, if
 * not NULL, gets how many such threads there are.
 */
static inline int zc_kthread_pid(const char *comm, int *count)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int pid = -1, n = 0;

	if (count)
		*count = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[64], name[32];
		struct zc_task t;
		int id = atoi(e->d_name);

		if (id <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", id);
		if (zc_read_file(path, name, sizeof(name)) <= 0)
			continue;
		name[strcspn(name, "\n")] = '\0';
		if (strcmp(name, comm) || zc_task_stat(id, &t) ||
		    !(t.flags & ZC_PF_KTHREAD))
			continue;
		if (!n++)
			pid = id;
	}
	closedir(d);
	if (count)
		*count = n;
	return pid;
}

/*
 * CPU time, utime + stime in clock ticks (USER_HZ), of the kernel threads
 * @name<nid> of nodes 0-7, summed; -1 when none of them exists (a kernel
 * without that thread). *@count, if not NULL, gets how many there are.
 */
static inline long zc_kthread_ticks(const char *name, int *count)
{
	struct zc_task t;
	char comm[32];
	long ticks = 0;
	int nid, pid, n = 0;

	for (nid = 0; nid < 8; nid++) {
		snprintf(comm, sizeof(comm), "%s%d", name, nid);
		pid = zc_kthread_pid(comm, NULL);
		if (pid < 0 || zc_task_stat(pid, &t))
			continue;
		ticks += t.ticks;
		n++;
	}
	if (count)
		*count = n;
	return n ? ticks : -1;
}

#define ZC_PROACTIVENESS	"/proc/sys/vm/compaction_proactiveness"

/*
 * Wait, up to @max_ms, until every kcompactd<nid> thread of the nodes
 * 0..7 is asleep (S) in two looks 100 ms apart with no CPU used between
 * them: a background run that spans a test's counter reads would make
 * its counts and events disagree. Returns 0, or -1 when a thread kept
 * working. A kernel without the threads has nothing to wait for.
 */
static inline int zc_kcompactd_settle(long max_ms)
{
	long waited;

	for (waited = 0; waited <= max_ms; waited += 100) {
		struct zc_task t0[8], t1[8];
		int busy = 0, nid;

		for (nid = 0; nid < 8; nid++) {
			char comm[16];
			int pid;

			snprintf(comm, sizeof(comm), "kcompactd%d", nid);
			pid = zc_kthread_pid(comm, NULL);
			t0[nid].state = 0;
			if (pid < 0 || zc_task_stat(pid, &t0[nid]))
				continue;
			usleep(100 * 1000);
			if (zc_task_stat(pid, &t1[nid]) || t0[nid].state != 'S' ||
			    t1[nid].state != 'S' || t1[nid].ticks != t0[nid].ticks)
				busy = 1;
		}
		if (!busy)
			return 0;
	}
	return -1;
}

/*
 * zc_kcompactd_settle(), or the end of the program: a measurement that
 * a busy background compactor would spoil is never made. @what says
 * which.
 */
static inline void zc_kcompactd_quiet(long max_ms, const char *what)
{
	if (zc_kcompactd_settle(max_ms))
		ksft_exit_fail_msg("kcompactd still busy after %ld ms: cannot measure %s\n",
				   max_ms, what);
}

/*
 * A zone's fragmentation score as proactive compaction counts it
 * (mm/compaction.c, extfrag_for_order() at the huge page order): the
 * percentage of its free pages that are not in free blocks of order
 * >= 9, rounded down; 0 when nothing is free.
 */
static inline unsigned long zc_zone_score(const struct zc_zone *z)
{
	unsigned long free = 0, big = 0;
	int o;

	for (o = 0; o < ZC_MAX_ORDER; o++) {
		free += z->nr_free[o] << o;
		if (o >= ZC_HPAGE_ORDER)
			big += z->nr_free[o] << o;
	}
	return free ? (free - big) * 100 / free : 0;
}

/*
 * Field @field (present, managed, high, ...) of zone @zone of node @node
 * in @zoneinfo, the text of /proc/zoneinfo; -1 if absent.
 */
static inline long zc_zone_field(const char *zoneinfo, int node, const char *zone,
				 const char *field)
{
	char key[64], fkey[48];
	const char *p, *next, *f;
	unsigned long v;

	snprintf(key, sizeof(key), "Node %d, zone %8s\n", node, zone);
	snprintf(fkey, sizeof(fkey), "\n        %s ", field);
	p = strstr(zoneinfo, key);
	if (!p)
		return -1;
	next = strstr(p + 1, "\nNode ");
	f = strstr(p, fkey);
	if (!f || (next && f > next) || sscanf(f + strlen(fkey), "%lu", &v) != 1)
		return -1;
	return (long)v;
}

/*
 * Node @node's fragmentation score as kcompactd's proactive compaction
 * computes it (fragmentation_score_node()): over the node's populated
 * zones, the sum of zc_zone_score() * the zone's present pages / (the
 * node's present pages + 1), in the kernel's integer arithmetic; 0..100.
 * -1 when buddyinfo or zoneinfo cannot be read or the node has no memory.
 */
static inline long zc_node_score(int node)
{
	static char zi[1 << 18];
	unsigned long present[ZC_MAX_ZONES], node_present = 0, score = 0;
	struct zc_buddy b;
	long v;
	int i;

	if (zc_read_buddyinfo(&b) <= 0 || zc_read_file("/proc/zoneinfo", zi, sizeof(zi)) <= 0)
		return -1;
	for (i = 0; i < b.nr; i++) {
		present[i] = 0;
		if (b.z[i].node != node)
			continue;
		v = zc_zone_field(zi, node, b.z[i].name, "present");
		if (v < 0)
			return -1;
		present[i] = v;
		node_present += v;
	}
	if (!node_present)
		return -1;
	for (i = 0; i < b.nr; i++)
		if (b.z[i].node == node)
			score += present[i] * zc_zone_score(&b.z[i]) / (node_present + 1);
	return (long)score;
}

/* Ask node @node for @nr huge pages; returns what it has afterwards */
static inline long zc_node_hugepages(int node, long nr)
{
	char path[96];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		 node);
	if (zc_write_long(path, nr))
		return -1;
	return zc_read_long(path);
}

static inline double zc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void zc_print_buddy_node(const char *what, int node)
{
	struct zc_buddy b;
	char line[256];
	int i, o, n;

	if (zc_read_buddyinfo(&b) <= 0)
		return;
	for (i = 0; i < b.nr; i++) {
		if (b.z[i].node != node)
			continue;
		n = snprintf(line, sizeof(line), "%s node %d %s:", what, node, b.z[i].name);
		for (o = 0; o < ZC_MAX_ORDER; o++)
			n += snprintf(line + n, sizeof(line) - n, " %lu", b.z[i].nr_free[o]);
		ksft_print_msg("%s\n", line);
	}
}

/*
 * One letter per pageblock from /proc/kpageflags: R reserved, S slab,
 * U other kernel memory, H huge page, M movable (LRU pages and free
 * pages), F free. The limit counts the blocks whose every page is free
 * or on the LRU and evictable: what a compactor plus reclaim could turn
 * into huge pages. Pages with no flags at all are counted as free (the
 * tails of free buddy blocks look like that; so would a few kernel
 * allocations, which can only make the limit higher, never lower).
 * @hist, if not NULL, counts the blocks of the limit by the LRU pages
 * they hold, in fifths of a block (hist[5]: all 512), and @used, if not
 * NULL, gets the LRU pages of each block of the limit, *@limit of them.
 */
static inline long zc_pageblock_map(char *map, long max_blocks, long *limit,
				    long *hist, long *used)
{
	static unsigned long long flags[512];
	long blocks = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);

	*limit = 0;
	if (fd < 0)
		return -1;
	while (blocks < max_blocks &&
	       read(fd, flags, sizeof(flags)) == sizeof(flags)) {
		int lru = 0, freep = 0, huge = 0, slab = 0, res = 0, other = 0, hole = 0;
		int i;

		for (i = 0; i < 512; i++) {
			unsigned long long f = flags[i];

			if (f & (1ULL << 20))
				hole++;
			else if (f & (1ULL << 32))
				res++;
			else if (f & (1ULL << 7))
				slab++;
			else if (f & (1ULL << 17))
				huge++;
			else if (f & (1ULL << 10) || !f)
				freep++;
			else if ((f & (1ULL << 5)) && !(f & (1ULL << 18)))
				lru++;
			else
				other++;
		}
		if (hole == 512)
			map[blocks] = '.';
		else if (res)
			map[blocks] = 'R';
		else if (slab)
			map[blocks] = 'S';
		else if (other)
			map[blocks] = 'U';
		else if (huge)
			map[blocks] = 'H';
		else if (lru)
			map[blocks] = 'M';
		else
			map[blocks] = 'F';
		if (strchr("MF", map[blocks])) {
			(*limit)++;
			if (hist)
				hist[lru * 5 / 512]++;
			if (used)
				used[*limit - 1] = lru;
		}
		blocks++;
	}
	close(fd);
	map[blocks] = '\0';
	return blocks;
}

/* An anonymous mapping of @len aligned to a huge page, NULL on failure */
static inline char *zc_map_hpage_aligned(size_t len)
{
	size_t hpage = ZC_PAGE << ZC_HPAGE_ORDER;
	char *p = mmap(NULL, len + hpage, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + hpage - 1) & ~(hpage - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + hpage - a);
	return a;
}

/* The benchmarks' data channel: argv[1], or the guest's second serial port */
static inline FILE *zc_data_channel(int argc, char **argv)
{
	FILE *out = fopen(argc > 1 ? argv[1] : "/dev/ttyS1", "w");

	if (out)
		setvbuf(out, NULL, _IOLBF, 0);
	return out;
}

#define ZC_THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

/*
 * The seed's benchmarks measure huge pages from nr_hugepages alone, as a
 * user of hugetlbfs would set it up: no transparent huge pages, so that
 * khugepaged and THP faults do not compete for the blocks. Returns what
 * a "meta,thp" line says: "never", or "absent" on a kernel without THP;
 * NULL when THP could not be turned off.
 */
static inline const char *zc_thp_never(void)
{
	if (access(ZC_THP_ENABLED, F_OK))
		return "absent";
	return zc_write_file(ZC_THP_ENABLED, "never") ? NULL : "never";
}

/* The most /proc/vmstat counters a benchmark's delta lines carry */
#define ZC_MAX_COUNTERS	32

/*
 * The deltas @c1 - @c0 of @n counters as CSV fields on @out, an empty one
 * for a counter the kernel does not have (-1, never a zero), and the end
 * of the line
 */
static inline void zc_print_deltas(FILE *out, const long *c0, const long *c1,
				   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (c0[i] < 0 || c1[i] < 0)
			fprintf(out, ",");
		else
			fprintf(out, ",%ld", c1[i] - c0[i]);
	}
	fprintf(out, "\n");
}

/*
 * The seed's fragmenting workload (make run's benchmark): files of
 * ZC_SEED_FILE_PAGES pages totalling twice the RAM, written in parallel
 * by ZC_SEED_WRITERS writers with 4 KiB writes; the file tree walked (the
 * seed ran updatedb); every second file deleted. Free memory is left in
 * holes between the page cache of the files that stay.
 */
#define ZC_SEED_FILE_PAGES	128
#define ZC_SEED_WRITERS		32
#define ZC_SEED_ROOT		"/mnt/fill"

struct zc_seed {
	long files;		/* files written, every second one deleted */
	long walked;		/* entries the walk found */
	int failed;		/* writers that did not write all their files */
	double fill_s;		/* time of the writing and its sync */
};

static inline void zc_seed_path(char *buf, size_t len, long i)
{
	snprintf(buf, len, ZC_SEED_ROOT "/d%02ld/f%06ld", i % 64, i);
}

/* Writer @w writes files w, w + ZC_SEED_WRITERS, ... and exits */
static inline void zc_seed_writer(int w, long nr_files)
{
	static char page[ZC_PAGE];
	char path[64];
	long i;
	int j;

	memset(page, w, sizeof(page));
	for (i = w; i < nr_files; i += ZC_SEED_WRITERS) {
		int fd;

		zc_seed_path(path, sizeof(path), i);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			_exit(1);
		for (j = 0; j < ZC_SEED_FILE_PAGES; j++)
			if (write(fd, page, sizeof(page)) != sizeof(page))
				_exit(1);
		close(fd);
	}
	_exit(0);
}

/* Entries under @dir, counted by lstat()ing each, as updatedb would */
static inline long zc_seed_walk(const char *dir)
{
	struct dirent *d;
	struct stat st;
	char path[512];
	long n = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(path) || lstat(path, &st))
			continue;
		n++;
		if (S_ISDIR(st.st_mode))
			n += zc_seed_walk(path);
	}
	closedir(dp);
	return n;
}

/*
 * Run the seed's workload (see above) into @s: "meta" lines for the files
 * and the fill on @out, progress on the console after "@who: ". Returns
 * 0, or -1 with errno set when a writer could not be started (those
 * already started are killed, by their own pids only).
 */
static inline int zc_seed_fragment(FILE *out, const char *who,
				   struct zc_seed *s)
{
	pid_t pids[ZC_SEED_WRITERS];
	char path[64];
	double t;
	long i;
	int w;

	memset(s, 0, sizeof(*s));
	s->files = zc_meminfo("MemTotal") * 2 / (ZC_SEED_FILE_PAGES * 4);
	fprintf(out, "meta,files,%ld\nmeta,writers,%d\nmeta,file_kb,%d\n",
		s->files, ZC_SEED_WRITERS, ZC_SEED_FILE_PAGES * 4);
	mkdir(ZC_SEED_ROOT, 0755);
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), ZC_SEED_ROOT "/d%02ld", i);
		mkdir(path, 0755);
	}
	ksft_print_msg("%s: writing %ld files of %d KiB with %d writers\n",
		       who, s->files, ZC_SEED_FILE_PAGES * 4, ZC_SEED_WRITERS);
	t = zc_now();
	for (w = 0; w < ZC_SEED_WRITERS; w++) {
		pids[w] = fork();
		if (pids[w] == 0)
			zc_seed_writer(w, s->files);
		if (pids[w] < 0) {
			int err = errno;

			while (w--) {
				kill(pids[w], SIGKILL);
				waitpid(pids[w], NULL, 0);
			}
			errno = err;
			return -1;
		}
	}
	for (w = 0; w < ZC_SEED_WRITERS; w++) {
		int status;

		if (waitpid(pids[w], &status, 0) != pids[w])
			s->failed++;
		else
			s->failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	sync();
	s->fill_s = zc_now() - t;
	s->walked = zc_seed_walk(ZC_SEED_ROOT);
	for (i = 0; i < s->files; i += 2) {
		zc_seed_path(path, sizeof(path), i);
		unlink(path);
	}
	sync();
	ksft_print_msg("%s: filled in %.1fs, walked %ld entries, deleted %ld files\n",
		       who, s->fill_s, s->walked, (s->files + 1) / 2);
	fprintf(out, "meta,fill_s,%.1f\nmeta,walked,%ld\n", s->fill_s, s->walked);
	return 0;
}

struct zc_steps {
	long final;		/* huge pages after the last step */
	int steps;
	int first_fail;		/* first step that got less, -1: none */
	double ms;		/* time of all steps */
};

/*
 * The seed's allocation phase: raise nr_hugepages in steps of 5% of RAM
 * until a step gains nothing (or 40 steps), timing each step. A line
 * "step,<n>,<requested>,<obtained>,<ms>,<deltas>" per step on @out, the
 * deltas those of the @n /proc/vmstat counters @names (zc_print_deltas());
 * progress on the console after "@who: ".
 */
static inline void zc_hugepage_steps(FILE *out, const char *who,
				     const char * const *names, int n,
				     struct zc_steps *s)
{
	long step = zc_meminfo("MemTotal") / 20 / 2048, prev = 0;
	long c0[ZC_MAX_COUNTERS], c1[ZC_MAX_COUNTERS];

	if (n > ZC_MAX_COUNTERS)
		ksft_exit_fail_msg("%s: %d counters, at most %d\n", who, n,
				   ZC_MAX_COUNTERS);
	memset(s, 0, sizeof(*s));
	s->first_fail = -1;
	fprintf(out, "meta,step,%ld\n", step);
	for (;;) {
		long want = prev + step, got;
		double t, ms;

		zc_vmstats(names, c0, n);
		t = zc_now();
		got = zc_set_hugepages(want);
		ms = (zc_now() - t) * 1000;
		zc_vmstats(names, c1, n);
		s->steps++;
		s->ms += ms;
		fprintf(out, "step,%d,%ld,%ld,%.0f", s->steps, want, got, ms);
		zc_print_deltas(out, c0, c1, n);
		ksft_print_msg("%s: step %d: %ld of %ld huge pages, %.0f ms\n",
			       who, s->steps, got, want, ms);
		if (got < want && s->first_fail < 0)
			s->first_fail = s->steps;
		if (got <= prev || s->steps >= 40) {
			prev = got > prev ? got : prev;
			break;
		}
		prev = got;
	}
	s->final = prev;
}

#endif /* ZC_H */
