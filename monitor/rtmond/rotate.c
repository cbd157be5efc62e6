// SPDX-License-Identifier: GPL-2.0
/*
 * rotate.c - the names of a rotated line file (misses.jsonl,
 * records.jsonl): DIR/NAME becomes NAME.1, each NAME.K becomes NAME.K+1,
 * and no more than snapshot.keep_files of them are kept. When to rotate
 * and the file's lines are lines.c's.
 *
 * Renames only: a line is under exactly one name at any moment, and the
 * kept file that rename() replaces is the oldest. The directory is synced
 * once the new file is there, so that a power cut finds the names the
 * lines were acknowledged under.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "rtmond.h"

static void name_k(char *p, size_t len, const char *dir, const char *name, unsigned int k)
{
	if (k)
		snprintf(p, len, "%s/%s.%u", dir, name, k);
	else
		snprintf(p, len, "%s/%s", dir, name);
}

int rtmond_rotate_names(const char *dir, const char *name, unsigned int keep)
{
	char from[600], to[600];
	unsigned int k;

	/* those past keep, left by a larger keep_files before a reload */
	for (k = keep + 1; k <= RTMOND_MAX_KEEP_FILES + 1; k++) {
		name_k(from, sizeof(from), dir, name, k);
		if (unlink(from) && errno == ENOENT)
			break;
	}
	/* a gap (a name removed by hand) is no error: nothing to move there */
	for (k = keep; k > 0; k--) {
		name_k(from, sizeof(from), dir, name, k - 1);
		name_k(to, sizeof(to), dir, name, k);
		if (rename(from, to) && errno != ENOENT)
			return errno;
	}
	return 0;
}

int rtmond_rotate_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return errno;
	if (fsync(fd))
		e = errno;
	close(fd);
	return e;
}
