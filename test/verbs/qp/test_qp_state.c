/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state machine, table-driven, for RC, UC and UD: every (current,
 * next) pair of RESET..ERR; exactly the required attributes; each one
 * missing; each attribute not allowed added; bad values; CUR_STATE;
 * attribute changes without PMR_QP_STATE.  The expected table is the
 * IBA / Linux ib_modify_qp_is_ok() one (PROTOCOL.md "QP state machine":
 * any -> ERR, any -> RESET).
 */
#include "vt.h"

enum { RC, UC, UD, NT };
static const enum pmr_qp_type qpt[NT] = { PMR_QPT_RC, PMR_QPT_UC, PMR_QPT_UD };
static const char *const tname[NT] = { "RC", "UC", "UD" };
static const char *const sname[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
				     "SQE", "ERR" };

#define NS (PMR_QPS_ERR + 1)

struct tr {
	bool valid;
	uint32_t req[NT];
	uint32_t opt[NT];
};

#define INIT_REQ_RCUC (PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_ACCESS_FLAGS)
#define INIT_REQ_UD (PMR_QP_PKEY_INDEX | PMR_QP_PORT | PMR_QP_QKEY)
#define RTR_REQ_RC (PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN | \
		    PMR_QP_RQ_PSN | PMR_QP_MAX_DEST_RD_ATOMIC | \
		    PMR_QP_MIN_RNR_TIMER)
#define RTR_REQ_UC (PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN | \
		    PMR_QP_RQ_PSN)
#define RTS_REQ_RC (PMR_QP_SQ_PSN | PMR_QP_MAX_QP_RD_ATOMIC | \
		    PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY | PMR_QP_TIMEOUT)
#define TO_RTS_OPT_RC (PMR_QP_CUR_STATE | PMR_QP_ALT_PATH | \
		       PMR_QP_ACCESS_FLAGS | PMR_QP_MIN_RNR_TIMER | \
		       PMR_QP_PATH_MIG_STATE)
#define TO_RTS_OPT_UC (PMR_QP_CUR_STATE | PMR_QP_ALT_PATH | \
		       PMR_QP_ACCESS_FLAGS | PMR_QP_PATH_MIG_STATE)
#define TO_RTS_OPT_UD (PMR_QP_CUR_STATE | PMR_QP_QKEY)

/* Expected table (written independently of lib/verbs/pmr_qp.c). */
static const struct tr table[NS][NS] = {
	[PMR_QPS_RESET] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_INIT] = { true,
			{ INIT_REQ_RCUC, INIT_REQ_RCUC, INIT_REQ_UD }, {0} },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
	[PMR_QPS_INIT] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_INIT] = { true, {0},
			{ INIT_REQ_RCUC, INIT_REQ_RCUC, INIT_REQ_UD } },
		[PMR_QPS_RTR] = { true, { RTR_REQ_RC, RTR_REQ_UC, 0 },
			{ PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS | PMR_QP_PKEY_INDEX,
			  PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS | PMR_QP_PKEY_INDEX,
			  PMR_QP_PKEY_INDEX | PMR_QP_QKEY } },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
	[PMR_QPS_RTR] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_RTS] = { true,
			{ RTS_REQ_RC, PMR_QP_SQ_PSN, PMR_QP_SQ_PSN },
			{ TO_RTS_OPT_RC, TO_RTS_OPT_UC, TO_RTS_OPT_UD } },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
	[PMR_QPS_RTS] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_RTS] = { true, {0},
			{ TO_RTS_OPT_RC, TO_RTS_OPT_UC, TO_RTS_OPT_UD } },
		[PMR_QPS_SQD] = { true, {0},
			{ PMR_QP_EN_SQD_ASYNC_NOTIFY, PMR_QP_EN_SQD_ASYNC_NOTIFY,
			  PMR_QP_EN_SQD_ASYNC_NOTIFY } },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
	[PMR_QPS_SQD] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_RTS] = { true, {0},
			{ TO_RTS_OPT_RC, TO_RTS_OPT_UC, TO_RTS_OPT_UD } },
		[PMR_QPS_SQD] = { true, {0},
			{ PMR_QP_PORT | PMR_QP_AV | PMR_QP_TIMEOUT |
			  PMR_QP_RETRY_CNT | PMR_QP_RNR_RETRY |
			  PMR_QP_MAX_QP_RD_ATOMIC | PMR_QP_MAX_DEST_RD_ATOMIC |
			  PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
			  PMR_QP_PKEY_INDEX | PMR_QP_MIN_RNR_TIMER |
			  PMR_QP_PATH_MIG_STATE,
			  PMR_QP_AV | PMR_QP_ALT_PATH | PMR_QP_ACCESS_FLAGS |
			  PMR_QP_PKEY_INDEX | PMR_QP_PATH_MIG_STATE,
			  PMR_QP_PKEY_INDEX | PMR_QP_QKEY } },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
	[PMR_QPS_SQE] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_RTS] = { true, {0},
			{ 0, PMR_QP_CUR_STATE | PMR_QP_ACCESS_FLAGS,
			  PMR_QP_CUR_STATE | PMR_QP_QKEY } },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
	[PMR_QPS_ERR] = {
		[PMR_QPS_RESET] = { true, {0}, {0} },
		[PMR_QPS_ERR] = { true, {0}, {0} },
	},
};

