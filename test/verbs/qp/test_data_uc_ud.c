/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UC and UD data path on the loopback device: UC SEND without a receive,
 * UC WRITE; UD SEND / RECV with the GRH, Q_Key checks, the sender-QKey
 * rule, messages above the MTU (LOC_LEN_ERR -> SQE); a UC WRITE the
 * responder refuses (dropped), a UD SEND of inline data and one whose
 * SGE no MR covers (LOC_PROT_ERR -> SQE).
 */
#include <arpa/inet.h>

#include "vt.h"

static struct vt v;
static uint8_t sbuf[16384], dbuf[16384];
static struct pmr_mr *smr, *dmr;

static void post_recv_ok(struct pmr_qp *qp, uint64_t id, void *buf,
			 uint32_t len)
{
	struct pmr_sge s = { (uintptr_t)buf, len, dmr->lkey };
	struct pmr_recv_wr r = vt_rwr(id, &s, 1);

	CHECK_EQ(vt_post_recv1(qp, &r), 0);
}

static void uc(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;

	vt_pair(&v, PMR_QPT_UC, &o, 0, &p);
	/* SEND with no receive posted: sender SUCCESS, nothing received */
	memset(sbuf, 'a', 100);
	s = (struct pmr_sge){ (uintptr_t)sbuf, 100, smr->lkey };
	w = vt_swr(1, PMR_WR_SEND, &s, 1, PMR_SEND_SIGNALED);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 1);
	CHECK_EQ(wc.opcode, PMR_WC_SEND);
	CHECK_EQ(vt_count(p.rcq[1], 10), 0);
	/* the dropped message is not delivered to a receive posted later */
	memset(dbuf, 0, 200);
	post_recv_ok(p.qp[1], 50, dbuf, 200);
	CHECK_EQ(vt_count(p.rcq[1], 10), 0);
	memset(sbuf, 'b', 100);
	w.wr_id = 2;
	s.length = 60;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 50);
	CHECK_EQ(wc.opcode, PMR_WC_RECV);
	CHECK_EQ(wc.byte_len, 60);
	CHECK_EQ(wc.src_qp, p.qp[0]->qp_num);
	CHECK_EQ(dbuf[0], 'b');
	CHECK_EQ(dbuf[59], 'b');
	CHECK_EQ(dbuf[60], 0);

	/* WRITE */
	memset(dbuf + 1000, 0, 600);
	for (int i = 0; i < 500; i++)
		sbuf[i] = (uint8_t)(i * 3);
	s = (struct pmr_sge){ (uintptr_t)sbuf, 500, smr->lkey };
	w = vt_swr(3, PMR_WR_RDMA_WRITE, &s, 1, PMR_SEND_SIGNALED);
	w.wr.rdma.remote_addr = (uintptr_t)dbuf + 1050;
	w.wr.rdma.rkey = dmr->rkey;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_RDMA_WRITE);
	CHECK(memcmp(dbuf + 1050, sbuf, 500) == 0);
	CHECK_EQ(dbuf[1049], 0);
	CHECK_EQ(dbuf[1550], 0);
	CHECK_EQ(vt_count(p.rcq[1], 0), 0);

	/* WRITE_WITH_IMM consumes a receive */
	memset(dbuf + 4000, 0x77, 64);
	post_recv_ok(p.qp[1], 51, dbuf + 4000, 64);
	w.wr_id = 4;
	w.opcode = PMR_WR_RDMA_WRITE_WITH_IMM;
	w.imm_data = htonl(42);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 51);
	CHECK_EQ(wc.opcode, PMR_WC_RECV_RDMA_WITH_IMM);
	CHECK_EQ(wc.byte_len, 500);
	CHECK(wc.wc_flags & PMR_WC_WITH_IMM);
	CHECK_EQ(wc.imm_data, htonl(42));
	CHECK_EQ(dbuf[4000], 0x77);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_RTS);
	CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
	vt_pair_destroy(&p);
}

static struct pmr_send_wr ud_wr(struct vt_pair *p, uint64_t id,
				struct pmr_sge *s, uint32_t len,
				uint32_t qkey)
{
	struct pmr_send_wr w;

	*s = (struct pmr_sge){ (uintptr_t)sbuf, len, smr->lkey };
	w = vt_swr(id, PMR_WR_SEND, s, 1, PMR_SEND_SIGNALED);
	w.wr.ud.ah = p->ah;
	w.wr.ud.remote_qpn = p->qp[1]->qp_num;
	w.wr.ud.remote_qkey = qkey;
	return w;
}

