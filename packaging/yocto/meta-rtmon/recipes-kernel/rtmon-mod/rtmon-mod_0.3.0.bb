SUMMARY = "rtmon kernel module: interrupt-to-task response-time monitor"
DESCRIPTION = "rtmon.ko follows every chain from an interrupt or timer \
expiry to the task that answers it and measures it against a deadline \
(/dev/rtmon, /proc/rtmon/status). Needs a kernel with the options of \
kernel-rtmon.cfg (tracepoints, ftrace snapshot, high-resolution timers; \
PREEMPT_RT recommended)."
HOMEPAGE = "https://github.com/rtmon/rtmon"
SECTION = "kernel/modules"
LICENSE = "GPL-2.0-only"
LIC_FILES_CHKSUM = "file://kmod/rtmon_main.c;beginline=1;endline=1;md5=50d2ba0afecd20f74c12a4bdbcfcfe61"

inherit module

SRC_URI = "${RTMON_SRC_URI}"
SRCREV = "${RTMON_SRCREV}"
PV = "0.3.0+git${SRCPV}"
S = "${WORKDIR}/git"

# kmod/Makefile builds against KDIR; module.bbclass adds O= (the kernel's
# build directory), CC, LD and ARCH/CROSS_COMPILE through KERNEL_* settings.
EXTRA_OEMAKE += "-C ${S}/kmod KDIR=${STAGING_KERNEL_DIR}"
MAKE_TARGETS = "modules"

# kmod/Makefile has no modules_install: install the one module here.
do_install() {
	install -d ${D}${nonarch_base_libdir}/modules/${KERNEL_VERSION}/extra
	install -m 0644 ${S}/kmod/rtmon.ko ${D}${nonarch_base_libdir}/modules/${KERNEL_VERSION}/extra/rtmon.ko
}

# The package is kernel-module-rtmon-${KERNEL_VERSION}; load it at boot with
# these options (same as config/rtmon-modprobe.conf).
RPROVIDES:${PN} += "kernel-module-rtmon"
KERNEL_MODULE_AUTOLOAD += "rtmon"
KERNEL_MODULE_PROBECONF += "rtmon"
module_conf_rtmon = "options rtmon ring_slots=4096 autostart=1"
