// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input to every file the series adds: the sysctls compact_node,
 * compact_memory, compact_unevictable_allowed and extfrag_threshold, and
 * the two sections it adds to /proc/pagetypeinfo. For each sysctl, more
 * than 50 malformed writes (empty, signs, out of range, huge, non-numeric,
 * trailing junk, several values, NULs and control bytes, very long
 * strings, writes at non-zero offsets); each must fail with EINVAL and
 * change nothing: the value reads the same and no compaction runs. Then
 * reads at odd offsets must give the tail of the same text, and
 * concurrent writers of good and bad values must leave one of the good
 * ones. /proc/pagetypeinfo gets writes (refused) and reads at odd offsets.
 */
#include <pthread.h>
#include "zc.h"

#define SYSCTL(name)	"/proc/sys/vm/" name
#define MAX_CASES	128

struct sysctl {
	const char *path;
	int min, max;		/* the range a value must be in */
	int readable;
};

static struct sysctl files[] = {
	{ SYSCTL("compact_node"), 0, 0, 1 },	/* max: nr of nodes - 1 */
	{ SYSCTL("compact_memory"), 1, 1, 0 },
	{ SYSCTL("compact_unevictable_allowed"), 0, 1, 1 },
	{ SYSCTL("extfrag_threshold"), 0, 1000, 1 },
};

struct input {
	char s[8192];
	size_t len;
	off_t off;
};

static struct input cases[MAX_CASES];
static int nr_cases;

static void add(const char *s, size_t len, off_t off)
{
	struct input *in = &cases[nr_cases++];

	memcpy(in->s, s, len);
	in->len = len;
	in->off = off;
}

static void adds(const char *s)
{
	add(s, strlen(s), 0);
}

/* The malformed inputs for a sysctl whose range is @min..@max */
static void make_cases(int min, int max)
{
	static const char * const fixed[] = {
		"", "\n", " ", "\t\n", "-", "+", "--1", "++1", "-+1", "abc",
		"1abc", "1 2", "1,2", "1;2", "1-2", "1\n2\n", "1.0", "1.", ".5",
		"1e3", "1e", "0x", "0xg", "0b1", "one", "1 a", "a 1", "\"1\"",
		"'1'", "(1)", "1/1", "1*1", "1%", "1\\n", "١", "1\xc2\xa0",
		"\xff\xfe", "-0x1", "99999999999999999999",
		"18446744073709551616", "18446744073709551615",
		"9223372036854775807", "-9223372036854775808", "2147483648",
		"-2147483649", "4294967296", "4294967295", "-2147483648",
	};
	char buf[8192];
	size_t i;

	nr_cases = 0;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		adds(fixed[i]);
	snprintf(buf, sizeof(buf), "%d", min - 1);
	adds(buf);
	snprintf(buf, sizeof(buf), "%d", max + 1);
	adds(buf);
	snprintf(buf, sizeof(buf), "%d", max + 1000000);
	adds(buf);
	snprintf(buf, sizeof(buf), "%d\n%d", min, max);
	adds(buf);
	snprintf(buf, sizeof(buf), "%d ", min);	/* then junk after spaces */
	strcat(buf, "x");
	adds(buf);
	/* A valid value with an embedded NUL and bytes after it */
	snprintf(buf, sizeof(buf), "%d", min);
	add(buf, strlen(buf) + 2, 0);
	/* A valid value written at a non-zero offset */
	add(buf, strlen(buf), 1);
	add(buf, strlen(buf), 4096);
	/* Very long: digits, spaces then a value, a page of spaces */
	memset(buf, '1', 6000);
	add(buf, 6000, 0);
	memset(buf, ' ', 6000);
	snprintf(buf + 6000, 16, "%d", min);
	add(buf, strlen(buf), 0);
	memset(buf, '0', 5000);
	snprintf(buf + 5000, 16, "%d", max + 1);
	add(buf, strlen(buf), 0);
	memset(buf, ' ', 4095);
	add(buf, 4095, 0);
	memset(buf, 0, 70);
	add(buf, 70, 0);			/* NUL bytes */
	for (i = 1; i < 32; i += 10) {		/* control bytes */
		buf[0] = (char)i;
		add(buf, 1, 0);
	}
}