static void ud(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	struct pmr_qp_attr a;
	uint32_t mtu = (uint32_t)pmr_mtu_to_num(v.pattr.active_mtu);
	const uint8_t *ip = dbuf + 20;

	CHECK(mtu >= 256 && mtu + 100 < sizeof(sbuf));
	vt_pair(&v, PMR_QPT_UD, &o, 0, &p);

	/* a plain SEND of 1000 bytes */
	for (int i = 0; i < 1000; i++)
		sbuf[i] = (uint8_t)(i ^ 0x5a);
	memset(dbuf, 0xee, 2000);
	post_recv_ok(p.qp[1], 60, dbuf, 1040);
	w = ud_wr(&p, 1, &s, 1000, o.qkey);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.opcode, PMR_WC_SEND);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 60);
	CHECK_EQ(wc.opcode, PMR_WC_RECV);
	CHECK_EQ(wc.byte_len, 1000 + 40);
	CHECK_EQ(wc.wc_flags, PMR_WC_GRH);
	CHECK_EQ(wc.src_qp, p.qp[0]->qp_num);
	CHECK_EQ(wc.qp_num, p.qp[1]->qp_num);
	CHECK(memcmp(dbuf + 40, sbuf, 1000) == 0);
	CHECK_EQ(dbuf[1040], 0xee);
	for (int i = 0; i < 20; i++)
		CHECK_EQ(dbuf[i], 0);
	CHECK_EQ(ip[0] >> 4, 4);        /* IPv4 */
	CHECK_EQ(ip[0] & 15, 5);        /* IHL */
	CHECK_EQ(ip[9], 17);            /* UDP */
	CHECK_EQ(ip[12], 127);
	CHECK_EQ(ip[15], 1);
	CHECK_EQ(ip[16], 127);
	CHECK_EQ(ip[19], 1);

	/* SEND_WITH_IMM of exactly the MTU */
	memset(dbuf, 0xee, mtu + 100);
	post_recv_ok(p.qp[1], 61, dbuf, mtu + 40);
	w = ud_wr(&p, 2, &s, mtu, o.qkey);
	w.opcode = PMR_WR_SEND_WITH_IMM;
	w.imm_data = htonl(0xabcdef01);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, mtu + 40);
	CHECK_EQ(wc.wc_flags, PMR_WC_GRH | PMR_WC_WITH_IMM);
	CHECK_EQ(wc.imm_data, htonl(0xabcdef01));
	CHECK(memcmp(dbuf + 40, sbuf, mtu) == 0);
	CHECK_EQ(dbuf[mtu + 40], 0xee);

	/* wrong Q_Key: dropped, sender SUCCESS */
	post_recv_ok(p.qp[1], 62, dbuf, 1040);
	w = ud_wr(&p, 3, &s, 10, o.qkey + 1);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(vt_count(p.rcq[1], 10), 0);
	/* Q_Key with the high bit: the sender QP's qkey (equal: delivered) */
	w = ud_wr(&p, 4, &s, 11, 0x80000000u);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 62);
	CHECK_EQ(wc.byte_len, 51);
	/* ... and with the sender's qkey changed: dropped */
	memset(&a, 0, sizeof(a));
	a.qkey = 0x5555;
	CHECK_EQ(pmr_modify_qp(p.qp[0], &a, PMR_QP_QKEY), 0);
	post_recv_ok(p.qp[1], 63, dbuf, 1040);
	w = ud_wr(&p, 5, &s, 12, 0x80000000u | o.qkey);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(vt_count(p.rcq[1], 10), 0);
	/* to a QPN that does not exist: sent */
	w = ud_wr(&p, 6, &s, 12, o.qkey);
	w.wr.ud.remote_qpn = 0xfffff0;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);

	/* larger than the MTU: LOC_LEN_ERR, then SQE */
	w = ud_wr(&p, 7, &s, mtu + 1, o.qkey);
	w.send_flags = 0;   /* the error is reported even unsignaled */
	w.wr.ud.remote_qpn = p.qp[1]->qp_num;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_LOC_LEN_ERR);
	CHECK_EQ(wc.wr_id, 7);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_SQE);
	CHECK_EQ(vt_count(p.rcq[1], 5), 0);     /* 63 is still posted */
	/* sends are flushed */
	w = ud_wr(&p, 8, &s, 10, o.qkey);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_WR_FLUSH_ERR);
	CHECK_EQ(wc.wr_id, 8);
	/* receives still work on the SQE QP */
	post_recv_ok(p.qp[0], 64, dbuf + 8000, 1040);
	{
		struct pmr_send_wr w2;
		struct pmr_sge s2;

		w2 = ud_wr(&p, 9, &s2, 33, 0x5555);
		w2.wr.ud.remote_qpn = p.qp[0]->qp_num;
		CHECK_EQ(vt_post_send1(p.qp[1], &w2), 0);
		vt_poll1(p.scq[1], &wc);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		vt_poll1(p.rcq[0], &wc);
		CHECK_WC(wc, PMR_WC_SUCCESS);
		CHECK_EQ(wc.wr_id, 64);
		CHECK_EQ(wc.byte_len, 73);
		CHECK_EQ(wc.src_qp, p.qp[1]->qp_num);
	}
	/* SQE -> RTS: sending works again */
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	CHECK_EQ(pmr_modify_qp(p.qp[0], &a, PMR_QP_STATE), 0);
	w = ud_wr(&p, 10, &s, 14, o.qkey);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 63);
	CHECK_EQ(wc.byte_len, 54);
	CHECK_EQ(vt_async_drain(&v), 0);
	vt_pair_destroy(&p);
}