/* Every attribute bit that may be tested as "added" (not STATE/CUR_STATE). */
static const uint32_t attr_bits[] = {
	PMR_QP_EN_SQD_ASYNC_NOTIFY, PMR_QP_ACCESS_FLAGS, PMR_QP_PKEY_INDEX,
	PMR_QP_PORT, PMR_QP_QKEY, PMR_QP_AV, PMR_QP_PATH_MTU, PMR_QP_TIMEOUT,
	PMR_QP_RETRY_CNT, PMR_QP_RNR_RETRY, PMR_QP_RQ_PSN,
	PMR_QP_MAX_QP_RD_ATOMIC, PMR_QP_ALT_PATH, PMR_QP_MIN_RNR_TIMER,
	PMR_QP_SQ_PSN, PMR_QP_MAX_DEST_RD_ATOMIC, PMR_QP_PATH_MIG_STATE,
	PMR_QP_CAP, PMR_QP_DEST_QPN, PMR_QP_RATE_LIMIT,
};
#define NBITS (int)(sizeof(attr_bits) / sizeof(attr_bits[0]))

static const char *bitname(uint32_t b)
{
	switch (b) {
	case PMR_QP_STATE: return "STATE";
	case PMR_QP_CUR_STATE: return "CUR_STATE";
	case PMR_QP_EN_SQD_ASYNC_NOTIFY: return "EN_SQD_ASYNC_NOTIFY";
	case PMR_QP_ACCESS_FLAGS: return "ACCESS_FLAGS";
	case PMR_QP_PKEY_INDEX: return "PKEY_INDEX";
	case PMR_QP_PORT: return "PORT";
	case PMR_QP_QKEY: return "QKEY";
	case PMR_QP_AV: return "AV";
	case PMR_QP_PATH_MTU: return "PATH_MTU";
	case PMR_QP_TIMEOUT: return "TIMEOUT";
	case PMR_QP_RETRY_CNT: return "RETRY_CNT";
	case PMR_QP_RNR_RETRY: return "RNR_RETRY";
	case PMR_QP_RQ_PSN: return "RQ_PSN";
	case PMR_QP_MAX_QP_RD_ATOMIC: return "MAX_QP_RD_ATOMIC";
	case PMR_QP_ALT_PATH: return "ALT_PATH";
	case PMR_QP_MIN_RNR_TIMER: return "MIN_RNR_TIMER";
	case PMR_QP_SQ_PSN: return "SQ_PSN";
	case PMR_QP_MAX_DEST_RD_ATOMIC: return "MAX_DEST_RD_ATOMIC";
	case PMR_QP_PATH_MIG_STATE: return "PATH_MIG_STATE";
	case PMR_QP_CAP: return "CAP";
	case PMR_QP_DEST_QPN: return "DEST_QPN";
	case PMR_QP_RATE_LIMIT: return "RATE_LIMIT";
	default: return "?";
	}
}

