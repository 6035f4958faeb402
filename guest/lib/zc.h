/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tests: reading /proc and /sys files,
 * parsing buddyinfo, vmstat, meminfo and a task's stat, the fragmentation
 * score proactive compaction works by, and turning memory into a
 * fragmented state; for the benchmarks, the seed's workload, its
 * allocation steps and the data channel.  Every test prints KTAP
 * through kselftest.h. The functions are in zc.c (as the tree's
 * selftests/mm/vm_util.c is to vm_util.h); the one that ends the program
 * through kselftest.h's counters, zc_kcompactd_quiet(), is inline here.
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
long zc_read_file(const char *path, char *buf, size_t size);

/* Write a string to a file; returns 0 or -errno of the write. */
int zc_write_file(const char *path, const char *s);

long zc_read_long(const char *path);

int zc_write_long(const char *path, long v);

/*
 * Parse /proc/buddyinfo.  Returns the number of zones parsed, or -1 when
 * a line does not have the "Node N, zone NAME" prefix and 11 counts.
 */
int zc_parse_buddyinfo(const char *text, struct zc_buddy *b);

int zc_read_buddyinfo(struct zc_buddy *b);

/* Free pages held in blocks of at least @order, over all zones. */
unsigned long zc_free_at_least(const struct zc_buddy *b, int node,
			       int order);

/* Value of the line "<name><sep> value" of @text, -1 if absent */
long zc_keyed_in(const char *text, const char *name, char sep);

/*
 * Value of the line "<name><sep> value" of a /proc file of such lines,
 * -1 if absent.
 */
long zc_keyed_value(const char *path, const char *name, char sep);

#define ZC_TRACING	"/sys/kernel/debug/tracing/"

/* Empty the trace buffer: tracefs does that on an open with O_TRUNC */
int zc_trace_clear(void);

/* What a program that traces changes, to be put back as it was */
struct zc_trace_saved {
	long on;	/* tracing_on */
	long kb;	/* buffer_size_kb, the size once expanded */
};

/*
 * Read tracing_on and the buffer's size; buffer_size_kb reads
 * "7 (expanded: 1408)" until the buffer is first used, and the size it
 * is used at, 1408, is the one kept. Returns 0, -1 if unreadable.
 */
int zc_trace_save(struct zc_trace_saved *s);

/* Put back what zc_trace_save() read; 0, or -1 if a write failed */
int zc_trace_restore(const struct zc_trace_saved *s);

/* Events lost to a full trace buffer, over all CPUs; -1 if unreadable */
long zc_trace_lost(void);

/* One /proc/vmstat counter, -1 if absent. */
long zc_vmstat(const char *name);

/*
 * @n /proc/vmstat counters from one read of the file into @v. Returns
 * NULL, or the name of the first counter this kernel does not have (its
 * value is -1): a caller must fail on it, never read it as a zero.
 */
const char *zc_vmstats(const char * const *names, long *v, int n);

/*
 * Direct compactions that were not deferred, -1 if a counter is absent.
 * compact_stall counts a deferred attempt too (as CONFIG_COMPACTION
 * does), and ours counts each deferred attempt once in compact_deferred.
 */
long zc_compactions(void);

/* @now - @before of a counter; -1 when either reading is -1 (absent) */
long zc_delta(long before, long now);

/* One /proc/meminfo field in kB, -1 if absent. */
long zc_meminfo(const char *name);

/* Set nr_hugepages and return what the kernel actually allocated. */
long zc_set_hugepages(long nr);


/*
 * Fill memory with anonymous pages until MemFree drops to @margin_kb,
 * then free every second page: the freed frames sit between frames still
 * in use, so free memory is left in order-0 blocks. Returns the mapping
 * (its length in *len), or NULL. Uses MADV_DONTNEED, one call per hole.
 */
char *zc_fragment_anon(long margin_kb, size_t *len);

/* Index of the zone with the most present pages, from /proc/zoneinfo */
int zc_biggest_zone(const struct zc_buddy *b);


/* A field of /sys/devices/system/node/nodeN/meminfo, in kB, -1 if absent */
long zc_node_meminfo(int node, const char *name);

/* Run on the first CPU of @node, so that allocations are local to it */
int zc_bind_node(int node);

/* Allocate memory, the kernel's for this task too, only on node @node */
int zc_bind_mem_node(int node);

/* Undo zc_bind_mem_node(): MPOL_DEFAULT */
int zc_unbind_mem(void);

int zc_pagemap_fd(void);

/* The frame of a pagemap entry: bits 0-54 when bit 63 (present) is set */
unsigned long zc_pagemap_pfn(unsigned long long e);

/*
 * Physical frame of the page mapped at @addr, 0 if none (pagemap; the
 * frame reads as 0 without CAP_SYS_ADMIN too)
 */
unsigned long zc_pfn(const void *addr);

/*
 * Frames of the @n pages mapped from @addr on into @pfn, 0 for a page not
 * present, one pread per 512 pages. Returns 0, or -1 if pagemap cannot
 * be read.
 */
int zc_pfns(const void *addr, size_t n, unsigned long *pfn);

/* Write @mb MiB to @path, sync it and drop it from the page cache */
int zc_make_file(const char *path, long mb);

struct zc_frag {
	char *keep;		/* anonymous pages that stay */
	size_t len;		/* length of each mapping */
	int fd;			/* file whose clean page cache stays */
	size_t file_pages;	/* file pages read */
	size_t anon_pages;	/* anonymous pages kept */
};

/* Undo zc_fragment_node(), also after it failed */
void zc_unfragment(struct zc_frag *f);

