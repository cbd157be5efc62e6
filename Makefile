# rtmon top-level Makefile. `make help` prints the targets below, one line
# each (tests/setup/run checks that every target is listed once).
#
#   make             rtmon.ko for the running kernel (or BOARD=NAME) and the whole user space, in build/
#   make kmod        rtmon.ko for the running kernel, or [BOARD=NAME] [KDIR=/path/to/kernel/build]
#   make user        librtmon, rtmonctl, rtmon-mark, rtmond (build/monitor), rtmon-replay (build/core)
#   make install     install into [DESTDIR=..] [PREFIX=/usr], FHS layout (scripts/install.sh)
#   make deps        install the developers' build and test dependencies (apt-get, as root)
#   make deps-device install only what building rtmon on a device needs (apt-get, as root)
#   make check       every test, host and QEMU, every board; ends with "N passed, N failed"
#   make check-quick host tests and one x86 board's guest suite (RTMON_CHECK_BOARDS, default qemu-x86_64-rt)
#   make check-arm   the emulated ARM boards and the install tarball only
#   make check-pkg   packaging and the boot-time unit only
#   make demo        boot the emulated PREEMPT_RT board and show rtmon at work
#   make bench       benchmarks: core instructions/event, module overhead in QEMU (wall time, -icount)
#   make cross       module and static user space for an ARM board: BOARD=NAME [KDIR=...]
#   make dist        install tarball for a board: BOARD=NAME [KDIR=...]
#   make debs        Debian packages in build/deb [ARCH=arm64|armhf] [BOARD=qemu-arm64-rt-6.12: build/deb-trixie]
#   make debs-arm    the Debian packages for both ARM architectures
#   make clean       remove build/
#   make help        this list

# 'make' and 'make kmod' without BOARD build for the running kernel (a
# device building for itself: scripts/build-kmod native); the emulated
# boards' commands (demo, bench, cross, dist, debs) default to this one
ifeq ($(origin BOARD),undefined)
KMOD_BOARD := native
else
KMOD_BOARD := $(BOARD)
endif
BOARD ?= qemu-x86_64-rt

# user space first: without a kernel build tree it is built, and kmod says why not
all: user kmod

help:
	@sed -n 's/^#   make/  make/p' $(firstword $(MAKEFILE_LIST))

# librtmon, rtmonctl, rtmond, rtmon-mark (monitor/Makefile), rtmon-replay
# (monitor/replay/Makefile)
user:
	$(MAKE) -C monitor
	$(MAKE) -C monitor/replay

deps:
	RTMON_DEPS_DEVELOPER='$(RTMON_DEPS_DEVELOPER)' bash scripts/deps.sh

# on a device: only what building and running rtmon there needs
deps-device:
	bash scripts/deps-device.sh

# a board's arch and cross prefix, with its own kernel tree when KDIR is given
kmod:
	@scripts/build-kmod $(KMOD_BOARD) $(KDIR)

ARM_BOARDS := qemu-arm64-rt qemu-armhf-rt

# module + static user space for BOARD (cross boards)
cross:
	scripts/build-kmod $(BOARD) $(KDIR)
	@if [ "$$(scripts/board-info $(BOARD) cross)" ]; then cross/build-user $(BOARD); fi

# install tarball for a board: make dist BOARD=rpi4 [KDIR=/path/to/kernel/build]
dist:
	cross/dist.sh $(BOARD) $(KDIR)

# both emulated ARM boards and the install tarball's checks
check-arm:
	@rc=0; for b in $(ARM_BOARDS); do cross/check $$b || rc=1; done; cross/test-dist || rc=1; exit $$rc

check:
	tests/run-all

# the contributors' tier: deps, build, host tests and one x86 board's guest
# suite (tests/run-all with RTMON_CHECK_QUICK=1); make check stays complete
check-quick:
	RTMON_CHECK_QUICK=1 tests/run-all

demo:
	scripts/demo $(BOARD)

bench:
	$(MAKE) -C tests/core bench
	tests/bench/kmod/run $(BOARD)
	tests/bench/icount/run $(BOARD)
	tests/bench/monitor/run $(BOARD)

# make install [DESTDIR=..] [PREFIX=/usr]: FHS layout (scripts/install.sh)
install:
	$(MAKE) -C monitor
	$(MAKE) -C monitor/replay
	DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' scripts/install.sh

# Debian packages: rtmon, rtmon-dkms, librtmon0, librtmon-dev (build/deb);
# make debs ARCH=arm64|armhf: from the cross-built user space (ARCH only
# from the command line: a kernel-style ARCH in the environment is ignored);
# make debs BOARD=NAME: that cross board's user space, built against its
# Debian suite (BOARD=qemu-arm64-rt-6.12: trixie's, into build/deb-trixie)
debs:
	packaging/build-debs.sh $(if $(filter command line,$(origin ARCH)),--arch $(ARCH)) \
		$(if $(filter command line,$(origin BOARD)),--board $(BOARD))

# the .debs for both ARM architectures (build/deb: *_arm64.deb, *_armhf.deb)
debs-arm:
	packaging/build-debs.sh --arch arm64
	packaging/build-debs.sh --arch armhf

# packaging and the boot-time unit only
check-pkg:
	tests/pkg/run; r=$$?; tests/pkg/run-guest || r=1; exit $$r

clean:
	rm -rf build

.PHONY: all help user deps deps-device kmod cross dist check-arm install debs debs-arm check-pkg check check-quick demo bench clean
