SUMMARY = "rtmon user space: rtmond daemon, rtmonctl, rtmon-mark, librtmon"
DESCRIPTION = "rtmond reads rtmon.ko's chain records, keeps per-target \
latency histograms, saves ftrace/LTTng snapshots of deadline misses and \
exports Prometheus metrics; started at boot by rtmon.service."
HOMEPAGE = "https://github.com/rtmon/rtmon"
SECTION = "console/utils"
LICENSE = "GPL-2.0-only & (LGPL-2.1-or-later | MIT)"
LIC_FILES_CHKSUM = "file://monitor/rtmond/rtmond.c;beginline=1;endline=1;md5=50d2ba0afecd20f74c12a4bdbcfcfe61"

DEPENDS = "libconfig libmicrohttpd lttng-tools lttng-ust userspace-rcu jansson libcap"

# bash-completion: the completions go to ${PN}-bash-completion
inherit pkgconfig systemd useradd bash-completion

SRC_URI = "${RTMON_SRC_URI}"
SRCREV = "${RTMON_SRCREV}"
PV = "0.3.0+git${SRCPV}"
S = "${WORKDIR}/git"

# rtmond's sd_notify (Type=notify unit) with systemd; SYSTEMD=0 without
PACKAGECONFIG ??= "${@bb.utils.filter('DISTRO_FEATURES', 'systemd', d)}"
PACKAGECONFIG[systemd] = "SYSTEMD=1,SYSTEMD=0,systemd"

EXTRA_OEMAKE = "-C ${S}/monitor O=${B}/monitor PREFIX=${prefix} \
	'CC=${CC}' 'AR=${AR}' 'CFLAGS=${CFLAGS}' 'LDFLAGS=${LDFLAGS}' ${PACKAGECONFIG_CONFARGS}"

do_compile() {
	oe_runmake
}

# scripts/install.sh with the distribution's directories (the man pages go
# to ${PN}-doc, librtmon.3 with the dev component). Not rtmon-replay (the
# replay component): an offline tool that needs libtracecmd.
do_install() {
	DESTDIR=${D} PREFIX=${prefix} SYSCONFDIR=${sysconfdir} MULTIARCH= \
	LIBDIR=${libdir} BUILD=${B}/monitor \
	MANDIR=${mandir} COMPLETIONSDIR=${datadir}/bash-completion/completions \
	SYSTEMDUNITDIR=${systemd_system_unitdir} \
	UDEVRULESDIR=${nonarch_base_libdir}/udev/rules.d \
	MODPROBEDIR=${nonarch_base_libdir}/modprobe.d \
	MODULESLOADDIR=${nonarch_libdir}/modules-load.d \
	TMPFILESDIR=${nonarch_libdir}/tmpfiles.d \
	SYSUSERSDIR=${nonarch_libdir}/sysusers.d \
	${S}/scripts/install.sh lib dev daemon
	# rtmon-mod loads the module with its own options (KERNEL_MODULE_AUTOLOAD)
	rm -f ${D}${nonarch_libdir}/modules-load.d/rtmon.conf ${D}${nonarch_base_libdir}/modprobe.d/rtmon.conf
}

PACKAGES =+ "librtmon"
FILES:librtmon = "${libdir}/librtmon.so.* ${libdir}/librtmon-ust.so*"
# librtmon-ust.so is the LD_PRELOAD name, not a development link
INSANE_SKIP:librtmon += "dev-so"
FILES:${PN} += "${systemd_system_unitdir}/rtmon.service \
	${nonarch_base_libdir}/udev/rules.d/60-rtmon.rules \
	${nonarch_libdir}/tmpfiles.d/rtmon.conf ${nonarch_libdir}/sysusers.d/rtmon.conf"
CONFFILES:${PN} = "${sysconfdir}/rtmon/rtmon.conf ${sysconfdir}/logrotate.d/rtmon"

SYSTEMD_SERVICE:${PN} = "rtmon.service"
SYSTEMD_AUTO_ENABLE:${PN} = "enable"

USERADD_PACKAGES = "${PN}"
GROUPADD_PARAM:${PN} = "--system rtmon"

RDEPENDS:${PN} += "kernel-module-rtmon"
# lttng-modules: the kernel channel of the miss snapshots (rtmond's README)
RRECOMMENDS:${PN} += "lttng-tools lttng-modules"
