// SPDX-License-Identifier: GPL-2.0
/*
 * safe_dir.c - whether rtmond may write in a directory (snapshot.dir, the
 * metrics textfile's directory).
 *
 * Someone else who can write in it, or in a directory above it, could
 * plant a symlink where rtmond writes (as root: misses.jsonl -> /etc/...),
 * a FIFO that blocks its writer, a file of theirs that rtmond then fills
 * (to read or forge misses), or move the directory away and put their own
 * in its place. The rule, like sshd's StrictModes: the directory (symlinks
 * resolved: an administrator may link it elsewhere) is owned by root or
 * rtmond's uid and writable by nobody else (no group or other write bit);
 * so is every directory above it, except that one with the sticky bit
 * (/tmp) may be writable by all: others cannot rename or remove what they
 * do not own in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtmond.h"

int rtmond_dir_safe(const char *dir, char *why, size_t len)
{
	char real[PATH_MAX], *s;
	struct stat st;
	int top = 1, e;

	if (!realpath(dir, real)) {
		e = errno;
		snprintf(why, len, "%s: %s", dir, strerror(e));
		return -e;
	}
	for (;;) {
		if (stat(real, &st)) {
			e = errno;
			snprintf(why, len, "%s: %s: %s", dir, real, strerror(e));
			return -e;
		}
		if (top && !S_ISDIR(st.st_mode)) {
			snprintf(why, len, "%s: %s", dir, strerror(ENOTDIR));
			return -ENOTDIR;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid()) {
			snprintf(why, len, "%s refused: %s is owned by uid %u (want root%s): "
				 "another user could replace rtmond's files", dir, real,
				 (unsigned int)st.st_uid, geteuid() ? " or rtmond's uid" : "");
			return -EPERM;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (top || !(st.st_mode & S_ISVTX))) {
			snprintf(why, len, "%s refused: %s is writable by %s (mode %04o%s): "
				 "another user could replace rtmond's files (chmod go-w %s)",
				 dir, real, st.st_mode & S_IWOTH ? "anyone" : "its group",
				 (unsigned int)(st.st_mode & 07777),
				 top ? "" : ", not sticky", real);
			return -EPERM;
		}
		if (!strcmp(real, "/"))
			return 0;
		s = strrchr(real, '/');
		if (s == real)
			s[1] = 0;
		else
			*s = 0;
		top = 0;
	}
}
