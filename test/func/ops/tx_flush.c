/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCE device's tx_flush=N: a pass that builds frames hands them to
 * the port each time N bytes of them are queued, not only at its end, so
 * that the peer takes in a long message's first frames while the rest are
 * built.  One process, a RoCE device (mtu=4096) on a net_ring vdev that
 * receives its own frames (QPs connected to each other); the transmit
 * calls are the device's tx_bursts counter, the frames the port took its
 * own counter (rte_eth_stats_get).  Checked: the bursts of the post of a
 * 64 KiB WRITE (MTU 4096) and of a 16 KiB SEND (MTU 1024), every frame
 * taken by the port when the post returns; the bursts of a 64 KiB READ's
 * answers; each message's data in place, each completing once, nothing
 * sent again.  And that the post starts the ACK timer of what it sent,
 * also when every frame already left in its pass (tx_flush=1): a SEND to
 * a QP number nobody has, which no ACK answers, times out at the first
 * timer check of the engine runs that follow a wait longer than the
 * timeout, not a timeout later.
 *
 *   tx_flush N      N: the device's tx_flush in bytes as the test was
 *                   given it (0: off, the default on a net_ring port:
 *                   one burst a pass)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "vt.h"
#include "port_counts.h"

/* frame lengths over IPv4: Ethernet, IPv4, UDP, BTH, then the payload
 * and the ICRC; a WRITE's first packet has a RETH, a READ request a
 * RETH and no payload, a READ answer's first and last an AETH */
enum { HDRS = 14 + 20 + 8 + 12, ICRC = 4, RETH = 16, AETH = 4 };

static struct vt v;
static uint32_t flush;       /* tx_flush: bytes, 0 for off */

static uint64_t bursts(void)
{
	return roce_counts(v.dev).tx_bursts;
}

/* The bursts in which one pass hands frames of these lengths to the
 * port: one each time `flush` bytes are queued, and one at the end for
 * what is left. */
static uint64_t want_bursts(const uint32_t *len, unsigned int n)
{
	uint64_t b = 0, q = 0;

	for (unsigned int i = 0; i < n; i++) {
		q += len[i];
		if (flush > 0 && q >= flush) {
			b++;
			q = 0;
		}
	}
	return b + (q > 0);
}

/* A message of `len` bytes from qp[0] (a WRITE into dst, or a SEND into
 * a receive on qp[1] at dst), posted once the QPs are in RTS: the bursts
 * the post makes and the frames the port took when it returns, then its
 * completion(s) and its data. */
static void one_message(struct vt_pair *p, enum pmr_wr_opcode op,
			uint32_t len, uint32_t mtu, uint8_t *src,
			uint8_t *dst, struct pmr_mr *mr)
{
	struct pmr_sge sg = { (uintptr_t)src, len, mr->lkey };
	struct pmr_send_wr w = vt_swr(1, op, &sg, 1, PMR_SEND_SIGNALED);
	uint32_t n = (len + mtu - 1) / mtu, flen[64];
	struct pmr_roce_qp_stats qs;
	struct pmr_wc wc;
	uint64_t b0, s0;

	CHECK(n <= 32);          /* post_send's pass sends up to 32 */
	for (uint32_t i = 0; i < n; i++)
		flen[i] = HDRS + (i + 1 < n ? mtu : len - i * mtu) + ICRC +
			  (op == PMR_WR_RDMA_WRITE && i == 0 ? RETH : 0);
	for (uint32_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 13 + len);
	memset(dst, 0, len);
	if (op == PMR_WR_SEND) {
		struct pmr_sge rs = { (uintptr_t)dst, len, mr->lkey };
		struct pmr_recv_wr r = vt_rwr(2, &rs, 1);

		CHECK_EQ(vt_post_recv1(p->qp[1], &r), 0);
	} else {
		w.wr.rdma.remote_addr = (uintptr_t)dst;
		w.wr.rdma.rkey = mr->rkey;
	}
	b0 = bursts();
	s0 = port_sent();
	CHECK_EQ(vt_post_send1(p->qp[0], &w), 0);
	EXPECT_EQ_MSG(port_sent() - s0, n, "%u-byte %s at MTU %u: frames "
		      "the port took in the post", len,
		      op == PMR_WR_SEND ? "SEND" : "WRITE", mtu);
	EXPECT_EQ_MSG(bursts() - b0, want_bursts(flen, n), "%u-byte %s at "
		      "MTU %u: bursts of the post", len,
		      op == PMR_WR_SEND ? "SEND" : "WRITE", mtu);
	CHECK_EQ(vt_poll(p->scq[0], 1, &wc, 2000), 1);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	if (op == PMR_WR_SEND) {
		CHECK_EQ(vt_poll(p->rcq[1], 1, &wc, 2000), 1);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		CHECK_EQ(wc.byte_len, len);
	}
	CHECK(memcmp(src, dst, len) == 0);
	CHECK_EQ(vt_count(p->scq[0], 50) + vt_count(p->rcq[1], 50), 0);
	CHECK_EQ(pmr_roce_qp_stats(p->qp[0], &qs), 0);
	EXPECT_EQ(qs.retransmits, 0u);
}

