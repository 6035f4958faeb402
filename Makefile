# Zone compaction: a kernel patch series, the harness that builds and
# boots it, its guest tests and the benchmarks.  Every target is a thin
# wrapper around one script: the stages in scripts/, the benchmarks in
# bench/; see README.md.

VARIANTS := vanilla mainline ours debug cma ours-irqsoff mainline-irqsoff
VARIANT ?= ours
S := scripts

.PHONY: all test run irqsoff kernel shell tree initramfs series checkpatch clean help

all: help

help:
	@echo "make test                      build ours, boot it, run the guest suite"
	@echo "make run                       the benchmark on vanilla, mainline and ours"
	@echo "make run BENCH=thp             THP fault latency and success (thpscale)"
	@echo "make run BENCH=idle            allocation latency with a background compactor"
	@echo "make irqsoff                   longest irqs-off section, ours vs mainline"
	@echo "make kernel VARIANT=<v>        build build/<v>/bzImage ($(VARIANTS))"
	@echo "make shell VARIANT=<v>         interactive busybox shell in QEMU"
	@echo "make tree | initramfs | checkpatch | clean"

tree:
	@$(S)/tree.sh

kernel:
	@$(S)/build.sh $(VARIANT)

initramfs:
	@$(S)/initramfs.sh

test:
	@$(S)/test.sh

run:
ifeq ($(BENCH),thp)
	@bench/thp.sh
else ifeq ($(BENCH),idle)
	@bench/idle.sh
else
	@bench/seed.sh
endif

irqsoff:
	@bench/irqsoff.sh

shell:
	@$(S)/build.sh $(VARIANT)
	@$(S)/initramfs.sh
	@$(S)/boot.sh $(VARIANT) shell

checkpatch:
	@$(S)/checkpatch.sh

clean:
	rm -rf build results
