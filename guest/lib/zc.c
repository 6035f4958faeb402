// SPDX-License-Identifier: GPL-2.0
/*
 * The guest programs' library: see zc.h for what each function does.
 * Nothing here prints a KTAP result or ends the program through
 * kselftest.h, whose counters are each program's own.
 */
#include "zc.h"

long zc_read_file(const char *path, char *buf, size_t size)
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

int zc_write_file(const char *path, const char *s)
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

long zc_read_long(const char *path)
{
	char buf[64];

	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

int zc_write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return zc_write_file(path, buf);
}

int zc_parse_buddyinfo(const char *text, struct zc_buddy *b)
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

int zc_read_buddyinfo(struct zc_buddy *b)
{
	static char buf[8192];

	if (zc_read_file("/proc/buddyinfo", buf, sizeof(buf)) <= 0)
		return -1;
	return zc_parse_buddyinfo(buf, b);
}

unsigned long zc_free_at_least(const struct zc_buddy *b, int node,
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

long zc_keyed_in(const char *text, const char *name, char sep)
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

long zc_keyed_value(const char *path, const char *name, char sep)
{
	static char buf[16384];

	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return zc_keyed_in(buf, name, sep);
}

int zc_trace_clear(void)
{
	int fd = open(ZC_TRACING "trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* buffer_size_kb as the size the buffer is used at */
static long zc_trace_kb(void)
{
	char buf[64], *p;

	if (zc_read_file(ZC_TRACING "buffer_size_kb", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "(expanded: ");
	return strtol(p ? p + strlen("(expanded: ") : buf, NULL, 10);
}

int zc_trace_save(struct zc_trace_saved *s)
{
	s->on = zc_read_long(ZC_TRACING "tracing_on");
	s->kb = zc_trace_kb();
	return s->on < 0 || s->kb <= 0 ? -1 : 0;
}

int zc_trace_restore(const struct zc_trace_saved *s)
{
	int err = 0;

	if (s->kb > 0 && zc_trace_kb() != s->kb)
		err |= zc_write_long(ZC_TRACING "buffer_size_kb", s->kb);
	if (s->on >= 0)
		err |= zc_write_long(ZC_TRACING "tracing_on", s->on);
	return err ? -1 : 0;
}

long zc_trace_lost(void)
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

long zc_vmstat(const char *name)
{
	return zc_keyed_value("/proc/vmstat", name, ' ');
}

const char *zc_vmstats(const char * const *names, long *v, int n)
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

long zc_compactions(void)
{
	static const char * const names[] = { "compact_stall", "compact_deferred" };
	long v[2];

	return zc_vmstats(names, v, 2) ? -1 : v[0] - v[1];
}

long zc_delta(long before, long now)
{
	return before < 0 || now < 0 ? -1 : now - before;
}

long zc_meminfo(const char *name)
{
	return zc_keyed_value("/proc/meminfo", name, ':');
}

long zc_set_hugepages(long nr)
{
	if (zc_write_long("/proc/sys/vm/nr_hugepages", nr))
		return -1;
	return zc_read_long("/proc/sys/vm/nr_hugepages");
}

char *zc_fragment_anon(long margin_kb, size_t *len)
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

int zc_biggest_zone(const struct zc_buddy *b)
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

long zc_node_meminfo(int node, const char *name)
{
	char path[64], key[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (zc_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(key, sizeof(key), "Node %d %s:", node, name);
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

int zc_bind_node(int node)
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

int zc_bind_mem_node(int node)
{
	unsigned long mask = 1UL << node;

	/* MPOL_BIND is 2; glibc has no wrapper without libnuma */
	return syscall(SYS_set_mempolicy, 2, &mask, sizeof(mask) * 8);
}

int zc_unbind_mem(void)
{
	return syscall(SYS_set_mempolicy, 0, NULL, 0);
}

int zc_pagemap_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	return fd;
}

unsigned long zc_pagemap_pfn(unsigned long long e)
{
	return e >> 63 ? e & ((1ULL << 55) - 1) : 0;
}

unsigned long zc_pfn(const void *addr)
{
	unsigned long long e;
	off_t off = (unsigned long)addr / ZC_PAGE * sizeof(e);
	int fd = zc_pagemap_fd();

	if (fd < 0 || pread(fd, &e, sizeof(e), off) != sizeof(e))
		return 0;
	return zc_pagemap_pfn(e);
}

int zc_pfns(const void *addr, size_t n, unsigned long *pfn)
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

int zc_make_file(const char *path, long mb)
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

void zc_unfragment(struct zc_frag *f)
{
	if (f->keep && f->keep != MAP_FAILED)
		munmap(f->keep, f->len);
	if (f->fd > 0) {
		posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
		close(f->fd);
	}
	memset(f, 0, sizeof(*f));
}

int zc_fragment_node(int node, const char *file, long margin_kb,
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

unsigned long zc_node_zoneinfo(int node, const char *field)
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

int zc_node_list(const char *path, int *ids, int max)
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

int zc_task_stat(int pid, struct zc_task *t)
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

int zc_kthread_pid(const char *comm, int *count)
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

long zc_kthread_ticks(const char *name, int *count)
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

int zc_kcompactd_settle(long max_ms)
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

unsigned long zc_zone_score(const struct zc_zone *z)
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

long zc_zone_field(const char *zoneinfo, int node, const char *zone,
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

long zc_node_score(int node)
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

long zc_node_hugepages(int node, long nr)
{
	char path[96];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		 node);
	if (zc_write_long(path, nr))
		return -1;
	return zc_read_long(path);
}

double zc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void zc_print_buddy_node(const char *what, int node)
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

long zc_pageblock_map(char *map, long max_blocks, long *limit,
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

char *zc_map_hpage_aligned(size_t len)
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

FILE *zc_data_channel(int argc, char **argv)
{
	FILE *out = fopen(argc > 1 ? argv[1] : "/dev/ttyS1", "w");

	if (out)
		setvbuf(out, NULL, _IOLBF, 0);
	return out;
}

const char *zc_thp_never(void)
{
	char mode[128];

	if (access(ZC_THP_ENABLED, F_OK))
		return "absent";
	/*
	 * Any write to enabled makes the kernel recalculate
	 * min_free_kbytes (set_recommended_min_free_kbytes()), from the
	 * memory free now: write only when the mode is not never already
	 */
	if (zc_read_file(ZC_THP_ENABLED, mode, sizeof(mode)) > 0 &&
	    strstr(mode, "[never]"))
		return "never";
	return zc_write_file(ZC_THP_ENABLED, "never") ? NULL : "never";
}

void zc_print_deltas(FILE *out, const long *c0, const long *c1,
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

void zc_seed_path(char *buf, size_t len, long i)
{
	snprintf(buf, len, ZC_SEED_ROOT "/d%02ld/f%06ld", i % 64, i);
}

void zc_seed_writer(int w, long nr_files)
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

long zc_seed_walk(const char *dir)
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

int zc_seed_fragment(FILE *out, const char *who,
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

void zc_hugepage_steps(FILE *out, const char *who,
		       const char * const *names, int n,
		       struct zc_steps *s)
{
	long step = zc_meminfo("MemTotal") / 20 / 2048, prev = 0;
	long c0[ZC_MAX_COUNTERS], c1[ZC_MAX_COUNTERS];

	if (n > ZC_MAX_COUNTERS) {
		ksft_print_msg("%s: %d counters, at most %d\n", who, n,
			       ZC_MAX_COUNTERS);
		exit(KSFT_FAIL);
	}
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

long zc_seed_end(FILE *out, const struct zc_seed *fill,
		 const struct zc_steps *st)
{
	long hp_total = zc_meminfo("HugePages_Total");

	if (fill->failed)
		fprintf(out, "failed,%d writers failed\n", fill->failed);
	else if (st->steps <= 0 || hp_total != st->final)
		fprintf(out, "failed,HugePages_Total %ld for %ld recorded\n",
			hp_total, st->final);
	else
		fprintf(out, "done\n");
	return hp_total;
}