/* A 64 KiB READ at MTU 4096: its data in place, and with tx_flush its 16
 * answers in as many bursts as tx_flush gives them at the least (they
 * may leave over several engine runs, each ending with a burst). */
static void read_64k(struct vt_pair *p, uint8_t *src, uint8_t *dst,
		     struct pmr_mr *mr)
{
	enum { LEN = 65536, MTU = 4096, N = LEN / MTU };
	struct pmr_sge sg = { (uintptr_t)dst, LEN, mr->lkey };
	struct pmr_send_wr w = vt_swr(3, PMR_WR_RDMA_READ, &sg, 1,
				      PMR_SEND_SIGNALED);
	uint32_t flen[N];
	struct pmr_wc wc;
	uint64_t b0;

	for (uint32_t i = 0; i < N; i++)
		flen[i] = HDRS + MTU + ICRC + (i == 0 || i == N - 1 ? AETH : 0);
	for (uint32_t i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	memset(dst, 0, LEN);
	w.wr.rdma.remote_addr = (uintptr_t)src;
	w.wr.rdma.rkey = mr->rkey;
	b0 = bursts();
	CHECK_EQ(vt_post_send1(p->qp[0], &w), 0);
	CHECK_EQ(vt_poll(p->scq[0], 1, &wc, 2000), 1);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK(memcmp(src, dst, LEN) == 0);
	/* the request's burst, then the answers' */
	if (flush > 0)
		EXPECT_MSG(bursts() - b0 >= 1 + want_bursts(flen, N),
			   "64 KiB READ: %llu bursts, fewer than tx_flush "
			   "makes of its answers",
			   (unsigned long long)(bursts() - b0));
	CHECK_EQ(vt_count(p->scq[0], 50), 0);
}

/*
 * The post arms the local ACK timer: a one-frame SEND from a QP connected
 * to a QP number that is nobody's (the frame is dropped, no ACK comes),
 * timeout 14 (4.096 us x 2^14, some 67 ms).  After 150 ms with no engine
 * run, 64 quick ones (a timer check every 16) find it expired, when it
 * started at the post; one started by the first of them would be due
 * 67 ms after it.
 */
static void timer_at_post(struct vt_pair *p, uint8_t *src, struct pmr_mr *mr)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, p->scq[0], p->rcq[0], 4,
				  0);
	struct pmr_sge sg = { (uintptr_t)src, 64, mr->lkey };
	struct pmr_send_wr w = vt_swr(7, PMR_WR_SEND, &sg, 1,
				      PMR_SEND_SIGNALED);
	struct pmr_roce_qp_stats qs;
	struct pmr_wc wc;
	uint64_t s0;

	o.timeout = 14;
	o.retry_cnt = 0;
	vt_connect(&v, qp, 0xabcde, &o);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	s0 = port_sent();
	CHECK_EQ(vt_post_send1(qp, &w), 0);
	CHECK_EQ(port_sent() - s0, 1u);
	usleep(150000);
	for (int i = 0; i < 64; i++)
		CHECK(pmr_progress(v.ctx, 32) >= 0);
	CHECK_EQ(pmr_roce_qp_stats(qp, &qs), 0);
	EXPECT_EQ_MSG(qs.timeouts, 1u, "the ACK timer of a SEND whose frame "
		      "left in the post (tx_flush=%u): not expired 150 ms after "
		      "it, at the engine's next timer check", flush);
	/* retry_cnt 0: the timeout ends the WR, and the QP in error */
	CHECK_EQ(vt_poll(p->scq[0], 1, &wc, 2000), 1);
	CHECK_WC(wc, PMR_WC_RETRY_EXC_ERR);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
}

int main(int argc, char **argv)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_mr *mr;
	uint8_t *buf;
	char *end;

	if (argc != 2 || (flush = (uint32_t)strtoul(argv[1], &end, 10),
			  *end != '\0')) {
		fprintf(stderr, "usage: tx_flush N (bytes, 0: off)\n");
		return 2;
	}
	vt_open(&v);
	buf = calloc(2, 65536);
	CHECK(buf != NULL);
	mr = vt_mr(v.pd, buf, 2 * 65536, PMR_ACCESS_LOCAL_WRITE |
		   PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ);
	o.timeout = 18;         /* 1 s: no timer in the way of the counts */
	o.path_mtu = PMR_MTU_4096;
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
	/* an engine run first: it applies the QPs' moves to RTS */
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	one_message(&p, PMR_WR_RDMA_WRITE, 65536, 4096, buf, buf + 65536,
		    mr);
	one_message(&p, PMR_WR_RDMA_WRITE, 4000, 4096, buf, buf + 65536, mr);
	read_64k(&p, buf, buf + 65536, mr);
	timer_at_post(&p, buf, mr);
	vt_pair_destroy(&p);

	o.path_mtu = PMR_MTU_1024;
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	one_message(&p, PMR_WR_SEND, 16384, 1024, buf, buf + 65536, mr);
	one_message(&p, PMR_WR_SEND, 16000, 1024, buf, buf + 65536, mr);
	vt_pair_destroy(&p);
	printf("tx_flush=%u: WRITE, SEND and READ in the bursts it gives\n",
	       flush);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	free(buf);
	vt_close(&v);
	return vt_exit();
}
