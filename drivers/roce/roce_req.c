/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester: turns send WQEs into request packets (segmented at the path
 * MTU), assigns PSNs, keeps the window, runs the local ACK and RNR timers
 * and restarts go-back-N from a PSN when the completer or a timer asks.
 */
#include <string.h>

#include "roce.h"

#define MAX_MSG (1u << 31)

static bool op_is_rd(uint8_t op)
{
	return op == PMR_WR_RDMA_READ || op == PMR_WR_ATOMIC_CMP_AND_SWP ||
	       op == PMR_WR_ATOMIC_FETCH_AND_ADD;
}

static uint32_t path_mtu(const struct pmr_qp_obj *qp)
{
	struct roce_dev *d = qp->ctx->dev->priv;

	if (qp->pub.qp_type == PMR_QPT_UD)
		return (uint32_t)pmr_mtu_to_num(d->max_mtu);
	return (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu);
}

static uint32_t wqe_npkts(const struct pmr_swqe *w, uint32_t mtu)
{
	if (w->opcode == PMR_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == PMR_WR_ATOMIC_FETCH_AND_ADD || w->length == 0)
		return 1;
	return roce_mtu_pkts(w->length, mtu);
}

/* ---- local buffers ---------------------------------------------------- */

/*
 * Copy len bytes between a buffer and the bytes [off, off + len) of a list
 * of local SGEs: from them to `out`, or (out NULL) from `in` into them,
 * which needs LOCAL_WRITE.  Each piece is checked against its MR.
 * @return false on a protection error or when the SGEs hold fewer bytes.
 */
static bool sge_copy(struct pmr_qp_obj *qp, const struct pmr_sge *sge,
		     uint32_t nsge, uint32_t off, uint8_t *out,
		     const uint8_t *in, uint32_t len)
{
	struct pmr_dev_obj *dev = qp->ctx->dev;
	bool to_sge = out == NULL;

	for (uint32_t i = 0; i < nsge && len > 0; i++) {
		uint32_t n;
		uint8_t *mem;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off;
		if (n > len)
			n = len;
		mem = pmr_mr_check(dev, qp->pub.pd, sge[i].lkey,
				   sge[i].addr + off, n,
				   to_sge ? PMR_ACCESS_LOCAL_WRITE : 0, false);
		if (mem == NULL)
			return false;
		if (to_sge) {
			memcpy(mem, in, n);
			in += n;
		} else {
			memcpy(out, mem, n);
			out += n;
		}
		len -= n;
		off = 0;
	}
	return len == 0;
}

bool roce_wqe_gather(struct pmr_qp_obj *qp, struct pmr_swqe *w, uint32_t off,
		     uint32_t len, uint8_t *dst)
{
	if (w->inl) {
		memcpy(dst, pmr_swqe_inline(w) + off, len);
		return true;
	}
	return sge_copy(qp, pmr_swqe_sge(w), w->num_sge, off, dst, NULL, len);
}

bool roce_sge_scatter(struct pmr_qp_obj *qp, const struct pmr_sge *sge,
		      uint32_t nsge, uint32_t off, const uint8_t *src,
		      uint32_t len)
{
	uint8_t *mem;

	/* most packets land in the first SGE (a receive of one buffer):
	 * one MR check and a copy, without sge_copy()'s walk */
	if (len == 0 || nsge == 0 || off >= sge->length ||
	    len > sge->length - off)
		return sge_copy(qp, sge, nsge, off, NULL, src, len);
	mem = pmr_mr_check(qp->ctx->dev, qp->pub.pd, sge->lkey,
			   sge->addr + off, len, PMR_ACCESS_LOCAL_WRITE, false);
	if (mem == NULL)
		return false;
	memcpy(mem, src, len);
	return true;
}

/*
 * Local checks of a WQE before its first packet.  *one: the address its
 * MR check gave for a WQE of one SGE (not inline, not empty), else NULL:
 * where a SEND or WRITE gathers its first packet from, where a READ's
 * responses or an atomic's result land.
 */
