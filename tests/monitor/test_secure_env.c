// SPDX-License-Identifier: GPL-2.0
/*
 * test_secure_env: librtmon in a privileged program (issue 21, item 3).
 * librtmon loads its LTTng provider from $RTMON_UST_PROVIDER; in a setuid
 * or file-capability program (AT_SECURE) that would load whatever library
 * the unprivileged caller names. test_secure_env.sh runs this program
 * plain and setuid with a provider that leaves a file when loaded.
 */
#include <stdio.h>
#include "rtmon/rtmon.h"

int main(void)
{
	int ret = rtmon_init();	/* loads the provider, then opens /dev/rtmon */

	printf("rtmon_init: %d\n", ret);
	return 0;
}