static struct vt v;
static struct pmr_cq *cq[NT];
static struct pmr_ah *ah;
static struct pmr_mr *mr;
static uint8_t buf[8192];

/* Build values A: vt_opts_default(). Attempt values B: valid, different. */
static void attr_b(struct pmr_qp_attr *a, enum pmr_qp_state next)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = next;
	a->qkey = 0x22222222;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qp_access_flags = PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE;
	vt_ah_attr(&v, &a->ah_attr);
	vt_ah_attr(&v, &a->alt_ah_attr);
	/* the same peer on both paths (one port), other path fields */
	a->ah_attr.grh.traffic_class = 0x28;
	a->ah_attr.grh.hop_limit = 7;
	a->ah_attr.grh.flow_label = 0x12345;
	a->alt_ah_attr.grh.traffic_class = 0x48;
	a->alt_ah_attr.grh.hop_limit = 9;
	a->alt_port_num = 1;
	a->path_mtu = PMR_MTU_2048;
	a->timeout = 10;
	a->retry_cnt = 3;
	a->rnr_retry = 5;
	a->rq_psn = 0x123;
	a->sq_psn = 0x456;
	a->max_rd_atomic = 2;
	a->max_dest_rd_atomic = 2;
	a->min_rnr_timer = 5;
	a->dest_qp_num = 0x999;
	a->path_mig_state = PMR_MIG_MIGRATED;
	a->en_sqd_async_notify = 0;
}

static bool ah_eq(const struct pmr_ah_attr *x, const struct pmr_ah_attr *y)
{
	return x->is_global == y->is_global &&
	       memcmp(&x->grh.dgid, &y->grh.dgid, 16) == 0 &&
	       x->grh.traffic_class == y->grh.traffic_class &&
	       x->grh.hop_limit == y->grh.hop_limit &&
	       x->grh.flow_label == y->grh.flow_label;
}

/* Whether the value of attribute `b` is the same in x and y (port and
 * P_Key index cannot differ on a one-port, one-P_Key device; CAP and
 * RATE_LIMIT are not kept: those compare equal). */
static bool field_eq(uint32_t b, const struct pmr_qp_attr *x,
		     const struct pmr_qp_attr *y)
{
	switch (b) {
	case PMR_QP_ACCESS_FLAGS: return x->qp_access_flags == y->qp_access_flags;
	case PMR_QP_PKEY_INDEX: return x->pkey_index == y->pkey_index;
	case PMR_QP_PORT: return x->port_num == y->port_num;
	case PMR_QP_QKEY: return x->qkey == y->qkey;
	case PMR_QP_AV:
		return ah_eq(&x->ah_attr, &y->ah_attr);
	case PMR_QP_ALT_PATH:
		return ah_eq(&x->alt_ah_attr, &y->alt_ah_attr) &&
		       x->alt_port_num == y->alt_port_num;
	case PMR_QP_PATH_MTU: return x->path_mtu == y->path_mtu;
	case PMR_QP_TIMEOUT: return x->timeout == y->timeout;
	case PMR_QP_RETRY_CNT: return x->retry_cnt == y->retry_cnt;
	case PMR_QP_RNR_RETRY: return x->rnr_retry == y->rnr_retry;
	case PMR_QP_RQ_PSN: return x->rq_psn == y->rq_psn;
	case PMR_QP_MAX_QP_RD_ATOMIC: return x->max_rd_atomic == y->max_rd_atomic;
	case PMR_QP_MIN_RNR_TIMER: return x->min_rnr_timer == y->min_rnr_timer;
	case PMR_QP_SQ_PSN: return x->sq_psn == y->sq_psn;
	case PMR_QP_MAX_DEST_RD_ATOMIC:
		return x->max_dest_rd_atomic == y->max_dest_rd_atomic;
	case PMR_QP_PATH_MIG_STATE: return x->path_mig_state == y->path_mig_state;
	case PMR_QP_DEST_QPN: return x->dest_qp_num == y->dest_qp_num;
	case PMR_QP_EN_SQD_ASYNC_NOTIFY:
		return x->en_sqd_async_notify == y->en_sqd_async_notify;
	default: return true;
	}
}

