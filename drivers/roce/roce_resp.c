/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder: executes request packets (IBA 9.7.5.2 responder side):
 * PSN checks (execute / duplicate / out of sequence), receive WQE
 * consumption, RDMA WRITE placement, READ responses, atomics with saved
 * results for duplicates, ACK coalescing, NAKs and RNR NAKs.
 */
#include <string.h>

#include "roce.h"

#define MAX_MSG (1u << 31)

/* ---- replies ----------------------------------------------------------- */

/* An answer of opcode `opcode` for `psn` (callers ask roce_tx_room()
 * first, so none is made while the transmit queue is full): *o as an ACK
 * with no credit count, but for the opcode; the caller sets the rest.
 * @return false while the peer's MAC is not known. */
static bool reply_begin(struct roce_dev *d, struct roce_qp *rq,
			struct wire_one *o, uint8_t opcode, uint32_t psn)
{
	if (!roce_conn_ready(d, rq))
		return false;
	*o = (struct wire_one){
		.opcode = opcode,
		.psn = psn,
		.msn = rq->msn,
		.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID),
	};
	return true;
}

/* The answer *o, written whole from the QP's template.
 * @return false when the frame cannot be built now (no mbuf): the answer
 * stays owed. */
static bool reply_send(struct roce_dev *d, struct roce_qp *rq,
		       struct wire_one *o)
{
	struct rte_mbuf *m = roce_tx_mbuf(d);
	int len;

	if (m == NULL)
		return false;
	o->ip_id = d->ip_id++;
	len = wire_tmpl_one(rte_pktmbuf_mtod(m, uint8_t *),
			    rte_pktmbuf_tailroom(m), &rq->tmpl, o);
	if (len < 0) {          /* cannot happen: the frame fits the mbuf */
		ROCE_LOG(ERR, "cannot build opcode %u: %s", o->opcode,
			 wire_err_str(len));
		d->st.tx_drops++;
		rte_pktmbuf_free(m);
		return true;
	}
	roce_tx_commit(d, m, len);
	rq->st.tx_pkts++;
	rq->st.tx_bytes += o->len;
	return true;
}

/* A NAK went: count it by kind. */
static void nak_sent(struct roce_dev *d, struct roce_qp *rq, uint8_t syn)
{
	rq->st.nak_tx++;
	if (wire_syn_kind(syn) == WIRE_AETH_RNR_NAK) {
		d->st.nak_rnr_tx++;
		return;
	}
	switch (wire_syn_value(syn)) {
	case WIRE_NAK_PSN_SEQ: d->st.nak_seq_tx++; break;
	case WIRE_NAK_INVALID_REQ: d->st.nak_inv_tx++; break;
	case WIRE_NAK_REM_ACCESS: d->st.nak_acc_tx++; break;
	default: d->st.nak_op_tx++; break;
	}
}

/* @return false when it cannot go now for want of room to send (it stays
 * owed); an ACK or NAK for a peer whose MAC is still being looked up is
 * dropped (the peer's requester asks again). */
static bool send_aeth(struct roce_dev *d, struct roce_qp *rq, uint8_t syn,
		      uint32_t psn)
{
	struct wire_one o;

	if (!roce_tx_room(d))
		return false;
	if (!reply_begin(d, rq, &o, WIRE_OP_RC_ACKNOWLEDGE, psn))
		return true;
	o.syndrome = syn;
	if (!reply_send(d, rq, &o))
		return false;
	if (wire_syn_kind(syn) != WIRE_AETH_ACK)
		nak_sent(d, rq, syn);
	return true;
}

/* A response for `psn` just went: it acknowledges every request before
 * it, so an ACK owed for one of those is not sent any more. */
static void resp_acks(struct roce_qp *rq, uint32_t psn)
{
	if (rq->ack_pending && wire_psn_cmp(rq->ack_psn, psn) < 0)
		rq->ack_pending = false;
}

/* A NAK that moves the QP to ERR (not RNR, not PSN sequence). */
static bool nak_fatal(uint8_t syn)
{
	return wire_syn_kind(syn) == WIRE_AETH_NAK &&
	       wire_syn_value(syn) != WIRE_NAK_PSN_SEQ;
}

/*
 * Answer with an AETH-only packet (a NAK: an ACK only ever waits for the
 * tx phase): now, or, while earlier READ responses or atomic ACKs are
 * still to go, after them (answers leave in PSN order), or later when the
 * frame cannot be built now (a full transmit queue).  One NAK is owed
 * at most: a later one replaces it (the expected PSN only moves on, and
 * a fatal NAK is what the requester must hear), except that an RNR or
 * sequence NAK does not replace one owed for the same PSN.
 */
