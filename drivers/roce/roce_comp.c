/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer: takes the responder's answers (ACK, NAK, RNR NAK, READ
 * responses, ATOMIC ACKs), retires send WQEs in order and starts
 * retransmissions (IBA 9.7.5.1 requester side, 9.9 errors).
 */
#include <string.h>

#include "roce.h"

static bool op_is_rd(uint8_t op)
{
	return op == PMR_WR_RDMA_READ || op == PMR_WR_ATOMIC_CMP_AND_SWP ||
	       op == PMR_WR_ATOMIC_FETCH_AND_ADD;
}

static struct pmr_swqe *head_wqe(struct roce_qp *rq, struct roce_swqe_st **s)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);

	if (cons == roce_sq_started(rq))
		return NULL;
	*s = &rq->wst[cons & qp->sq.mask];
	return pmr_wq_slot(&qp->sq, cons);
}

static void progress_made(struct roce_qp *rq)
{
	struct pmr_qp_obj *qp = rq->qp;

	rq->retry_left = qp->attr.retry_cnt;
	rq->rnr_left = qp->attr.rnr_retry;
	rq->asked_again = false;
	if (rq->una_psn == rq->req_psn) {
		rq->unsolicited = false;    /* nothing left to ask for */
		rq->solicit_deadline = 0;
	}
	if (rq->una_psn == rq->req_psn || rq->ack_timeout_tsc == 0)
		rq->ack_deadline = 0;
	else	/* answers come in from progress: its clock, read once */
		rq->ack_deadline = roce_now(&roce_dev_of(qp)->now) +
				   rq->ack_timeout_tsc;
}

/*
 * Whether a go-back from `psn` or an earlier PSN was asked for since the
 * last progress (roce_req_retransmit() records it, whoever asked: a gap,
 * a NAK, the ACK timer): it sends `psn` again.
 */
static bool asked_from(const struct roce_qp *rq, uint32_t psn)
{
	return rq->asked_again && wire_psn_cmp(psn, rq->asked_psn) >= 0;
}

/*
 * A later answer showed the answers of the head READ or atomic lost from
 * `psn` on: ask for them again, unless a go-back under way sends them.
 * The answers already on their way behind the lost one come in next, and
 * if each asked again, each request sent again would restart the
 * responder's stream: on a long READ a storm in which no stream gets
 * far.  A request sent again and lost as well is the ACK timer's.
 */
static void ask_again(struct roce_qp *rq, uint32_t psn)
{
	if (!asked_from(rq, psn))
		roce_req_retransmit(rq, psn);
}

/* How many WQEs from the head of the SQ on are SENDs and WRITEs sent
 * whole and acknowledged by `psn` (up to the first READ or atomic, or the
 * first not wholly acknowledged). */
static uint32_t sends_acked(const struct roce_qp *rq, uint32_t psn)
{
	const struct pmr_qp_obj *qp = rq->qp;
	uint32_t cons = atomic_load_explicit(&qp->sq.cons, memory_order_relaxed);
	uint32_t started = roce_sq_started(rq);
	uint32_t n = 0;

	for (; cons + n != started; n++) {
		const struct pmr_swqe *w = pmr_wq_slot(&qp->sq, cons + n);
		const struct roce_swqe_st *s = &rq->wst[(cons + n) & qp->sq.mask];

		if (op_is_rd(w->opcode) ||
		    wire_psn_cmp(wire_psn_add(s->first_psn, s->npkts - 1),
				 psn) > 0)
			break;
	}
	return n;
}

/*
 * Everything up to and including `psn` is acknowledged: retire the SEND
 * and WRITE WQEs it covers.  A READ or atomic it covers whose answer
 * never came was lost: go back to it (implicit NAK).
 * @return false when the QP left RTS on the way.
 */
static bool ack_upto(struct roce_qp *rq, uint32_t psn)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t mtu = (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu);
	uint32_t una = wire_psn_add(psn, 1);
	uint32_t n = sends_acked(rq, psn);
	struct roce_swqe_st *s;
	struct pmr_swqe *w;
	bool moved = n != 0;

	if (n != 0)      /* retired in one go: one store of the consumer */
		pmr_sq_retire_ok(qp, n);
	w = head_wqe(rq, &s);
	if (w != NULL && op_is_rd(w->opcode)) {
		/* acknowledged only as far as its answers came */
		uint32_t last = wire_psn_add(s->first_psn, s->npkts - 1);
		uint32_t got = wire_psn_add(s->first_psn,
			w->opcode == PMR_WR_RDMA_READ ?
			roce_mtu_whole(rq->read_off, mtu) : 0);

		if (wire_psn_cmp(una, got) > 0)
			una = got;
		if (wire_psn_cmp(last, psn) <= 0)
			/* covered by a later answer: its own were lost */
			ask_again(rq, got);
	}
	/* any PSN newly acknowledged is progress, not only a retired WQE:
	 * one long message spans many ACKs, and the timer must not fire */
	if (wire_psn_cmp(una, rq->una_psn) > 0) {
		rq->una_psn = una;
		moved = true;
	}
	if (moved)
		progress_made(rq);
	return pmr_qp_state(qp) == PMR_QPS_RTS || pmr_qp_state(qp) == PMR_QPS_SQD;
}

