/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the RoCE device does with the mbufs of the frames it received once
 * it is done with them (at the start of the next engine run): a plain one
 * (one segment of the device's own pool, direct, no other reference)
 * becomes the mbuf of the next frame it sends, while its stash of mbufs
 * for sending has room; any other goes back to its pool, every segment
 * (a clone detached), and a reference the program holds stays valid and
 * its frame untouched.
 *
 * One process, a RoCE device on a port made of two rings the program
 * holds (ringport.h): frames are put on the receive ring by hand (for
 * another MAC, so the device drops them unparsed; the chained one as
 * malformed), and what the device sends (UC SENDs, which nothing
 * acknowledges or sends again) is taken off the transmit ring.  The
 * device's stash is known at every step: empty on a new device, one
 * less per frame sent and one more per plain frame let go, and filled to
 * its ROCE_STASH after a transmit that leaves it less than half full.
 * The device's pool is the one its first frame sent comes from.
 *
 *   rx_release      run by ring.sh (EAL arguments)
 */
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "ringport.h"
#include "roce.h"         /* ROCE_STASH */
#include "vt.h"

enum { RING = 64, FRAME = 60 };

static struct vt v;
static struct ringport rp;
static struct vt_pair uc;
static struct rte_mempool *dpool;       /* the device's (send_one()) */
static struct rte_mempool *own;         /* the program's */
static unsigned int stash;              /* the device's stash, as the
					 * steps above make it */

static unsigned int in_use(void)
{
	return rte_mempool_in_use_count(dpool);
}

/* A frame for another host in an mbuf of pool mp, its bytes numbered
 * from `tag`. */
static struct rte_mbuf *frame(struct rte_mempool *mp, uint8_t tag)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *f;

	CHECK(m != NULL);
	f = (uint8_t *)rte_pktmbuf_append(m, FRAME);
	CHECK(f != NULL);
	for (int i = 0; i < FRAME; i++)
		f[i] = (uint8_t)(tag + i);
	f[0] = 0x02;                            /* not the device's MAC */
	f[12] = 0x88;
	f[13] = 0xB5;
	return m;
}

static bool frame_intact(const struct rte_mbuf *m, uint8_t tag)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	for (int i = 1; i < FRAME; i++)
		if (i != 12 && i != 13 && f[i] != (uint8_t)(tag + i))
			return false;
	return m->data_len == FRAME && m->pkt_len == FRAME;
}

/* The device takes in the n frames as one receive burst, then lets them
 * go at its next run.  *before: its port's counters before the burst. */
static void receive(struct rte_mbuf **m, unsigned int n,
		    struct pmr_roce_port_stats *before)
{
	CHECK_EQ(pmr_roce_port_stats(v.dev, before), 0);
	CHECK_EQ(rte_ring_enqueue_bulk(rp.rx, (void **)m, n, NULL), n);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	CHECK_EQ(rte_ring_count(rp.rx), 0);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
}

/* One UC SEND from QP 0 (completed once it is on the port); its frame
 * is taken off the transmit ring and freed.  @return its mbuf (only to
 * compare: it is back in the pool). */
static const struct rte_mbuf *send_one(uint64_t wr_id)
{
	static uint8_t payload[16];
	struct pmr_sge sg = { (uintptr_t)payload, sizeof(payload), 0 };
	struct pmr_send_wr w = vt_swr(wr_id, PMR_WR_SEND, &sg, 1,
				      PMR_SEND_INLINE | PMR_SEND_SIGNALED);
	struct pmr_wc wc;
	void *m = NULL;

	CHECK_EQ(vt_post_send1(uc.qp[0], &w), 0);
	vt_poll1(uc.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, wr_id);
	CHECK_EQ(rte_ring_dequeue(rp.tx, &m), 0);
	CHECK_EQ(rte_ring_count(rp.tx), 0);
	if (dpool == NULL)
		dpool = ((struct rte_mbuf *)m)->pool;
	CHECK(((struct rte_mbuf *)m)->pool == dpool);
	rte_pktmbuf_free(m);
	/* the frame's mbuf came from the stash (from the pool when it was
	 * empty); a stash left less than half full is filled after the
	 * transmit */
	stash = stash > 0 ? stash - 1 : 0;
	if (stash < ROCE_STASH / 2)
		stash = ROCE_STASH;
	return m;
}

/* A plain frame is kept in the stash (the pool's count does not move)
 * and is the next frame sent. */
static void plain(void)
{
	struct pmr_roce_port_stats ps, before;
	struct rte_mbuf *m;
	unsigned int u;

	CHECK(stash < ROCE_STASH);
	m = frame(dpool, 1);
	u = in_use();
	receive(&m, 1, &before);
	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);
	EXPECT_EQ_MSG(ps.rx_drop_not_roce - before.rx_drop_not_roce, 1u,
		      "the frame for another host not counted");
	EXPECT_EQ_MSG(in_use(), u, "a plain frame went back to the pool "
		      "with room in the stash");
	stash++;
	EXPECT_EQ_MSG(send_one(10), m, "the next frame sent is not in the "
		      "plain frame's mbuf");
	printf("plain: kept, and the next frame sent\n");
}

/* A frame the program holds a reference to: the device lets its own
 * reference go, does not reuse the mbuf, and its bytes stay as sent. */