static void answer_aeth(struct roce_dev *d, struct roce_qp *rq, uint8_t syn,
			uint32_t psn)
{
	if (rq->res_mask == 0 && !rq->nak_owed && send_aeth(d, rq, syn, psn))
		return;
	if (rq->nak_owed && rq->nak_psn == psn && !nak_fatal(syn))
		return;
	rq->nak_owed = true;
	rq->nak_syn = syn;
	rq->nak_psn = psn;
}

/* Send the NAK owed, and the ACK owed when `ack`.  @return packets. */
static unsigned int owed_out(struct roce_dev *d, struct roce_qp *rq, bool ack)
{
	unsigned int n = 0;

	/* a sequence or RNR NAK waiting for room whose PSN has since come
	 * again and been taken in (the expected PSN moved on) is stale: it
	 * would only send the requester back for nothing.  Unless packets
	 * after that PSN were dropped out of sequence and have not come
	 * again (the one it named came late, not with a go-back-N): then
	 * it asks from the expected PSN instead, acknowledging all before. */
	if (rq->nak_owed && !nak_fatal(rq->nak_syn) &&
	    rq->nak_psn != rq->epsn) {
		if (rq->oos_seen && wire_psn_cmp(rq->oos_psn, rq->epsn) >= 0) {
			rq->nak_syn = wire_syn_nak(WIRE_NAK_PSN_SEQ);
			rq->nak_psn = rq->epsn;
			rq->nak_seq_sent = true;
			rq->ack_pending = false;
		} else {
			rq->nak_owed = false;
		}
	}
	if (rq->ack_pending && ack &&
	    send_aeth(d, rq, wire_syn_ack(WIRE_AETH_CREDIT_INVALID),
		      rq->ack_psn)) {
		rq->ack_pending = false;
		n++;
	}
	if (rq->nak_owed && send_aeth(d, rq, rq->nak_syn, rq->nak_psn)) {
		rq->nak_owed = false;
		n++;
	}
	return n;
}

/* Forget every answer owed: READ responses, atomic ACKs, ACK, NAK. */
static void answers_drop(struct roce_qp *rq)
{
	rq->ack_pending = false;
	memset(rq->res, 0, sizeof(rq->res));
	rq->res_next = 0;
	rq->res_mask = 0;
	rq->nak_owed = false;
}

/*
 * A QP in ERR sends nothing more (the application moved it there, or its
 * requester failed), but for a fatal NAK of its own: that one still goes,
 * after the answers owed before it.  @return true when what is owed must
 * be dropped.
 */
static bool answers_stopped(const struct roce_qp *rq)
{
	return (rq->ack_pending || rq->res_mask != 0 || rq->nak_owed) &&
	       !(rq->nak_owed && nak_fatal(rq->nak_syn)) &&
	       pmr_qp_state(rq->qp) == PMR_QPS_ERR;
}

void roce_resp_send_owed(struct roce_dev *d, struct roce_qp *rq)
{
	if (answers_stopped(rq))
		answers_drop(rq);
	if (owed_out(d, rq, true) != 0)
		roce_tx_flush(d);
}

/* NAK a request; a fatal NAK moves the QP to ERR (raising `event`). */
static void nak(struct roce_dev *d, struct roce_qp *rq, enum wire_nak_code c,
		uint32_t psn, int event)
{
	/* the NAK acknowledges everything before it: no ACK is owed now */
	rq->ack_pending = false;
	answer_aeth(d, rq, wire_syn_nak(c), psn);
	if (c != WIRE_NAK_PSN_SEQ)
		pmr_qp_set_error(rq->qp, event);
}

/* No receive WQE for the request at psn: an RNR NAK (the PSN is not
 * consumed, the request comes again). */
static void rnr_nak(struct roce_dev *d, struct roce_qp *rq, uint32_t psn)
{
	answer_aeth(d, rq, wire_syn_rnr_nak(rq->qp->attr.min_rnr_timer), psn);
}

/* ---- state ------------------------------------------------------------- */

void roce_resp_reset(struct roce_qp *rq)
{
	rq->epsn = rq->qp->attr.rq_psn;
	rq->msn = 0;
	rq->nak_seq_sent = false;
	rq->oos_seen = false;
	rq->in_send = false;
	rq->in_write = false;
	rq->recv_off = 0;
	rq->uc_drop = false;
	rq->comm_est = false;
	answers_drop(rq);
}

static uint32_t res_bit(const struct roce_qp *rq, const struct roce_res *r)
{
	return 1u << (r - rq->res);
}

/* Slot r still has answers to send. */
static bool res_is_on(const struct roce_qp *rq, const struct roce_res *r)
{
	return (rq->res_mask & res_bit(rq, r)) != 0;
}

