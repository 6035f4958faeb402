// SPDX-License-Identifier: GPL-2.0
/*
 * Run one test program for the guest's init: in a process group of its
 * own, its output indented by four spaces (a KTAP subtest), under a
 * timeout that kills the whole group, so that a child left behind can
 * neither hold the output pipe open nor outlive its test.
 *
 * usage: runner SECONDS PROGRAM
 * Exit status: the program's, 128 + signal when a signal ended it, 124
 * when it ran out of time.
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

/*
 * Copy the pipe to stdout until EOF or @deadline; 0 on EOF, -1 on time.
 * When @pid is not 0, also stop waiting for EOF once @pid has exited:
 * what it left behind is killed, and the rest drains for DRAIN_MS.
 */
static int pump(int fd, long deadline, pid_t pid, int *status)
{
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t n;

		if (pid && waitpid(pid, status, WNOHANG) == pid) {
			kill(-pid, SIGKILL);
			pid = 0;
			deadline = now_ms() + DRAIN_MS;
			continue;
		}
		if (left <= 0)
			return -1;
		if (poll(&p, 1, left > 200 ? 200 : left) < 0 && errno != EINTR)
			return -1;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		emit(buf, n);
	}
}

int main(int argc, char **argv)
{
	int fds[2], status = 0, timed_out = 0, rc;
	long seconds;
	pid_t pid;

	if (argc != 3 || (seconds = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: runner SECONDS PROGRAM\n");
		return 2;
	}
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

	if (pump(fds[0], now_ms() + seconds * 1000L, pid, &status))
		timed_out = 1;
	/* Whatever the program left behind goes with it */
	kill(-pid, SIGKILL);
	if (waitpid(pid, &status, 0) < 0 && errno != ECHILD)
		return 2;
	if (pump(fds[0], now_ms() + DRAIN_MS, 0, NULL))
		printf("    # runner: output still open %d ms after %s ended\n",
		       DRAIN_MS, argv[2]);
	if (len)
		emit("\n", 1);

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
	fflush(stdout);
	return rc;
}