static void query(struct pmr_qp *qp, struct pmr_qp_attr *a)
{
	struct pmr_qp_init_attr ia;

	memset(a, 0, sizeof(*a));
	CHECK_EQ(pmr_query_qp(qp, a, 0x1fffff, &ia), 0);
}

/* The QP is in state `s` and every attribute equals `snap`. */
static void expect_unchanged(struct pmr_qp *qp, const struct pmr_qp_attr *snap,
			     const char *what, int t, int cur, int next)
{
	struct pmr_qp_attr now;

	query(qp, &now);
	EXPECT_EQ_MSG(now.qp_state, snap->qp_state,
		      "(%s %s->%s, %s: state changed)", tname[t], sname[cur],
		      sname[next], what);
	EXPECT_EQ_MSG(qp->state, snap->qp_state, "(%s %s->%s, %s: qp->state)",
		      tname[t], sname[cur], sname[next], what);
	for (int i = 0; i < NBITS; i++)
		if (!field_eq(attr_bits[i], &now, snap)) {
			fprintf(stderr, "  %s %s->%s, %s: attribute %s changed\n",
				tname[t], sname[cur], sname[next], what,
				bitname(attr_bits[i]));
			vt_failures++;
		}
}

/* Set a bad value of attribute `b`, variant `k`. @return false: none. */
static bool set_bad(uint32_t b, int k, struct pmr_qp_attr *a)
{
	switch (b) {
	case PMR_QP_PORT:
		if (k > 1)
			return false;
		a->port_num = k == 0 ? 2 : 0;
		return true;
	case PMR_QP_PKEY_INDEX:
		a->pkey_index = 1;
		return k == 0;
	case PMR_QP_PATH_MTU:
		if (k > 1)
			return false;
		a->path_mtu = k == 0 ? (enum pmr_mtu)0 : (enum pmr_mtu)6;
		return true;
	case PMR_QP_TIMEOUT: a->timeout = 32; return k == 0;
	case PMR_QP_RETRY_CNT: a->retry_cnt = 8; return k == 0;
	case PMR_QP_RNR_RETRY: a->rnr_retry = 8; return k == 0;
	case PMR_QP_MIN_RNR_TIMER: a->min_rnr_timer = 32; return k == 0;
	case PMR_QP_RQ_PSN: a->rq_psn = 1u << 24; return k == 0;
	case PMR_QP_SQ_PSN: a->sq_psn = 1u << 24; return k == 0;
	case PMR_QP_DEST_QPN: a->dest_qp_num = 1u << 24; return k == 0;
	case PMR_QP_MAX_QP_RD_ATOMIC:
		a->max_rd_atomic = (uint8_t)(v.dattr.max_qp_init_rd_atom + 1);
		return k == 0;
	case PMR_QP_MAX_DEST_RD_ATOMIC:
		a->max_dest_rd_atomic = (uint8_t)(v.dattr.max_qp_rd_atom + 1);
		return k == 0;
	case PMR_QP_AV:
		if (k == 0)
			a->ah_attr.is_global = 0;
		else if (k == 1)
			a->ah_attr.port_num = 2;
		else if (k == 2)
			a->ah_attr.grh.sgid_index = 200;
		return k <= 2;
	case PMR_QP_ALT_PATH: a->alt_ah_attr.is_global = 0; return k == 0;
	case PMR_QP_ACCESS_FLAGS:
		a->qp_access_flags = k == 0 ? 1u << 10 : 0x80000000u |
				     PMR_ACCESS_LOCAL_WRITE;
		return k <= 1;
	case PMR_QP_PATH_MIG_STATE:
		a->path_mig_state = (enum pmr_mig_state)3;
		return k == 0;
	default:
		return false;
	}
}

static void drain(int t)
{
	struct pmr_wc wc[16];

	while (pmr_poll_cq(cq[t], 16, wc) > 0)
		;
}

