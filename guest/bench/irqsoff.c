// SPDX-License-Identifier: GPL-2.0
/*
 * The longest section with interrupts off while a compactor works, from
 * the irqsoff latency tracer (variants ours-irqsoff, mainline-irqsoff;
 * run by scripts/irqsoff.sh, not by make test). Two phases, each
 * ZC_IRQSOFF_ROUNDS (3) times on freshly fragmented memory, as the
 * seed's benchmark fragments it (clean page cache and anonymous memory
 * in every other frame of every node):
 *   compact:  one write of 1 to compact_memory;
 *   allocate: nr_hugepages raised to half of memory (direct compaction).
 * The tracer records the single longest irqs-off section anywhere in
 * the kernel during the phase (kcompactd's and the allocator's
 * included), with the functions that disabled and enabled interrupts.
 * Each round prints "# irqsoff: phase=P round=N max_us=U start=S end=E"
 * for the host script to compare kernels.
 */
#include "zc.h"

#define MAX_NODES	8

static int nodes;

static int fragment(struct zc_frag *f)
{
	char file[32];
	int n;

	memset(f, 0, MAX_NODES * sizeof(*f));
	for (n = 0; n < nodes; n++) {
		snprintf(file, sizeof(file), "/mnt/zc-irqsoff-%d", n);
		if (zc_fragment_node(n, file, 12 * 1024, &f[n]))
			return -1;
	}
	return 0;
}

static void unfragment(struct zc_frag *f)
{
	int n;

	zc_set_hugepages(0);
	for (n = 0; n < nodes; n++)
		zc_unfragment(&f[n]);
	zc_unbind_mem();
}

/*
 * "=> started at: X" and "=> ended at: Y" of the trace, or "?", and the
 * first frames of the stack the tracer saved where interrupts came back
 * on, innermost first, joined by '<' (the caller of the unlock says whose
 * section it was: "_raw_spin_unlock_irqrestore" alone does not).
 */
static void sites(char *start, char *end, char *stack, size_t len)
{
	static char buf[1 << 16];
	size_t used = 0;
	char *p, *line;
	int frames = 0;

	snprintf(start, len, "?");
	snprintf(end, len, "?");
	snprintf(stack, len, "?");
	if (zc_read_file(ZC_TRACING "trace", buf, sizeof(buf)) <= 0)
		return;
	p = strstr(buf, "=> started at: ");
	if (p)
		sscanf(p + 15, "%63s", start);
	p = strstr(buf, "=> ended at:   ");
	if (!p)
		p = strstr(buf, "=> ended at: ");
	if (p)
		sscanf(p + 13, " %63s", end);
	for (line = strtok(buf, "\n"); line && frames < 6; line = strtok(NULL, "\n")) {
		char fn[64];

		if (strncmp(line, " => ", 4) || sscanf(line + 4, "%63s", fn) != 1)
			continue;
		used += snprintf(stack + used, len - used, "%s%s",
				 frames ? "<" : "", fn);
		if (used >= len)
			break;
		frames++;
	}
}

/* Run @phase once under the tracer; returns the longest section in us */
static long traced(const char *phase, int round)
{
	char start[256], end[256], stack[256];
	double t = zc_now();
	long max, hp = -1;

	if (zc_write_file(ZC_TRACING "tracing_max_latency", "0") ||
	    zc_write_file(ZC_TRACING "current_tracer", "irqsoff") ||
	    zc_write_file(ZC_TRACING "tracing_on", "1"))
		return -1;
	if (!strcmp(phase, "compact"))
		zc_write_file("/proc/sys/vm/compact_memory", "1");
	else
		hp = zc_set_hugepages(zc_meminfo("MemTotal") / 2 / 2048);
	zc_write_file(ZC_TRACING "tracing_on", "0");
	max = zc_read_long(ZC_TRACING "tracing_max_latency");
	sites(start, end, stack, sizeof(stack));
	zc_write_file(ZC_TRACING "current_tracer", "nop");
	ksft_print_msg("irqsoff: phase=%s round=%d max_us=%ld start=%s end=%s seconds=%.2f huge_pages=%ld stack=%s\n",
		       phase, round, max, start, end, zc_now() - t, hp, stack);
	return max;
}

static void run(const char *phase, int rounds)
{
	struct zc_frag f[MAX_NODES];
	long worst = -1, v;
	int r, bad = 0;

	for (r = 1; r <= rounds; r++) {
		if (fragment(f)) {
			bad++;
			unfragment(f);
			continue;
		}
		v = traced(phase, r);
		if (v < 0)
			bad++;
		if (v > worst)
			worst = v;
		unfragment(f);
	}
	if (bad)
		ksft_test_result_fail("irqsoff_%s: %d of %d rounds could not fragment or trace\n",
				      phase, bad, rounds);
	else
		ksft_test_result_pass("irqsoff_%s: longest irqs-off section %ld us over %d rounds\n",
				      phase, worst, rounds);
}

static struct zc_trace_saved trace_saved;

int main(void)
{
	const char *env = getenv("ZC_NODES");
	const char *r = getenv("ZC_IRQSOFF_ROUNDS");
	int rounds = r ? atoi(r) : 3, n;

	nodes = env ? atoi(env) : 2;
	ksft_print_header();
	if (nodes < 1 || nodes > MAX_NODES || rounds < 1)
		ksft_exit_fail_msg("ZC_NODES=%d, ZC_IRQSOFF_ROUNDS=%d\n", nodes, rounds);
	if (access(ZC_TRACING "tracing_max_latency", W_OK))
		ksft_exit_fail_msg("no irqsoff tracer: %s\n", strerror(errno));
	for (n = 0; n < nodes; n++) {
		char file[32];

		snprintf(file, sizeof(file), "/mnt/zc-irqsoff-%d", n);
		if (zc_make_file(file, 128))
			ksft_exit_fail_msg("cannot write %s\n", file);
	}
	ksft_set_plan(2);
	/* Put back at the end: the runner fails a program that changes it */
	if (zc_trace_save(&trace_saved))
		ksft_exit_fail_msg("cannot read the trace settings\n");
	run("compact", rounds);
	run("allocate", rounds);
	zc_trace_restore(&trace_saved);
	ksft_finished();
}