/*
 * UC: a WRITE with a key the responder does not know, or beyond its MR,
 * is dropped there (no NAK in UC): the sender's WR completes
 * successfully, nothing is written, both QPs stay in RTS.  UD: a SEND
 * of inline data arrives whole; one whose SGE no MR covers completes
 * with LOC_PROT_ERR, sends nothing and puts the QP in SQE.
 */
static void uc_ud_refused(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;

	vt_pair(&v, PMR_QPT_UC, &o, 0, &p);
	memset(dbuf, 0, 600);
	memset(sbuf, 'w', 100);
	s = (struct pmr_sge){ (uintptr_t)sbuf, 100, smr->lkey };
	w = vt_swr(1, PMR_WR_RDMA_WRITE, &s, 1, PMR_SEND_SIGNALED);
	w.wr.rdma.remote_addr = (uintptr_t)dbuf + 100;
	w.wr.rdma.rkey = dmr->rkey ^ 0x80;              /* unknown key */
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	w.wr_id = 2;
	w.wr.rdma.rkey = dmr->rkey;
	w.wr.rdma.remote_addr = (uintptr_t)dbuf + sizeof(dbuf) - 50;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);        /* beyond the MR */
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 2);
	for (int i = 0; i < 600; i++)
		CHECK_EQ(dbuf[i], 0);
	CHECK_EQ(dbuf[sizeof(dbuf) - 50], 0);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_RTS);
	CHECK_EQ(vt_state(p.qp[1]), PMR_QPS_RTS);
	vt_pair_destroy(&p);

	vt_pair(&v, PMR_QPT_UD, &o, 0, &p);
	memset(dbuf, 0xee, 200);
	post_recv_ok(p.qp[1], 70, dbuf, 200);
	memset(sbuf, 'i', 64);
	w = ud_wr(&p, 3, &s, 64, o.qkey);
	w.send_flags |= PMR_SEND_INLINE;
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	memset(sbuf, 'x', 64);  /* inline: the data was taken at the post */
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 70);
	CHECK_EQ(wc.byte_len, 40 + 64);
	CHECK_EQ(dbuf[40], 'i');
	CHECK_EQ(dbuf[40 + 63], 'i');
	CHECK_EQ(dbuf[40 + 64], 0xee);
	post_recv_ok(p.qp[1], 71, dbuf, 200);
	w = ud_wr(&p, 4, &s, 64, o.qkey);
	s.lkey = dmr->lkey;     /* an MR that does not cover sbuf */
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_LOC_PROT_ERR);
	CHECK_EQ(wc.wr_id, 4);
	CHECK_EQ(vt_state(p.qp[0]), PMR_QPS_SQE);
	CHECK_EQ(vt_count(p.rcq[1], 10), 0);
	CHECK_EQ(vt_async_drain(&v), 0);
	vt_pair_destroy(&p);
}

/* pmr_destroy_ah while a posted UD WR uses the AH (held back in SQD):
 * EBUSY, the WR still goes out with it (back in RTS, the next poll runs
 * it); once it completed, 0. */
static void ah_busy(void)
{
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	struct pmr_sge s;
	struct pmr_send_wr w;
	struct pmr_wc wc;
	struct pmr_qp_attr a;
	struct pmr_ah_attr aa;
	struct pmr_ah *ah;

	vt_pair(&v, PMR_QPT_UD, &o, 0, &p);
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_SQD;
	CHECK_EQ(pmr_modify_qp(p.qp[0], &a, PMR_QP_STATE), 0);
	post_recv_ok(p.qp[1], 70, dbuf, 1040);
	w = ud_wr(&p, 20, &s, 16, o.qkey);
	CHECK_EQ(vt_post_send1(p.qp[0], &w), 0);
	CHECK_EQ(vt_count(p.scq[0], 10), 0);       /* held back */
	CHECK_EQ(pmr_destroy_ah(p.ah), EBUSY);
	/* meanwhile another AH of the PD, one no WR uses, is not held */
	vt_ah_attr(&v, &aa);
	ah = pmr_create_ah(v.pd, &aa);
	CHECK(ah != NULL);
	CHECK_EQ(pmr_destroy_ah(ah), 0);
	a.qp_state = PMR_QPS_RTS;
	CHECK_EQ(pmr_modify_qp(p.qp[0], &a, PMR_QP_STATE), 0);
	vt_poll1(p.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.wr_id, 20);
	vt_poll1(p.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, 16 + 40);
	CHECK_EQ(pmr_destroy_ah(p.ah), 0);
	p.ah = NULL;
	CHECK_EQ(vt_async_drain(&v), 0);
	vt_pair_destroy(&p);
}

int main(void)
{
	vt_open(&v);
	smr = vt_mr(v.pd, sbuf, sizeof(sbuf), PMR_ACCESS_LOCAL_WRITE);
	dmr = vt_mr(v.pd, dbuf, sizeof(dbuf), PMR_ACCESS_LOCAL_WRITE |
		    PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ);
	uc();
	ud();
	uc_ud_refused();
	ah_busy();
	CHECK_EQ(pmr_dereg_mr(smr), 0);
	CHECK_EQ(pmr_dereg_mr(dmr), 0);
	vt_close(&v);
	return vt_exit();
}
