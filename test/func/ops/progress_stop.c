/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stopping progress: pmr_set_progress_mode(ctx, PMR_PROGRESS_MANUAL) on a
 * context that has QPs, in the middle of traffic.  One process, a RoCE
 * device on a net_ring vdev that receives its own frames (two QPs
 * connected to each other); what the port took is the port's own counter
 * (rte_eth_stats_get).
 *
 * The context starts in the device's mode (service: a service lcore runs
 * the engine; inline: post and poll run it).  A stream of signaled
 * 64 KiB WRITEs is posted and, once the first has completed, the mode
 * switched to manual while the others are in flight.  From the switch's return on, polling runs nothing: the port
 * takes no frame and no completion comes while the program polls (with
 * service progress the engine's DPDK service is gone as well); then
 * pmr_progress alone completes every WRITE, each once, in order,
 * successfully, with its data in place.  A WRITE posted in manual mode
 * leaves only at pmr_progress.  Another mode with QPs is still refused
 * (EBUSY) and changes nothing; manual again is 0.
 *
 *   progress_stop service|inline     the device's progress= argument
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_service.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "vt.h"
#include "port_counts.h"

enum { N = 48, LEN = 65536 };     /* (vt_pair: 64 send WRs) */

static struct vt v;

/* Whether the engine's service (pmr_roce_0, the only device) exists. */
static bool service_exists(void)
{
	uint32_t id;

	return rte_service_get_by_name("pmr_roce_0", &id) == 0;
}

/* Poll cq for ms milliseconds (no engine runs in manual mode): the frames
 * the port took and the completions that came meanwhile must be none. */
static void nothing_moves(struct pmr_cq *cq, int ms, const char *when)
{
	uint64_t s0 = port_sent();
	int c = vt_count(cq, ms);

	EXPECT_EQ_MSG(port_sent() - s0, 0u, "frames sent %s", when);
	EXPECT_EQ_MSG(c, 0, "completions %s", when);
}

/* pmr_progress until want completions have come on cq (fatal after 20 s);
 * they must be wr_ids next, next + 1, ... and successful. */
static void progress_until(struct pmr_cq *cq, uint64_t *next, uint64_t want)
{
	uint64_t end = vt_now_ms() + 20000, got = 0;
	struct pmr_wc wc[16];

	while (got < want) {
		int r;

		CHECK(pmr_progress(v.ctx, 32) >= 0);
		r = pmr_poll_cq(cq, 16, wc);
		CHECK(r >= 0);
		for (int i = 0; i < r; i++) {
			CHECK_WC(wc[i], PMR_WC_SUCCESS);
			CHECK_EQ(wc[i].wr_id, *next);
			(*next)++;
		}
		got += (uint64_t)r;
		if (vt_now_ms() > end) {
			fprintf(stderr, "%llu of %llu completions within 20 s\n",
				(unsigned long long)got,
				(unsigned long long)want);
			CHECK(got == want);
		}
	}
}

static struct pmr_send_wr write_wr(uint64_t id, struct pmr_sge *sg,
				   uint8_t *dst, struct pmr_mr *mr)
{
	struct pmr_send_wr w = vt_swr(id, PMR_WR_RDMA_WRITE, sg, 1,
				      PMR_SEND_SIGNALED);

	w.wr.rdma.remote_addr = (uintptr_t)dst;
	w.wr.rdma.rkey = mr->rkey;
	return w;
}

int main(int argc, char **argv)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_mr *mr;
	struct pmr_sge sg[N + 1];
	struct pmr_wc wc[N];
	uint8_t *src, *dst;
	uint64_t next = 0;
	bool service;
	int early;

	if (argc != 2 || (strcmp(argv[1], "service") != 0 &&
			  strcmp(argv[1], "inline") != 0)) {
		fprintf(stderr, "usage: progress_stop service|inline\n");
		return 2;
	}
	service = strcmp(argv[1], "service") == 0;
	vt_open(&v);
	EXPECT_EQ_MSG(service_exists(), service, "the engine's service before");
	src = aligned_alloc(4096, 2u * (N + 1) * LEN);
	CHECK(src != NULL);
	dst = src + (size_t)(N + 1) * LEN;
	for (size_t i = 0; i < (size_t)(N + 1) * LEN; i++) {
		src[i] = (uint8_t)(i * 7 + i / 4093);
		dst[i] = 0;
	}
	mr = vt_mr(v.pd, src, 2u * (N + 1) * LEN,
		   PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE);
	o.timeout = 18;          /* 1 s: no retry while the engine stands */
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);

	/* the stream, and the switch while it is in flight */
	for (int i = 0; i < N; i++) {
		struct pmr_send_wr w;

		sg[i] = (struct pmr_sge){ (uintptr_t)(src + (size_t)i * LEN),
					  LEN, mr->lkey };
		w = write_wr((uint64_t)i, &sg[i], dst + (size_t)i * LEN, mr);
		CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	}
	/* the first completion (inline: polling runs the engine), then the
	 * switch */
	vt_poll1(p.scq[0], &wc[0]);
	CHECK_WC(wc[0], PMR_WC_SUCCESS);
	CHECK_EQ(wc[0].wr_id, next);
	next++;
	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_MANUAL), 0);
	EXPECT_MSG(!service_exists(), "the engine's service is still there");
	/* what had completed by then is in the CQ now, and nothing more
	 * comes without pmr_progress */
	early = pmr_poll_cq(p.scq[0], N, wc);
	CHECK(early >= 0);
	for (int i = 0; i < early; i++) {
		CHECK_WC(wc[i], PMR_WC_SUCCESS);
		CHECK_EQ(wc[i].wr_id, next);
		next++;
	}
	early += 1;
	printf("%s: %d of %d WRITEs had completed at the switch\n", argv[1],
	       early, N);
	if (early == N) {
		fprintf(stderr, "every WRITE completed before the switch: the "
			"case cannot judge\n");
		return 1;
	}
	nothing_moves(p.scq[0], 200, "after the switch to manual");
	progress_until(p.scq[0], &next, (uint64_t)(N - early));
	EXPECT(memcmp(src, dst, (size_t)N * LEN) == 0);

	/* a WRITE posted in manual mode waits for pmr_progress */
	sg[N] = (struct pmr_sge){ (uintptr_t)(src + (size_t)N * LEN), LEN,
				  mr->lkey };
	{
		struct pmr_send_wr w = write_wr(next, &sg[N],
						dst + (size_t)N * LEN, mr);

		CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	}
	nothing_moves(p.scq[0], 50, "after a post in manual mode");

	/* another mode with QPs: refused, still manual */
	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_INLINE), EBUSY);
	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_SERVICE), EBUSY);
	EXPECT(!service_exists());
	nothing_moves(p.scq[0], 50, "after the refused mode changes");
	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_MANUAL), 0);
	nothing_moves(p.scq[0], 50, "after manual again");
	progress_until(p.scq[0], &next, 1);
	EXPECT(memcmp(src + (size_t)N * LEN, dst + (size_t)N * LEN, LEN) == 0);
	CHECK_EQ(vt_count(p.scq[0], 20), 0);
	printf("%s: stopped by the switch to manual, every WRITE completed "
	       "once, in order, by pmr_progress\n", argv[1]);

	vt_pair_destroy(&p);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	free(src);
	vt_close(&v);
	return vt_exit();
}