/*
 * Fill node @node, from a CPU of its own, with interleaved frames of
 * anonymous memory, clean page cache of @file (read one page at a time,
 * no readahead) and anonymous memory that is then unmapped, until the
 * node's MemFree is down to @margin_kb. Every second frame ends up free,
 * between frames of movable memory. Undo with zc_unfragment().
 */
int zc_fragment_node(int node, const char *file, long margin_kb,
		     struct zc_frag *f);

/* Sum of "spanned" (or another zoneinfo field) over the zones of @node */
unsigned long zc_node_zoneinfo(int node, const char *field);

/*
 * The node ids of a sysfs node list such as
 * /sys/devices/system/node/has_memory ("0", "0-1", "0,2-3") into @ids,
 * at most @max of them. Returns how many, or -1 when the file cannot be
 * read or an item is neither a number nor a range.
 */
int zc_node_list(const char *path, int *ids, int max);

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
int zc_task_stat(int pid, struct zc_task *t);

/*
 * Pid of the kernel thread whose comm is @comm (PF_KTHREAD: a user task
 * of the same name does not count), -1 if there is none. *@count, if
 * not NULL, gets how many such threads there are.
 */
int zc_kthread_pid(const char *comm, int *count);

/*
 * CPU time, utime + stime in clock ticks (USER_HZ), of the kernel threads
 * @name<nid> of nodes 0-7, summed; -1 when none of them exists (a kernel
 * without that thread). *@count, if not NULL, gets how many there are.
 */
long zc_kthread_ticks(const char *name, int *count);

#define ZC_PROACTIVENESS	"/proc/sys/vm/compaction_proactiveness"

/*
 * Wait, up to @max_ms, until every kcompactd<nid> thread of the nodes
 * 0..7 is asleep (S) in two looks 100 ms apart with no CPU used between
 * them: a background run that spans a test's counter reads would make
 * its counts and events disagree. Returns 0, or -1 when a thread kept
 * working. A kernel without the threads has nothing to wait for.
 */
int zc_kcompactd_settle(long max_ms);

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
unsigned long zc_zone_score(const struct zc_zone *z);

/*
 * Field @field (present, managed, high, ...) of zone @zone of node @node
 * in @zoneinfo, the text of /proc/zoneinfo; -1 if absent.
 */
long zc_zone_field(const char *zoneinfo, int node, const char *zone,
		   const char *field);

/*
 * Node @node's fragmentation score as kcompactd's proactive compaction
 * computes it (fragmentation_score_node()): over the node's populated
 * zones, the sum of zc_zone_score() * the zone's present pages / (the
 * node's present pages + 1), in the kernel's integer arithmetic; 0..100.
 * -1 when buddyinfo or zoneinfo cannot be read or the node has no memory.
 */
long zc_node_score(int node);

/* Ask node @node for @nr huge pages; returns what it has afterwards */
long zc_node_hugepages(int node, long nr);

double zc_now(void);

void zc_print_buddy_node(const char *what, int node);

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
long zc_pageblock_map(char *map, long max_blocks, long *limit,
		      long *hist, long *used);

/* An anonymous mapping of @len aligned to a huge page, NULL on failure */
char *zc_map_hpage_aligned(size_t len);

/* The benchmarks' data channel: argv[1], or the guest's second serial port */
FILE *zc_data_channel(int argc, char **argv);

#define ZC_THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

/*
 * The seed's benchmarks measure huge pages from nr_hugepages alone, as a
 * user of hugetlbfs would set it up: no transparent huge pages, so that
 * khugepaged and THP faults do not compete for the blocks. Returns what
 * a "meta,thp" line says: "never", or "absent" on a kernel without THP;
 * NULL when THP could not be turned off.
 */
const char *zc_thp_never(void);

/* The most /proc/vmstat counters a benchmark's delta lines carry */
#define ZC_MAX_COUNTERS	32

/*
 * The deltas @c1 - @c0 of @n counters as CSV fields on @out, an empty one
 * for a counter the kernel does not have (-1, never a zero), and the end
 * of the line
 */
void zc_print_deltas(FILE *out, const long *c0, const long *c1,
		     int n);

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

void zc_seed_path(char *buf, size_t len, long i);

/* Writer @w writes files w, w + ZC_SEED_WRITERS, ... and exits */
void zc_seed_writer(int w, long nr_files);

/* Entries under @dir, counted by lstat()ing each, as updatedb would */
long zc_seed_walk(const char *dir);

/*
 * Run the seed's workload (see above) into @s: "meta" lines for the files
 * and the fill on @out, progress on the console after "@who: ". Returns
 * 0, or -1 with errno set when a writer could not be started (those
 * already started are killed, by their own pids only).
 */
int zc_seed_fragment(FILE *out, const char *who,
		     struct zc_seed *s);

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
void zc_hugepage_steps(FILE *out, const char *who,
		       const char * const *names, int n,
		       struct zc_steps *s);

/*
 * The end of a seed workload's data on @out: "done", or "failed,<why>"
 * when the fill (@fill) or the count (@st) failed, so that the report
 * does not count the run as complete. The steps' count is what the
 * kernel says it holds: a step records what nr_hugepages read back, so
 * HugePages_Total must agree with the last one (a step sequence cut
 * short, or a count mis-recorded, fails here); how good the count is,
 * is for the report to judge. Returns HugePages_Total.
 */
long zc_seed_end(FILE *out, const struct zc_seed *fill,
		 const struct zc_steps *st);

#endif /* ZC_H */