static enum pmr_wc_status wqe_validate(struct pmr_qp_obj *qp,
				       struct pmr_swqe *w, uint32_t mtu,
				       uint8_t **one)
{
	struct pmr_dev_obj *dev = qp->ctx->dev;
	int access = op_is_rd(w->opcode) ? PMR_ACCESS_LOCAL_WRITE : 0;

	*one = NULL;

	if (w->length > MAX_MSG)
		return PMR_WC_LOC_LEN_ERR;
	if ((w->opcode == PMR_WR_ATOMIC_CMP_AND_SWP ||
	     w->opcode == PMR_WR_ATOMIC_FETCH_AND_ADD) &&
	    (w->num_sge != 1 || w->length != 8))
		return PMR_WC_LOC_LEN_ERR;
	if (qp->pub.qp_type == PMR_QPT_UD && w->length > mtu)
		return PMR_WC_LOC_LEN_ERR;
	if (w->inl)
		return PMR_WC_SUCCESS;
	for (uint32_t i = 0; i < w->num_sge; i++) {
		const struct pmr_sge *s = &pmr_swqe_sge(w)[i];
		uint8_t *mem;

		if (s->length == 0)
			continue;
		mem = pmr_mr_check(dev, qp->pub.pd, s->lkey, s->addr,
				   s->length, access, false);
		if (mem == NULL)
			return PMR_WC_LOC_PROT_ERR;
		if (w->num_sge == 1)
			*one = mem;
	}
	return PMR_WC_SUCCESS;
}

/* ---- state ------------------------------------------------------------ */

void roce_req_restart(struct roce_qp *rq)
{
	rq->req_idx = atomic_load_explicit(&rq->qp->sq.cons,
					   memory_order_relaxed);
	rq->req_off = 0;
	rq->started_idx = rq->req_idx;
}

void roce_req_reset(struct roce_qp *rq)
{
	struct pmr_qp_obj *qp = rq->qp;

	roce_req_restart(rq);
	rq->req_psn = qp->attr.sq_psn;
	rq->una_psn = qp->attr.sq_psn;
	rq->read_off = 0;
	rq->asked_again = false;
	rq->retry_left = qp->attr.retry_cnt;
	rq->rnr_left = qp->attr.rnr_retry;
	rq->ack_deadline = 0;
	rq->rnr_deadline = 0;
	rq->pkts_since_ackreq = 0;
	rq->ackreq_every = RTE_MIN(roce_dev_of(qp)->ackreq_every,
				   RTE_MAX(qp->sq.size / 2, 1u));
	rq->ackreq_next = false;
	rq->unsolicited = false;
	rq->solicit_deadline = 0;
	rq->arm_ack = false;
	rq->arm_solicit = false;
	rq->dmac_valid = false;
	rq->resolving = false;
	rq->tx_blocked = false;
	rq->tmpl_valid = false;
}

static unsigned int rd_outstanding(struct roce_qp *rq)
{
	struct pmr_qp_obj *qp = rq->qp;
	unsigned int n = 0;

	for (uint32_t i = atomic_load_explicit(&qp->sq.cons,
					       memory_order_relaxed);
	     i != rq->req_idx; i++)
		n += op_is_rd(((struct pmr_swqe *)pmr_wq_slot(&qp->sq, i))->opcode);
	return n;
}

/* Make `psn` the next PSN to send: back to the WQE that holds it. */
static bool rewind_to(struct roce_qp *rq, uint32_t psn)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t mtu = path_mtu(qp);

	for (uint32_t i = atomic_load_explicit(&qp->sq.cons,
					       memory_order_relaxed);
	     i != roce_sq_started(rq); i++) {
		struct roce_swqe_st *s = &rq->wst[i & qp->sq.mask];
		struct pmr_swqe *w = pmr_wq_slot(&qp->sq, i);
		uint32_t k = (psn - s->first_psn) & 0xffffff;

		if (k >= s->npkts)
			continue;
		rq->req_idx = i;
		rq->req_off = (w->opcode == PMR_WR_ATOMIC_CMP_AND_SWP ||
			       w->opcode == PMR_WR_ATOMIC_FETCH_AND_ADD) ?
			      0 : k * mtu;
		rq->req_psn = psn;
		return true;
	}
	return false;
}

void roce_req_retransmit(struct roce_qp *rq, uint32_t psn)
{
	if (!rewind_to(rq, psn))
		return;
	/* asked for again from psn: answers of the earlier stream still on
	 * their way that show a gap there ask nothing more (ask_again()) */
	rq->asked_again = true;
	rq->asked_psn = psn;
	rq->st.retransmits++;
	roce_dev_of(rq->qp)->st.retransmits++;
}

/* ---- packets ------------------------------------------------------------ */

