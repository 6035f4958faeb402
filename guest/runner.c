// SPDX-License-Identifier: GPL-2.0
/*
 * Run one test program for the guest's init: in a process group of its
 * own, its output indented by four spaces (a KTAP subtest), under a
 * timeout that kills the whole group, so that a child left behind can
 * neither hold the output pipe open nor outlive its test.
 *
 * Every program gets the guest as the one before found it: the settings
 * of settings[] are read before the program starts and again after it
 * and its group are gone; one that differs is written back and reported
 * ("# runner: left changed: ..."), and the program fails: a test that
 * changes a sysctl, a THP mode or the trace buffer must restore it,
 * or the programs after it would run on its leftovers.
 *
 * usage: runner SECONDS PROGRAM
 * Exit status: the program's, 128 + signal when a signal ended it, 124
 * when it ran out of time, ZC_EXIT_DRIFT when it exited 0 or skipped (4)
 * but left a setting changed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After the program ended, how long its output may still take to drain */
#define DRAIN_MS	2000

/* A program that passed or skipped but left a setting changed */
#define ZC_EXIT_DRIFT	90

#define TRACING "/sys/kernel/debug/tracing/"
#define THP	"/sys/kernel/mm/transparent_hugepage/"

/*
 * What the suite's programs change, and the programs after them would
 * see: the compactor's and reclaim's sysctls, huge pages, THP's modes,
 * the trace buffer and the compaction events. A file a kernel does not
 * have is left out (read fails before and after).
 */
static const char * const settings[] = {
	"/proc/sys/vm/compaction_proactiveness",
	"/proc/sys/vm/compact_unevictable_allowed",
	"/proc/sys/vm/extfrag_threshold",
	"/proc/sys/vm/min_free_kbytes",
	"/proc/sys/vm/watermark_scale_factor",
	"/proc/sys/vm/watermark_boost_factor",
	"/proc/sys/vm/nr_hugepages",
	"/proc/sys/vm/overcommit_memory",
	"/proc/sys/vm/zone_reclaim_mode",
	THP "enabled",
	THP "defrag",
	THP "khugepaged/defrag",
	TRACING "tracing_on",
	TRACING "current_tracer",
	TRACING "buffer_size_kb",
	TRACING "tracing_thresh",
	TRACING "events/compaction/enable",
	TRACING "events/vmscan/enable",
};
#define NR_SETTINGS (sizeof(settings) / sizeof(settings[0]))

/*
 * The value of a setting as it is written back: a THP mode's selected
 * word ("always [madvise] never" is "madvise"), the size a trace buffer
 * is used at ("7 (expanded: 1408)" is 1408: it grows to that on first
 * use), otherwise the first word. Empty when it cannot be read.
 */
static void setting_read(const char *path, char *val, size_t size)
{
	char buf[256], *p, *e;
	FILE *f = fopen(path, "r");
	size_t n = 0;

	val[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strchr(buf, '[');
	e = strstr(buf, "(expanded: ");
	if (e) {
		p = e + strlen("(expanded: ");
		p[strspn(p, "0123456789")] = '\0';
	} else if (p && (e = strchr(p, ']'))) {
		p++;
		*e = '\0';
	} else {
		p = buf + strspn(buf, " \t\n");
		p[strcspn(p, " \t\n")] = '\0';
	}
	snprintf(val, size, "%s", p);
}

static int setting_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

static char before[NR_SETTINGS][64];

/*
 * Until it is first used, the trace buffer reads "7 (expanded: 1408)";
 * used, it grows to that size, which reads back rounded to its pages
 * ("1410"). Grow it here, before the snapshot, so that a program's
 * first use of tracing is not taken for a change it made.
 */
static void trace_buffer_expand(void)
{
	char kb[64];
	FILE *f = fopen(TRACING "buffer_size_kb", "r");
	size_t n;

	if (!f)
		return;
	n = fread(kb, 1, sizeof(kb) - 1, f);
	fclose(f);
	kb[n] = '\0';
	if (strstr(kb, "(expanded: ")) {
		setting_read(TRACING "buffer_size_kb", kb, sizeof(kb));
		setting_write(TRACING "buffer_size_kb", kb);
	}
}

/* Restore what the program left changed; how many settings were */
static int settings_restore(const char *prog)
{
	char now[64], again[64];
	unsigned int i;
	int drift = 0;

	for (i = 0; i < NR_SETTINGS; i++) {
		setting_read(settings[i], now, sizeof(now));
		if (!strcmp(now, before[i]))
			continue;
		drift++;
		/* Written back, and read again: a write can be cut short */
		setting_write(settings[i], before[i]);
		setting_read(settings[i], again, sizeof(again));
		printf("    # runner: left changed: %s was '%s', %s left '%s'; %s\n",
		       settings[i], before[i], prog, now,
		       strcmp(again, before[i]) ? "cannot write it back" : "written back");
	}
	return drift;
}

static char line[4096];
static size_t len;

static void emit(const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (len < sizeof(line) - 1)
			line[len++] = buf[i];
		if (buf[i] == '\n' || len == sizeof(line) - 1) {
			if (line[len - 1] != '\n')
				line[len++] = '\n';
			printf("    %.*s", (int)len, line);
			fflush(stdout);
			len = 0;
		}
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Copy what the pipe holds to stdout; 1 on EOF, 0 otherwise */
static int copy(int fd, int wait_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, wait_ms) <= 0 || !(p.revents & (POLLIN | POLLHUP)))
		return 0;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return errno != EINTR && errno != EAGAIN;
	if (n == 0)
		return 1;
	emit(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	int fds[2], status = 0, timed_out = 0, exited = 0, eof = 0, rc;
	long seconds, deadline;
	pid_t pid;

	if (argc != 3 || (seconds = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: runner SECONDS PROGRAM\n");
		return 2;
	}
	trace_buffer_expand();
	for (rc = 0; rc < (int)NR_SETTINGS; rc++)
		setting_read(settings[rc], before[rc], sizeof(before[rc]));
	if (pipe(fds))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execl(argv[2], argv[2], (char *)NULL);
		fprintf(stderr, "runner: exec %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);

	/* Until the program exits or its time is up, copy its output */
	deadline = now_ms() + seconds * 1000L;
	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			break;
		}
		if (now_ms() >= deadline) {
			timed_out = 1;
			break;
		}
		if (eof)
			usleep(100 * 1000);
		else
			eof = copy(fds[0], 200);
	}
	/* Whatever the program left behind goes with it */
	kill(-pid, SIGKILL);
	if (!exited)
		waitpid(pid, &status, 0);
	/* The rest of the output; a process outside the group may hold it */
	deadline = now_ms() + DRAIN_MS;
	while (!eof && now_ms() < deadline)
		eof = copy(fds[0], 200);
	if (len)
		emit("\n", 1);
	if (!eof)
		printf("    # runner: output still open %d ms after %s ended\n",
		       DRAIN_MS, argv[2]);

	if (timed_out) {
		printf("    # runner: %s killed after %ld s\n", argv[2], seconds);
		rc = 124;
	} else if (WIFSIGNALED(status)) {
		printf("    # runner: %s killed by signal %d\n", argv[2],
		       WTERMSIG(status));
		rc = 128 + WTERMSIG(status);
	} else {
		rc = WEXITSTATUS(status);
	}
	if (settings_restore(argv[2]) && (rc == 0 || rc == 4))
		rc = ZC_EXIT_DRIFT;
	fflush(stdout);
	return rc;
}