/* pfns both scanners looked at; -1 if the kernel lacks either counter */
static long activity(void)
{
	static const char * const names[] = {
		"compact_migrate_scanned", "compact_free_scanned",
	};
	long v[2];

	if (zc_vmstats(names, v, 2))
		return -1;
	return v[0] + v[1];
}

static int pwrite_err(const char *path, const struct input *in)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (in->off && lseek(fd, in->off, SEEK_SET) < 0)
		err = errno;
	else if (write(fd, in->s, in->len) < 0)
		err = errno;
	close(fd);
	return err;
}

static void show(char *out, size_t size, const struct input *in)
{
	size_t i, n = 0;

	for (i = 0; i < in->len && i < 12 && n + 5 < size; i++)
		n += snprintf(out + n, size - n,
			      (unsigned char)in->s[i] >= 32 && (unsigned char)in->s[i] < 127 ?
			      "%c" : "\\x%02x", (unsigned char)in->s[i]);
	snprintf(out + n, size - n, "%s (%zu bytes at %ld)", in->len > 12 ? "..." : "",
		 in->len, (long)in->off);
}

static void test_writes(struct sysctl *f)
{
	char before[64] = "", after[64] = "", what[96];
	static struct input good;
	long act0 = activity(), act;
	int i, ok = 0, good_err, read_ok = 1;

	make_cases(f->min, f->max);
	if (f->readable)
		read_ok &= zc_read_file(f->path, before, sizeof(before)) > 0;
	for (i = 0; i < nr_cases; i++) {
		int err = pwrite_err(f->path, &cases[i]);

		/* An empty write writes nothing: success, and no effect */
		if (err == EINVAL || (!cases[i].len && !err)) {
			ok++;
			continue;
		}
		show(what, sizeof(what), &cases[i]);
		ksft_print_msg("%s: '%s' gave %s\n", f->path, what,
			       err ? strerror(err) : "success");
	}
	if (f->readable)
		read_ok &= zc_read_file(f->path, after, sizeof(after)) > 0;
	/* A missing counter is a failure, not "0 pfns scanned" */
	act = zc_delta(act0, activity());
	/* ... and a good one still works afterwards */
	snprintf(good.s, sizeof(good.s), "%s", f->readable ? before : "1");
	good.len = strlen(good.s);
	good.off = 0;
	good_err = pwrite_err(f->path, &good);
	ksft_test_result(ok == nr_cases && read_ok && !strcmp(before, after) && !act &&
			 !good_err,
			 "hostile_write %s: %d of %d malformed writes refused, value '%.*s' -> '%.*s'%s, %ld pfns scanned (want 0; -1: no compact_*_scanned in vmstat); a good write then gave %s\n",
			 f->path + 13, ok, nr_cases, (int)strcspn(before, "\n"), before,
			 (int)strcspn(after, "\n"), after, read_ok ? "" : " (unreadable)",
			 act, good_err ? strerror(good_err) : "success");
}

/*
 * pread at odd offsets: a seq_file (pagetypeinfo) returns the tail of
 * what a whole read returns; a sysctl returns nothing at any offset but
 * 0, as every proc_dointvec() file does (@eof).
 */
static int odd_reads(const char *path, char *msg, size_t size, int eof)
{
	static char whole[1 << 17], part[1 << 17];
	static const off_t offs[] = { 1, 2, 3, 7, 63, 511, 4095, 4097, 65537, 1 << 20 };
	long n = zc_read_file(path, whole, sizeof(whole));
	int fd, i, good = 0;

	if (n <= 0)
		return snprintf(msg, size, "cannot read"), 0;
	fd = open(path, O_RDONLY);
	for (i = 0; i < (int)(sizeof(offs) / sizeof(offs[0])); i++) {
		long want = offs[i] < n && !eof ? n - offs[i] : 0, got;

		got = pread(fd, part, sizeof(part), offs[i]);
		/* pagetypeinfo's counts move between reads: compare lengths */
		if (got == want && (strstr(path, "pagetypeinfo") || !want ||
				    !memcmp(part, whole + offs[i], want)))
			good++;
		else if (strstr(path, "pagetypeinfo") && got >= 0 &&
			 labs(got - want) < 64)
			good++;
	}
	close(fd);
	snprintf(msg, size, "%d of %zu", good, sizeof(offs) / sizeof(offs[0]));
	return good == (int)(sizeof(offs) / sizeof(offs[0]));
}

