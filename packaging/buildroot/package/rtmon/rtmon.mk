################################################################################
#
# rtmon
#
################################################################################

RTMON_VERSION = 0.3.0
RTMON_SITE = https://github.com/rtmon/rtmon.git
RTMON_SITE_METHOD = git
RTMON_LICENSE = GPL-2.0 (module, rtmond), LGPL-2.1+ or MIT (librtmon)
RTMON_LICENSE_FILES = kmod/rtmon_main.c monitor/lib/librtmon.c
RTMON_INSTALL_STAGING = YES
RTMON_DEPENDENCIES = libconfig libmicrohttpd lttng-libust lttng-tools liburcu jansson libcap

# rtmond's sd_notify (Type=notify rtmon.service) with systemd; BusyBox init: without
ifeq ($(BR2_PACKAGE_SYSTEMD),y)
RTMON_DEPENDENCIES += systemd
RTMON_SYSTEMD = 1
else
RTMON_SYSTEMD = 0
endif

# the module: kernel-module infrastructure, make -C $(LINUX_DIR) M=$(@D)/kmod (kmod/Kbuild)
RTMON_MODULE_SUBDIRS = kmod

define RTMON_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D)/monitor O=$(@D)/build/monitor PREFIX=/usr SYSTEMD=$(RTMON_SYSTEMD) \
		CC="$(TARGET_CC)" AR="$(TARGET_AR)" CFLAGS="$(TARGET_CFLAGS)" LDFLAGS="$(TARGET_LDFLAGS)"
endef

# man pages and bash completions installed too, where every package puts
# them: target-finalize removes /usr/share/man from the image, and
# /usr/share/bash-completion unless bash is in it (BR2_PACKAGE_BASH).
# Not rtmon-replay (install.sh's replay component): an offline tool that
# needs libtracecmd.
RTMON_INSTALL_ENV = PREFIX=/usr MULTIARCH= BUILD=$(@D)/build/monitor \
	SYSTEMDUNITDIR=/usr/lib/systemd/system UDEVRULESDIR=/usr/lib/udev/rules.d \
	MODPROBEDIR=/usr/lib/modprobe.d MANDIR=/usr/share/man \
	COMPLETIONSDIR=/usr/share/bash-completion/completions

define RTMON_INSTALL_STAGING_CMDS
	$(RTMON_INSTALL_ENV) DESTDIR=$(STAGING_DIR) $(@D)/scripts/install.sh lib dev
endef

define RTMON_INSTALL_TARGET_CMDS
	$(RTMON_INSTALL_ENV) DESTDIR=$(TARGET_DIR) $(@D)/scripts/install.sh lib daemon
endef

define RTMON_INSTALL_INIT_SYSTEMD
	mkdir -p $(TARGET_DIR)/usr/lib/systemd/system/basic.target.wants
	ln -sf ../rtmon.service $(TARGET_DIR)/usr/lib/systemd/system/basic.target.wants/rtmon.service
endef

define RTMON_INSTALL_INIT_SYSV
	$(INSTALL) -D -m 0755 $(RTMON_PKGDIR)/S50rtmon $(TARGET_DIR)/etc/init.d/S50rtmon
endef

define RTMON_USERS
	- - rtmon -1 - - - - rtmon device and output group
endef

define RTMON_PERMISSIONS
	/var/lib/rtmon d 2750 0 rtmon - - - - -
endef

$(eval $(kernel-module))
$(eval $(generic-package))