static uint8_t send_opcode(const struct pmr_swqe *w, bool first, bool last,
			   uint8_t base)
{
	bool imm = w->opcode == PMR_WR_SEND_WITH_IMM ||
		   w->opcode == PMR_WR_RDMA_WRITE_WITH_IMM;

	if (w->opcode == PMR_WR_SEND || w->opcode == PMR_WR_SEND_WITH_IMM) {
		if (first && last)
			return base + (imm ? WIRE_OP_RC_SEND_ONLY_IMM :
				       WIRE_OP_RC_SEND_ONLY);
		if (first)
			return base + WIRE_OP_RC_SEND_FIRST;
		if (last)
			return base + (imm ? WIRE_OP_RC_SEND_LAST_IMM :
				       WIRE_OP_RC_SEND_LAST);
		return base + WIRE_OP_RC_SEND_MIDDLE;
	}
	if (first && last)
		return base + (imm ? WIRE_OP_RC_WRITE_ONLY_IMM :
			       WIRE_OP_RC_WRITE_ONLY);
	if (first)
		return base + WIRE_OP_RC_WRITE_FIRST;
	if (last)
		return base + (imm ? WIRE_OP_RC_WRITE_LAST_IMM :
			       WIRE_OP_RC_WRITE_LAST);
	return base + WIRE_OP_RC_WRITE_MIDDLE;
}

/*
 * ACK coalescing (roce.rst): an RC packet asks for an ACK when it is a
 * READ or atomic request, a solicit is due, ROCE_ACKREQ_EVERY packets
 * went without asking, or it is a message's last and the WR is signaled
 * or ackreq_every packets went without.  A tail that did not ask is asked
 * for again later (solicit_tsc).  The count moves once the packet is
 * committed (req_sent()).
 */
static bool want_ackreq(const struct roce_qp *rq, const struct pmr_swqe *w,
			bool last)
{
	uint32_t k = rq->pkts_since_ackreq + 1;

	return op_is_rd(w->opcode) || rq->ackreq_next ||
	       k >= ROCE_ACKREQ_EVERY ||
	       (last && ((w->send_flags & PMR_SEND_SIGNALED) ||
			 k >= rq->ackreq_every));
}

/* Solicited Event: on the last packet of a solicited SEND or WRITE with
 * immediate data (a plain WRITE, a READ or an atomic makes no completion
 * at the responder to solicit). */
static bool want_se(const struct pmr_swqe *w, bool last)
{
	return last && (w->send_flags & PMR_SEND_SOLICITED) &&
	       (w->opcode == PMR_WR_SEND || w->opcode == PMR_WR_SEND_WITH_IMM ||
		w->opcode == PMR_WR_RDMA_WRITE_WITH_IMM);
}

/* A packet of WQE w is committed: n payload bytes, npsn PSNs. */
static void req_sent(struct roce_qp *rq, const struct pmr_swqe *w, bool rc,
		     bool ackreq, uint32_t n, uint32_t npsn)
{
	if (rc) {
		rq->unsolicited = !ackreq;
		rq->pkts_since_ackreq = ackreq ? 0 : rq->pkts_since_ackreq + 1;
		if (ackreq)
			rq->ackreq_next = false;
	}
	rq->st.tx_pkts++;
	rq->st.tx_bytes += n;
	rq->req_psn = wire_psn_add(rq->req_psn, npsn);
	rq->req_off = op_is_rd(w->opcode) ? w->length : rq->req_off + n;
}