static void test_reads(struct sysctl *f)
{
	char msg[64];
	int fd, err = 0;

	if (!f->readable) {
		/* Write-only: a read fails, whatever the offset */
		fd = open(f->path, O_RDONLY);
		err = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		ksft_test_result(err == EACCES, "hostile_read %s: open for reading gave %s (want EACCES)\n",
				 f->path + 13, err ? strerror(err) : "success");
		return;
	}
	ksft_test_result(odd_reads(f->path, msg, sizeof(msg), 1),
			 "hostile_read %s: %s reads at non-zero offsets gave end of file\n",
			 f->path + 13, msg);
}

/* Writers of good and bad values at once: a good one remains */
struct writer {
	const char *path;
	int seed, bad_ok, bad_wrong;
};

static void *writer(void *arg)
{
	struct writer *w = arg;
	int i;

	for (i = 0; i < 400; i++) {
		int v = (w->seed * 7919 + i * 104729) % 2001 - 500;	/* -500..1500 */
		struct input in = { .off = 0 };
		int err;

		in.len = snprintf(in.s, sizeof(in.s), "%d%s", v, i % 3 ? "" : "x");
		err = pwrite_err(w->path, &in);
		if (i % 3 && v >= 0 && v <= 1000)
			w->bad_wrong += err != 0;
		else if (err == EINVAL)
			w->bad_ok++;
		else
			w->bad_wrong++;
	}
	return NULL;
}

static void test_concurrent(void)
{
	const char *path = SYSCTL("extfrag_threshold");
	struct writer w[4];
	pthread_t t[4];
	int i, refused = 0, wrong = 0;
	long final;

	for (i = 0; i < 4; i++) {
		w[i] = (struct writer){ .path = path, .seed = i + 1 };
		pthread_create(&t[i], NULL, writer, &w[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		refused += w[i].bad_ok;
		wrong += w[i].bad_wrong;
	}
	final = zc_read_long(path);
	zc_write_long(path, 500);
	ksft_test_result(!wrong && final >= 0 && final <= 1000 && refused > 0,
			 "hostile_concurrent extfrag_threshold: 4 writers x 400 writes, %d bad ones refused, %d answered wrongly, value %ld in 0..1000\n",
			 refused, wrong, final);
}

static void test_pagetypeinfo(void)
{
	const char *path = "/proc/pagetypeinfo";
	char msg[64], first[64] = "";
	int i, refused = 0, n = 0;

	make_cases(0, 0);
	for (i = 0; i < nr_cases; i++, n++) {
		int err = pwrite_err(path, &cases[i]);

		if (i == 1)
			snprintf(first, sizeof(first), "%s", err ? strerror(err) : "success");
		refused += err == EIO || err == EACCES || err == EBADF ||
			   (!cases[i].len && !err);
	}
	int reads_ok = odd_reads(path, msg, sizeof(msg), 0);

	ksft_test_result(refused == n && reads_ok,
			 "hostile_pagetypeinfo: %d of %d writes refused (first: %s), %s reads at odd offsets consistent\n",
			 refused, n, first, msg);
}

int main(void)
{
	unsigned int i;

	files[0].max = atoi(getenv("ZC_NODES") ?: "1") - 1;
	ksft_print_header();
	ksft_set_plan(2 * (sizeof(files) / sizeof(files[0])) + 2);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		test_writes(&files[i]);
		test_reads(&files[i]);
	}
	ksft_print_msg("%d malformed writes per sysctl\n", nr_cases);
	test_concurrent();
	test_pagetypeinfo();
	ksft_finished();
}
