// SPDX-License-Identifier: GPL-2.0
/* A stand-in LTTng provider: leaves $SECURE_ENV_MARK when it is loaded. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void loaded(void)
{
	const char *mark = getenv("SECURE_ENV_MARK");
	FILE *f = mark ? fopen(mark, "w") : NULL;

	if (f)
		fclose(f);
}