/* A SEND or WRITE, with immediate data or without. */
static bool op_is_send_write(uint8_t op)
{
	return op == PMR_WR_SEND || op == PMR_WR_SEND_WITH_IMM ||
	       op == PMR_WR_RDMA_WRITE || op == PMR_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * A packet of a connected QP whose headers its opcode fixes: a SEND or
 * WRITE that fits in one packet, its data inline, in one SGE (src) or
 * none; a READ request (from req_off on: after a retry, the rest of the
 * READ); an atomic.  The frame is written whole from the QP's template
 * (wire_tmpl_one()): no per-packet build state, no separate seal, no
 * gather.  Frame and bookkeeping are those req_packet() would make; same
 * return values.
 */
static int req_one(struct roce_dev *d, struct roce_qp *rq,
		   struct pmr_swqe *w, uint32_t mtu, const uint8_t *src,
		   bool rc)
{
	struct wire_one o;
	struct rte_mbuf *m;
	uint32_t npsn = 1;
	int len;

	rq->resolving = !roce_conn_ready(d, rq);
	if (rq->resolving)
		return 0;
	m = roce_tx_mbuf(d);
	if (m == NULL) {
		rq->tx_blocked = true;   /* no mbuf */
		return 0;
	}
	o.se = want_se(w, true);
	o.ackreq = rc && want_ackreq(rq, w, true);
	o.ip_id = d->ip_id++;
	o.psn = rq->req_psn;
	o.va = w->remote_addr;
	o.rkey = w->rkey;
	o.len = 0;
	o.data = NULL;
	switch (w->opcode) {
	case PMR_WR_RDMA_READ:
		o.opcode = WIRE_OP_RC_READ_REQUEST;
		o.va += rq->req_off;
		o.dma_len = w->length - rq->req_off;
		npsn = o.dma_len ? roce_mtu_pkts(o.dma_len, mtu) : 1;
		break;
	case PMR_WR_ATOMIC_CMP_AND_SWP:
		o.opcode = WIRE_OP_RC_COMPARE_SWAP;
		o.swap_add = w->swap;
		o.compare = w->compare_add;
		break;
	case PMR_WR_ATOMIC_FETCH_AND_ADD:
		o.opcode = WIRE_OP_RC_FETCH_ADD;
		o.swap_add = w->compare_add;
		o.compare = w->compare_add;
		break;
	default:                 /* SEND, WRITE */
		o.opcode = send_opcode(w, true, true,
				       rc ? WIRE_OP_BASE_RC : WIRE_OP_BASE_UC);
		o.imm = rte_be_to_cpu_32(w->imm_data);
		o.len = w->length;
		o.data = w->inl ? pmr_swqe_inline(w) : src;
		break;
	}
	len = wire_tmpl_one(rte_pktmbuf_mtod(m, uint8_t *),
			    rte_pktmbuf_tailroom(m), &rq->tmpl, &o);
	if (len < 0) {           /* cannot happen: a packet that fits */
		ROCE_LOG(ERR, "cannot build opcode %u: %s", o.opcode,
			 wire_err_str(len));
		d->st.tx_drops++;
		rte_pktmbuf_free(m);
		return -1;
	}
	roce_tx_commit(d, m, len);
	req_sent(rq, w, rc, o.ackreq, o.len, npsn);
	return 1;
}

/*
 * Send the next packet of WQE w (of a connected QP, only what req_one()
 * does not take: SEND and WRITE packets of a longer message or gathered
 * from several SGEs).  src: its data when this is its first
 * packet (req_off 0), as wqe_validate() mapped it in the same requester
 * step; NULL: gathered from the SGEs, each checked again.
 * @return 1 sent, 0 could not yet (no neighbour, or no mbuf: the caller
 * asked for room in the transmit queue first), -1 local error.
 */
static int req_packet(struct roce_dev *d, struct roce_qp *rq,
		      struct pmr_swqe *w, uint32_t mtu, const uint8_t *src)
{
	struct pmr_qp_obj *qp = rq->qp;
	bool ud = qp->pub.qp_type == PMR_QPT_UD;
	const uint8_t *dgid = ud ? w->ah->attr.grh.dgid.raw :
			      qp->attr.ah_attr.grh.dgid.raw;
	struct wire_build b;
	struct rte_mbuf *m;
	uint32_t n;
	uint8_t *f;
	int hl;
	bool first = rq->req_off == 0, last;

	if (!ud && (!op_is_send_write(w->opcode) ||
		    (first && w->length <= mtu &&
		     (w->inl || src != NULL || w->length == 0))))
		return req_one(d, rq, w, mtu, src,
			       qp->pub.qp_type == PMR_QPT_RC);
	if (ud) {
		rq->resolving = !roce_resolve(d, dgid, rq->dmac);
		if (rq->resolving)
			return 0;
		roce_build_init(d, rq, &b, qp->ctx->dev->gid[
				w->ah->attr.grh.sgid_index].raw, dgid);
		memcpy(b.dmac, rq->dmac, 6);
		b.tclass = w->ah->attr.grh.traffic_class;
		b.dqpn = w->remote_qpn;
		b.ip_id = d->ip_id++;
	} else {
		rq->resolving = !roce_conn_begin(d, rq, &b);
		if (rq->resolving)
			return 0;
	}
	b.psn = rq->req_psn;
	b.imm = rte_be_to_cpu_32(w->imm_data);
	/* a SEND or WRITE: the rest are req_one()'s */
	n = w->length - rq->req_off;
	if (n > mtu)
		n = mtu;
	last = rq->req_off + n == w->length;
	if (ud) {
		b.opcode = w->opcode == PMR_WR_SEND_WITH_IMM ?
			   WIRE_OP_UD_SEND_ONLY_IMM : WIRE_OP_UD_SEND_ONLY;
		b.qkey = (w->remote_qkey & 0x80000000u) ?
			 qp->attr.qkey : w->remote_qkey;
		b.src_qpn = qp->pub.qp_num;
	} else {
		b.opcode = send_opcode(w, first, last,
				       qp->pub.qp_type == PMR_QPT_UC ?
				       WIRE_OP_BASE_UC : WIRE_OP_BASE_RC);
	}
	b.va = w->remote_addr;
	b.rkey = w->rkey;
	b.dma_len = w->length;
	b.se = want_se(w, last);
	b.payload_len = n;
	if (qp->pub.qp_type == PMR_QPT_RC)
		b.ackreq = want_ackreq(rq, w, last);
	f = roce_tx_frame(d, &b, ud ? NULL : &rq->tmpl, &m, &hl);
	if (f == NULL) {
		if (hl < 0)
			return -1;       /* cannot happen: headers that fail */
		rq->tx_blocked = true;   /* no mbuf */
		return 0;
	}
	if (src != NULL)
		memcpy(f + hl, src, n);   /* the first packet: offset 0 */
	else if (n > 0 && !roce_wqe_gather(qp, w, rq->req_off, n, f + hl)) {
		rte_pktmbuf_free(m);
		return -1;
	}
	hl = wire_build_seal(f, rte_pktmbuf_tailroom(m), &b, (size_t)hl);
	if (hl < 0) {
		d->st.tx_drops++;
		rte_pktmbuf_free(m);
		return -1;
	}
	roce_tx_commit(d, m, hl);
	req_sent(rq, w, qp->pub.qp_type == PMR_QPT_RC, b.ackreq, n, 1);
	return 1;
}

/* ---- the requester loop --------------------------------------------------- */

/* ROCE_WINDOW PSNs sent and not yet acknowledged: no more go out. */
static bool window_full(const struct roce_qp *rq)
{
	return ((rq->req_psn - rq->una_psn) & 0xffffff) >= ROCE_WINDOW;
}

/*
 * A fenced WQE waits for every earlier READ and atomic to complete; a READ
 * or atomic waits while max_rd_atomic of them are outstanding.
 */
static bool rd_blocked(struct roce_qp *rq, const struct pmr_swqe *w)
{
	unsigned int max;

	/* (the limit is read only here: a SEND or WRITE does not touch
	 * the attribute's cache line) */
	if (!(w->send_flags & PMR_SEND_FENCE) && !op_is_rd(w->opcode))
		return false;
	if (w->send_flags & PMR_SEND_FENCE)
		return rd_outstanding(rq) > 0;
	max = rq->qp->attr.max_rd_atomic ? rq->qp->attr.max_rd_atomic : 1;
	return rd_outstanding(rq) >= max;
}

/*
 * The QP's timer intervals, from its local ACK timeout (modify_qp), so
 * that no packet converts them.  An unasked-for tail waits a quarter of
 * the ACK timeout (well before it would count a retry), ROCE_SOLICIT_US
 * when that is infinite.  Long on purpose: the solicit only frees
 * unsignaled WQEs of a QP that went quiet, and a QP that sends now and
 * then (one of many) should not pay a second packet per message for it.
 */
void roce_qp_set_timeout(struct roce_dev *d, struct roce_qp *rq,
			 uint8_t timeout)
{
	uint64_t ns = timeout ? wire_ack_timeout_ns(timeout) : 0;

	rq->ack_timeout_tsc = roce_ns_to_tsc(d, ns);
	rq->solicit_tsc = roce_ns_to_tsc(d, ns ? ns / 4 :
					 ROCE_SOLICIT_US * 1000ull);
}

/* Start the local ACK timer (unless the timeout is infinite); now NULL:
 * when roce_req_arm() runs. */
static void ack_timer_start(struct roce_qp *rq, uint64_t *now)
{
	if (rq->ack_timeout_tsc == 0)
		return;
	if (now == NULL)
		rq->arm_ack = true;
	else
		rq->ack_deadline = roce_now(now) + rq->ack_timeout_tsc;
}

/*
 * The WQE at req_idx has begun: its first packet is committed, or it is
 * retired with a local error.  SQD finishes the WQEs before started_idx
 * and starts none after (a WQE a fence, the window or a missing
 * neighbour held back has not begun).
 */
static void wqe_begun(struct roce_qp *rq)
{
	if (rq->req_idx == rq->started_idx)
		rq->started_idx++;
}

/*
 * The WQE at req_idx failed locally with `err`: it completes in order,
 * once everything before it is done (req_idx is cons).  The error takes
 * the QP out of RTS (to ERR, or SQE for UC and UD), so the requester
 * stops either way.  @return 1 when it completed, else 0 (work done).
 */
static unsigned int retire_local(struct roce_qp *rq, enum pmr_wc_status err,
				 uint32_t cons)
{
	if (rq->req_idx != cons)
		return 0;
	wqe_begun(rq);
	pmr_sq_retire(rq->qp, err, 0, 0);
	rq->req_idx++;
	rq->req_off = 0;
	return 1;
}

/* The oldest WQE not yet completed. */
static uint32_t sq_cons(struct pmr_qp_obj *qp)
{
	return atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
}

/*
 * No packet could go now (no neighbour yet, or no room to send): for RC
 * the local ACK timer runs (RETRY_EXC_ERR when the neighbour never
 * answers, or the ring takes nothing; roce_req_timers()).
 */
static void req_wait(struct roce_qp *rq, bool rc, uint64_t *now)
{
	if (rc && rq->ack_deadline == 0)
		ack_timer_start(rq, now);
}

void roce_req_arm(struct roce_qp *rq, uint64_t now)
{
	if (rq->arm_ack && rq->ack_deadline == 0)
		rq->ack_deadline = now + rq->ack_timeout_tsc;
	if (rq->arm_solicit)
		rq->solicit_deadline = now + rq->solicit_tsc;
	rq->arm_ack = false;
	rq->arm_solicit = false;
}

unsigned int roce_req_run(struct roce_dev *d, struct roce_qp *rq,
			  unsigned int budget, uint64_t *now)
{
	struct pmr_qp_obj *qp = rq->qp;
	bool rc = qp->pub.qp_type == PMR_QPT_RC;
	uint32_t mtu = path_mtu(qp);
	unsigned int done = 0;
	bool idle;

	enum pmr_qp_state st = pmr_qp_state(qp);

	/* SQD: messages already begun are finished (and sent again when
	 * that is needed), no new one starts */
	if (st == PMR_QPS_SQD && !roce_sqd_may_send(rq)) {
		/* a neighbour looked up for, or room to send waited for,
		 * by a WQE that has not begun is not waited for (its ACK
		 * timer stops with nothing in flight); RTS tries again */
		rq->resolving = false;
		rq->tx_blocked = false;
		return 0;
	}
	if ((st != PMR_QPS_RTS && st != PMR_QPS_SQD) || rq->rnr_deadline != 0)
		return 0;
	while (done < budget) {
		uint32_t prod = atomic_load_explicit(&qp->sq.prod,
						     memory_order_acquire);
		const uint8_t *src = NULL;
		struct roce_swqe_st *s;
		struct pmr_swqe *w;
		int r;

		if (rq->req_idx == prod ||
		    (st == PMR_QPS_SQD && !roce_sqd_may_send(rq)))
			break;
		s = &rq->wst[rq->req_idx & qp->sq.mask];
		w = pmr_wq_slot(&qp->sq, rq->req_idx);
		if (rq->req_off == 0) {
			/* starting (or restarting) this WQE: same PSNs again;
			 * one that must wait for the window or for earlier
			 * READs and atomics is not looked at until it may go
			 * (a local error it has could not complete before
			 * then either: the WQEs before it are not done) */
			uint8_t *one;

			if (rc && (window_full(rq) || rd_blocked(rq, w)))
				break;
			s->first_psn = rq->req_psn;
			s->npkts = wqe_npkts(w, mtu);
			s->local_err = wqe_validate(qp, w, mtu, &one);
			s->dst = op_is_rd(w->opcode) ? one : NULL;
			if (!op_is_rd(w->opcode))
				src = one;
		}
		if (s->local_err != PMR_WC_SUCCESS) {
			done += retire_local(rq, s->local_err, sq_cons(qp));
			break;
		}
		if (rc && rq->req_off != 0 && window_full(rq))
			break;
		/* no room to send: nothing of the packet is made (a QP
		 * that waits does not build its headers on every run) */
		rq->tx_blocked = !roce_tx_room(d);
		if (rq->tx_blocked) {
			req_wait(rq, rc, now);
			break;
		}
		idle = rq->una_psn == rq->req_psn;
		r = req_packet(d, rq, w, mtu, src);
		if (r == 0) {
			req_wait(rq, rc, now);
			break;
		}
		if (r < 0) {
			/* retired now if its turn has come (not checked
			 * again first: that would undo a first packet's
			 * failure); else a later run starts it again */
			s->local_err = PMR_WC_LOC_PROT_ERR;
			done += retire_local(rq, s->local_err, sq_cons(qp));
			break;
		}
		done++;
		wqe_begun(rq);
		if (rc && (rq->ack_deadline == 0 || idle)) {
			/* the first packet in flight starts the timer afresh
			 * (one armed while it waited for room or a neighbour
			 * measured the wait, not the peer) */
			rq->ack_deadline = 0;
			ack_timer_start(rq, now);
		}
		if (rq->req_off < w->length)
			continue;
		/* the WQE is fully sent */
		rq->req_idx++;
		rq->req_off = 0;
		if (!rc)    /* UC and UD complete once their last frame is queued */
			pmr_sq_retire(qp, PMR_WC_SUCCESS, w->length, 0);
	}
	/* a tail that did not ask starts the solicit timer once: a later
	 * one moves no deadline (no clock read per post), an ACK of all
	 * clears it */
	if (rc && done > 0 && rq->unsolicited && rq->solicit_deadline == 0) {
		if (now == NULL)
			rq->arm_solicit = true;
		else
			rq->solicit_deadline = roce_now(now) + rq->solicit_tsc;
	}
	return done;
}

void roce_req_timers(struct roce_dev *d, struct roce_qp *rq, uint64_t *now)
{
	struct pmr_qp_obj *qp = rq->qp;

	if (rq->rnr_deadline == 0 && rq->ack_deadline == 0 &&
	    rq->solicit_deadline == 0)
		return;
	if (rq->rnr_deadline != 0 && roce_now(now) >= rq->rnr_deadline)
		rq->rnr_deadline = 0;
	if (rq->solicit_deadline != 0 &&
	    roce_now(now) >= rq->solicit_deadline) {
		/* the tail never asked for its ACK: send its last packet
		 * again, asking (a duplicate the responder ACKs).  Not a
		 * retry: nothing was lost. */
		rq->solicit_deadline = 0;
		if (rq->unsolicited && rq->tx_blocked) {
			/* more to send, waiting for room: the next packet
			 * asks, none goes twice.  The timer runs again: if
			 * that packet never goes (SQD before its WQE began),
			 * the tail is asked for as below next time. */
			rq->ackreq_next = true;
			rq->solicit_deadline = roce_now(now) + rq->solicit_tsc;
		} else if (rq->unsolicited && rq->rnr_deadline == 0 &&
			   rq->una_psn != rq->req_psn &&
			   rewind_to(rq, wire_psn_add(rq->req_psn,
						      WIRE_PSN_MASK))) {
			rq->ackreq_next = true;
			d->st.ack_solicits++;
		}
	}
	if (rq->ack_deadline == 0 || roce_now(now) < rq->ack_deadline)
		return;
	if (rq->una_psn == rq->req_psn && !rq->resolving && !rq->tx_blocked) {
		rq->ack_deadline = 0;      /* nothing in flight */
		return;
	}
	if (rq->una_psn == rq->req_psn && rq->tx_blocked &&
	    !roce_tx_stalled(d, roce_now(now), rq->ack_timeout_tsc)) {
		/* nothing in flight, waiting its turn for a ring that moves
		 * (other QPs' frames fill it): not the peer's silence, no
		 * retry used */
		ack_timer_start(rq, now);
		return;
	}
	d->st.timeouts++;
	rq->st.timeouts++;
	if (rq->retry_left == 0) {
		pmr_sq_retire(qp, PMR_WC_RETRY_EXC_ERR, 0, 0);
		rq->ack_deadline = 0;
		return;
	}
	rq->retry_left--;
	/* (nothing in flight: a neighbour or room waited for; nothing to
	 * send again, the retry is all the timeout costs) */
	if (rq->una_psn != rq->req_psn)
		roce_req_retransmit(rq, rq->una_psn);
	ack_timer_start(rq, now);
}