bool roce_resp_mr_busy(struct roce_qp *rq, struct pmr_mr_obj *mr)
{
	enum pmr_qp_state st = pmr_qp_state(rq->qp);

	/* a QP moved to RESET, or to ERR with no fatal NAK still to send
	 * behind its answers, reads no MR again: its READs are dropped
	 * before the engine's next step, unanswered */
	if (st == PMR_QPS_RESET ||
	    (st == PMR_QPS_ERR && !(rq->nak_owed && nak_fatal(rq->nak_syn))))
		return false;
	if (rq->in_write && (rq->wr_rkey >> 8) == mr->index)
		return true;
	for (int i = 0; i < PMR_MAX_RD_ATOMIC; i++)
		if (res_is_on(rq, &rq->res[i]) && rq->res[i].kind == ROCE_RES_READ &&
		    (rq->res[i].rkey >> 8) == mr->index)
			return true;
	return false;
}

/*
 * READs and atomics take the slots of rq->res in turn, round all
 * PMR_MAX_RD_ATOMIC of them whatever max_dest_rd_atomic is (a modify_qp
 * that changes it leaves no slot out of the round); that attribute
 * bounds how many are answering at once (res_full()).
 */
_Static_assert((PMR_MAX_RD_ATOMIC & (PMR_MAX_RD_ATOMIC - 1)) == 0,
	       "PMR_MAX_RD_ATOMIC: a power of two");
_Static_assert(PMR_MAX_RD_ATOMIC < 32, "res_mask: one bit per slot");
#define RES_ALL ((1u << PMR_MAX_RD_ATOMIC) - 1)

static uint32_t res_after(uint32_t i)
{
	return (i + 1) & (PMR_MAX_RD_ATOMIC - 1);
}

/* No slot for a new READ or atomic: max_dest_rd_atomic of them still
 * to answer (or the next slot's still going, after a duplicate READ). */
static bool res_full(const struct roce_qp *rq, const struct roce_res *r)
{
	return res_is_on(rq, r) ||
	       (uint32_t)__builtin_popcount(rq->res_mask) >=
	       rq->qp->attr.max_dest_rd_atomic;
}

/* Slot r has answers to send (again). */
static void res_on(struct roce_qp *rq, const struct roce_res *r)
{
	rq->res_mask |= res_bit(rq, r);
}

/* Slot r is answered (or given up). */
static void res_off(struct roce_qp *rq, const struct roce_res *r)
{
	rq->res_mask &= ~res_bit(rq, r);
}

/* ---- receive helpers ---------------------------------------------------- */

static void recv_done(struct roce_qp *rq, const struct wire_pkt *p,
		      const uint8_t *f, enum pmr_wc_opcode op, uint32_t len,
		      uint32_t src_qp, unsigned int flags)
{
	struct pmr_wc wc = {
		.status = PMR_WC_SUCCESS, .opcode = op, .byte_len = len,
		.src_qp = src_qp, .wc_flags = flags,
	};

	if (p->info->flags & WIRE_OPF_IMM) {
		wc.wc_flags |= PMR_WC_WITH_IMM;
		wc.imm_data = rte_cpu_to_be_32(wire_immdt_imm(
			wire_pkt_hdr(f, p, WIRE_HDR_IMMDT)));
	}
	pmr_rq_complete(rq->qp, &wc, p->se);
}

static void recv_fail(struct roce_qp *rq, enum pmr_wc_status st)
{
	struct pmr_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.status = st;
	wc.opcode = PMR_WC_RECV;
	pmr_rq_complete(rq->qp, &wc, false);
}

/* Place a WRITE payload in order, its last byte last. */
static void write_place(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len == 0)
		return;
	memcpy(dst, src, len - 1);
	atomic_thread_fence(memory_order_release);
	*(volatile uint8_t *)(dst + len - 1) = src[len - 1];
}

/* ---- RC ---------------------------------------------------------------- */