static void fail_head(struct roce_qp *rq, enum pmr_wc_status st)
{
	struct roce_swqe_st *s;

	if (head_wqe(rq, &s) != NULL)
		pmr_sq_retire(rq->qp, st, 0, 0);
}

static void nak_rx(struct roce_dev *d, struct roce_qp *rq, uint32_t psn,
		   uint8_t syn)
{
	struct pmr_qp_obj *qp = rq->qp;
	/* before this NAK's own acknowledgement asks anything */
	bool under_way = asked_from(rq, psn);

	rq->st.nak_rx++;
	if (!ack_upto(rq, wire_psn_add(psn, 0xffffff)))
		return;
	switch (wire_syn_kind(syn)) {
	case WIRE_AETH_RNR_NAK:
		d->st.nak_rnr_rx++;
		d->st.rnr_waits++;
		rq->st.rnr_waits++;
		if (qp->attr.rnr_retry != 7 && rq->rnr_left-- == 0) {
			fail_head(rq, PMR_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		roce_req_retransmit(rq, psn);
		rq->rnr_deadline = rte_rdtsc() + roce_ns_to_tsc(d,
			wire_rnr_timer_ns(wire_syn_value(syn)));
		rq->ack_deadline = 0;
		return;
	case WIRE_AETH_NAK:
		switch (wire_syn_value(syn)) {
		case WIRE_NAK_PSN_SEQ:
			d->st.nak_seq_rx++;
			/* and still under way (no progress since): a copy of
			 * a NAK, or one for a packet behind the loss it
			 * resends; another go-back would restart the stream
			 * again and spend a retry, as ask_again() says */
			if (under_way && rq->asked_again)
				return;
			if (rq->retry_left == 0) {
				fail_head(rq, PMR_WC_RETRY_EXC_ERR);
				return;
			}
			rq->retry_left--;
			roce_req_retransmit(rq, psn);
			return;
		case WIRE_NAK_INVALID_REQ:
			d->st.nak_inv_rx++;
			fail_head(rq, PMR_WC_REM_INV_REQ_ERR);
			return;
		case WIRE_NAK_REM_ACCESS:
			d->st.nak_acc_rx++;
			fail_head(rq, PMR_WC_REM_ACCESS_ERR);
			return;
		case WIRE_NAK_REM_OP:
			d->st.nak_op_rx++;
			fail_head(rq, PMR_WC_REM_OP_ERR);
			return;
		default:
			return;     /* reserved codes: ignored */
		}
	default:
		return;
	}
}

/*
 * The answer for `psn` belongs to a WQE after the oldest one, a READ or
 * atomic whose own answers were lost: ack_upto() has asked for them
 * again, or had since the last progress (ask_again()), in which case the
 * oldest is still started.  Dropped; the WQE is answered again after the
 * one before it.  An oldest READ takes a later READ response as a gap
 * instead, which asks the same.
 */
static bool later_answer(const struct roce_swqe_st *s, uint32_t psn)
{
	return wire_psn_cmp(psn, wire_psn_add(s->first_psn, s->npkts)) >= 0;
}

static void read_resp_rx(struct roce_qp *rq, const uint8_t *f,
			 const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	uint32_t mtu = (uint32_t)pmr_mtu_to_num(qp->attr.path_mtu);
	struct roce_swqe_st *s;
	struct pmr_swqe *w;
	uint32_t expect;

	if (!ack_upto(rq, wire_psn_add(p->psn, 0xffffff)))
		return;
	w = head_wqe(rq, &s);
	if (w == NULL)
		return;
	if (w->opcode != PMR_WR_RDMA_READ) {
		/* a later READ's answer behind an atomic whose own was
		 * lost; one within the oldest WQE's PSNs is no answer to
		 * what it asked */
		if (!later_answer(s, p->psn))
			fail_head(rq, PMR_WC_BAD_RESP_ERR);
		return;
	}
	expect = wire_psn_add(s->first_psn, roce_mtu_whole(rq->read_off, mtu));
	if (p->psn != expect) {
		/* a gap: go back to the first missing response */
		if (wire_psn_cmp(p->psn, expect) > 0)
			ask_again(rq, expect);
		return;
	}
	if (p->payload_len > w->length - rq->read_off ||
	    (!(p->info->flags & WIRE_OPF_ENDS) && p->payload_len != mtu) ||
	    ((p->info->flags & WIRE_OPF_ENDS) &&
	     rq->read_off + p->payload_len != w->length)) {
		fail_head(rq, PMR_WC_BAD_RESP_ERR);
		return;
	}
	if (p->payload_len > 0 && s->dst != NULL) {
		/* one SGE, checked whole when the READ was sent; the
		 * length check above keeps the copy inside it */
		memcpy(s->dst + rq->read_off, f + p->payload_off,
		       p->payload_len);
	} else if (p->payload_len > 0 &&
		   !roce_sge_scatter(qp, pmr_swqe_sge(w), w->num_sge,
				     rq->read_off, f + p->payload_off,
				     p->payload_len)) {
		fail_head(rq, PMR_WC_LOC_PROT_ERR);
		return;
	}
	rq->read_off += p->payload_len;
	if (wire_psn_cmp(wire_psn_add(p->psn, 1), rq->una_psn) > 0)
		rq->una_psn = wire_psn_add(p->psn, 1);
	if (p->info->flags & WIRE_OPF_ENDS) {
		rq->read_off = 0;
		pmr_sq_retire(qp, PMR_WC_SUCCESS, w->length, 0);
	}
	progress_made(rq);
}

static void atomic_ack_rx(struct roce_qp *rq, const uint8_t *f,
			  const struct wire_pkt *p)
{
	const struct wire_atmack *ack = wire_pkt_hdr(f, p, WIRE_HDR_ATMACK);
	struct roce_swqe_st *s;
	struct pmr_swqe *w;
	uint64_t orig;

	if (!ack_upto(rq, wire_psn_add(p->psn, 0xffffff)))
		return;
	w = head_wqe(rq, &s);
	if (w == NULL || later_answer(s, p->psn))
		return;
	if ((w->opcode != PMR_WR_ATOMIC_CMP_AND_SWP &&
	     w->opcode != PMR_WR_ATOMIC_FETCH_AND_ADD) ||
	    s->first_psn != p->psn) {
		fail_head(rq, PMR_WC_BAD_RESP_ERR);
		return;
	}
	orig = wire_atmack_orig(ack);
	/* an atomic has one SGE of 8 bytes (wqe_validate()), so its MR
	 * check at send always gave the address */
	memcpy(s->dst, &orig, 8);
	rq->una_psn = wire_psn_add(p->psn, 1);
	pmr_sq_retire(rq->qp, PMR_WC_SUCCESS, 8, 0);
	progress_made(rq);
}

void roce_comp_rx(struct roce_dev *d, struct roce_qp *rq, const uint8_t *f,
		  const struct wire_pkt *p)
{
	struct pmr_qp_obj *qp = rq->qp;
	enum pmr_qp_state st = pmr_qp_state(qp);
	const struct wire_aeth *aeth;

	if (qp->pub.qp_type != PMR_QPT_RC ||
	    (st != PMR_QPS_RTS && st != PMR_QPS_SQD)) {
		d->st.rx_drop_state++;
		return;
	}
	/*
	 * An answer must be for a PSN sent and not yet answered.  After a
	 * go-back-N restart, answers for PSNs beyond the restart point are
	 * dropped too: the retransmitted requests will be answered again.
	 */
	if (wire_psn_cmp(p->psn, rq->una_psn) < 0 ||
	    wire_psn_cmp(p->psn, rq->req_psn) >= 0) {
		d->st.dup_requests++;
		return;
	}
	aeth = wire_pkt_hdr(f, p, WIRE_HDR_AETH);
	switch (p->opcode) {
	case WIRE_OP_RC_ACKNOWLEDGE:
		if (wire_syn_kind(wire_aeth_syn(aeth)) == WIRE_AETH_ACK)
			ack_upto(rq, p->psn);
		else
			nak_rx(d, rq, p->psn, wire_aeth_syn(aeth));
		break;
	case WIRE_OP_RC_ATOMIC_ACKNOWLEDGE:
		atomic_ack_rx(rq, f, p);
		break;
	case WIRE_OP_RC_READ_RESPONSE_FIRST:
	case WIRE_OP_RC_READ_RESPONSE_MIDDLE:
	case WIRE_OP_RC_READ_RESPONSE_LAST:
	case WIRE_OP_RC_READ_RESPONSE_ONLY:
		read_resp_rx(rq, f, p);
		break;
	default:
		fail_head(rq, PMR_WC_BAD_RESP_ERR);
		break;
	}
}
