/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's device removed: a PMD raises RTE_ETH_EVENT_INTR_RMV when
 * its NIC is unplugged or fails; this program raises it on its net_ring
 * port as a PMD would, through ethdev's driver interface.  One process,
 * a RoCE device on a net_ring vdev that receives its own frames
 * (ring.sh).
 *
 * - before: nothing; a SEND passes between two RC QPs;
 * - after the removal, at the engine's next look at the port (10 ms):
 *   one DEVICE_FATAL on the context, port 1, and nothing more;
 *   pmr_query_port DOWN; the QPs in ERR, their receives posted before
 *   flushed (WR_FLUSH_ERR), a SEND posted after flushed too, never sent;
 *   no receive burst either (a frame put on the port's ring stays);
 * - a QP made after it goes to RESET or ERR, nowhere else (EIO);
 * - a context opened after it (the first closed) is told too: one
 *   DEVICE_FATAL at its first engine run, its port DOWN.
 *
 *   dev_removed        run by ring.sh
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <pmr_verbs.h>

#include "vt.h"
#include "port_counts.h"     /* after vt.h */

/* ethdev's driver interface (ethdev_driver.h, not installed): what a PMD
 * calls to raise an event of its port */
struct rte_eth_dev;
struct rte_eth_dev *rte_eth_dev_allocated(const char *name);
int rte_eth_dev_callback_process(struct rte_eth_dev *dev,
				 enum rte_eth_event_type event,
				 void *ret_param);

enum { PORT = 0 };      /* ring.sh's net_ring0 */

static void pmd_says_removed(void)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *ed;

	CHECK_EQ(rte_eth_dev_get_name_by_port(PORT, name), 0);
	ed = rte_eth_dev_allocated(name);
	CHECK(ed != NULL);
	rte_eth_dev_callback_process(ed, RTE_ETH_EVENT_INTR_RMV, NULL);
}

/* Frames port 0 has given to whoever polls it. */
static uint64_t port_taken(void)
{
	struct rte_eth_stats st;

	CHECK_EQ(rte_eth_stats_get(PORT, &st), 0);
	return st.ipackets;
}

/* A frame put on the port's ring (net_ring: what the port sends, it
 * receives), which no one takes once the device is removed. */
static void frame_offered(void)
{
	static struct rte_mempool *mp;
	struct rte_mbuf *m;

	if (mp == NULL)
		mp = rte_pktmbuf_pool_create("dev_removed", 63, 0, 0,
					     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(mp != NULL);
	m = rte_pktmbuf_alloc(mp);
	CHECK(m != NULL);
	CHECK(rte_pktmbuf_append(m, 60) != NULL);
	memset(rte_pktmbuf_mtod(m, void *), 0xff, 60);
	CHECK_EQ(rte_eth_tx_burst(PORT, 0, &m, 1), 1);
}

static enum pmr_port_state port_state(struct vt *v)
{
	struct pmr_port_attr pa;

	CHECK_EQ(pmr_query_port(v->ctx, 1, &pa), 0);
	return pa.state;
}

/* A flushed completion of wr_id on cq, within 2 s. */
static void flushed(struct pmr_cq *cq, uint64_t wr_id, const char *what)
{
	struct pmr_wc wc;

	EXPECT_EQ_MSG(vt_poll(cq, 1, &wc, 2000), 1, "no completion of %s",
		      what);
	EXPECT_EQ_MSG(wc.status, PMR_WC_WR_FLUSH_ERR, "%s", what);
	EXPECT_EQ_MSG(wc.wr_id, wr_id, "%s", what);
}

int main(void)
{
	static uint8_t buf[4][64];
	struct vt_opts o = vt_opts_default();
	struct pmr_async_event ev;
	struct pmr_sge sge[4];
	struct pmr_send_wr swr;
	struct pmr_recv_wr rwr;
	struct vt_pair p;
	struct pmr_qp *late;
	struct pmr_mr *mr;
	uint64_t tx0, rx0;
	struct vt v;

	vt_open(&v);
	vt_send_passes(&v);
	EXPECT_EQ_MSG(vt_events_after(&v, 50, &ev), 0, "events at the start");

	vt_pair(&v, PMR_QPT_RC, &o, 1, &p);
	mr = vt_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < 4; i++)
		sge[i] = (struct pmr_sge){ .addr = (uintptr_t)buf[i],
					   .length = 64, .lkey = mr->lkey };
	rwr = vt_rwr(10, &sge[0], 1);
	CHECK_EQ(vt_post_recv1(p.qp[1], &rwr), 0);
	rwr = vt_rwr(11, &sge[1], 1);
	CHECK_EQ(vt_post_recv1(p.qp[1], &rwr), 0);
	rwr = vt_rwr(20, &sge[2], 1);
	CHECK_EQ(vt_post_recv1(p.qp[0], &rwr), 0);

	pmd_says_removed();
	vt_port_event(&v, PMR_EVENT_DEVICE_FATAL, 100, "after the removal");
	EXPECT_EQ(port_state(&v), PMR_PORT_DOWN);
	EXPECT_EQ_MSG(vt_state(p.qp[0]), PMR_QPS_ERR, "QP 0's state");
	EXPECT_EQ_MSG(vt_state(p.qp[1]), PMR_QPS_ERR, "QP 1's state");
	flushed(p.rcq[1], 10, "QP 1's first receive");
	flushed(p.rcq[1], 11, "QP 1's second receive");
	flushed(p.rcq[0], 20, "QP 0's receive");

	tx0 = port_sent();
	swr = vt_swr(30, PMR_WR_SEND, &sge[3], 1, PMR_SEND_SIGNALED);
	CHECK_EQ(vt_post_send1(p.qp[0], &swr), 0);
	flushed(p.scq[0], 30, "a SEND posted after the removal");
	EXPECT_EQ_MSG(vt_count(p.rcq[1], 100), 0, "a receive after the removal");
	EXPECT_EQ_MSG(port_sent() - tx0, (uint64_t)0,
		      "frames sent after the removal");
	rx0 = port_taken();
	frame_offered();
	EXPECT_EQ_MSG(vt_events_after(&v, 50, &ev), 0, "events after the "
		      "frame");
	EXPECT_EQ_MSG(port_taken() - rx0, (uint64_t)0,
		      "frames taken from the port after the removal");

	late = vt_qp(v.pd, PMR_QPT_RC, p.scq[0], p.rcq[0], 16, 1);
	EXPECT_EQ_MSG(vt_to_init(late, &o), EIO, "a new QP to INIT");
	EXPECT_EQ_MSG(vt_state(late), PMR_QPS_RESET, "the new QP's state");
	{
		struct pmr_qp_attr a = { .qp_state = PMR_QPS_ERR };

		EXPECT_EQ(pmr_modify_qp(late, &a, PMR_QP_STATE), 0);
	}
	EXPECT_EQ(pmr_destroy_qp(late), 0);
	EXPECT_EQ_MSG(vt_events_after(&v, 50, &ev), 0, "events after the "
		      "first DEVICE_FATAL");

	vt_pair_destroy(&p);
	CHECK_EQ(pmr_dereg_mr(mr), 0);
	vt_close(&v);

	/* a context opened now is told too */
	vt_open(&v);
	EXPECT_EQ(port_state(&v), PMR_PORT_DOWN);
	vt_port_event(&v, PMR_EVENT_DEVICE_FATAL, 100, "in a new context");
	vt_close(&v);
	return vt_exit();
}