static void rc_send(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		    const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t fl = p->info->flags;

	if (fl & WIRE_OPF_INV) {      /* SEND with invalidate: no MWs/FRMRs */
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return;
	}
	/* FIRST and MIDDLE packets carry exactly one path MTU */
	if (!(fl & WIRE_OPF_ENDS) &&
	    p->payload_len != (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu)) {
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return;
	}
	if (fl & WIRE_OPF_STARTS) {
		if (!pmr_rq_take(qp)) {
			rnr_nak(d, rq, p->psn);
			return;       /* the PSN is not consumed */
		}
		rq->recv_off = 0;
	}
	if ((uint64_t)rq->recv_off + p->payload_len > qp->recv.hdr.length) {
		/* the receive completes in error first, then the QP is
		 * flushed by the NAK path: never twice */
		recv_fail(rq, PMR_WC_LOC_LEN_ERR);
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, -1);
		return;
	}
	if (p->payload_len &&
	    !roce_sge_scatter(qp, qp->recv.sge, qp->recv.hdr.num_sge,
			      rq->recv_off, f + p->payload_off, p->payload_len)) {
		recv_fail(rq, PMR_WC_LOC_PROT_ERR);
		nak(d, rq, WIRE_NAK_REM_OP, p->psn, -1);
		return;
	}
	rq->recv_off += p->payload_len;
	rq->in_send = !(fl & WIRE_OPF_ENDS);
	if (fl & WIRE_OPF_ENDS) {
		rq->msn = (rq->msn + 1) & 0xffffff;
		recv_done(rq, p, f, PMR_WC_RECV, rq->recv_off,
			  qp->attr.dest_qp_num, 0);
	}
	rq->epsn = wire_psn_add(rq->epsn, 1);
}

static void rc_write(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		     const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t fl = p->info->flags;
	uint32_t mtu = (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu);

	if (fl & WIRE_OPF_STARTS) {
		const struct wire_reth *reth = wire_pkt_hdr(f, p, WIRE_HDR_RETH);
		uint32_t len = wire_reth_len(reth);
		uint8_t *ptr = NULL;

		/* an operation the QP does not enable is an invalid request
		 * (IBA 9.7.5.2.2); a failed MR check a remote access error */
		if (len > MAX_MSG ||
		    !(qp->attr.qp_access_flags & PMR_ACCESS_REMOTE_WRITE)) {
			nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
			return;
		}
		ptr = pmr_mr_check(qp->ctx->dev, qp->pub.pd, wire_reth_rkey(reth),
				   wire_reth_va(reth), len,
				   PMR_ACCESS_REMOTE_WRITE, true);
		if (ptr == NULL) {
			nak(d, rq, WIRE_NAK_REM_ACCESS, p->psn,
			    PMR_EVENT_QP_ACCESS_ERR);
			return;
		}
		rq->wr_ptr = ptr;
		rq->wr_rkey = wire_reth_rkey(reth);
		rq->wr_left = len;
		rq->wr_len = len;
	}
	if (p->payload_len > rq->wr_left ||
	    (!(fl & WIRE_OPF_ENDS) && p->payload_len != mtu) ||
	    ((fl & WIRE_OPF_ENDS) && p->payload_len != rq->wr_left)) {
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return;
	}
	if ((fl & WIRE_OPF_IMM) && !pmr_rq_take(qp)) {
		rnr_nak(d, rq, p->psn);
		return;
	}
	write_place(rq->wr_ptr, f + p->payload_off, p->payload_len);
	rq->wr_ptr += p->payload_len;
	rq->wr_left -= p->payload_len;
	rq->in_write = !(fl & WIRE_OPF_ENDS);
	if (fl & WIRE_OPF_ENDS) {
		rq->msn = (rq->msn + 1) & 0xffffff;
		if (fl & WIRE_OPF_IMM)
			recv_done(rq, p, f, PMR_WC_RECV_RDMA_WITH_IMM,
				  rq->wr_len, qp->attr.dest_qp_num, 0);
	}
	rq->epsn = wire_psn_add(rq->epsn, 1);
}

static struct roce_res *res_find(struct roce_qp *rq, uint8_t kind,
				 uint32_t psn)
{
	for (int i = 0; i < PMR_MAX_RD_ATOMIC; i++) {
		struct roce_res *r = &rq->res[i];

		if (r->kind == kind &&
		    ((psn - r->psn) & 0xffffff) < r->npkts)
			return r;
	}
	return NULL;
}

/* Set up (or restart) READ responses for [va, va + len) from `psn`. */
static bool read_setup(struct roce_dev *d, struct roce_qp *rq,
		       struct roce_res *r, const uint8_t *f,
		       const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	const struct wire_reth *reth = wire_pkt_hdr(f, p, WIRE_HDR_RETH);
	uint32_t mtu = (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu);
	uint32_t len = wire_reth_len(reth);
	void *ptr = NULL;

	if (len > MAX_MSG || qp->attr.max_dest_rd_atomic == 0 ||
	    !(qp->attr.qp_access_flags & PMR_ACCESS_REMOTE_READ)) {
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return false;
	}
	ptr = pmr_mr_check(qp->ctx->dev, qp->pub.pd, wire_reth_rkey(reth),
			   wire_reth_va(reth), len, PMR_ACCESS_REMOTE_READ, true);
	if (ptr == NULL) {
		nak(d, rq, WIRE_NAK_REM_ACCESS, p->psn, PMR_EVENT_QP_ACCESS_ERR);
		return false;
	}
	r->kind = ROCE_RES_READ;
	r->psn = p->psn;
	r->npkts = len ? roce_mtu_pkts(len, mtu) : 1;
	r->src = ptr;
	r->rkey = wire_reth_rkey(reth);
	r->len = len;
	r->sent = 0;
	r->next_psn = p->psn;
	res_on(rq, r);
	return true;
}

