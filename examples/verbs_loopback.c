/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * verbs_loopback: plain verbs code (the ibv_ names, through
 * <pmr_ibv_compat.h>) run on pmrdma's in-process loopback device.
 *
 * It opens the first device, connects two RC queue pairs to each other the
 * way ibv_rc_pingpong connects two hosts (RESET -> INIT -> RTR -> RTS), then
 * runs SEND/RECV, SEND_WITH_IMM, RDMA_WRITE, RDMA_READ,
 * ATOMIC_FETCH_AND_ADD and ATOMIC_CMP_AND_SWP from QP A to QP B, checking
 * every completion (status, opcode, wr_id, qp_num; byte_len and imm_data of
 * receives) and every byte that moved.  Last, it times a SEND/RECV
 * ping-pong between the two QPs.
 *
 * With no pmrdma configuration the first device is "pmr_loop0", which
 * executes RC, UC and UD work requests between QPs of the same device in
 * memory, as an RDMA NIC would between two nodes.
 *
 *   verbs_loopback [-n ITERATIONS]      (default 10000 round trips)
 *
 * Exit status: 0 only if every operation and check succeeded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmr_ibv_compat.h>

#define PORT_NUM 1
#define GID_INDEX 0
#define TX_DEPTH 64
#define RX_DEPTH 64
#define CQ_DEPTH (TX_DEPTH + RX_DEPTH)
#define PP_RECVS 16            /* receives kept posted during the ping-pong */
#define TIMEOUT_NS 5000000000ull

/* Layout of each side's registered buffer. */
#define BUF_SIZE 4096
#define SEND_OFF 0             /* outgoing messages */
#define RECV_OFF 1024          /* incoming messages */
#define RDMA_OFF 2048          /* RDMA WRITE target / READ source */
#define ATOM_OFF 3072          /* 64-bit atomic target */
#define RES_OFF 3080           /* 64-bit atomic result */
#define AREA_LEN 1024

#define MSG_LEN 256
#define RDMA_LEN 512
#define PING_LEN 64
#define IMM_VALUE 0x1234abcdu

struct side {
	const char *name;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t sends_posted, sends_done, recvs_done;
};

struct app {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	struct side s[2];
	uint64_t completions;          /* every completion checked */
};

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("verbs_loopback: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* enum ibv_mtu -> bytes: IBV_MTU_256 (1) is 256 bytes, each step doubles. */
static int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : -1;
}

