# The kernel options rtmon needs (a copy of config/kernel-rtmon.config;
# tests/pkg/run checks that the two agree).
FILESEXTRAPATHS:prepend := "${THISDIR}/files:"
SRC_URI += "file://kernel-rtmon.cfg"