/* A QP of type t in state s (self-connected), or NULL if unreachable. */
static struct pmr_qp *build(int t, enum pmr_qp_state s)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_qp *qp;
	struct pmr_qp_attr a;

	if (s == PMR_QPS_SQE && t == RC)
		return NULL;
	qp = vt_qp(v.pd, qpt[t], cq[t], cq[t], 8, 0);
	if (s == PMR_QPS_RESET)
		return qp;
	if (s == PMR_QPS_ERR) {
		memset(&a, 0, sizeof(a));
		a.qp_state = PMR_QPS_ERR;
		CHECK_EQ(vt_to_init(qp, &o), 0);
		CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
		CHECK_EQ(vt_state(qp), PMR_QPS_ERR);
		return qp;
	}
	CHECK_EQ(vt_to_init(qp, &o), 0);
	if (s == PMR_QPS_INIT)
		return qp;
	CHECK_EQ(vt_to_rtr(&v, qp, qp->qp_num, &o), 0);
	if (s == PMR_QPS_RTR)
		return qp;
	CHECK_EQ(vt_to_rts(qp, &o), 0);
	if (s == PMR_QPS_RTS)
		return qp;
	if (s == PMR_QPS_SQD) {
		memset(&a, 0, sizeof(a));
		a.qp_state = PMR_QPS_SQD;
		CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), 0);
		CHECK_EQ(vt_state(qp), PMR_QPS_SQD);
		return qp;
	}
	/* SQE: a send error on UC (bad lkey) or UD (longer than the MTU) */
	{
		struct pmr_sge sge = { (uintptr_t)buf, 16, mr->lkey ^ 0x5a };
		struct pmr_send_wr wr = vt_swr(77, PMR_WR_SEND, &sge, 1,
					       PMR_SEND_SIGNALED);
		struct pmr_wc wc;

		if (t == UD) {
			sge.lkey = mr->lkey;
			sge.length = (uint32_t)pmr_mtu_to_num(v.pattr.active_mtu) + 1;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = qp->qp_num;
			wr.wr.ud.remote_qkey = 0x11111111;
		}
		CHECK_EQ(vt_post_send1(qp, &wr), 0);
		vt_poll1(cq[t], &wc);
		CHECK_EQ(wc.wr_id, 77);
		CHECK_WC(wc, t == UD ? PMR_WC_LOC_LEN_ERR : PMR_WC_LOC_PROT_ERR);
		CHECK_EQ(vt_state(qp), PMR_QPS_SQE);
		drain(t);
	}
	return qp;
}

static void destroy(int t, struct pmr_qp *qp)
{
	drain(t);
	CHECK_EQ(vt_async_drain(&v), 0);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
}

/* The mask a transition into `next` would naturally need (for invalid ones). */
static uint32_t entry_req(int t, enum pmr_qp_state next)
{
	switch (next) {
	case PMR_QPS_INIT: return table[PMR_QPS_RESET][PMR_QPS_INIT].req[t];
	case PMR_QPS_RTR: return table[PMR_QPS_INIT][PMR_QPS_RTR].req[t];
	case PMR_QPS_RTS: return table[PMR_QPS_RTR][PMR_QPS_RTS].req[t];
	default: return 0;
	}
}

static int try_mod(struct pmr_qp *qp, struct pmr_qp_attr *a, uint32_t mask)
{
	return pmr_modify_qp(qp, a, (int)(mask | PMR_QP_STATE));
}