static void fill(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static int check_bytes(const char *what, const uint8_t *got, size_t len,
		       uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (got[i] != (uint8_t)(seed + i * 7))
			return fail("%s: byte %zu is 0x%02x, expected 0x%02x",
				    what, i, got[i], (uint8_t)(seed + i * 7));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static int side_init(struct app *a, struct side *s, const char *name)
{
	struct ibv_qp_init_attr init = {
		.cap = {
			.max_send_wr = TX_DEPTH,
			.max_recv_wr = RX_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};

	s->name = name;
	s->buf = aligned_alloc(4096, BUF_SIZE);
	if (s->buf == NULL)
		return fail("%s: out of memory", name);
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(a->pd, s->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (s->mr == NULL)
		return fail("%s: ibv_reg_mr: %s", name, strerror(errno));
	s->cq = ibv_create_cq(a->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (s->cq == NULL)
		return fail("%s: ibv_create_cq: %s", name, strerror(errno));
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(a->pd, &init);
	if (s->qp == NULL)
		return fail("%s: ibv_create_qp: %s", name, strerror(errno));
	if (s->qp->qp_type != IBV_QPT_RC || s->qp->state != IBV_QPS_RESET)
		return fail("%s: new QP is not an RC QP in RESET", name);
	return 0;
}

/* Connect @p s to @p peer: the attributes and masks of ibv_rc_pingpong. */
static int side_connect(struct app *a, struct side *s, struct side *peer,
			uint32_t my_psn, uint32_t peer_psn)
{
	struct ibv_qp_attr attr;
	int ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = PORT_NUM;
	attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret != 0)
		return fail("%s: modify to INIT: %s", s->name, strerror(ret));

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = a->mtu;
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = peer_psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.grh.dgid = a->gid;
	attr.ah_attr.grh.sgid_index = GID_INDEX;
	attr.ah_attr.grh.hop_limit = 1;
	attr.ah_attr.dlid = 0;
	attr.ah_attr.sl = 0;
	attr.ah_attr.src_path_bits = 0;
	attr.ah_attr.port_num = PORT_NUM;
	ret = ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret != 0)
		return fail("%s: modify to RTR: %s", s->name, strerror(ret));

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = my_psn;
	attr.max_rd_atomic = 1;
	ret = ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret != 0)
		return fail("%s: modify to RTS: %s", s->name, strerror(ret));
	return 0;
}

static int app_init(struct app *a)
{
	struct ibv_port_attr port;
	struct ibv_qp_attr qattr;
	struct ibv_qp_init_attr qinit;
	char gid_str[INET6_ADDRSTRLEN];
	int num = 0, ret;

	a->list = ibv_get_device_list(&num);
	if (a->list == NULL)
		return fail("ibv_get_device_list: %s", strerror(errno));
	if (num < 1 || a->list[0] == NULL)
		return fail("no RDMA device");
	a->ctx = ibv_open_device(a->list[0]);
	if (a->ctx == NULL)
		return fail("ibv_open_device(%s): %s",
			    ibv_get_device_name(a->list[0]), strerror(errno));

	ret = ibv_query_port(a->ctx, PORT_NUM, &port);
	if (ret != 0)
		return fail("ibv_query_port: %s", strerror(ret));
	if (port.state != IBV_PORT_ACTIVE)
		return fail("port %d is %s, not active", PORT_NUM,
			    ibv_port_state_str(port.state));
	a->mtu = port.active_mtu < IBV_MTU_1024 ? port.active_mtu
						: IBV_MTU_1024;
	ret = ibv_query_gid(a->ctx, PORT_NUM, GID_INDEX, &a->gid);
	if (ret != 0)
		return fail("ibv_query_gid: %s", strerror(ret));
	if (inet_ntop(AF_INET6, a->gid.raw, gid_str, sizeof(gid_str)) == NULL)
		snprintf(gid_str, sizeof(gid_str), "?");

	a->pd = ibv_alloc_pd(a->ctx);
	if (a->pd == NULL)
		return fail("ibv_alloc_pd: %s", strerror(errno));
	if (side_init(a, &a->s[0], "A") != 0 || side_init(a, &a->s[1], "B") != 0)
		return -1;
	if (side_connect(a, &a->s[0], &a->s[1], 0x1000, 0x2000) != 0 ||
	    side_connect(a, &a->s[1], &a->s[0], 0x2000, 0x1000) != 0)
		return -1;

	/* Read the state back, as a peer-less check of the state machine. */
	for (int i = 0; i < 2; i++) {
		ret = ibv_query_qp(a->s[i].qp, &qattr, IBV_QP_STATE, &qinit);
		if (ret != 0)
			return fail("%s: ibv_query_qp: %s", a->s[i].name,
				    strerror(ret));
		if (qattr.qp_state != IBV_QPS_RTS)
			return fail("%s: QP state %d after connect, not RTS",
				    a->s[i].name, (int)qattr.qp_state);
	}

	printf("device %s, port %d %s, path MTU %d, GID[%d] %s\n",
	       ibv_get_device_name(a->list[0]), PORT_NUM,
	       ibv_port_state_str(port.state), mtu_bytes(a->mtu),
	       GID_INDEX, gid_str);
	printf("RC QP A 0x%06x <-> RC QP B 0x%06x\n", a->s[0].qp->qp_num,
	       a->s[1].qp->qp_num);
	return 0;
}

static int app_fini(struct app *a)
{
	int ret, rc = 0;

	for (int i = 0; i < 2; i++) {
		struct side *s = &a->s[i];

		if (s->qp != NULL && (ret = ibv_destroy_qp(s->qp)) != 0)
			rc = fail("%s: ibv_destroy_qp: %s", s->name,
				  strerror(ret));
		if (s->cq != NULL && (ret = ibv_destroy_cq(s->cq)) != 0)
			rc = fail("%s: ibv_destroy_cq: %s", s->name,
				  strerror(ret));
		if (s->mr != NULL && (ret = ibv_dereg_mr(s->mr)) != 0)
			rc = fail("%s: ibv_dereg_mr: %s", s->name,
				  strerror(ret));
		free(s->buf);
	}
	if (a->pd != NULL && (ret = ibv_dealloc_pd(a->pd)) != 0)
		rc = fail("ibv_dealloc_pd: %s", strerror(ret));
	if (a->ctx != NULL && (ret = ibv_close_device(a->ctx)) != 0)
		rc = fail("ibv_close_device: %s", strerror(ret));
	if (a->list != NULL)
		ibv_free_device_list(a->list);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Posting and completions                                             */
/* ------------------------------------------------------------------ */

static int post_recv(struct side *s, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->buf + off),
		.length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad = NULL;
	int ret = ibv_post_recv(s->qp, &wr, &bad);

	if (ret != 0)
		return fail("%s: ibv_post_recv: %s", s->name, strerror(ret));
	return 0;
}

/* Post one signaled WR whose single SGE is [off, off + len) of s->buf. */
static int post_send(struct side *s, struct ibv_send_wr *wr, size_t off,
		     uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->buf + off),
		.length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr *bad = NULL;
	int ret;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(s->qp, wr, &bad);
	if (ret != 0)
		return fail("%s: ibv_post_send (opcode %d): %s", s->name,
			    (int)wr->opcode, strerror(ret));
	s->sends_posted++;
	return 0;
}

/* Poll @p s's CQ until one completion arrives or the timeout passes. */
static int wait_wc(struct side *s, struct ibv_wc *wc)
{
	uint64_t deadline = now_ns() + TIMEOUT_NS;
	unsigned int spins = 0;

	for (;;) {
		int n = ibv_poll_cq(s->cq, 1, wc);

		if (n == 1)
			return 0;
		if (n < 0)
			return fail("%s: ibv_poll_cq returned %d", s->name, n);
		if (++spins % 1024 == 0 && now_ns() > deadline)
			return fail("%s: no completion within %llu s", s->name,
				    TIMEOUT_NS / 1000000000ull);
	}
}

/* Wait for the next completion of @p s and check the fields every
 * completion has.  byte_len is only defined for receive completions
 * (ibv_poll_cq(3)), so the callers check it there. */
static int expect_wc(struct app *a, struct side *s, struct ibv_wc *wc,
		     uint64_t wr_id, enum ibv_wc_opcode opcode)
{
	if (wait_wc(s, wc) != 0)
		return -1;
	a->completions++;
	if (wc->status != IBV_WC_SUCCESS)
		return fail("%s: wr_id %" PRIu64 ": status %s (%d), vendor_err "
			    "0x%x", s->name, wc->wr_id,
			    ibv_wc_status_str(wc->status), (int)wc->status,
			    wc->vendor_err);
	if (wc->opcode != opcode)
		return fail("%s: wr_id %" PRIu64 ": opcode %d, expected %d",
			    s->name, wc->wr_id, (int)wc->opcode, (int)opcode);
	if (wc->wr_id != wr_id)
		return fail("%s: wr_id %" PRIu64 ", expected %" PRIu64,
			    s->name, wc->wr_id, wr_id);
	if (wc->qp_num != s->qp->qp_num)
		return fail("%s: completion for QP 0x%x, expected 0x%x",
			    s->name, wc->qp_num, s->qp->qp_num);
	if (!(opcode & IBV_WC_RECV))
		s->sends_done++;
	return 0;
}

/* No completion may be pending on either side. */
static int expect_idle(struct app *a, const char *after)
{
	struct ibv_wc wc;

	for (int i = 0; i < 2; i++) {
		int n = ibv_poll_cq(a->s[i].cq, 1, &wc);

		if (n != 0)
			return fail("%s: unexpected completion after %s "
				    "(poll %d, opcode %d, status %s)",
				    a->s[i].name, after, n, (int)wc.opcode,
				    ibv_wc_status_str(wc.status));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* One-shot operations, A -> B                                         */
/* ------------------------------------------------------------------ */

static int op_send(struct app *a, int with_imm)
{
	struct side *A = &a->s[0], *B = &a->s[1];
	const char *what = with_imm ? "SEND_WITH_IMM" : "SEND";
	uint8_t seed = with_imm ? 0x51 : 0x15;
	struct ibv_send_wr wr = {
		.wr_id = with_imm ? 2 : 1,
		.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
	};
	struct ibv_wc wc;

	if (with_imm)
		wr.imm_data = htonl(IMM_VALUE);
	memset(B->buf + RECV_OFF, 0, AREA_LEN);
	fill(A->buf + SEND_OFF, MSG_LEN, seed);
	if (post_recv(B, 100 + wr.wr_id, RECV_OFF, AREA_LEN) != 0 ||
	    post_send(A, &wr, SEND_OFF, MSG_LEN) != 0)
		return -1;

	if (expect_wc(a, A, &wc, wr.wr_id, IBV_WC_SEND) != 0 ||
	    expect_wc(a, B, &wc, 100 + wr.wr_id, IBV_WC_RECV) != 0)
		return -1;
	if (wc.byte_len != MSG_LEN)
		return fail("%s: received byte_len %u, expected %u", what,
			    wc.byte_len, MSG_LEN);
	if (with_imm) {
		if (!(wc.wc_flags & IBV_WC_WITH_IMM))
			return fail("%s: receive without IBV_WC_WITH_IMM", what);
		if (ntohl(wc.imm_data) != IMM_VALUE)
			return fail("%s: imm_data 0x%08x, expected 0x%08x",
				    what, ntohl(wc.imm_data), IMM_VALUE);
	} else if (wc.wc_flags & IBV_WC_WITH_IMM) {
		return fail("%s: receive flagged IBV_WC_WITH_IMM", what);
	}
	if (check_bytes(what, B->buf + RECV_OFF, MSG_LEN, seed) != 0)
		return -1;
	if (B->buf[RECV_OFF + MSG_LEN] != 0)
		return fail("%s: wrote past the message", what);
	printf("  %-24s ok: %u bytes%s\n", what, wc.byte_len,
	       with_imm ? ", imm_data 0x1234abcd" : "");
	return expect_idle(a, what);
}

static int op_write(struct app *a)
{
	struct side *A = &a->s[0], *B = &a->s[1];
	struct ibv_send_wr wr = {
		.wr_id = 3,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = {
			.remote_addr = (uintptr_t)(B->buf + RDMA_OFF),
			.rkey = B->mr->rkey,
		},
	};
	struct ibv_wc wc;

	fill(A->buf + RDMA_OFF, RDMA_LEN, 0x3a);
	memset(B->buf + RDMA_OFF, 0, AREA_LEN);
	if (post_send(A, &wr, RDMA_OFF, RDMA_LEN) != 0 ||
	    expect_wc(a, A, &wc, wr.wr_id, IBV_WC_RDMA_WRITE) != 0)
		return -1;
	if (check_bytes("RDMA_WRITE", B->buf + RDMA_OFF, RDMA_LEN, 0x3a) != 0)
		return -1;
	if (B->buf[RDMA_OFF + RDMA_LEN] != 0)
		return fail("RDMA_WRITE: wrote past the region");
	printf("  %-24s ok: %u bytes\n", "RDMA_WRITE", RDMA_LEN);
	/* A WRITE without immediate consumes no receive on B. */
	return expect_idle(a, "RDMA_WRITE");
}

static int op_read(struct app *a)
{
	struct side *A = &a->s[0], *B = &a->s[1];
	struct ibv_send_wr wr = {
		.wr_id = 4,
		.opcode = IBV_WR_RDMA_READ,
		.wr.rdma = {
			.remote_addr = (uintptr_t)(B->buf + RDMA_OFF),
			.rkey = B->mr->rkey,
		},
	};
	struct ibv_wc wc;

	fill(B->buf + RDMA_OFF, RDMA_LEN, 0xc4);
	memset(A->buf + RDMA_OFF, 0, AREA_LEN);
	if (post_send(A, &wr, RDMA_OFF, RDMA_LEN) != 0 ||
	    expect_wc(a, A, &wc, wr.wr_id, IBV_WC_RDMA_READ) != 0)
		return -1;
	if (check_bytes("RDMA_READ", A->buf + RDMA_OFF, RDMA_LEN, 0xc4) != 0)
		return -1;
	if (A->buf[RDMA_OFF + RDMA_LEN] != 0)
		return fail("RDMA_READ: wrote past the local buffer");
	printf("  %-24s ok: %u bytes\n", "RDMA_READ", RDMA_LEN);
	return expect_idle(a, "RDMA_READ");
}

/*
 * One atomic from A on B's 64-bit word.  The word and the returned value
 * are in host byte order, as with soft-RoCE.
 */
static int op_atomic(struct app *a, const char *what, enum ibv_wr_opcode op,
		     uint64_t wr_id, uint64_t initial, uint64_t compare_add,
		     uint64_t swap, uint64_t expect_after)
{
	struct side *A = &a->s[0], *B = &a->s[1];
	uint64_t *target = (uint64_t *)(void *)(B->buf + ATOM_OFF);
	uint64_t *result = (uint64_t *)(void *)(A->buf + RES_OFF);
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.opcode = op,
		.wr.atomic = {
			.remote_addr = (uintptr_t)target,
			.compare_add = compare_add,
			.swap = swap,
			.rkey = B->mr->rkey,
		},
	};
	struct ibv_wc wc;

	*target = initial;
	*result = 0xdeaddeaddeaddeadull;
	if (post_send(A, &wr, RES_OFF, sizeof(uint64_t)) != 0 ||
	    expect_wc(a, A, &wc, wr_id, op == IBV_WR_ATOMIC_FETCH_AND_ADD ?
		      IBV_WC_FETCH_ADD : IBV_WC_COMP_SWAP) != 0)
		return -1;
	if (*result != initial)
		return fail("%s: returned 0x%" PRIx64 ", expected the old value "
			    "0x%" PRIx64, what, *result, initial);
	if (*target != expect_after)
		return fail("%s: remote word is 0x%" PRIx64 ", expected 0x%"
			    PRIx64, what, *target, expect_after);
	printf("  %-24s ok: 0x%" PRIx64 " -> 0x%" PRIx64 ", returned 0x%"
	       PRIx64 "\n", what, initial, *target, *result);
	return expect_idle(a, what);
}

/* ------------------------------------------------------------------ */
/* Timed ping-pong                                                     */
/* ------------------------------------------------------------------ */

/* Reap the completions of @p s: sends retire, receives are checked and
 * re-posted. */
static int pp_poll(struct app *a, struct side *s)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(s->cq, 16, wc);

	if (n < 0)
		return fail("%s: ibv_poll_cq returned %d", s->name, n);
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			return fail("%s: ping-pong wr_id %" PRIu64 ": %s",
				    s->name, wc[i].wr_id,
				    ibv_wc_status_str(wc[i].status));
		a->completions++;
		if (wc[i].opcode == IBV_WC_SEND) {
			s->sends_done++;
		} else if (wc[i].opcode == IBV_WC_RECV) {
			if (wc[i].byte_len != PING_LEN)
				return fail("%s: ping-pong receive of %u "
					    "bytes, expected %u", s->name,
					    wc[i].byte_len, PING_LEN);
			s->recvs_done++;
			if (post_recv(s, 200, RECV_OFF, PING_LEN) != 0)
				return -1;
		} else {
			return fail("%s: ping-pong: unexpected opcode %d",
				    s->name, (int)wc[i].opcode);
		}
	}
	return n;
}