/*
 * Start sending the answers the slots hold (READ responses, atomic ACKs
 * queued behind them), in this engine run: they leave with the receive
 * burst's other replies, oldest first (the rest of a long READ goes out
 * in later runs, and so does all of it when the transmit queue is full).
 * Runs once the request is recorded (a new one counted in the MSN).
 */
static void read_answer(struct roce_dev *d, struct roce_qp *rq)
{
	roce_resp_run(d, rq, ROCE_RX_BURST, false);
}

static void rc_read(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		    const struct wire_pkt *p)
{
	struct roce_res *r = &rq->res[rq->res_next];

	if (res_full(rq, r)) {
		/* more READs in flight than max_dest_rd_atomic allows */
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return;
	}
	if (!read_setup(d, rq, r, f, p))
		return;
	rq->res_next = res_after(rq->res_next);
	rq->msn = (rq->msn + 1) & 0xffffff;
	rq->epsn = wire_psn_add(rq->epsn, r->npkts);
	read_answer(d, rq);
}

static bool atomic_ack(struct roce_dev *d, struct roce_qp *rq, uint32_t psn,
		       uint64_t orig)
{
	struct wire_one o;

	if (!roce_tx_room(d) ||
	    !reply_begin(d, rq, &o, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, psn))
		return false;
	o.orig = orig;
	if (!reply_send(d, rq, &o))
		return false;
	resp_acks(rq, psn);
	return true;
}

/*
 * Answer the atomic of slot r: at once when no answer is waiting before
 * it, else (or when it cannot go yet) from the slot, after the READ
 * responses still to go (answers in PSN order).
 */
static void atomic_answer(struct roce_dev *d, struct roce_qp *rq,
			  struct roce_res *r)
{
	if (rq->res_mask == 0 && atomic_ack(d, rq, r->psn, r->orig))
		return;
	res_on(rq, r);
	read_answer(d, rq);
}