static void referenced(void)
{
	struct pmr_roce_port_stats before;
	struct rte_mbuf *m = frame(dpool, 2);
	unsigned int u;

	CHECK(stash < ROCE_STASH);
	rte_mbuf_refcnt_update(m, 1);
	u = in_use();
	receive(&m, 1, &before);
	EXPECT_EQ_MSG(rte_mbuf_refcnt_read(m), 1u, "the device kept its "
		      "reference to a frame the program holds");
	EXPECT_EQ(in_use(), u);
	EXPECT_MSG(send_one(20) != m, "a frame the program holds was sent "
		   "in");
	EXPECT_MSG(frame_intact(m, 2), "a frame the program holds was "
		   "changed");
	/* the program's reference was the last: the mbuf goes back to the
	 * pool (as did the frame sent, taken off the ring and freed) */
	rte_pktmbuf_free(m);
	EXPECT_EQ(in_use(), u - 2);
	printf("referenced: the device's reference let go, the frame "
	       "untouched\n");
}

/* A frame in an indirect mbuf (a clone of one the program holds):
 * detached and freed, the data's own mbuf held by the program alone
 * again and untouched. */
static void indirect(void)
{
	struct pmr_roce_port_stats before;
	struct rte_mbuf *m = frame(dpool, 9), *c;
	unsigned int u;

	CHECK(stash < ROCE_STASH);
	c = rte_pktmbuf_clone(m, dpool);
	CHECK(c != NULL && RTE_MBUF_CLONED(c));
	u = in_use();
	receive(&c, 1, &before);
	EXPECT_EQ_MSG(rte_mbuf_refcnt_read(m), 1u, "a clone received still "
		      "holds the program's frame");
	EXPECT_EQ_MSG(in_use(), u - 1, "a clone received not back in the "
		      "pool");
	EXPECT_MSG(send_one(25) != c, "a clone received was sent in");
	EXPECT_MSG(frame_intact(m, 9), "a cloned frame was changed");
	rte_pktmbuf_free(m);
	printf("indirect: detached and freed, the frame untouched\n");
}

/* A frame of two segments: dropped as malformed, both segments back to
 * the pool. */
static void chained(void)
{
	struct pmr_roce_port_stats ps, before;
	struct rte_mbuf *m, *tail;
	unsigned int u = in_use();

	CHECK(stash < ROCE_STASH);
	m = frame(dpool, 3);
	tail = frame(dpool, 4);
	CHECK_EQ(rte_pktmbuf_chain(m, tail), 0);
	receive(&m, 1, &before);
	CHECK_EQ(pmr_roce_port_stats(v.dev, &ps), 0);
	EXPECT_EQ_MSG(ps.rx_drop_malformed - before.rx_drop_malformed, 1u,
		      "the chained frame not dropped as malformed");
	EXPECT_EQ_MSG(in_use(), u, "the segments of a chained frame not "
		      "back in the pool (%u in use, %u before)", in_use(), u);
	EXPECT_MSG(send_one(30) != m, "a chained frame's first segment was "
		   "sent in");
	printf("chained: both segments back in the pool\n");
}

/* A frame of another pool goes back to that pool. */
static void foreign(void)
{
	struct pmr_roce_port_stats before;
	struct rte_mbuf *m = frame(own, 5);
	unsigned int u = in_use();

	CHECK(stash < ROCE_STASH);
	receive(&m, 1, &before);
	EXPECT_EQ_MSG(rte_mempool_in_use_count(own), 0u, "a frame of "
		      "another pool not given back to it");
	EXPECT_EQ(in_use(), u);
	EXPECT_MSG(send_one(40) != m, "a frame of another pool was sent in");
	printf("foreign: back to its own pool\n");
}

/* One burst of plain frames, one more than the stash has room for: the
 * stash fills, the last goes back to the pool. */
static void overflow(void)
{
	struct pmr_roce_port_stats before;
	struct rte_mbuf *m[ROCE_STASH];
	unsigned int n = ROCE_STASH - stash + 1, u;

	CHECK(n <= ROCE_STASH);
	for (unsigned int i = 0; i < n; i++)
		m[i] = frame(dpool, (uint8_t)(6 + i));
	u = in_use();
	receive(m, n, &before);
	EXPECT_EQ_MSG(in_use(), u - 1, "%u plain frames with room for %u in "
		      "the stash: %u back in the pool, expected 1", n, n - 1,
		      u - in_use());
	stash = ROCE_STASH;
	/* the stash is used from its top: the burst's last frame kept is
	 * the next sent */
	EXPECT_EQ_MSG(send_one(50), m[n - 2], "the next frame sent is not "
		      "the last one kept");
	printf("overflow: %u kept, 1 back to the pool\n", n - 1);
}

int main(void)
{
	struct vt_opts o = vt_opts_default();

	own = ringport_open(&rp, &v, "rxrel", RING, 96, 63);
	vt_pair(&v, PMR_QPT_UC, &o, 0, &uc);
	CHECK_EQ(rte_ring_count(rp.tx), 0);    /* nothing sent yet */

	send_one(1);                            /* the stash: full */
	send_one(2);                            /* one place free */
	plain();
	referenced();
	indirect();
	chained();
	foreign();
	overflow();

	vt_pair_destroy(&uc);
	CHECK(pmr_progress(v.ctx, 32) >= 0);
	vt_close(&v);
	return vt_exit();
}