/* Poll until @p s has received @p target messages in all. */
static int pp_wait_recv(struct app *a, struct side *s, uint64_t target)
{
	uint64_t deadline = now_ns() + TIMEOUT_NS;
	unsigned int spins = 0;

	while (s->recvs_done < target) {
		int n = pp_poll(a, s);

		if (n < 0)
			return -1;
		if (n == 0 && ++spins % 1024 == 0 && now_ns() > deadline)
			return fail("%s: ping-pong message %" PRIu64 " did "
				    "not arrive within %llu s", s->name,
				    target, TIMEOUT_NS / 1000000000ull);
	}
	return 0;
}

static int pp_send(struct app *a, struct side *s, uint32_t seq)
{
	uint64_t deadline = now_ns() + TIMEOUT_NS;
	unsigned int spins = 0;
	struct ibv_send_wr wr = {
		.wr_id = 300,
		.opcode = IBV_WR_SEND,
	};

	/* Keep the send queue from overflowing. */
	while (s->sends_posted - s->sends_done >= TX_DEPTH) {
		int n = pp_poll(a, s);

		if (n < 0)
			return -1;
		if (n == 0 && ++spins % 1024 == 0 && now_ns() > deadline)
			return fail("%s: ping-pong sends do not complete",
				    s->name);
	}
	memcpy(s->buf + SEND_OFF, &seq, sizeof(seq));
	return post_send(s, &wr, SEND_OFF, PING_LEN);
}

