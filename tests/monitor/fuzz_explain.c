// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_explain.c - libFuzzer harness for the ftrace snapshot reader and
 * the explanation of a miss (monitor/explain): any input is read without
 * a crash or a leak, and explaining a fixed chain (timer -> handler ->
 * waking -> switch_in of pid 179 on cpu 1, as in data/explain) with the
 * events it gave yields parts that add up to the chain's latency.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "rtm_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rtx_result r;
	struct rtx_chain c = {
		.seq = 1, .kind = RTM_KIND_TIMER, .source = 179, .nhops = 4,
		.start = 8550384840ull, .end = 8553746330ull,
	};
	struct fts_trace t;

	c.hops[0] = (struct rtx_hop){ 8550384840ull, 1, RTM_HOP_TIMER, RTM_CTX_HARDIRQ, 0, "" };
	c.hops[1] = (struct rtx_hop){ 8550433060ull, 1, RTM_HOP_TIMER_RUN, RTM_CTX_HARDIRQ, 0, "" };
	c.hops[2] = (struct rtx_hop){ 8550453310ull, 1, RTM_HOP_WAKING, RTM_CTX_HARDIRQ, 179, "cyclictest" };
	c.hops[3] = (struct rtx_hop){ 8553746330ull, 1, RTM_HOP_SWITCH_IN, RTM_CTX_TASK, 179, "cyclictest" };
	if (fts_parse(&t, (const char *)data, size))
		return 0;
	if (t.n > t.cap || t.bad_lines > t.lines)
		abort();
	rtx_explain(&c, &t, &r);
	if (r.sum != r.latency || r.nparts > RTX_MAX_PARTS)
		abort();
	fts_free(&t);
	return 0;
}