static void rc_atomic(struct roce_dev *d, struct roce_qp *rq,
		      const uint8_t *f, const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	const struct wire_atmeth *a = wire_pkt_hdr(f, p, WIRE_HDR_ATMETH);
	struct roce_res *r = &rq->res[rq->res_next];
	uint64_t va = wire_atmeth_va(a), orig;
	uint64_t *t = NULL;

	if ((va & 7) || res_full(rq, r) ||
	    !(qp->attr.qp_access_flags & PMR_ACCESS_REMOTE_ATOMIC)) {
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return;
	}
	t = pmr_mr_check(qp->ctx->dev, qp->pub.pd, wire_atmeth_rkey(a), va, 8,
			 PMR_ACCESS_REMOTE_ATOMIC, true);
	if (t == NULL) {
		nak(d, rq, WIRE_NAK_REM_ACCESS, p->psn, PMR_EVENT_QP_ACCESS_ERR);
		return;
	}
	if (p->opcode == WIRE_OP_RC_FETCH_ADD) {
		orig = __atomic_fetch_add(t, wire_atmeth_swap_add(a),
					  __ATOMIC_SEQ_CST);
	} else {
		orig = wire_atmeth_compare(a);
		__atomic_compare_exchange_n(t, &orig, wire_atmeth_swap_add(a),
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
	/* only what an atomic slot is read for (res_find(), the ACK); the
	 * READ fields are read for READ slots only (slot free: res_full()
	 * above) */
	r->kind = ROCE_RES_ATOMIC;
	r->psn = p->psn;
	r->npkts = 1;
	r->orig = orig;
	rq->res_next = res_after(rq->res_next);
	rq->msn = (rq->msn + 1) & 0xffffff;
	rq->epsn = wire_psn_add(rq->epsn, 1);
	atomic_answer(d, rq, r);
}

static void rc_duplicate(struct roce_dev *d, struct roce_qp *rq,
			 const uint8_t *f, const struct wire_pkt *p)
{
	uint32_t fl = p->info->flags;
	struct roce_res *r;

	d->st.dup_requests++;
	rq->st.dup_rx++;
	if (fl & WIRE_OPF_READ) {
		/* executed again: the data may have changed */
		r = res_find(rq, ROCE_RES_READ, p->psn);
		if (r != NULL && read_setup(d, rq, r, f, p))
			read_answer(d, rq);
		return;
	}
	if (fl & WIRE_OPF_ATOMIC) {
		/* never executed twice: replay the saved result */
		r = res_find(rq, ROCE_RES_ATOMIC, p->psn);
		if (r != NULL && !res_is_on(rq, r))  /* (else still to go) */
			atomic_answer(d, rq, r);
		return;
	}
	/* SEND / WRITE: acknowledge again, up to what was executed */
	rq->ack_pending = true;
	rq->ack_gen = d->gen;
	rq->ack_psn = wire_psn_add(rq->epsn, 0xffffff);
}

static void rc_rx(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		  const struct wire_pkt *p)
{
	uint32_t fl = p->info->flags;
	int32_t c = wire_psn_cmp(p->psn, rq->epsn);

	if (unlikely(rq->oos_seen) && wire_psn_cmp(rq->oos_psn, rq->epsn) < 0)
		rq->oos_seen = false;     /* every packet dropped came again */
	if (c < 0) {
		rc_duplicate(d, rq, f, p);
		return;
	}
	if (c > 0) {
		d->st.out_of_seq++;
		if (!rq->oos_seen || wire_psn_cmp(p->psn, rq->oos_psn) > 0) {
			rq->oos_seen = true;
			rq->oos_psn = p->psn;
		}
		if (!rq->nak_seq_sent) {
			rq->nak_seq_sent = true;
			nak(d, rq, WIRE_NAK_PSN_SEQ, rq->epsn, -1);
		}
		return;
	}
	rq->nak_seq_sent = false;
	/* opcode sequence: a message in progress continues, none starts
	 * with MIDDLE or LAST (IBA 9.7.5.2.3 / C9-37) */
	if ((rq->in_send && !((fl & WIRE_OPF_SEND) &&
			      (fl & (WIRE_OPF_MIDDLE | WIRE_OPF_LAST)))) ||
	    (rq->in_write && !((fl & WIRE_OPF_WRITE) &&
			       (fl & (WIRE_OPF_MIDDLE | WIRE_OPF_LAST)))) ||
	    (!rq->in_send && !rq->in_write &&
	     (fl & (WIRE_OPF_MIDDLE | WIRE_OPF_LAST)))) {
		nak(d, rq, WIRE_NAK_INVALID_REQ, p->psn, PMR_EVENT_QP_REQ_ERR);
		return;
	}
	if (fl & WIRE_OPF_SEND)
		rc_send(d, rq, f, p);
	else if (fl & WIRE_OPF_WRITE)
		rc_write(d, rq, f, p);
	else if (fl & WIRE_OPF_READ)
		rc_read(d, rq, f, p);
	else if (fl & WIRE_OPF_ATOMIC)
		rc_atomic(d, rq, f, p);
	if ((fl & (WIRE_OPF_SEND | WIRE_OPF_WRITE)) && p->ackreq &&
	    rq->epsn == wire_psn_add(p->psn, 1)) {
		rq->ack_pending = true;
		rq->ack_gen = d->gen;
		rq->ack_psn = p->psn;
	}
}

/* ---- UC ---------------------------------------------------------------- */

/* A UC receive failed: it completes once, the rest of the message is
 * dropped (the QP goes on). */
static void uc_recv_abort(struct roce_qp *rq, uint32_t fl,
			  enum pmr_wc_status st)
{
	recv_fail(rq, st);
	rq->in_send = false;
	rq->uc_drop = !(fl & WIRE_OPF_ENDS);
}

static void uc_rx(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		  const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t fl = p->info->flags;

	if (p->psn != rq->epsn || rq->uc_drop) {
		if (!(fl & WIRE_OPF_STARTS)) {
			/* a gap: drop the rest of this message */
			rq->uc_drop = true;
			rq->epsn = wire_psn_add(p->psn, 1);
			d->st.out_of_seq++;
			return;
		}
		rq->uc_drop = false;
		rq->in_send = rq->in_write = false;
	}
	rq->epsn = wire_psn_add(p->psn, 1);
	if ((fl & WIRE_OPF_STARTS) ||
	    !((fl & WIRE_OPF_SEND) ? rq->in_send : rq->in_write)) {
		/* a packet that does not continue the message in progress
		 * abandons it */
		rq->in_send = rq->in_write = false;
		if (!(fl & WIRE_OPF_STARTS)) {
			/* a MIDDLE or LAST, in sequence, that continues no
			 * message of its kind (the one before it ended, or
			 * one of the other kind was in progress): it and the
			 * rest of its message are dropped, never placed
			 * through the state of a message that ended (a
			 * receive WR already completed, a WRITE's address
			 * whose MR may be gone).  After a refused FIRST,
			 * uc_drop drops the rest above. */
			rq->uc_drop = !(fl & WIRE_OPF_ENDS);
			d->st.rx_drop_malformed++;
			return;
		}
	}
	if (fl & WIRE_OPF_SEND) {
		if ((fl & WIRE_OPF_STARTS) && !pmr_rq_take(qp)) {
			d->st.rx_drop_no_recv++;
			rq->uc_drop = !(fl & WIRE_OPF_ENDS);
			return;
		}
		if (fl & WIRE_OPF_STARTS)
			rq->recv_off = 0;
		if ((uint64_t)rq->recv_off + p->payload_len >
		    qp->recv.hdr.length) {
			uc_recv_abort(rq, fl, PMR_WC_LOC_LEN_ERR);
			return;
		}
		if (p->payload_len &&
		    !roce_sge_scatter(qp, qp->recv.sge, qp->recv.hdr.num_sge,
				      rq->recv_off, f + p->payload_off,
				      p->payload_len)) {
			uc_recv_abort(rq, fl, PMR_WC_LOC_PROT_ERR);
			return;
		}
		rq->recv_off += p->payload_len;
		rq->in_send = !(fl & WIRE_OPF_ENDS);
		if (fl & WIRE_OPF_ENDS)
			recv_done(rq, p, f, PMR_WC_RECV, rq->recv_off,
				  qp->attr.dest_qp_num, 0);
		return;
	}
	/* WRITE */
	if (fl & WIRE_OPF_STARTS) {
		const struct wire_reth *reth = wire_pkt_hdr(f, p, WIRE_HDR_RETH);
		uint8_t *ptr = NULL;

		if (qp->attr.qp_access_flags & PMR_ACCESS_REMOTE_WRITE)
			ptr = pmr_mr_check(qp->ctx->dev, qp->pub.pd,
					   wire_reth_rkey(reth),
					   wire_reth_va(reth),
					   wire_reth_len(reth),
					   PMR_ACCESS_REMOTE_WRITE, true);
		if (ptr == NULL) {
			rq->uc_drop = !(fl & WIRE_OPF_ENDS);
			return;       /* UC: silently dropped */
		}
		rq->wr_ptr = ptr;
		rq->wr_rkey = wire_reth_rkey(reth);
		rq->wr_left = rq->wr_len = wire_reth_len(reth);
	}
	if (p->payload_len > rq->wr_left) {
		rq->uc_drop = !(fl & WIRE_OPF_ENDS);
		rq->in_write = false;
		return;
	}
	if ((fl & WIRE_OPF_IMM) && !pmr_rq_take(qp)) {
		d->st.rx_drop_no_recv++;
		rq->in_write = false;
		return;
	}
	write_place(rq->wr_ptr, f + p->payload_off, p->payload_len);
	rq->wr_ptr += p->payload_len;
	rq->wr_left -= p->payload_len;
	rq->in_write = !(fl & WIRE_OPF_ENDS);
	if ((fl & WIRE_OPF_ENDS) && (fl & WIRE_OPF_IMM))
		recv_done(rq, p, f, PMR_WC_RECV_RDMA_WITH_IMM, rq->wr_len,
			  qp->attr.dest_qp_num, 0);
}

/* ---- UD ---------------------------------------------------------------- */

static void ud_rx(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		  const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	const struct wire_deth *deth = wire_pkt_hdr(f, p, WIRE_HDR_DETH);
	uint8_t grh[40];

	if (wire_deth_qkey(deth) != qp->attr.qkey) {
		d->st.rx_drop_qkey++;
		return;
	}
	if (!pmr_rq_take(qp)) {
		d->st.rx_drop_no_recv++;
		return;
	}
	if ((uint64_t)p->payload_len + 40 > qp->recv.hdr.length) {
		recv_fail(rq, PMR_WC_LOC_LEN_ERR);
		return;
	}
	/* the GRH area: IPv4 gets 20 zero bytes, then its IP header */
	memset(grh, 0, sizeof(grh));
	if (p->ip_ver == 4)
		memcpy(grh + 20, f + p->ip_off, 20);
	else
		memcpy(grh, f + p->ip_off, 40);
	if (!roce_sge_scatter(qp, qp->recv.sge, qp->recv.hdr.num_sge, 0, grh,
			      40) ||
	    (p->payload_len &&
	     !roce_sge_scatter(qp, qp->recv.sge, qp->recv.hdr.num_sge, 40,
			       f + p->payload_off, p->payload_len))) {
		recv_fail(rq, PMR_WC_LOC_PROT_ERR);
		return;
	}
	recv_done(rq, p, f, PMR_WC_RECV, p->payload_len + 40,
		  wire_deth_sqp(deth), PMR_WC_GRH);
}

void roce_resp_rx(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		  const struct wire_pkt *p)
{
	enum pmr_qp_state st = pmr_qp_state(rq->qp);

	if (st != PMR_QPS_RTR && st != PMR_QPS_RTS && st != PMR_QPS_SQD &&
	    st != PMR_QPS_SQE) {
		d->st.rx_drop_state++;
		return;
	}
	/* the first packet of a connected QP's peer while it is in RTR
	 * (IB o11-5.1.1: not on UD): communication established */
	if (unlikely(st == PMR_QPS_RTR) && !rq->comm_est &&
	    rq->qp->pub.qp_type != PMR_QPT_UD) {
		rq->comm_est = true;
		pmr_async_raise(rq->qp->ctx, PMR_EVENT_COMM_EST, &rq->qp->pub,
				0);
	}
	switch (rq->qp->pub.qp_type) {
	case PMR_QPT_RC:
		rc_rx(d, rq, f, p);
		break;
	case PMR_QPT_UC:
		uc_rx(d, rq, f, p);
		break;
	default:
		ud_rx(d, rq, f, p);
		break;
	}
}

/* ---- replies that wait for the tx phase ----------------------------------- */

static unsigned int read_responses(struct roce_dev *d, struct roce_qp *rq,
				   struct roce_res *r, unsigned int budget)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t mtu = (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu);
	unsigned int done = 0;

	while (res_is_on(rq, r) && done < budget) {
		uint32_t n = r->len - r->sent;
		uint32_t idx = (r->next_psn - r->psn) & 0xffffff;
		bool first = idx == 0, last;
		struct wire_one o;
		uint8_t op;

		if (!roce_tx_room(d))
			break;
		if (n > mtu)
			n = mtu;
		last = r->sent + n == r->len;
		op = first && last ? WIRE_OP_RC_READ_RESPONSE_ONLY :
		     first ? WIRE_OP_RC_READ_RESPONSE_FIRST :
		     last ? WIRE_OP_RC_READ_RESPONSE_LAST :
		     WIRE_OP_RC_READ_RESPONSE_MIDDLE;
		if (!reply_begin(d, rq, &o, op, r->next_psn))
			break;
		/* the whole range passed its MR check at read_setup(), and
		 * the MR stays registered while the slot answers */
		o.len = n;
		o.data = r->src + r->sent;
		if (!reply_send(d, rq, &o))
			break;
		resp_acks(rq, r->next_psn);
		r->sent += n;
		r->next_psn = wire_psn_add(r->next_psn, 1);
		done++;
		if (last)
			res_off(rq, r);
	}
	return done;
}

/*
 * Send what the responder owes.  An ACK waits for the next progress call
 * (ack_now: at once; post_send's kick does not count), so the completion
 * it goes with reaches the application first, and a reply the application
 * posts to it leaves ahead of the ACK, alone in its burst; the engine runs
 * again at the next poll, and destroy_qp sends an ACK still owed.
 */
unsigned int roce_resp_run(struct roce_dev *d, struct roce_qp *rq,
			   unsigned int budget, bool ack_now)
{
	unsigned int done = 0;

	if (answers_stopped(rq)) {
		answers_drop(rq);
		return 0;
	}
	if (rq->res_mask != 0) {
		/* answers go out in PSN order: oldest resource first (slots
		 * are taken in turn from res_next, so the active ones in
		 * order from there), and none after one that could not
		 * finish */
		uint32_t first = rq->res_next;
		uint32_t m = rq->res_mask;
		uint32_t age = (m >> first | m << (PMR_MAX_RD_ATOMIC - first)) &
			       RES_ALL;

		for (; age != 0 && done < budget; age &= age - 1) {
			uint32_t i = (first + (uint32_t)__builtin_ctz(age)) &
				     (PMR_MAX_RD_ATOMIC - 1);
			struct roce_res *r = &rq->res[i];

			if (r->kind == ROCE_RES_ATOMIC) {
				if (!atomic_ack(d, rq, r->psn, r->orig))
					break;
				res_off(rq, r);
				done++;
			} else {
				done += read_responses(d, rq, r, budget - done);
				if (res_is_on(rq, r))
					break;
			}
		}
		/* the ACK or NAK owed is for a later PSN: it waits */
		if (rq->res_mask != 0)
			return done;
	}
	return done + owed_out(d, rq, ack_now || rq->ack_gen != d->gen);
}