static void one(int t, enum pmr_qp_state cur, enum pmr_qp_state next)
{
	const struct tr *e = &table[cur][next];
	struct pmr_qp *qp = build(t, cur);
	struct pmr_qp_attr a, snap, now;
	uint32_t req, opt;
	int r;

	if (qp == NULL)
		return;
	query(qp, &snap);
	CHECK_EQ(snap.qp_state, cur);

	if (!e->valid) {
		attr_b(&a, next);
		r = try_mod(qp, &a, 0);
		EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s, STATE only: invalid "
			      "transition accepted)", tname[t], sname[cur],
			      sname[next]);
		attr_b(&a, next);
		r = try_mod(qp, &a, entry_req(t, next));
		EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s, with entry mask: invalid "
			      "transition accepted)", tname[t], sname[cur],
			      sname[next]);
		expect_unchanged(qp, &snap, "invalid transition", t, cur, next);
		destroy(t, qp);
		return;
	}
	req = e->req[t];
	opt = e->opt[t];

	/* each required attribute missing */
	for (int i = 0; i < NBITS; i++) {
		uint32_t b = attr_bits[i];

		if (!(req & b))
			continue;
		attr_b(&a, next);
		r = try_mod(qp, &a, req & ~b);
		EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s without required %s)",
			      tname[t], sname[cur], sname[next], bitname(b));
		expect_unchanged(qp, &snap, bitname(b), t, cur, next);
	}
	/* each attribute not allowed, added */
	for (int i = 0; i < NBITS; i++) {
		uint32_t b = attr_bits[i];

		if ((req | opt) & b)
			continue;
		attr_b(&a, next);
		r = try_mod(qp, &a, req | b);
		EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s with disallowed %s)",
			      tname[t], sname[cur], sname[next], bitname(b));
		expect_unchanged(qp, &snap, bitname(b), t, cur, next);
	}
	/* bad values of allowed attributes */
	for (int i = 0; i < NBITS; i++) {
		uint32_t b = attr_bits[i];

		if (!((req | opt) & b))
			continue;
		for (int k = 0;; k++) {
			attr_b(&a, next);
			if (!set_bad(b, k, &a))
				break;
			r = try_mod(qp, &a, req | b);
			EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s, bad value #%d of %s)",
				      tname[t], sname[cur], sname[next], k,
				      bitname(b));
			expect_unchanged(qp, &snap, "bad value", t, cur, next);
		}
	}
	/* CUR_STATE naming the wrong current state */
	attr_b(&a, next);
	a.cur_qp_state = cur == PMR_QPS_RTS ? PMR_QPS_RTR : PMR_QPS_RTS;
	r = try_mod(qp, &a, req | PMR_QP_CUR_STATE);
	EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s, wrong CUR_STATE)", tname[t],
		      sname[cur], sname[next]);
	/* an unknown mask bit */
	attr_b(&a, next);
	r = try_mod(qp, &a, req | (1u << 22));
	EXPECT_EQ_MSG(r, EINVAL, "(%s %s->%s, unknown mask bit)", tname[t],
		      sname[cur], sname[next]);
	expect_unchanged(qp, &snap, "cur_state/unknown bit", t, cur, next);

	/* exactly the required attributes */
	attr_b(&a, next);
	r = try_mod(qp, &a, req);
	EXPECT_EQ_MSG(r, 0, "(%s %s->%s with exactly the required mask)",
		      tname[t], sname[cur], sname[next]);
	if (r == 0) {
		query(qp, &now);
		EXPECT_EQ_MSG(now.qp_state, next, "(%s %s->%s: new state)",
			      tname[t], sname[cur], sname[next]);
		EXPECT_EQ_MSG(qp->state, next, "(%s %s->%s: qp->state)",
			      tname[t], sname[cur], sname[next]);
		for (int i = 0; i < NBITS; i++)
			if ((req & attr_bits[i]) &&
			    !field_eq(attr_bits[i], &now, &a)) {
				fprintf(stderr, "  %s %s->%s: %s not committed\n",
					tname[t], sname[cur], sname[next],
					bitname(attr_bits[i]));
				vt_failures++;
			}
	}
	destroy(t, qp);

	/* required + every optional attribute, on a fresh QP */
	if (opt == 0)
		return;
	qp = build(t, cur);
	attr_b(&a, next);
	a.cur_qp_state = cur;
	r = try_mod(qp, &a, req | opt);
	EXPECT_EQ_MSG(r, 0, "(%s %s->%s with required + all optional)",
		      tname[t], sname[cur], sname[next]);
	if (r == 0) {
		query(qp, &now);
		EXPECT_EQ_MSG(now.qp_state, next, "(%s %s->%s +opt: new state)",
			      tname[t], sname[cur], sname[next]);
		for (int i = 0; i < NBITS; i++)
			if (((req | opt) & attr_bits[i]) &&
			    !field_eq(attr_bits[i], &now, &a)) {
				fprintf(stderr, "  %s %s->%s: optional %s not "
					"committed\n", tname[t], sname[cur],
					sname[next], bitname(attr_bits[i]));
				vt_failures++;
			}
	}
	destroy(t, qp);
}

