# rtmon top-level Makefile.
#
#   make deps        install build and test dependencies (apt-get, as root)
#   make             build rtmon.ko for BOARD (default qemu-x86_64-rt)
#   make check       run every test (unit + QEMU); ends with "N passed, N failed"
#   make demo        boot the emulated PREEMPT_RT board and show rtmon at work
#   make bench       benchmarks: core instructions/event, module overhead in QEMU
#   make kmod BOARD=NAME | KDIR=/path [ARCH=.. CROSS_COMPILE=..]
#   make clean

BOARD ?= qemu-x86_64-rt

all: kmod

deps:
	bash scripts/deps.sh

ifneq ($(KDIR),)
kmod:
	$(MAKE) -C kmod KDIR=$(KDIR) OUT=$(CURDIR)/build/kmod/custom
else
kmod:
	@scripts/build-kmod $(BOARD)
endif

check:
	tests/run-all

demo:
	scripts/demo $(BOARD)

bench:
	$(MAKE) -C tests/core bench
	tests/bench/kmod/run $(BOARD)

clean:
	rm -rf build

.PHONY: all deps kmod check demo bench clean
