// SPDX-License-Identifier: GPL-2.0
/* mono: CLOCK_MONOTONIC in nanoseconds, for the icount bench's guest */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_MONOTONIC, &t))
		return 1;
	printf("%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
	return 0;
}