static int check_seq(struct side *s, uint32_t seq)
{
	uint32_t got;

	memcpy(&got, s->buf + RECV_OFF, sizeof(got));
	if (got != seq)
		return fail("%s: ping-pong message %u carries %u", s->name,
			    seq, got);
	return 0;
}

static int pingpong(struct app *a, uint32_t iters)
{
	struct side *A = &a->s[0], *B = &a->s[1];
	uint64_t a_recv0, b_recv0, t0, t1;
	double rtt_us;

	for (int i = 0; i < PP_RECVS; i++)
		if (post_recv(A, 200, RECV_OFF, PING_LEN) != 0 ||
		    post_recv(B, 200, RECV_OFF, PING_LEN) != 0)
			return -1;
	a_recv0 = A->recvs_done;
	b_recv0 = B->recvs_done;

	t0 = now_ns();
	for (uint32_t i = 1; i <= iters; i++) {
		if (pp_send(a, A, i) != 0 ||
		    pp_wait_recv(a, B, b_recv0 + i) != 0 ||
		    check_seq(B, i) != 0 ||
		    pp_send(a, B, i) != 0 ||
		    pp_wait_recv(a, A, a_recv0 + i) != 0 ||
		    check_seq(A, i) != 0)
			return -1;
	}
	/* Retire the last sends. */
	for (uint64_t deadline = now_ns() + TIMEOUT_NS;
	     A->sends_done < A->sends_posted || B->sends_done < B->sends_posted;) {
		if (pp_poll(a, A) < 0 || pp_poll(a, B) < 0)
			return -1;
		if (now_ns() > deadline)
			return fail("ping-pong: sends did not complete");
	}
	t1 = now_ns();

	rtt_us = (double)(t1 - t0) / 1e3 / iters;
	printf("  %-24s ok: %u round trips of %u bytes in %.1f ms\n",
	       "SEND/RECV ping-pong", iters, PING_LEN, (double)(t1 - t0) / 1e6);
	printf("ping-pong: %" PRIu64 " sends + %" PRIu64 " receives, "
	       "average round trip %.3f us, one way %.3f us\n",
	       2 * (uint64_t)iters, 2 * (uint64_t)iters, rtt_us, rtt_us / 2);
	/* The PP_RECVS receives still posted on each side are not errors. */
	return 0;
}