/* Attribute changes without PMR_QP_STATE, and odd qp_state values. */
static void in_place(void)
{
	struct pmr_qp *qp;
	struct pmr_qp_attr a, now;

	/* RC in RTS: MIN_RNR_TIMER alone */
	qp = build(RC, PMR_QPS_RTS);
	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = 12;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_MIN_RNR_TIMER), 0);
	query(qp, &now);
	CHECK_EQ(now.qp_state, PMR_QPS_RTS);
	CHECK_EQ(now.min_rnr_timer, 12);
	/* ... but not SQ_PSN (not allowed RTS->RTS) */
	a.sq_psn = 77;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_SQ_PSN), EINVAL);
	query(qp, &now);
	CHECK_EQ(now.sq_psn, 0);
	/* qp_state out of range */
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_UNKNOWN;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), EINVAL);
	a.qp_state = (enum pmr_qp_state)42;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE), EINVAL);
	CHECK_EQ(vt_state(qp), PMR_QPS_RTS);
	/* CUR_STATE right in RTS->RTS */
	a.qp_state = PMR_QPS_RTS;
	a.cur_qp_state = PMR_QPS_RTS;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_CUR_STATE), 0);
	destroy(RC, qp);

	/* RC in RTR: nothing can change in place (RTR->RTR is no transition) */
	qp = build(RC, PMR_QPS_RTR);
	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = 12;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_MIN_RNR_TIMER), EINVAL);
	query(qp, &now);
	CHECK_EQ(now.min_rnr_timer, 1);
	destroy(RC, qp);

	/* UD in RTS: QKEY alone */
	qp = build(UD, PMR_QPS_RTS);
	memset(&a, 0, sizeof(a));
	a.qkey = 0x33333333;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_QKEY), 0);
	query(qp, &now);
	CHECK_EQ(now.qkey, 0x33333333);
	CHECK_EQ(now.qp_state, PMR_QPS_RTS);
	destroy(UD, qp);

	/* UC in INIT: ACCESS_FLAGS alone */
	qp = build(UC, PMR_QPS_INIT);
	memset(&a, 0, sizeof(a));
	a.qp_access_flags = PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_LOCAL_WRITE;
	CHECK_EQ(pmr_modify_qp(qp, &a, PMR_QP_ACCESS_FLAGS), 0);
	query(qp, &now);
	CHECK_EQ(now.qp_access_flags,
		 PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_LOCAL_WRITE);
	CHECK_EQ(now.qp_state, PMR_QPS_INIT);
	destroy(UC, qp);
}

int main(void)
{
	struct pmr_ah_attr aa;

	vt_open(&v);
	for (int t = 0; t < NT; t++)
		cq[t] = vt_cq(&v, 1024);
	vt_ah_attr(&v, &aa);
	ah = pmr_create_ah(v.pd, &aa);
	CHECK(ah != NULL);
	mr = vt_mr(v.pd, buf, sizeof(buf), PMR_ACCESS_LOCAL_WRITE);

	for (int t = 0; t < NT; t++)
		for (int cur = 0; cur < NS; cur++)
			for (int next = 0; next < NS; next++)
				one(t, (enum pmr_qp_state)cur,
				    (enum pmr_qp_state)next);
	in_place();

	CHECK_EQ(pmr_dereg_mr(mr), 0);
	CHECK_EQ(pmr_destroy_ah(ah), 0);
	for (int t = 0; t < NT; t++)
		CHECK_EQ(pmr_destroy_cq(cq[t]), 0);
	vt_close(&v);
	return vt_exit();
}