/* ------------------------------------------------------------------ */

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-n ITERATIONS]\n"
		"  -n N   ping-pong round trips to time (default 10000)\n",
		prog);
}

int main(int argc, char **argv)
{
	struct app a;
	unsigned long iters = 10000;
	char *end;
	int opt, rc;

	while ((opt = getopt(argc, argv, "n:h")) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			iters = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || optarg[0] == '-' ||
			    iters < 1 || iters > UINT32_MAX) {
				fprintf(stderr, "%s: bad iteration count '%s'\n",
					argv[0], optarg);
				return 2;
			}
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		usage(argv[0]);
		return 2;
	}

	memset(&a, 0, sizeof(a));
	rc = app_init(&a);
	if (rc == 0)
		rc = op_send(&a, 0);
	if (rc == 0)
		rc = op_send(&a, 1);
	if (rc == 0)
		rc = op_write(&a);
	if (rc == 0)
		rc = op_read(&a);
	if (rc == 0)
		rc = op_atomic(&a, "ATOMIC_FETCH_AND_ADD",
			       IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 100, 5, 0, 105);
	if (rc == 0)
		rc = op_atomic(&a, "ATOMIC_CMP_AND_SWP", IBV_WR_ATOMIC_CMP_AND_SWP,
			       6, 105, 105, 0x0123456789abcdefull,
			       0x0123456789abcdefull);
	if (rc == 0)        /* the compare fails: the word stays */
		rc = op_atomic(&a, "ATOMIC_CMP_AND_SWP (no)",
			       IBV_WR_ATOMIC_CMP_AND_SWP, 7,
			       0x0123456789abcdefull, 7, 9,
			       0x0123456789abcdefull);
	if (rc == 0)
		rc = pingpong(&a, (uint32_t)iters);
	if (app_fini(&a) != 0)
		rc = -1;

	if (rc != 0) {
		printf("verbs_loopback: FAILED\n");
		return 1;
	}
	printf("verbs_loopback: PASS (%" PRIu64 " completions checked)\n",
	       a.completions);
	return 0;
}
