/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostile: well-formed but hostile RoCEv2 packets against the engine.
 *
 *   hostile --role victim   --ctl PATH   (env PMR_EAL_ARGS, PMR_DEVICES)
 *   hostile --role attacker --ctl PATH   (env HOSTILE_EAL_ARGS)
 *
 * The victim is an ordinary pmrdma process: RC (and UC) QPs made on
 * request, a UD QP, a 64 KiB MR with every remote right in the middle of
 * a buffer of guard bytes (0xA5), and a small MR without remote rights
 * that holds the receive buffers (each followed by guard bytes).  It
 * keeps the engine running and answers text commands on a Unix control
 * socket (one line in, lines out, "END" last); on command it also posts
 * SENDs, so the attacker can play the responder to its requester.
 *
 * The attacker is not a pmrdma device: it runs its own EAL on the memif
 * client port and sends raw frames built with lib/wire (10.98.0.2 ->
 * 10.98.0.1), reads the victim's answers with rte_eth_rx_burst (answering
 * ARP for 10.98.0.2) and checks answers, completions, QP states, async
 * events, counters and guard bytes over the control socket.
 *
 * The attacker exits 0 when every case passed; the victim exits 0 when
 * told QUIT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <pmr_verbs.h>
#include <pmr_roce.h>

#include "wire.h"

#define GUARD_BYTE 0xA5
#define BIG_SIZE (256u << 10)
#define MR_OFF (96u << 10)
#define MR_SIZE (64u << 10)
#define NR_SIZE (256u << 10)
#define RSLOT 512u                  /* receive slot: buffer + guard */
#define RLEN 256u                   /* receive buffer */
#define NRSLOTS (NR_SIZE / RSLOT - 1)   /* last slot: atomic target */
#define NRECV 2                     /* receives per RC QP */
#define UD_QKEY 0x11223344u
#define MAXQP 224                  /* 2 receives each: within NRSLOTS */
#define MAXLOG 4096
#define RESP_SLOTS 16              /* the responder's READ and atomic slots
				    * (the device's max_qp_rd_atom: checked) */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static const char *role = "?";

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FATAL: ", role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ======================================================================
 * victim
 */
static struct pmr_context *ctx;
static struct pmr_pd *pd;
static struct pmr_cq *cq;
static uint8_t *big, *nrbuf;
static struct pmr_mr *mr, *nr_mr;
/* 64 KiB: a READ of all of it takes more than one engine run (case 29) */
#define SCRATCH_SIZE (64u << 10)
static uint8_t scratch[SCRATCH_SIZE] __attribute__((aligned(64)));
static struct pmr_mr *scr_mr;     /* SCRATCH / DEREG */
static struct pmr_qp *udqp;
static struct pmr_qp *qps[MAXQP];
static unsigned int nqps;
static unsigned int next_slot;
static struct pmr_wc wlog[MAXLOG];
static unsigned int nwlog;
static struct { uint32_t qpn; int type; } elog[MAXLOG];
static unsigned int nelog;
static int vfd = -1;
static bool held;                 /* HOLD: no engine run until STEP */

static void vsay(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	for (int off = 0; off < n;) {
		ssize_t w = write(vfd, line + off, (size_t)(n - off));

		if (w < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			die("control write: %s", strerror(errno));
		}
		off += (int)w;
	}
}

/*
 * STARVE k: the RoCE device's mbuf pool (the only one whose name begins
 * "pmr_roce") keeps at most k mbufs free; the victim takes the rest after
 * each v_engine() step (not after post_send's kick).  Out of its reach:
 * the device's own stash of up to 32 (which a burst's frames, handed back
 * to the pool, may refill) and the last receive burst's mbufs, which go
 * back to the pool when the next engine run starts.  So a run or a kick
 * finds no mbuf only when it wants more frames than those and the k
 * hold.  FEED gives them all back.
 */
static struct rte_mbuf *starved[8192];
static unsigned int nstarved;
static int starve_keep = -1;
static struct rte_mempool *starve_pool;

static void find_pool(struct rte_mempool *mp, void *arg)
{
	(void)arg;
	if (strncmp(mp->name, "pmr_roce", 8) == 0)
		starve_pool = mp;
}

static void v_starve(void)
{
	unsigned int keep = (unsigned int)starve_keep;

	while (nstarved < RTE_DIM(starved) &&
	       rte_mempool_avail_count(starve_pool) > keep) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(starve_pool);

		if (m == NULL)
			break;
		starved[nstarved++] = m;
	}
}

static void v_feed(void)
{
	while (nstarved > 0)
		rte_pktmbuf_free(starved[--nstarved]);
	starve_keep = -1;
}

static void v_engine(void)
{
	struct pmr_wc wc[32];
	struct pmr_async_event ev;
	int n;

	if (pmr_progress(ctx, 64) < 0)
		die("pmr_progress");
	n = pmr_poll_cq(cq, 32, wc);
	if (n < 0)
		die("pmr_poll_cq: %d", n);
	for (int i = 0; i < n && nwlog < MAXLOG; i++)
		wlog[nwlog++] = wc[i];
	while (pmr_get_async_event(ctx, &ev) == 0) {
		/* (the port's link coming up as the attacker connects: an
		 * event of the port, element.port_num) */
		if (ev.event_type == PMR_EVENT_PORT_ACTIVE ||
		    ev.event_type == PMR_EVENT_PORT_ERR) {
			printf("victim: async event %s on port %d\n",
			       pmr_event_type_str(ev.event_type),
			       ev.element.port_num);
			pmr_ack_async_event(&ev);
			continue;
		}
		if (nelog < MAXLOG) {
			elog[nelog].qpn = ev.element.qp->qp_num;
			elog[nelog].type = (int)ev.event_type;
			nelog++;
		}
		printf("victim: async event %s on QP 0x%x\n",
		       pmr_event_type_str(ev.event_type), ev.element.qp->qp_num);
		pmr_ack_async_event(&ev);
	}
	if (starve_keep >= 0)
		v_starve();
}

static void v_setup(void)
{
	struct pmr_device **l;
	struct pmr_device *dev = NULL;
	struct pmr_qp_init_attr ia;
	struct pmr_device_attr da;
	struct pmr_qp_attr a;
	int n, err;

	l = pmr_get_device_list(&n);
	if (l == NULL || n < 1)
		die("no pmrdma device");
	for (int i = 0; i < n; i++)
		if (strncmp(pmr_get_device_name(l[i]), "pmr_roce", 8) == 0)
			dev = l[i];
	if (dev == NULL)
		die("no pmr_roce device");
	ctx = pmr_open_device(dev);
	pmr_free_device_list(l);
	if (ctx == NULL)
		die("open_device: %s", strerror(errno));
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	/* the cases that fill or wrap the responder's READ and atomic
	 * slots count them as RESP_SLOTS: stop if the device has others */
	err = pmr_query_device(ctx, &da);
	if (err != 0)
		die("query_device: %s", strerror(err));
	if (da.max_qp_rd_atom != RESP_SLOTS)
		die("the device has %d READ/atomic slots per QP, the cases "
		    "expect RESP_SLOTS (%d)", da.max_qp_rd_atom, RESP_SLOTS);
	pd = pmr_alloc_pd(ctx);
	cq = pmr_create_cq(ctx, 8192, NULL, NULL, 0);
	big = aligned_alloc(4096, BIG_SIZE);
	nrbuf = aligned_alloc(4096, NR_SIZE);
	if (pd == NULL || cq == NULL || big == NULL || nrbuf == NULL)
		die("set-up");
	memset(big, GUARD_BYTE, BIG_SIZE);
	memset(nrbuf, GUARD_BYTE, NR_SIZE);
	mr = pmr_reg_mr(pd, big + MR_OFF, MR_SIZE, PMR_ACCESS_LOCAL_WRITE |
			PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
			PMR_ACCESS_REMOTE_ATOMIC);
	nr_mr = pmr_reg_mr(pd, nrbuf, NR_SIZE, PMR_ACCESS_LOCAL_WRITE);
	if (mr == NULL || nr_mr == NULL)
		die("reg_mr: %s", strerror(errno));

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = PMR_QPT_UD;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	udqp = pmr_create_qp(pd, &ia);
	if (udqp == NULL)
		die("create UD QP: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_INIT;
	a.port_num = 1;
	a.qkey = UD_QKEY;
	if (pmr_modify_qp(udqp, &a, PMR_QP_STATE | PMR_QP_PKEY_INDEX |
			  PMR_QP_PORT | PMR_QP_QKEY))
		die("UD INIT");
	a.qp_state = PMR_QPS_RTR;
	if (pmr_modify_qp(udqp, &a, PMR_QP_STATE))
		die("UD RTR");
	a.qp_state = PMR_QPS_RTS;
	a.sq_psn = 0x1234;
	if (pmr_modify_qp(udqp, &a, PMR_QP_STATE | PMR_QP_SQ_PSN))
		die("UD RTS");
}

/* Post one 256-byte receive in the next slot of the small MR. */
static int v_post_recv(struct pmr_qp *qp, uint64_t *wr_id)
{
	struct pmr_sge sg;
	struct pmr_recv_wr wr, *bad;

	if (next_slot >= NRSLOTS)
		return -1;
	sg.addr = (uintptr_t)(nrbuf + next_slot * RSLOT);
	sg.length = RLEN;
	sg.lkey = nr_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	/* wr_id: slot number + 1000 * qpn, unique */
	wr.wr_id = (uint64_t)qp->qp_num * 1000 + next_slot;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	next_slot++;
	*wr_id = wr.wr_id;
	return pmr_post_recv(qp, &wr, &bad);
}

static struct pmr_qp *v_find(uint32_t qpn)
{
	for (unsigned int i = 0; i < nqps; i++)
		if (qps[i]->qp_num == qpn)
			return qps[i];
	return udqp->qp_num == qpn ? udqp : NULL;
}

/* A new RC QP to the attacker's fake QP dqpn (NEWRC): timeout and
 * retry_cnt as given, its peer at 10.98.0.host.  With uc (NEWUC), a UC
 * QP: remote writes only, no RC attributes, its peer the attacker. */
static void v_newqp(uint32_t dqpn, uint32_t epsn, uint32_t sqpsn,
		    uint8_t timeout, uint8_t retry, bool uc, uint8_t host)
{
	struct pmr_qp_init_attr ia;
	struct pmr_qp_attr a;
	struct pmr_qp *qp;
	uint64_t ids[NRECV];

	if (nqps == MAXQP) {
		vsay("FAIL too many QPs");
		return;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = uc ? PMR_QPT_UC : PMR_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = pmr_create_qp(pd, &ia);
	if (qp == NULL) {
		vsay("FAIL create_qp %s", strerror(errno));
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = PMR_ACCESS_REMOTE_WRITE;
	if (!uc)
		a.qp_access_flags |= PMR_ACCESS_REMOTE_READ |
				     PMR_ACCESS_REMOTE_ATOMIC;
	if (pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_PKEY_INDEX |
			  PMR_QP_PORT | PMR_QP_ACCESS_FLAGS))
		die("modify INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTR;
	a.path_mtu = PMR_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = epsn;
	a.max_dest_rd_atomic = RESP_SLOTS;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	inet_pton(AF_INET, "10.98.0.2", &a.ah_attr.grh.dgid.raw[12]);
	a.ah_attr.grh.dgid.raw[15] = host;
	if (pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_AV | PMR_QP_PATH_MTU |
			  PMR_QP_DEST_QPN | PMR_QP_RQ_PSN |
			  (uc ? 0 : PMR_QP_MAX_DEST_RD_ATOMIC |
				    PMR_QP_MIN_RNR_TIMER)))
		die("modify RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	a.sq_psn = sqpsn;
	a.timeout = timeout;
	a.retry_cnt = retry;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	if (pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_SQ_PSN |
			  (uc ? 0 : PMR_QP_TIMEOUT | PMR_QP_RETRY_CNT |
				    PMR_QP_RNR_RETRY |
				    PMR_QP_MAX_QP_RD_ATOMIC)))
		die("modify RTS");
	for (int i = 0; i < NRECV; i++)
		if (v_post_recv(qp, &ids[i]))
			die("post_recv");
	qps[nqps++] = qp;
	vsay("OK %u %" PRIu64 " %" PRIu64, qp->qp_num, ids[0], ids[1]);
}

/* pmr_dereg_mr's result on the scratch MR (-1: there is none). */
static int v_dereg_scratch(void)
{
	int ret = scr_mr ? pmr_dereg_mr(scr_mr) : -1;

	if (ret == 0)
		scr_mr = NULL;
	return ret;
}

static void v_stats(void)
{
	struct pmr_roce_port_stats s;

	if (pmr_roce_port_stats(ctx->device, &s)) {
		vsay("FAIL port_stats");
		return;
	}
#define S(f) vsay("STAT " #f " %" PRIu64, s.f)
	S(rx_pkts); S(tx_pkts); S(tx_drops); S(rx_drop_not_roce);
	S(rx_drop_malformed); S(rx_drop_icrc); S(rx_drop_unknown_qp);
	S(rx_drop_state); S(rx_drop_qkey); S(rx_drop_no_recv);
	S(nak_seq_tx); S(nak_inv_tx); S(nak_acc_tx); S(nak_op_tx);
	S(nak_rnr_tx); S(nak_seq_rx); S(nak_inv_rx); S(nak_acc_rx);
	S(nak_rnr_rx);
	S(dup_requests); S(out_of_seq); S(retransmits); S(timeouts);
	S(ack_solicits); S(tx_full); S(tx_no_mbuf); S(arp_rx); S(arp_tx);
	S(qps_active);
#undef S
}

/* Bytes that must still hold the guard pattern: the big buffer outside
 * the MR (and inside: nothing here may legitimately write it), and the
 * small MR outside the first RLEN bytes of each receive slot. */
static void v_guards(void)
{
	uint64_t bad_out = 0, bad_mr = 0, bad_nr = 0;
	int64_t first = -1;

	for (uint32_t i = 0; i < BIG_SIZE; i++) {
		if (big[i] == GUARD_BYTE)
			continue;
		if (i >= MR_OFF && i < MR_OFF + MR_SIZE)
			bad_mr++;
		else
			bad_out++;
		if (first < 0)
			first = i;
	}
	for (uint32_t i = 0; i < NR_SIZE; i++)
		if (i % RSLOT >= RLEN && nrbuf[i] != GUARD_BYTE)
			bad_nr++;
	vsay("OK %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64, bad_out,
	     bad_mr, bad_nr, first);
}

/* n SENDs of len bytes from the start of the remote-access MR, chained,
 * wr_id id0 + i, signaled where bit i of mask is set. */
static void send_list(struct pmr_send_wr *wr, struct pmr_sge *sg,
		      unsigned int n, uint32_t len, uint64_t id0,
		      unsigned int mask)
{
	sg->addr = (uintptr_t)mr->addr;
	sg->length = len;
	sg->lkey = mr->lkey;
	memset(wr, 0, n * sizeof(*wr));
	for (unsigned int i = 0; i < n; i++) {
		wr[i].wr_id = id0 + i;
		wr[i].opcode = PMR_WR_SEND;
		wr[i].sg_list = sg;
		wr[i].num_sge = 1;
		wr[i].send_flags = (mask >> i) & 1 ? PMR_SEND_SIGNALED : 0;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
}

/*
 * Post n SENDs of len bytes (64 unless said) on QP qpn as one list (wr_id
 * 7000 + i, signaled where bit i of mask is set), from the start of the
 * remote-access MR; then, when sqd, move the QP to SQD (drained event
 * asked for).
 */
static void v_post_sends(uint32_t qpn, unsigned int n, unsigned int mask,
			 bool sqd, uint32_t len)
{
	struct pmr_qp_attr a;
	struct pmr_qp *qp = v_find(qpn);
	struct pmr_send_wr wr[32], *bad;
	struct pmr_sge sg;

	if (qp == NULL || n == 0 || n > 32 || len > MR_SIZE) {
		vsay("FAIL bad POST");
		return;
	}
	send_list(wr, &sg, n, len, 7000, mask);
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_SQD;
	a.en_sqd_async_notify = 1;
	if (pmr_post_send(qp, wr, &bad))
		vsay("FAIL post_send at wr_id %" PRIu64, bad->wr_id);
	else if (sqd && pmr_modify_qp(qp, &a, PMR_QP_STATE |
				      PMR_QP_EN_SQD_ASYNC_NOTIFY))
		vsay("FAIL SQD");
	else
		vsay("OK");
}

/* Post one signaled SEND of 64 bytes (wr_id 7300) on QP qpn whose SGE
 * has an lkey no MR has: a local protection error. */
static void v_post_bad(uint32_t qpn)
{
	struct pmr_qp *qp = v_find(qpn);
	struct pmr_send_wr wr, *bad;
	struct pmr_sge sg;

	if (qp == NULL) {
		vsay("FAIL bad POSTBAD");
		return;
	}
	send_list(&wr, &sg, 1, 64, 7300, 1);
	sg.lkey = mr->lkey ^ 0x5a5a00;
	if (pmr_post_send(qp, &wr, &bad))
		vsay("FAIL post_send");
	else
		vsay("OK");
}

/*
 * Post a READ of len bytes (wr_id 7100, into the scratch MR's first len
 * bytes) and a FETCH_ADD (7101, add 3, its result at scratch + len) on QP
 * qpn, both signaled, from remote address 0x10000, rkey 0x4242; in that
 * order, or the FETCH_ADD first when atomic_first.
 */
static void v_post_read_atomic(uint32_t qpn, bool atomic_first, uint32_t len)
{
	struct pmr_qp *qp = v_find(qpn);
	struct pmr_send_wr wr[2], *bad;
	struct pmr_sge sg[2];

	if (qp == NULL || scr_mr == NULL || len % 8 != 0 ||
	    len > SCRATCH_SIZE - 8) {
		vsay("FAIL bad POSTRA");
		return;
	}
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < 2; i++) {
		sg[i].addr = (uintptr_t)scratch + (uint64_t)i * len;
		sg[i].length = i ? 8 : len;
		sg[i].lkey = scr_mr->lkey;
		wr[i].wr_id = 7100 + (uint64_t)i;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].send_flags = PMR_SEND_SIGNALED;
	}
	wr[0].next = &wr[1];
	wr[0].opcode = PMR_WR_RDMA_READ;
	wr[0].wr.rdma.remote_addr = 0x10000;
	wr[0].wr.rdma.rkey = 0x4242;
	wr[1].opcode = PMR_WR_ATOMIC_FETCH_AND_ADD;
	wr[1].wr.atomic.remote_addr = 0x10000;
	wr[1].wr.atomic.rkey = 0x4242;
	wr[1].wr.atomic.compare_add = 3;
	if (atomic_first) {
		wr[0].next = NULL;
		wr[1].next = &wr[0];
	}
	if (pmr_post_send(qp, atomic_first ? &wr[1] : wr, &bad))
		vsay("FAIL post_send at wr_id %" PRIu64, bad->wr_id);
	else
		vsay("OK");
}

/*
 * Post, as one list on QP qpn, all signaled (wr_id 7400 + i), from the
 * start of the remote-access MR: a solicited SEND of 64 bytes, the same
 * unsolicited, a solicited WRITE and WRITE_WITH_IMM of 64 bytes (to
 * 0x10000, rkey 0x4242) and a solicited SEND of 2048 bytes (two packets
 * at the path MTU of 1024); then, into the scratch MR (SCRATCH first), a
 * solicited READ of 64 bytes and a solicited FETCH_ADD from 0x10000.
 */
static void v_post_solicited(uint32_t qpn)
{
	static const uint8_t ops[7] = {
		PMR_WR_SEND, PMR_WR_SEND, PMR_WR_RDMA_WRITE,
		PMR_WR_RDMA_WRITE_WITH_IMM, PMR_WR_SEND, PMR_WR_RDMA_READ,
		PMR_WR_ATOMIC_FETCH_AND_ADD };
	struct pmr_qp *qp = v_find(qpn);
	struct pmr_send_wr wr[7], *bad;
	struct pmr_sge sg[7];

	if (qp == NULL || scr_mr == NULL) {
		vsay("FAIL bad POSTSE");
		return;
	}
	for (unsigned int i = 0; i < 7; i++) {
		send_list(&wr[i], &sg[i], 1, i == 4 ? 2048 : 64, 7400 + i, 1);
		wr[i].opcode = ops[i];
		if (i != 1)
			wr[i].send_flags |= PMR_SEND_SOLICITED;
		wr[i].wr.rdma.remote_addr = 0x10000;
		wr[i].wr.rdma.rkey = 0x4242;
		wr[i].next = i < 6 ? &wr[i + 1] : NULL;
	}
	for (unsigned int i = 5; i < 7; i++) {
		sg[i].addr = (uintptr_t)scratch + 64 * (i - 5);
		sg[i].length = i == 5 ? 64 : 8;
		sg[i].lkey = scr_mr->lkey;
	}
	memset(&wr[6].wr, 0, sizeof(wr[6].wr));
	wr[6].wr.atomic.remote_addr = 0x10000;
	wr[6].wr.atomic.rkey = 0x4242;
	wr[6].wr.atomic.compare_add = 3;
	if (pmr_post_send(qp, wr, &bad))
		vsay("FAIL post_send at wr_id %" PRIu64, bad->wr_id);
	else
		vsay("OK");
}

/*
 * Post n 64-byte UD SENDs (wr_id 7200 + i, all signaled) from the UD QP
 * to QP dqpn at 10.98.0.HOST (2: our side), Q_Key UD_QKEY, from the start
 * of the remote-access MR.
 */
static void v_ud_send(unsigned int n, uint32_t dqpn, unsigned int host)
{
	static struct pmr_ah *ah[256];
	struct pmr_send_wr wr[16], *bad;
	struct pmr_ah_attr aa;
	struct pmr_sge sg;

	if (n == 0 || n > 16 || host == 0 || host > 254) {
		vsay("FAIL bad UDSEND");
		return;
	}
	if (ah[host] == NULL) {
		memset(&aa, 0, sizeof(aa));
		aa.is_global = 1;
		aa.port_num = 1;
		aa.grh.hop_limit = 64;
		aa.grh.dgid.raw[10] = 0xff;
		aa.grh.dgid.raw[11] = 0xff;
		aa.grh.dgid.raw[12] = 10;
		aa.grh.dgid.raw[13] = 98;
		aa.grh.dgid.raw[15] = (uint8_t)host;
		ah[host] = pmr_create_ah(pd, &aa);
		if (ah[host] == NULL) {
			vsay("FAIL create_ah");
			return;
		}
	}
	send_list(wr, &sg, n, 64, 7200, 0xffff);
	for (unsigned int i = 0; i < n; i++) {
		wr[i].wr.ud.ah = ah[host];
		wr[i].wr.ud.remote_qpn = dqpn;
		wr[i].wr.ud.remote_qkey = UD_QKEY;
	}
	if (pmr_post_send(udqp, wr, &bad))
		vsay("FAIL post_send at wr_id %" PRIu64, bad->wr_id);
	else
		vsay("OK");
}

/* QP qpn, in SQD: a new traffic class in its address vector (SQD -> SQD
 * with PMR_QP_AV), then back to RTS. */
static void v_tclass(uint32_t qpn, uint8_t tclass)
{
	struct pmr_qp *qp = v_find(qpn);
	struct pmr_qp_init_attr ia;
	struct pmr_qp_attr a;

	if (qp == NULL || pmr_query_qp(qp, &a, PMR_QP_AV, &ia)) {
		vsay("FAIL no QP");
		return;
	}
	a.qp_state = PMR_QPS_SQD;
	a.ah_attr.grh.traffic_class = tclass;
	if (pmr_modify_qp(qp, &a, PMR_QP_STATE | PMR_QP_AV)) {
		vsay("FAIL modify SQD AV");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	if (pmr_modify_qp(qp, &a, PMR_QP_STATE))
		vsay("FAIL modify RTS");
	else
		vsay("OK");
}

/* QP qpn from RTS through SQD (max_dest_rd_atomic set to n there) back
 * to RTS.  @return 0 or the failing modify's error. */
static int v_dest_rd_atomic(struct pmr_qp *qp, unsigned int n)
{
	struct pmr_qp_attr a = { .qp_state = PMR_QPS_SQD };
	int ret = pmr_modify_qp(qp, &a, PMR_QP_STATE);

	a.max_dest_rd_atomic = (uint8_t)n;
	if (ret == 0)
		ret = pmr_modify_qp(qp, &a, PMR_QP_STATE |
				    PMR_QP_MAX_DEST_RD_ATOMIC);
	a.qp_state = PMR_QPS_RTS;
	if (ret == 0)
		ret = pmr_modify_qp(qp, &a, PMR_QP_STATE);
	return ret;
}

/*
 * After HOLD: one engine run that takes in at most `frames` frames (none
 * when 0), then by the application: QP qpn moved to ERR or RESET, or
 * destroyed (action ERR, RESET, DESTROY), its max_dest_rd_atomic set to
 * N in SQD (RDA<N>), the scratch MR deregistered (DEREG), moved to ERR
 * or RESET and the scratch MR deregistered at once (ERRDEREG,
 * RESETDEREG), or nothing (NONE).  The engine runs again from then on,
 * but after HOLD (nothing done, and the engine stays held for the next
 * STEP).  Says OK and how many frames the run took in; the three DEREG
 * actions add pmr_dereg_mr's result.
 */
static void v_step(uint32_t qpn, unsigned int frames, const char *action)
{
	struct pmr_qp *qp = v_find(qpn);
	struct pmr_qp_attr a = { .qp_state = PMR_QPS_ERR };
	struct pmr_roce_port_stats s0, s1;
	bool dereg = strcmp(action, "RESETDEREG") == 0 ||
		     strcmp(action, "ERRDEREG") == 0;
	int ret = -1;
	unsigned int rda;

	held = false;
	if (qp == NULL || pmr_roce_port_stats(ctx->device, &s0) ||
	    (frames && pmr_progress(ctx, frames) < 0) ||
	    pmr_roce_port_stats(ctx->device, &s1)) {
		vsay("FAIL STEP");
		return;
	}
	if (strcmp(action, "NONE") == 0) {
		ret = 0;
	} else if (strcmp(action, "HOLD") == 0) {
		ret = 0;
		held = true;
	} else if (sscanf(action, "RDA%u", &rda) == 1) {
		ret = v_dest_rd_atomic(qp, rda);
	} else if (strcmp(action, "ERRRESET") == 0) {
		/* to ERR, then to RESET at once: no engine run between */
		ret = pmr_modify_qp(qp, &a, PMR_QP_STATE);
		a.qp_state = PMR_QPS_RESET;
		if (ret == 0)
			ret = pmr_modify_qp(qp, &a, PMR_QP_STATE);
	} else if (strcmp(action, "DESTROY") == 0) {
		ret = pmr_destroy_qp(qp);
		for (unsigned int i = 0; ret == 0 && i < nqps; i++)
			if (qps[i] == qp)
				qps[i] = qps[--nqps];
	} else if (dereg || strcmp(action, "RESET") == 0 ||
		   strcmp(action, "ERR") == 0) {
		if (action[0] == 'R')
			a.qp_state = PMR_QPS_RESET;
		ret = pmr_modify_qp(qp, &a, PMR_QP_STATE);
		if (dereg) {
			/* pmr_dereg_mr on the scratch MR at once, no engine
			 * run between (-2: the move failed) */
			vsay("OK %" PRIu64 " %d", s1.rx_pkts - s0.rx_pkts,
			     ret ? -2 : v_dereg_scratch());
			return;
		}
	} else if (strcmp(action, "DEREG") == 0) {
		/* the frames taken in, then pmr_dereg_mr's result on the
		 * scratch MR */
		vsay("OK %" PRIu64 " %d", s1.rx_pkts - s0.rx_pkts,
		     v_dereg_scratch());
		return;
	}
	if (ret != 0)
		vsay("FAIL STEP %s", action);
	else	/* the frames taken in */
		vsay("OK %" PRIu64, s1.rx_pkts - s0.rx_pkts);
}

static void v_cmd(char *line)
{
	unsigned int a1, a2, a3, a4, a5, a6;
	char word[16];
	int k;

	if (strcmp(line, "INFO") == 0) {
		vsay("OK %" PRIu64 " %u %u %" PRIu64 " %u %u %u",
		     (uint64_t)(uintptr_t)mr->addr, mr->rkey, MR_SIZE,
		     (uint64_t)(uintptr_t)nr_mr->addr, nr_mr->rkey,
		     udqp->qp_num, UD_QKEY);
	} else if (sscanf(line, "NEWRC %u %u %u %u %u %u", &a1, &a2, &a3,
			  &a4, &a5, &a6) == 6) {
		v_newqp(a1, a2, a3, (uint8_t)a4, (uint8_t)a5, false,
			(uint8_t)a6);
	} else if (sscanf(line, "NEWUC %u %u %u", &a1, &a2, &a3) == 3) {
		v_newqp(a1, a2, a3, 0, 0, true, 2);
	} else if ((k = sscanf(line, "POST %u %u %x %u %u", &a1, &a2, &a3,
			       &a4, &a5)) >= 3) {
		v_post_sends(a1, a2, a3, k >= 4 && a4, k == 5 ? a5 : 64);
	} else if (sscanf(line, "POSTBAD %u", &a1) == 1) {
		v_post_bad(a1);
	} else if (sscanf(line, "POSTSE %u", &a1) == 1) {
		v_post_solicited(a1);
	} else if ((k = sscanf(line, "POSTRA %u %u %u", &a1, &a2, &a3)) >= 1) {
		v_post_read_atomic(a1, k >= 2 && a2, k == 3 ? a3 : 2048);

	} else if ((k = sscanf(line, "UDSEND %u %u %u", &a1, &a2, &a3)) >= 2) {
		v_ud_send(a1, a2, k == 3 ? a3 : 2);
	} else if (sscanf(line, "TCLASS %u %u", &a1, &a2) == 2) {
		v_tclass(a1, (uint8_t)a2);
	} else if (sscanf(line, "RECV %u", &a1) == 1) {
		/* one more receive WQE on QP a1 (the UD QP's number too) */
		struct pmr_qp *qp = v_find(a1);
		uint64_t id;

		if (qp == NULL || v_post_recv(qp, &id))
			vsay("FAIL post_recv");
		else
			vsay("OK %" PRIu64, id);
	} else if (sscanf(line, "QPSTAT %u", &a1) == 1) {
		struct pmr_qp *qp = v_find(a1);
		struct pmr_roce_qp_stats qs;

		if (qp == NULL || pmr_roce_qp_stats(qp, &qs))
			vsay("FAIL no QP");
		else
			vsay("OK %" PRIu64 " %" PRIu64, qs.timeouts,
			     qs.retransmits);
	} else if (sscanf(line, "STATE %u", &a1) == 1) {
		struct pmr_qp *qp = v_find(a1);
		struct pmr_qp_attr a;
		struct pmr_qp_init_attr ia;

		if (qp == NULL || pmr_query_qp(qp, &a, PMR_QP_STATE, &ia))
			vsay("FAIL no QP");
		else
			vsay("OK %d", (int)a.qp_state);
	} else if (sscanf(line, "WCS %u", &a1) == 1) {
		/* the completions of QP a1 so far */
		for (unsigned int i = 0; i < nwlog; i++)
			if (wlog[i].qp_num == a1)
				vsay("WC %u %" PRIu64 " %d %d %u",
				     wlog[i].qp_num, wlog[i].wr_id,
				     (int)wlog[i].status,
				     (int)wlog[i].opcode, wlog[i].byte_len);
	} else if (strcmp(line, "EVS") == 0) {
		for (unsigned int i = 0; i < nelog; i++)
			vsay("EV %u %d", elog[i].qpn, elog[i].type);
	} else if (strcmp(line, "SCRATCH") == 0) {
		/* a fresh MR, to be deregistered while the attacker uses it */
		memset(scratch, 0, sizeof(scratch));
		if (scr_mr == NULL)
			scr_mr = pmr_reg_mr(pd, scratch, sizeof(scratch),
					    PMR_ACCESS_LOCAL_WRITE |
					    PMR_ACCESS_REMOTE_WRITE |
					    PMR_ACCESS_REMOTE_READ);
		if (scr_mr == NULL)
			vsay("FAIL reg_mr");
		else
			vsay("OK %" PRIu64 " %u", (uint64_t)(uintptr_t)scratch,
			     scr_mr->rkey);
	} else if (sscanf(line, "DEREG %x", &a1) == 1) {
		/* the result of pmr_dereg_mr, and how many bytes of the MR
		 * hold the byte a1 */
		int ret = v_dereg_scratch();
		unsigned int same = 0;

		for (size_t i = 0; i < sizeof(scratch); i++)
			same += scratch[i] == (uint8_t)a1;
		vsay("OK %d %u", ret, same);
	} else if (sscanf(line, "STARVE %u", &a1) == 1) {
		if (starve_pool == NULL)
			rte_mempool_walk(find_pool, NULL);
		if (starve_pool == NULL || a1 > 4096) {
			vsay("FAIL %s", starve_pool ? "k > 4096" : "no pool");
		} else {
			starve_keep = (int)a1;
			v_starve();
			vsay("OK %u", nstarved);
		}
	} else if (strcmp(line, "FEED") == 0) {
		v_feed();
		vsay("OK");
	} else if (strcmp(line, "HOLD") == 0) {
		held = true;
		vsay("OK");
	} else if (sscanf(line, "STEP %u %u %15s", &a1, &a2, word) == 3) {
		v_step(a1, a2, word);
	} else if (strcmp(line, "STATS") == 0) {
		v_stats();
	} else if (strcmp(line, "GUARDS") == 0) {
		v_guards();
	} else if (strcmp(line, "REGUARD") == 0) {
		/* after a case that may write anything into the MR */
		memset(big + MR_OFF, GUARD_BYTE, MR_SIZE);
		vsay("OK");
	} else if (strcmp(line, "QUIT") == 0) {
		vsay("OK");
		vsay("END");
		/* the headroom left: a case that needs more fails */
		printf("victim: quit (%u of %u QPs, %u of %u receive slots, "
		       "%u of %u completion records used)\n", nqps, MAXQP,
		       next_slot, NRSLOTS, nwlog, MAXLOG);
		fflush(stdout);
		exit(0);
	} else {
		vsay("FAIL unknown command");
	}
	vsay("END");
}

static _Noreturn void victim(const char *path)
{
	struct sockaddr_un sa;
	char buf[4096];
	size_t have = 0;
	int lfd;

	v_setup();
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		die("control socket %s: %s", path, strerror(errno));
	fcntl(lfd, F_SETFL, O_NONBLOCK);
	printf("victim: ready, UD QP 0x%x, MR rkey 0x%x at %p\n",
	       udqp->qp_num, mr->rkey, mr->addr);
	fflush(stdout);
	for (;;) {
		if (!held)
			v_engine();
		if (vfd < 0) {
			vfd = accept(lfd, NULL, NULL);
			if (vfd >= 0)
				fcntl(vfd, F_SETFL, O_NONBLOCK);
			continue;
		}
		ssize_t n = read(vfd, buf + have, sizeof(buf) - 1 - have);

		if (n == 0)
			die("control socket closed");
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			die("control read: %s", strerror(errno));
		}
		have += (size_t)n;
		for (;;) {
			char *nl = memchr(buf, '\n', have);

			if (nl == NULL)
				break;
			*nl = 0;
			/* let answers and completions settle first */
			for (int i = 0; i < 4 && !held; i++)
				v_engine();
			v_cmd(buf);
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have);
		}
	}
}

/* ======================================================================
 * attacker
 */
static const uint8_t vmac[6] = { 0x02, 0, 0, 0x98, 0, 0x01 };
static const uint8_t amac[6] = { 0x02, 0, 0, 0x98, 0, 0x02 };
static uint8_t vgid[16] = { [10] = 0xff, [11] = 0xff, 10, 98, 0, 1 };
static uint8_t agid[16] = { [10] = 0xff, [11] = 0xff, 10, 98, 0, 2 };
static struct rte_mempool *pool;
static int cfd = -1;
static FILE *cin;
static int fails;
static uint64_t mr_va, nr_va;
static uint32_t mr_rkey, mr_len, nr_rkey, ud_qpn, ud_qkey;

struct ans {
	uint8_t opcode, syn, tclass;
	bool ackreq, se;
	uint32_t psn, dqpn, plen;
	uint64_t orig;
	bool out_of_mr;     /* payload bytes other than the guard pattern (the
			     * MR holds nothing else: full_reads_in_order()) */
	bool v4;
	uint16_t ip_id;     /* IPv4 identification (v4) */
	uint8_t dmac[6];    /* the Ethernet address it was sent to */
};
#define MAXANS 8192
static struct ans ans[MAXANS];
static unsigned int nans;
static unsigned int ans_lost;   /* answers the full log could not keep */

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("    check failed: " __VA_ARGS__); \
		printf("  [%s]\n", #cond); \
		bad++; \
	} \
} while (0)

/* ---- control ---- */

static char rlines[512][160];
static unsigned int nrl;

/* Send a command; collect reply lines up to END.  @return the first line. */
static const char *ctl(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(cfd, line, (size_t)n) != n)
		die("control write");
	nrl = 0;
	for (;;) {
		char r[160];

		if (fgets(r, sizeof(r), cin) == NULL)
			die("control socket closed (victim died?) after %.*s",
			    n - 1, line);
		r[strcspn(r, "\n")] = 0;
		if (strcmp(r, "END") == 0)
			break;
		if (nrl < 512)
			snprintf(rlines[nrl++], sizeof(rlines[0]), "%s", r);
	}
	return nrl ? rlines[0] : "";
}

static uint64_t stat_of(const char *name)
{
	char pfx[64];
	int n = snprintf(pfx, sizeof(pfx), "STAT %s ", name);

	for (unsigned int i = 0; i < nrl; i++)
		if (strncmp(rlines[i], pfx, (size_t)n) == 0)
			return strtoull(rlines[i] + n, NULL, 10);
	die("no counter %s", name);
	return 0;
}

struct stats { uint64_t v[32]; };
static const char *stat_names[] = {
	"rx_drop_not_roce", "rx_drop_malformed", "rx_drop_icrc",
	"rx_drop_unknown_qp", "rx_drop_state", "rx_drop_qkey",
	"rx_drop_no_recv", "nak_seq_tx", "nak_inv_tx", "nak_acc_tx",
	"nak_op_tx", "dup_requests", "out_of_seq", "nak_rnr_tx",
	"retransmits", "timeouts", "ack_solicits", "tx_full", "tx_drops",
	"tx_no_mbuf", "arp_rx", "arp_tx", "nak_seq_rx", "nak_rnr_rx",
	NULL,
};

static struct stats get_stats(void)
{
	struct stats s;

	ctl("STATS");
	for (int i = 0; stat_names[i]; i++)
		s.v[i] = stat_of(stat_names[i]);
	return s;
}

static uint64_t sdiff(const struct stats *a, const struct stats *b,
		      const char *name)
{
	for (int i = 0; stat_names[i]; i++)
		if (strcmp(stat_names[i], name) == 0)
			return b->v[i] - a->v[i];
	die("no counter %s", name);
	return 0;
}

static int qp_state_of(uint32_t qpn)
{
	const char *r = ctl("STATE %u", qpn);

	return strncmp(r, "OK ", 3) == 0 ? atoi(r + 3) : -1;
}

/* A victim QP's own counters since it was made: unlike the port's, no
 * QP of an earlier case still retrying moves them. */
struct qpstat { uint64_t timeouts, retransmits; };

static struct qpstat qp_stat(uint32_t qpn)
{
	struct qpstat s;
	const char *r = ctl("QPSTAT %u", qpn);

	if (sscanf(r, "OK %" SCNu64 " %" SCNu64, &s.timeouts,
		   &s.retransmits) != 2)
		die("QPSTAT %u: %s", qpn, r);
	return s;
}

struct wcrec { uint64_t wr_id; int status, opcode; uint32_t len; };

static unsigned int wcs_of(uint32_t qpn, struct wcrec *w, unsigned int max)
{
	unsigned int k = 0;

	ctl("WCS %u", qpn);     /* (all of them would not fit rlines) */
	for (unsigned int i = 0; i < nrl; i++) {
		unsigned int q, len;
		uint64_t id;
		int st, op;

		if (sscanf(rlines[i], "WC %u %" SCNu64 " %d %d %u", &q, &id,
			   &st, &op, &len) == 5 && q == qpn && k < max) {
			w[k].wr_id = id;
			w[k].status = st;
			w[k].opcode = op;
			w[k].len = len;
			k++;
		}
	}
	return k;
}

static unsigned int evs_of(uint32_t qpn, int *types, unsigned int max)
{
	unsigned int k = 0;

	ctl("EVS");
	for (unsigned int i = 0; i < nrl; i++) {
		unsigned int q;
		int t;

		if (sscanf(rlines[i], "EV %u %d", &q, &t) == 2 && q == qpn &&
		    k < max)
			types[k++] = t;
	}
	return k;
}

/* guards intact: nothing outside the MR, nothing in it, no receive guard */
static int guards_bad(void)
{
	const char *r = ctl("GUARDS");
	uint64_t o, m, n;
	int64_t first;

	if (sscanf(r, "OK %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNd64,
		   &o, &m, &n, &first) != 4)
		return 1;
	if (o || m || n)
		printf("    guards: %" PRIu64 " bytes outside the MR, %" PRIu64
		       " inside, %" PRIu64 " after receive buffers changed "
		       "(first at big+%" PRId64 ")\n", o, m, n, first);
	return o || m || n;
}

/* ---- frames ---- */

static uint16_t port_id;

static void rx_drain(uint64_t ms);

static void tx_frame(struct rte_mbuf *m)
{
	uint64_t end = now_ns() + 1000000000ull;

	while (rte_eth_tx_burst(port_id, 0, &m, 1) == 0) {
		if (now_ns() > end)
			die("tx ring stuck");
		rx_drain(0);
	}
}

static void build_base(struct wire_build *b, uint8_t opcode, uint32_t dqpn,
		       uint32_t psn)
{
	wire_build_init(b);
	memcpy(b->dmac, vmac, 6);
	memcpy(b->smac, amac, 6);
	memcpy(b->sgid, agid, 16);
	memcpy(b->dgid, vgid, 16);
	b->sport = 0xC123;
	b->opcode = opcode;
	b->dqpn = dqpn;
	b->psn = psn;
	b->ackreq = true;
}

/* Build *b with plen payload bytes of value fill; corrupt: flip the ICRC. */
static void send_pkt(struct wire_build *b, uint32_t plen, uint8_t fill,
		     bool corrupt)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;
	int hl, len;

	if (m == NULL)
		die("no mbuf");
	f = rte_pktmbuf_mtod(m, uint8_t *);
	b->payload_len = plen;
	hl = wire_build_hdrs(f, rte_pktmbuf_tailroom(m), b);
	if (hl < 0)
		die("wire_build_hdrs: %s", wire_err_str(hl));
	memset(f + hl, fill, plen);
	len = wire_build_finish(f, rte_pktmbuf_tailroom(m), (size_t)hl + plen);
	if (len < 0)
		die("wire_build_finish: %s", wire_err_str(len));
	if (corrupt)
		f[len - 1] ^= 0x5A;
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	tx_frame(m);
}

/* ARP replies from the victim to an address other than ours (arp_ask()) */
static unsigned int arp_got;
/* ARP requests from the victim for arp_watch */
static unsigned int arp_asked;
static uint8_t arp_watch[4];

/* An ARP frame (op 1 request, 2 reply) from sha/spa to tha/tpa, sent to
 * Ethernet address dst. */
static void arp_frame(uint8_t op, const uint8_t *dst, const uint8_t *sha,
		      const uint8_t *spa, const uint8_t *tha,
		      const uint8_t *tpa)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *o;

	if (m == NULL)
		die("no mbuf");
	o = rte_pktmbuf_mtod(m, uint8_t *);
	memset(o, 0, 60);
	memcpy(o, dst, 6);
	memcpy(o + 6, sha, 6);
	o[12] = 0x08; o[13] = 0x06;
	o[14] = 0; o[15] = 1; o[16] = 0x08; o[17] = 0; o[18] = 6; o[19] = 4;
	o[20] = 0; o[21] = op;
	memcpy(o + 22, sha, 6);
	memcpy(o + 28, spa, 4);
	memcpy(o + 32, tha, 6);
	memcpy(o + 38, tpa, 4);
	m->data_len = m->pkt_len = 60;
	tx_frame(m);
}

/* An ARP request for the victim's address from another host (ip, mac). */
static void arp_ask(const uint8_t ip[4], const uint8_t mac[6])
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t none[6];

	arp_frame(1, bcast, mac, ip, none, vgid + 12);
}

/* Our answer to the ARP request f (for agid's address). */
static void arp_reply(const uint8_t *f)
{
	arp_frame(2, f + 6, amac, agid + 12, f + 22, f + 28);
}

/* Receive for ms milliseconds: record RoCE answers, answer ARP. */
static void rx_drain(uint64_t ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;

	do {
		struct rte_mbuf *m[32];
		uint16_t n = rte_eth_rx_burst(port_id, 0, m, 32);

		for (uint16_t i = 0; i < n; i++) {
			const uint8_t *f = rte_pktmbuf_mtod(m[i], uint8_t *);
			struct wire_pkt p;

			if (m[i]->data_len >= 42 && f[12] == 0x08 &&
			    f[13] == 0x06) {
				if (f[21] == 1 && memcmp(f + 38, agid + 12, 4) == 0)
					arp_reply(f);
				else if (f[21] == 1 &&
					 memcmp(f + 28, vgid + 12, 4) == 0 &&
					 memcmp(f + 38, arp_watch, 4) == 0)
					arp_asked++;
				else if (f[21] == 2 &&
					 memcmp(f + 28, vgid + 12, 4) == 0 &&
					 memcmp(f + 38, agid + 12, 4) != 0)
					arp_got++;
			} else if (nans == MAXANS &&
				   wire_parse(f, m[i]->data_len, 0, &p) == 0) {
				ans_lost++;
			} else if (wire_parse(f, m[i]->data_len, 0, &p) == 0) {
				struct ans *a = &ans[nans++];
				const struct wire_aeth *ae =
					wire_pkt_hdr(f, &p, WIRE_HDR_AETH);
				const struct wire_atmack *am =
					wire_pkt_hdr(f, &p, WIRE_HDR_ATMACK);

				memset(a, 0, sizeof(*a));
				a->opcode = p.opcode;
				a->psn = p.psn;
				a->dqpn = p.dqpn;
				a->plen = p.payload_len;
				a->ackreq = p.ackreq;
				a->se = p.se;
				a->tclass = p.tclass;
				a->v4 = p.ip_ver == 4;
				memcpy(a->dmac, f, 6);
				if (a->v4)
					a->ip_id = wire_get16(f + p.ip_off + 4);
				if (ae)
					a->syn = wire_aeth_syn(ae);
				if (am)
					a->orig = wire_atmack_orig(am);
				for (uint32_t k = 0; k < p.payload_len; k++)
					if (f[p.payload_off + k] != GUARD_BYTE)
						a->out_of_mr = true;
			}
			rte_pktmbuf_free(m[i]);
		}
	} while (now_ns() < end);
}

static void ans_clear(void)
{
	rx_drain(0);
	nans = 0;
}

/* The n-th answer (from 0) to our QP dqpn since the log was cleared; all
 * zero when there is none.  (By QP, so that a late frame of an earlier
 * case, to another QP, shifts nothing.) */
static struct ans nth_ans(uint32_t dqpn, unsigned int n)
{
	struct ans none = { 0 };

	for (unsigned int i = 0; i < nans; i++)
		if (ans[i].dqpn == dqpn && n-- == 0)
			return ans[i];
	return none;
}

/* Answers to our QP dqpn with this opcode (and syndrome, if syn >= 0). */
static unsigned int ans_count(uint32_t dqpn, int opcode, int syn)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < nans; i++)
		if (ans[i].dqpn == dqpn && (opcode < 0 || ans[i].opcode == opcode) &&
		    (syn < 0 || ans[i].syn == syn))
			k++;
	return k;
}

static void ans_dump(void)
{
	for (unsigned int i = 0; i < nans; i++)
		printf("    answer: opcode 0x%02x syn 0x%02x psn 0x%06x to QP 0x%x, "
		       "%u bytes\n", ans[i].opcode, ans[i].syn, ans[i].psn,
		       ans[i].dqpn, ans[i].plen);
	ctl("STATS");
	for (unsigned int i = 0; i < nrl; i++)
		if (strncmp(rlines[i], "STAT ", 5) == 0 &&
		    strcmp(rlines[i] + strlen(rlines[i]) - 2, " 0") != 0)
			printf("    victim %s\n", rlines[i]);
}

/* ---- a fresh victim QP ---- */

struct vqp {
	uint32_t qpn;      /* victim's */
	uint32_t dqpn;     /* ours (fake) */
	uint32_t epsn;     /* its expected PSN */
	uint32_t sqpsn;    /* its send PSN */
	uint64_t rid[NRECV];
};

static uint32_t fake_qpn = 0x100;

/* A new victim QP to a fake QP of ours: UC with uc, else RC with the
 * local ACK timeout and retry count given and its peer at 10.98.0.host
 * (2: our address; a UC QP's peer is always there). */
static struct vqp new_vqp(bool uc, uint32_t epsn, unsigned int timeout,
			  unsigned int retry, unsigned int host)
{
	struct vqp q;
	const char *r;
	uint32_t sq = (epsn * 7 + 0x51) & WIRE_PSN_MASK;

	q.dqpn = fake_qpn++;
	q.epsn = epsn;
	q.sqpsn = sq;
	r = uc ? ctl("NEWUC %u %u %u", q.dqpn, epsn, sq) :
	     ctl("NEWRC %u %u %u %u %u %u", q.dqpn, epsn, sq, timeout, retry,
		 host);
	if (sscanf(r, "OK %u %" SCNu64 " %" SCNu64, &q.qpn, &q.rid[0],
		   &q.rid[1]) != 3)
		die("%s: %s", uc ? "NEWUC" : "NEWRC", r);
	ans_clear();
	return q;
}

static struct vqp new_qp_timed(uint32_t epsn, unsigned int timeout,
			       unsigned int retry)
{
	return new_vqp(false, epsn, timeout, retry, 2);
}

static struct vqp new_qp(uint32_t epsn)
{
	return new_qp_timed(epsn, 14, 7);
}

enum { ST_RESET = PMR_QPS_RESET, ST_RTS = PMR_QPS_RTS, ST_ERR = PMR_QPS_ERR };

/*
 * The common end of a fatal case: exactly one NAK with syndrome syn for
 * psn, the QP in ERR with async event ev (-1: none expected), every
 * posted receive completed exactly once (FLUSH, or first_status for the
 * first), guards intact.  @return failed checks.
 */
static int expect_fatal(const struct vqp *q, uint8_t syn, uint32_t psn,
			int ev, int first_status)
{
	struct wcrec w[16];
	int ev_t[16];
	unsigned int nw, ne;
	int bad = 0;

	rx_drain(150);
	CHECK(ans_count(q->dqpn, WIRE_OP_RC_ACKNOWLEDGE, syn) == 1,
	      "one NAK 0x%02x", syn);
	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn != q->dqpn)
			continue;
		CHECK(ans[i].opcode == WIRE_OP_RC_ACKNOWLEDGE && ans[i].syn == syn,
		      "unexpected answer opcode 0x%02x syn 0x%02x", ans[i].opcode,
		      ans[i].syn);
		if (ans[i].opcode == WIRE_OP_RC_ACKNOWLEDGE && ans[i].syn == syn)
			CHECK(ans[i].psn == psn, "NAK PSN 0x%x, expected 0x%x",
			      ans[i].psn, psn);
	}
	CHECK(qp_state_of(q->qpn) == ST_ERR, "QP state %d, expected ERR",
	      qp_state_of(q->qpn));
	ne = evs_of(q->qpn, ev_t, 16);
	if (ev >= 0)
		CHECK(ne == 1 && ev_t[0] == ev, "%u async events (first %d), "
		      "expected one %s", ne, ne ? ev_t[0] : -1,
		      pmr_event_type_str((enum pmr_event_type)ev));
	else
		CHECK(ne == 0, "%u async events, expected none", ne);
	nw = wcs_of(q->qpn, w, 16);
	CHECK(nw == NRECV, "%u receive completions, expected %d", nw, NRECV);
	for (unsigned int i = 0; i < nw; i++) {
		int want = (i == 0 && first_status >= 0) ? first_status :
			   PMR_WC_WR_FLUSH_ERR;

		CHECK(i < NRECV && w[i].wr_id == q->rid[i],
		      "completion %u wr_id %" PRIu64 ", expected %" PRIu64, i,
		      w[i].wr_id, i < NRECV ? q->rid[i] : 0);
		CHECK(w[i].status == want, "completion %u status %s, expected %s",
		      i, pmr_wc_status_str(w[i].status),
		      pmr_wc_status_str(want));
		CHECK(w[i].opcode & PMR_WC_RECV, "completion %u opcode %d", i,
		      w[i].opcode);
	}
	return bad;
}

/* The end of every case: no case may write outside the MR (the guard
 * bytes), the packets seen are shown when something failed, then the
 * verdict. */
static void verdict(const char *name, int bad)
{
	CHECK(!guards_bad(), "guard bytes intact");
	/* counts from a log that overflowed are wrong: say so */
	CHECK(ans_lost == 0, "%u answers not logged (the log holds %u)",
	      ans_lost, MAXANS);
	ans_lost = 0;
	if (bad)
		ans_dump();
	printf("%s: %s\n", bad ? "FAIL" : "PASS", name);
	fflush(stdout);
	if (bad)
		fails++;
}

/* A SEND of 16 bytes to the victim's QP at psn, asking for an ACK. */
static void send_at(const struct vqp *q, uint32_t psn)
{
	struct wire_build b;

	build_base(&b, WIRE_OP_RC_SEND_ONLY, q->qpn, psn);
	send_pkt(&b, 16, 0x3C, false);
}

/* ---- cases ---- */

/* A WRITE ONLY at psn to va/rkey, RETH length len, plen bytes of fill. */
static void write_at(const struct vqp *q, uint32_t psn, uint64_t va,
		     uint32_t rkey, uint32_t len, uint32_t plen, uint8_t fill)
{
	struct wire_build b;

	build_base(&b, WIRE_OP_RC_WRITE_ONLY, q->qpn, psn);
	b.va = va;
	b.rkey = rkey;
	b.dma_len = len;
	send_pkt(&b, plen, fill, false);
}

static void write_only(const struct vqp *q, uint64_t va, uint32_t rkey,
		       uint32_t len, uint32_t plen)
{
	write_at(q, q->epsn, va, rkey, len, plen, 0x3C);
}

/* Receive until `want` packets to our QP dqpn arrived (or ms passed).
 * @return the packets seen. */
static unsigned int requests_until(uint32_t dqpn, unsigned int want,
				   uint64_t ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;
	unsigned int k;

	do {
		rx_drain(0);
		k = ans_count(dqpn, -1, -1);
	} while (k < want && now_ns() < end);
	return k;
}

/* Whether an answer for psn comes to our QP dqpn within ms (any opcode:
 * the caller checks what it is). */
static bool answer_until(uint32_t dqpn, uint32_t psn, uint64_t ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;

	do {
		rx_drain(0);
		for (unsigned int i = 0; i < nans; i++)
			if (ans[i].dqpn == dqpn && ans[i].psn == psn)
				return true;
	} while (now_ns() < end);
	return false;
}

/* An ACKNOWLEDGE with syndrome syn (ACK or NAK) and MSN msn for psn,
 * from our QP to the victim's. */
static void aeth_to(const struct vqp *q, uint32_t psn, uint8_t syn,
		    uint32_t msn)
{
	struct wire_build b;

	build_base(&b, WIRE_OP_RC_ACKNOWLEDGE, q->qpn, psn);
	b.ackreq = false;
	b.syndrome = syn;
	b.msn = msn;
	send_pkt(&b, 0, 0, false);
}

/* An ACK (MSN msn) for everything up to psn, from our QP to the victim's. */
static void ack_to(const struct vqp *q, uint32_t psn, uint32_t msn)
{
	aeth_to(q, psn, wire_syn_ack(WIRE_AETH_CREDIT_INVALID), msn);
}

/* The victim's packets to q from its first PSN on: how many came, the
 * newest's offset + 1 (a packet sent again, an ACK solicit, counts
 * once). */
static unsigned int seen_upto(const struct vqp *q)
{
	unsigned int upto = 0;

	for (unsigned int i = 0; i < nans; i++) {
		uint32_t off = (ans[i].psn - q->sqpsn) & 0xffffff;

		if (ans[i].dqpn == q->dqpn && off < 0x800000 && off >= upto)
			upto = off + 1;
	}
	return upto;
}

/* Read what came, and acknowledge the victim's SEND packets to q up to
 * the newest one seen (mpk packets a message, q's first PSN first). */
static void ack_seen(const struct vqp *q, uint32_t mpk)
{
	unsigned int seen = seen_upto(q), now;

	rx_drain(0);
	now = seen_upto(q);
	if (now > seen)
		ack_to(q, wire_psn_add(q->sqpsn, now - 1), now / mpk);
}

/* The QP is in SQD and reported SQ_DRAINED once.  @return failed checks. */
static int drained_bad(const struct vqp *q)
{
	int ev_t[16];
	unsigned int ne = evs_of(q->qpn, ev_t, 16);
	int bad = 0;

	CHECK(ne == 1 && ev_t[0] == PMR_EVENT_SQ_DRAINED,
	      "%u async events (first %d), expected SQ_DRAINED", ne,
	      ne ? ev_t[0] : -1);
	CHECK(qp_state_of(q->qpn) == PMR_QPS_SQD, "QP not SQD");
	return bad;
}

/*
 * The AckReq cadence of the victim's 16-entry SQs: its ackreq= (the
 * attacker's HOSTILE_ACKREQ says which, 16 by default), capped at half
 * the SQ.  Case 11 needs a tail of 6 and one of 2 that do not end on a
 * packet that asks: 4, 5, 7 or 8.
 */
static unsigned int ackreq_every(void)
{
	const char *e = getenv("HOSTILE_ACKREQ");
	unsigned int v = e ? (unsigned int)strtoul(e, NULL, 10) : 16;

	if (v > 8)
		v = 8;
	if (v != 4 && v != 5 && v != 7 && v != 8)
		die("HOSTILE_ACKREQ=%s: case 11 needs a cadence of 4, 5, 7 or "
		    "8", e);
	return v;
}

/*
 * The victim as requester, ACK coalescing (roce.rst): an unsignaled SEND
 * does not ask for an ACK (AckReq) unless it is the ackreq_every-th
 * packet since the last that asked (8 by default: ackreq=16, capped at
 * half the 16-entry SQ); a signaled one always asks.  A tail that never
 * asked is asked for again once: its last packet is sent again with
 * AckReq after a quarter of the local ACK timeout (67 ms here: timeout
 * 16, 268 ms, leaves the test 200 ms to answer the solicit; retry_cnt 0:
 * one timeout would fail the QP).  Then the same in SQD: the QP finishes
 * the tail, re-sent packet included, and reports SQ_DRAINED.
 */
static void case11(void)
{
	unsigned int every = ackreq_every();
	struct stats s0, s1;
	struct qpstat qs;
	struct vqp q;
	struct wcrec w[16];
	int ev_t[16];
	const char *r;
	unsigned int k, nw, ne;
	struct ans a;
	uint32_t psn;
	int bad = 0;

	q = new_qp_timed(0xB000, 16, 0);
	s0 = get_stats();
	r = ctl("POST %u 6 0", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "POST 6: %s", r);
	k = requests_until(q.dqpn, 7, 1000);
	CHECK(k == 7, "%u requests, expected 6 SENDs and the solicit", k);
	for (unsigned int i = 0; i < k && i < 7; i++) {
		uint32_t want = wire_psn_add(q.sqpsn, i < 6 ? i : 5);
		bool ask = i == 6 || (i + 1) % every == 0;

		a = nth_ans(q.dqpn, i);
		CHECK(a.opcode == WIRE_OP_RC_SEND_ONLY && a.psn == want &&
		      a.plen == 64 && a.ackreq == ask,
		      "request %u: opcode 0x%02x psn 0x%x AckReq %d, expected "
		      "SEND_ONLY 0x%x AckReq %d", i, a.opcode, a.psn,
		      a.ackreq, want, ask);
	}
	ack_to(&q, wire_psn_add(q.sqpsn, 5), 6);
	rx_drain(50);
	s1 = get_stats();
	CHECK(ans_count(q.dqpn, -1, -1) == 7, "%u requests after the ACK, "
	      "expected no more", ans_count(q.dqpn, -1, -1));
	CHECK(sdiff(&s0, &s1, "ack_solicits") == 1, "ack_solicits +%" PRIu64
	      "", sdiff(&s0, &s1, "ack_solicits"));
	qs = qp_stat(q.qpn);
	CHECK(qs.timeouts == 0 && qs.retransmits == 0, "the QP's timeouts %"
	      PRIu64 " retransmits %" PRIu64 ", expected none", qs.timeouts,
	      qs.retransmits);
	CHECK(wcs_of(q.qpn, w, 16) == 0, "completions of unsignaled SENDs");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");

	/* the whole SQ is free again; AckReq on every `every`-th and the
	 * signaled 16th; the ACK of the last completes it alone */
	ans_clear();
	psn = wire_psn_add(q.sqpsn, 6);
	r = ctl("POST %u 16 8000", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "POST 16 on a drained SQ: %s", r);
	k = requests_until(q.dqpn, 16, 200);
	CHECK(k == 16, "%u requests, expected 16", k);
	for (unsigned int i = 0; i < k && i < 16; i++) {
		a = nth_ans(q.dqpn, i);
		CHECK(a.psn == wire_psn_add(psn, i) &&
		      a.ackreq == ((i + 1) % every == 0 || i == 15),
		      "request %u: psn 0x%x AckReq %d", i, a.psn, a.ackreq);
	}
	ack_to(&q, wire_psn_add(psn, 15), 22);
	rx_drain(50);
	nw = wcs_of(q.qpn, w, 16);
	CHECK(nw == 1 && w[0].wr_id == 7015 && w[0].status == PMR_WC_SUCCESS &&
	      w[0].opcode == PMR_WC_SEND, "%u send completions (first wr_id %"
	      PRIu64 " status %d), expected wr_id 7015 SUCCESS", nw,
	      nw ? w[0].wr_id : 0, nw ? w[0].status : -1);
	s0 = s1;
	s1 = get_stats();
	CHECK(ans_count(q.dqpn, -1, -1) == 16 &&
	      sdiff(&s0, &s1, "ack_solicits") == 0,
	      "%u requests, ack_solicits +%" PRIu64 ": nothing to ask for",
	      ans_count(q.dqpn, -1, -1), sdiff(&s0, &s1, "ack_solicits"));

	/* SQD with an unasked-for tail: drained once it is acknowledged */
	ans_clear();
	psn = wire_psn_add(psn, 16);
	r = ctl("POST %u 2 0 1", q.qpn);     /* and SQD straight after */
	CHECK(strcmp(r, "OK") == 0, "POST 2 + SQD: %s", r);
	k = requests_until(q.dqpn, 3, 1000);
	a = nth_ans(q.dqpn, 2);
	CHECK(k == 3 && a.psn == wire_psn_add(psn, 1) && a.ackreq,
	      "%u requests in SQD, expected the solicit of 0x%x", k,
	      wire_psn_add(psn, 1));
	ne = evs_of(q.qpn, ev_t, 16);
	CHECK(ne == 0, "%u async events before the ACK", ne);
	ack_to(&q, wire_psn_add(psn, 1), 24);
	rx_drain(50);
	bad += drained_bad(&q);
	verdict(every == 8 ? "11 requester: AckReq on signaled / every 8th, "
		"the unasked-for tail solicited once, also in SQD" :
		"11 requester, another ackreq=: AckReq on signaled / every "
		"HOSTILE_ACKREQ-th, the tail solicited once, also in SQD", bad);
}

/*
 * One signaled SEND not acknowledged: sent again at the local ACK timeout
 * (timeout 16: 268 ms, room for the test to answer the retransmission
 * before a second one, even when it loses its CPU for a while), once from
 * RTS (the QP waits on the engine's timer wheel meanwhile) and once with
 * the QP moved to SQD straight after the post (SQD finishes what it
 * started).  The ACKs complete both; SQ_DRAINED
 * follows the second.
 */
static void case12(void)
{
	struct qpstat qs;
	struct vqp q;
	struct wcrec w[16];
	const char *r;
	unsigned int k, nw;
	int bad = 0;

	q = new_qp_timed(0xC000, 16, 7);
	for (uint32_t i = 0; i < 2; i++) {
		uint32_t psn = wire_psn_add(q.sqpsn, i);
		struct ans a0, a1;

		ans_clear();
		/* wr_id 7000 both times, signaled; the second also SQD */
		r = ctl("POST %u 1 1 %u", q.qpn, i);
		CHECK(strcmp(r, "OK") == 0, "POST %u: %s", i, r);
		k = requests_until(q.dqpn, 2, 500);
		a0 = nth_ans(q.dqpn, 0);
		a1 = nth_ans(q.dqpn, 1);
		CHECK(k == 2 && a0.psn == psn && a1.psn == psn && a1.ackreq,
		      "%u requests for PSN 0x%x, expected the SEND and its "
		      "retransmission%s", k, psn, i ? " in SQD" : "");
		ack_to(&q, psn, i + 1);
		rx_drain(50);
		CHECK(ans_count(q.dqpn, -1, -1) == 2, "%u requests after the "
		      "ACK", ans_count(q.dqpn, -1, -1));
		nw = wcs_of(q.qpn, w, 16);
		CHECK(nw == i + 1 && w[i].wr_id == 7000 &&
		      w[i].status == PMR_WC_SUCCESS, "%u completions (last "
		      "status %d), expected %u, SUCCESS", nw,
		      nw ? w[nw - 1].status : -1, i + 1);
	}
	qs = qp_stat(q.qpn);
	CHECK(qs.timeouts == 2 && qs.retransmits == 2, "the QP's timeouts %"
	      PRIu64 " retransmits %" PRIu64 ", expected 2 each", qs.timeouts,
	      qs.retransmits);
	bad += drained_bad(&q);
	verdict("12 requester: a lost SEND is sent again at the timeout, in RTS "
		"and in SQD, then drained", bad);
}

/*
 * The solicit with an infinite local ACK timeout (timeout 0, roce.rst): an
 * unasked-for tail is asked for again after ROCE_SOLICIT_US (16.4 ms), not
 * at once and not never.  Early is checked (nothing within 4 ms), late
 * generously (by 500 ms).
 */
static void case13(void)
{
	struct stats s0, s1;
	struct qpstat qs;
	struct vqp q;
	struct wcrec w[16];
	const char *r;
	unsigned int k;
	uint32_t last;
	int bad = 0;

	q = new_qp_timed(0xD000, 0, 0);
	last = wire_psn_add(q.sqpsn, 1);
	s0 = get_stats();
	r = ctl("POST %u 2 0", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "POST 2: %s", r);
	k = requests_until(q.dqpn, 3, 4);
	CHECK(k == 2 && !nth_ans(q.dqpn, 0).ackreq &&
	      !nth_ans(q.dqpn, 1).ackreq,
	      "%u requests within 4 ms, expected the 2 SENDs without AckReq",
	      k);
	k = requests_until(q.dqpn, 3, 500);
	CHECK(k == 3 && nth_ans(q.dqpn, 2).psn == last &&
	      nth_ans(q.dqpn, 2).ackreq,
	      "%u requests, expected the solicit of 0x%x", k, last);
	ack_to(&q, last, 2);
	rx_drain(50);
	s1 = get_stats();
	qs = qp_stat(q.qpn);
	CHECK(ans_count(q.dqpn, -1, -1) == 3 &&
	      sdiff(&s0, &s1, "ack_solicits") == 1 && qs.timeouts == 0 &&
	      qs.retransmits == 0,
	      "%u requests, ack_solicits +%" PRIu64 ", the QP's timeouts %"
	      PRIu64 " retransmits %" PRIu64 ", expected 3, 1, 0, 0",
	      ans_count(q.dqpn, -1, -1), sdiff(&s0, &s1, "ack_solicits"),
	      qs.timeouts, qs.retransmits);
	CHECK(wcs_of(q.qpn, w, 16) == 0, "completions of unsignaled SENDs");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");
	verdict("13 requester: with an infinite ACK timeout the unasked-for "
		"tail is solicited after 16 ms", bad);
}

/*
 * A QP's packets follow a change of its address vector: a new traffic
 * class set in SQD (SQD -> SQD with the AV, then RTS) is in the IP header
 * of the next request and of the next ACK, the old one in those before.
 */
static void case14(void)
{
	struct vqp q;
	struct wcrec w[16];
	const char *r;
	unsigned int k, nw;
	struct ans a;
	int bad = 0;

	q = new_qp(0xE000);
	r = ctl("POST %u 1 1 1", q.qpn);     /* signaled, then SQD */
	CHECK(strcmp(r, "OK") == 0, "POST 1 + SQD: %s", r);
	k = requests_until(q.dqpn, 1, 200);
	CHECK(k == 1 && nth_ans(q.dqpn, 0).tclass == 0, "%u requests, "
	      "traffic class %u, expected 0", k, nth_ans(q.dqpn, 0).tclass);
	ack_to(&q, q.sqpsn, 1);
	rx_drain(50);
	bad += drained_bad(&q);
	r = ctl("TCLASS %u 184", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "TCLASS: %s", r);
	ans_clear();
	r = ctl("POST %u 1 1", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "POST 1: %s", r);
	k = requests_until(q.dqpn, 1, 200);
	a = nth_ans(q.dqpn, 0);
	CHECK(k == 1 && a.psn == wire_psn_add(q.sqpsn, 1) && a.tclass == 184,
	      "%u requests, PSN 0x%x traffic class %u, expected 0x%x, 184",
	      k, a.psn, a.tclass, wire_psn_add(q.sqpsn, 1));
	ack_to(&q, wire_psn_add(q.sqpsn, 1), 2);
	/* and the responder's ACK of a SEND to it */
	ans_clear();
	send_at(&q, q.epsn);
	rx_drain(50);
	k = ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE, -1);
	CHECK(k == 1 && ans_count(q.dqpn, -1, -1) == 1 &&
	      nth_ans(q.dqpn, 0).tclass == 184, "%u ACKs (%u answers), "
	      "traffic class %u, expected one ACK, 184", k,
	      ans_count(q.dqpn, -1, -1), nth_ans(q.dqpn, 0).tclass);
	nw = wcs_of(q.qpn, w, 16);
	CHECK(nw == 3 && w[0].status == PMR_WC_SUCCESS &&
	      w[1].status == PMR_WC_SUCCESS && w[2].status == PMR_WC_SUCCESS,
	      "%u completions, expected 2 sends and a receive, SUCCESS", nw);
	verdict("14 a new traffic class set in SQD is in the next request "
		"and ACK", bad);
}

/* DEREG: the result of pmr_dereg_mr on the scratch MR; *same: its bytes
 * equal to fill. */
static int dereg_scratch(uint8_t fill, unsigned int *same)
{
	const char *r = ctl("DEREG %x", fill);
	int ret;

	if (sscanf(r, "OK %d %u", &ret, same) != 2)
		die("DEREG: %s", r);
	return ret;
}

/* Responses of two READs of the whole MR at MTU 1024: more than one
 * engine run sends. */
#define TWO_READS (2 * (MR_SIZE / 1024))

/* A READ request to QP q at psn for len bytes at va with rkey. */
static void read_at(const struct vqp *q, uint32_t psn, uint64_t va,
		    uint32_t rkey, uint32_t len)
{
	struct wire_build b;

	build_base(&b, WIRE_OP_RC_READ_REQUEST, q->qpn, psn);
	b.va = va;
	b.rkey = rkey;
	b.dma_len = len;
	send_pkt(&b, 0, 0, false);
}

/* n READs of the whole MR to QP q from PSN psn on (MR_SIZE / 1024
 * responses each). */
static void reads(const struct vqp *q, uint32_t psn, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		read_at(q, wire_psn_add(psn, i * (TWO_READS / 2)), mr_va,
			mr_rkey, MR_SIZE);
}

static void two_reads(const struct vqp *q, uint32_t psn)
{
	reads(q, psn, 2);
}

/* A 64-byte WRITE ONLY to QP q at psn with a bad rkey. */
static void bad_write(const struct vqp *q, uint32_t psn)
{
	struct wire_build b;

	build_base(&b, WIRE_OP_RC_WRITE_ONLY, q->qpn, psn);
	b.va = mr_va;
	b.rkey = mr_rkey ^ 0x100;
	b.dma_len = 64;
	send_pkt(&b, 64, 0x3C, false);
}

/* A FETCH_ADD of `add` to the MR's word at offset 128, to QP q at psn. */
static void fetch_add(const struct vqp *q, uint32_t psn, uint64_t add)
{
	struct wire_build b;

	build_base(&b, WIRE_OP_RC_FETCH_ADD, q->qpn, psn);
	b.va = mr_va + 128;
	b.rkey = mr_rkey;
	b.swap_add = add;
	send_pkt(&b, 0, 0, false);
}

/*
 * After READs of the whole MR from PSN psn (two_reads(), reads()) and
 * requests behind them: `want` READ responses in PSN order first (all of
 * them), then exactly one more
 * answer, with opcode op, syndrome syn (ACK opcode only) and PSN apsn;
 * the QP in `state` (-1: the QP is gone).  @return failed checks.
 */
static int reads_then(const struct vqp *q, uint32_t psn, uint8_t op,
		      uint8_t syn, uint32_t apsn, int state, unsigned int want)
{
	unsigned int nresp = 0, nafter = 0;
	int bad = 0;

	rx_drain(150);
	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn != q->dqpn)
			continue;
		if (ans[i].opcode >= WIRE_OP_RC_READ_RESPONSE_FIRST &&
		    ans[i].opcode <= WIRE_OP_RC_READ_RESPONSE_ONLY) {
			CHECK(nafter == 0 && ans[i].psn == wire_psn_add(psn, nresp),
			      "READ response %u: psn 0x%x after %u other "
			      "answer(s)", nresp, ans[i].psn, nafter);
			nresp++;
			continue;
		}
		CHECK(ans[i].opcode == op && ans[i].psn == apsn &&
		      (op != WIRE_OP_RC_ACKNOWLEDGE || ans[i].syn == syn),
		      "answer opcode 0x%02x syn 0x%02x psn 0x%x, expected "
		      "0x%02x 0x%02x 0x%x", ans[i].opcode, ans[i].syn,
		      ans[i].psn, op, syn, apsn);
		nafter++;
	}
	CHECK(nresp == want, "%u READ responses, expected %u", nresp, want);
	CHECK(nafter == 1, "%u answers after the READ responses, expected 1",
	      nafter);
	if (state >= 0)
		CHECK(qp_state_of(q->qpn) == state, "QP state %d, expected %d",
		      qp_state_of(q->qpn), state);
	return bad;
}

/*
 * Answers in PSN order: two READs and, right behind them, a WRITE with a
 * bad rkey.  The NAK for the WRITE comes after the last READ response,
 * not ahead of responses for earlier PSNs; the QP then goes to ERR as
 * usual.
 */
static void case16(void)
{
	struct vqp q = new_qp(0x16000);
	uint32_t wpsn = wire_psn_add(q.epsn, TWO_READS);
	int bad;

	two_reads(&q, q.epsn);
	bad_write(&q, wpsn);
	bad = reads_then(&q, q.epsn, WIRE_OP_RC_ACKNOWLEDGE, 0x62, wpsn,
			 ST_ERR, TWO_READS);
	verdict("16 two READs then a bad WRITE -> every READ response, then "
		"the NAK", bad);
}

/*
 * Two READs, a FETCH_ADD behind them, and the same FETCH_ADD again (a
 * duplicate, as after a requester's go-back-N): one atomic ACK, after
 * the READ responses; the add done once.
 */
static void case18(void)
{
	struct vqp q = new_qp(0x18000);
	uint32_t apsn = wire_psn_add(q.epsn, TWO_READS);
	int bad;

	two_reads(&q, q.epsn);
	fetch_add(&q, apsn, 1);
	fetch_add(&q, apsn, 1);
	bad = reads_then(&q, q.epsn, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, 0, apsn,
			 ST_RTS, TWO_READS);
	/* the add undone: the MR is the guard pattern again for the end */
	fetch_add(&q, wire_psn_add(apsn, 1), UINT64_MAX);
	rx_drain(20);
	verdict("18 two READs, a FETCH_ADD and its duplicate -> the READ "
		"responses, then one atomic ACK", bad);
}

/*
 * Two READs, then a SEND one PSN ahead (a sequence NAK is owed behind
 * the READ responses), then a WRITE with a bad rkey at the expected PSN:
 * the fatal NAK replaces the sequence NAK, which is out of date.
 */
static void case19(void)
{
	struct vqp q = new_qp(0x19000);
	uint32_t wpsn = wire_psn_add(q.epsn, TWO_READS);
	int bad;

	two_reads(&q, q.epsn);
	send_at(&q, wire_psn_add(wpsn, 1));
	bad_write(&q, wpsn);
	bad = reads_then(&q, q.epsn, WIRE_OP_RC_ACKNOWLEDGE, 0x62, wpsn,
			 ST_ERR, TWO_READS);
	verdict("19 two READs, a sequence NAK owed, then a bad WRITE -> the "
		"READ responses, then only the fatal NAK", bad);
}

/* HOLD: the victim's engine runs no more until the next STEP. */
static void hold(void)
{
	if (strcmp(ctl("HOLD"), "OK") != 0)
		die("HOLD failed");
}

/*
 * STEP: one engine run of the victim, which must take in `frames` frames,
 * then `action` on QP q (v_step()).  *result: the number a DEREG action
 * adds, when not NULL.  @return failed checks.
 */
static int step(const struct vqp *q, unsigned int frames, const char *action,
		int *result)
{
	const char *r = ctl("STEP %u %u %s", q->qpn, frames, action);
	int bad = 0, n = -1, x = -1;

	CHECK(sscanf(r, "OK %d %d", &n, &x) >= (result ? 2 : 1) &&
	      n == (int)frames, "STEP %s: %s (expected %u frames taken in)",
	      action, r, frames);
	if (result != NULL)
		*result = x;
	return bad;
}

/* Every answer to QP q so far is a READ response, n of them from psn on,
 * in PSN order.  @return failed checks. */
static int in_order(const struct vqp *q, uint32_t psn, unsigned int n,
		    const char *what)
{
	unsigned int k = 0, ok = 0;
	int bad = 0;

	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn != q->dqpn)
			continue;
		ok += ans[i].psn == wire_psn_add(psn, k) &&
		      ans[i].opcode >= WIRE_OP_RC_READ_RESPONSE_FIRST &&
		      ans[i].opcode <= WIRE_OP_RC_READ_RESPONSE_ONLY;
		k++;
	}
	CHECK(k == n && ok == n, "%u answers, %u of them READ responses in "
	      "order, expected %u for %s", k, ok, n, what);
	return bad;
}

/*
 * Each frame whose headers the victim begins takes the next IPv4
 * identification, and it begins none while its transmit queue is full,
 * so the frames it sends follow each other without a gap (unless its
 * mbuf pool ran dry, which these cases come nowhere near).  A gap
 * between two answers in a row means headers were begun for frames the
 * full ring could not take.  @return failed checks.
 */
static int no_id_gaps(void)
{
	unsigned int gaps = 0, first = nans, pairs = 0;
	int bad = 0;

	for (unsigned int i = 1; i < nans; i++) {
		if (!ans[i].v4 || !ans[i - 1].v4)
			continue;
		pairs++;
		if (ans[i].ip_id != (uint16_t)(ans[i - 1].ip_id + 1) &&
		    gaps++ == 0)
			first = i;
	}
	CHECK(pairs > 0, "no two IPv4 answers in a row to compare");
	CHECK(gaps == 0, "%u gaps in the IP identifications of %u answers "
	      "(the first at answer %u: 0x%04x after 0x%04x): frames set up "
	      "that did not go", gaps, nans, first,
	      gaps ? ans[first].ip_id : 0, gaps ? ans[first - 1].ip_id : 0);
	return bad;
}

/*
 * The application moves a QP to ERR while it answers a READ: a READ of the
 * whole MR (64 responses) taken in by one engine run, which sends the
 * first ROCE_RX_BURST (32) of them, then modify_qp to ERR.  A QP in ERR
 * sends nothing more: no further response, no ACK.
 */
static void case21(void)
{
	struct vqp q = new_qp(0x21000);
	int bad = 0;

	hold();
	reads(&q, q.epsn, 1);
	bad += step(&q, 1, "ERR", NULL);
	rx_drain(100);
	bad += in_order(&q, q.epsn, 32, "the one run before ERR");
	CHECK(qp_state_of(q.qpn) == ST_ERR, "QP state %d, expected ERR",
	      qp_state_of(q.qpn));
	verdict("21 modify_qp to ERR mid-READ -> no response after it", bad);
}

/*
 * A fatal NAK owed behind READ responses when the application resets or
 * destroys the QP: one engine run takes in two READs and a WRITE with a
 * bad rkey (it sends the first READ's responses; the second READ and the
 * NAK wait), then the QP goes to RESET, or is destroyed, at once.  The
 * NAK still leaves (it is the answer the responder owes, and says why it
 * stopped), after the first READ's responses (the engine run sent them
 * all: taking in the second READ sends the first one's next 32); the
 * second READ's responses do not.
 */
static void reset_owed(uint32_t epsn, const char *action, int state,
		       const char *what)
{
	struct vqp q = new_qp(epsn);
	uint32_t wpsn = wire_psn_add(q.epsn, TWO_READS);
	int bad = 0;

	hold();
	two_reads(&q, q.epsn);
	bad_write(&q, wpsn);
	bad += step(&q, 3, action, NULL);
	bad += reads_then(&q, q.epsn, WIRE_OP_RC_ACKNOWLEDGE, 0x62, wpsn,
			  state, TWO_READS / 2);
	verdict(what, bad);
}

static void case22(void)
{
	reset_owed(0x22000, "RESET", ST_RESET, "22 a NAK owed behind READ "
		   "responses, the QP reset -> the NAK goes, the rest of the "
		   "responses not");
}

static void case23(void)
{
	reset_owed(0x23000, "DESTROY", -1, "23 a NAK owed behind READ "
		   "responses, the QP destroyed -> the NAK goes, the rest of "
		   "the responses not");
}

/*
 * max_dest_rd_atomic lowered from 16 to 1 (in SQD) while a READ waits to
 * be answered in the second slot: one engine run takes in two READs (the
 * first answered, the second not begun), then the modify.  The second
 * READ is answered all the same, and a third one after it: the slots go
 * round whatever the attribute says.
 */
static void case24(void)
{
	struct vqp q = new_qp(0x24000);
	int bad = 0;

	hold();
	two_reads(&q, q.epsn);
	bad += step(&q, 2, "RDA1", NULL);
	rx_drain(100);
	bad += in_order(&q, q.epsn, TWO_READS, "the two READs");
	reads(&q, wire_psn_add(q.epsn, TWO_READS), 1);
	rx_drain(100);
	bad += in_order(&q, q.epsn, TWO_READS + TWO_READS / 2,
			"and the third");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP state %d, expected RTS",
	      qp_state_of(q.qpn));
	verdict("24 max_dest_rd_atomic 16 -> 1 with a READ waiting in the "
		"second slot -> it is answered, and the next READ", bad);
}

/*
 * max_dest_rd_atomic 1 and a second READ while the first is answered:
 * one engine run takes in two READs; the second is one too many, an
 * invalid request NAK that follows the first READ's responses.
 */
static void case25(void)
{
	struct vqp q = new_qp(0x25000);
	int bad = 0;

	bad += step(&q, 0, "RDA1", NULL);
	hold();
	two_reads(&q, q.epsn);
	bad += step(&q, 2, "NONE", NULL);
	bad += reads_then(&q, q.epsn, WIRE_OP_RC_ACKNOWLEDGE, 0x61,
			  wire_psn_add(q.epsn, TWO_READS / 2), ST_ERR,
			  TWO_READS / 2);
	verdict("25 max_dest_rd_atomic 1, a READ while one is answered -> "
		"its responses, then an invalid request NAK", bad);
}

/*
 * An ACK owed when the application moves the QP to ERR: one engine run
 * takes in a SEND that asks for an ACK (the ACK leaves with the next
 * run), then modify_qp to ERR.  The ACK is not sent (the SEND's receive
 * completes, then the flush); without the ERR rule it would be.  The
 * step's action moves the QP (ERR, or ERRRESET), leaving it in `state`.
 */
static void ack_owed_err(uint32_t epsn, const char *action, int state,
			 const char *what)
{
	struct vqp q = new_qp(epsn);
	struct wire_build b;
	int bad = 0;

	hold();
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, q.epsn);
	send_pkt(&b, 64, 0x26, false);
	bad += step(&q, 1, action, NULL);
	rx_drain(100);
	CHECK(ans_count(q.dqpn, -1, -1) == 0, "%u answers, expected none "
	      "from a QP moved to ERR", ans_count(q.dqpn, -1, -1));
	CHECK(qp_state_of(q.qpn) == state, "QP state %d, expected %d",
	      qp_state_of(q.qpn), state);
	verdict(what, bad);
}

static void case26(void)
{
	ack_owed_err(0x26000, "ERR", ST_ERR, "26 modify_qp to ERR with an ACK "
		     "owed -> no ACK");
}

/*
 * READ slots that wrap: RESP_SLOTS - 1 one-packet READs, each
 * answered, move the responder's next slot to the last one.  Then one
 * engine run takes in a READ of the whole MR (the last slot; it sends the
 * first ROCE_RX_BURST responses) and a one-packet READ (slot 0).  Answers
 * leave oldest first, in PSN order: the big READ's other responses, then
 * the small one's, although its slot comes first in the array.  (It
 * relies on a run sending 32 of the 64 responses, which cases 21 and 28
 * check, and on RESP_SLOTS being the device's max_qp_rd_atom, which the
 * set-up checks.)
 */
/* A one-packet (64-byte) READ to QP q at psn. */
static void small_read(const struct vqp *q, uint32_t psn)
{
	read_at(q, psn, mr_va, mr_rkey, 64);
}

static void case27(void)
{
	struct vqp q = new_qp(0x27000);
	uint32_t big = wire_psn_add(q.epsn, RESP_SLOTS - 1);
	int bad = 0;

	for (unsigned int i = 0; i + 1 < RESP_SLOTS; i++) {
		small_read(&q, wire_psn_add(q.epsn, i));
		requests_until(q.dqpn, i + 1, 500);  /* one slot at a time */
	}
	rx_drain(20);
	bad += in_order(&q, q.epsn, RESP_SLOTS - 1, "the one-packet READs");
	ans_clear();
	hold();
	reads(&q, big, 1);
	small_read(&q, wire_psn_add(big, TWO_READS / 2));
	bad += step(&q, 2, "NONE", NULL);
	rx_drain(100);
	bad += in_order(&q, big, TWO_READS / 2 + 1,
			"a READ in the last slot, then one in slot 0");
	verdict("27 READ slots wrap (last slot, then slot 0) -> answers in "
		"PSN order", bad);
}

/*
 * The QP goes to ERR through its own requester while its responder owes
 * READ responses: the victim sends a SEND; one engine run takes in a READ
 * of the whole MR (it sends the first ROCE_RX_BURST responses) and a
 * remote access NAK for that SEND.  The SEND completes in error, the QP
 * is in ERR and sends nothing more: the READ's other responses are
 * dropped, as when the application moves the QP to ERR (case 21).
 */
static void case28(void)
{
	struct vqp q = new_qp(0x28000);
	struct wcrec w[16];
	unsigned int nw;
	const char *r;
	int bad = 0;

	r = ctl("POST %u 1 1", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "POST: %s", r);
	CHECK(requests_until(q.dqpn, 1, 500) == 1 &&
	      nth_ans(q.dqpn, 0).psn == q.sqpsn,
	      "the victim's SEND at PSN 0x%x did not come", q.sqpsn);
	ans_clear();
	hold();
	reads(&q, q.epsn, 1);
	aeth_to(&q, q.sqpsn, wire_syn_nak(WIRE_NAK_REM_ACCESS), 0);
	bad += step(&q, 2, "NONE", NULL);
	rx_drain(100);
	bad += in_order(&q, q.epsn, 32, "the run that took in the NAK");
	nw = wcs_of(q.qpn, w, 16);
	CHECK(nw == 1 + NRECV && w[0].wr_id == 7000 &&
	      w[0].status == PMR_WC_REM_ACCESS_ERR, "%u completions (first "
	      "wr_id %" PRIu64 " status %d), expected 7000 REM_ACCESS_ERR "
	      "and the receives flushed", nw,
	      nw ? w[0].wr_id : 0, nw ? w[0].status : -1);
	CHECK(qp_state_of(q.qpn) == ST_ERR, "QP state %d, expected ERR",
	      qp_state_of(q.qpn));
	verdict("28 the requester fails (remote access NAK) with READ "
		"responses owed -> no response after it", bad);
}

/* An answer to the victim's requester on QP q: a READ response of plen
 * bytes or an atomic ACK (orig 40). */
static void answer(const struct vqp *q, uint8_t opcode, uint32_t psn,
		   uint32_t msn, uint32_t plen)
{
	struct wire_build b;

	build_base(&b, opcode, q->qpn, psn);
	b.ackreq = false;
	b.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
	b.msn = msn;
	b.orig = 40;
	send_pkt(&b, plen, 0x5D, false);
}

/*
 * POSTRA on q: the READ (len bytes, len / 1024 responses, wr_id 7100) and
 * the FETCH_ADD (7101), the FETCH_ADD first when atomic_first; both
 * requests must come, in that order, from the QP's first PSN.  @return
 * failed checks.
 */
static int read_atomic_posted(const struct vqp *q, bool atomic_first,
			      uint32_t len)
{
	uint8_t op0 = atomic_first ? WIRE_OP_RC_FETCH_ADD :
		      WIRE_OP_RC_READ_REQUEST;
	uint8_t op1 = atomic_first ? WIRE_OP_RC_READ_REQUEST :
		      WIRE_OP_RC_FETCH_ADD;
	uint32_t psn1 = wire_psn_add(q->sqpsn, atomic_first ? 1 : len / 1024);
	unsigned int k;
	struct ans a0, a1;
	const char *r;
	int bad = 0;

	if (strncmp(ctl("SCRATCH"), "OK", 2) != 0)
		die("SCRATCH failed");
	r = ctl("POSTRA %u %d %u", q->qpn, atomic_first, len);
	CHECK(strcmp(r, "OK") == 0, "POSTRA: %s", r);
	k = requests_until(q->dqpn, 2, 200);
	a0 = nth_ans(q->dqpn, 0);
	a1 = nth_ans(q->dqpn, 1);
	CHECK(k == 2 && a0.opcode == op0 && a0.psn == q->sqpsn &&
	      a1.opcode == op1 && a1.psn == psn1,
	      "%u requests, expected the %s", k, atomic_first ?
	      "FETCH_ADD and the READ" : "READ and the FETCH_ADD");
	return bad;
}

/* Both WRs of read_atomic_posted() completed successfully, in the order
 * posted; the QP still in RTS.  @return failed checks. */
static int read_atomic_done(const struct vqp *q, bool atomic_first,
			    uint32_t len)
{
	struct wcrec w[16];
	unsigned int nw, rd = atomic_first ? 1 : 0, at = 1 - rd;
	int bad = 0;

	rx_drain(50);
	nw = wcs_of(q->qpn, w, 16);
	CHECK(nw == 2 && w[rd].wr_id == 7100 &&
	      w[rd].status == PMR_WC_SUCCESS &&
	      w[rd].opcode == PMR_WC_RDMA_READ && w[rd].len == len &&
	      w[at].wr_id == 7101 && w[at].status == PMR_WC_SUCCESS &&
	      w[at].opcode == PMR_WC_FETCH_ADD,
	      "%u completions (first wr_id %" PRIu64 " status %d, second "
	      "wr_id %" PRIu64 " status %d), expected READ and FETCH_ADD "
	      "successful", nw, nw ? w[0].wr_id : 0, nw ? w[0].status : -1,
	      nw > 1 ? w[1].wr_id : 0, nw > 1 ? w[1].status : -1);
	CHECK(qp_state_of(q->qpn) == ST_RTS, "QP state %d, expected RTS",
	      qp_state_of(q->qpn));
	return bad;
}

/* The control of a case that expects requests sent again on something it
 * sends: for ms, with nothing sent to q, the victim sends no request
 * beyond the `want` it sent, so neither its timer nor anything else but
 * what the case sends next asks again.  @return failed checks. */
static int quiet_for(const struct vqp *q, unsigned int want, unsigned int ms)
{
	unsigned int k = requests_until(q->dqpn, want + 1, ms);
	int bad = 0;

	CHECK(k == want, "%u requests in %u ms with nothing answered, "
	      "expected the %u first sent: something other than the case's "
	      "next frame sends again", k, ms, want);
	return bad;
}

/*
 * After a lost answer: the requester sends two requests again, (op1, psn1)
 * then (op2, psn2) (the third and fourth it sent to QP q, within ms
 * milliseconds), and completes nothing before they are answered.
 * @return failed checks.
 */
static int sent_again(const struct vqp *q, uint8_t op1, uint32_t psn1,
		      uint8_t op2, uint32_t psn2, unsigned int ms)
{
	struct wcrec w[16];
	unsigned int k = requests_until(q->dqpn, 4, ms), nw;
	struct ans a2 = nth_ans(q->dqpn, 2), a3 = nth_ans(q->dqpn, 3);
	int bad = 0;

	CHECK(k == 4 && a2.opcode == op1 && a2.psn == psn1 &&
	      a3.opcode == op2 && a3.psn == psn2,
	      "%u requests, expected opcode 0x%02x psn 0x%x, then 0x%02x "
	      "0x%x (third: 0x%02x 0x%x, fourth: 0x%02x 0x%x)", k, op1, psn1,
	      op2, psn2, a2.opcode, a2.psn, a3.opcode, a3.psn);
	nw = wcs_of(q->qpn, w, 16);
	CHECK(nw == 0, "%u completions before the lost answer came (first "
	      "status %d)", nw, nw ? w[0].status : -1);
	return bad;
}

/*
 * The requester when an answer of a READ is lost: it posts a 2048-byte
 * READ (two responses) and a FETCH_ADD; we send the READ's first response
 * and the atomic ACK, not the READ's last response.  The atomic ACK, for
 * a later PSN, says that response was lost: the requester asks for the
 * rest of the READ again (and sends the FETCH_ADD again behind it,
 * go-back-N) instead of failing the READ with BAD_RESP_ERR; answered,
 * both complete.  Before the atomic ACK, 50 ms with the READ's first
 * response alone bring nothing again: the gap asks, not the timer.
 */
static void case17(void)
{
	struct vqp q = new_qp_timed(0x17000, 18, 7);   /* no timer in the way */
	uint32_t p0 = q.sqpsn;
	int bad = 0;

	bad += read_atomic_posted(&q, false, 2048);
	answer(&q, WIRE_OP_RC_READ_RESPONSE_FIRST, p0, 0, 1024);
	/* the READ's last response still awaited: nothing sent again */
	bad += quiet_for(&q, 2, 50);
	answer(&q, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, wire_psn_add(p0, 2), 2, 0);
	/* the READ again from its second response, then the FETCH_ADD */
	bad += sent_again(&q, WIRE_OP_RC_READ_REQUEST, wire_psn_add(p0, 1),
			  WIRE_OP_RC_FETCH_ADD, wire_psn_add(p0, 2), 200);
	/* (the READ asked again from its last response: one response) */
	answer(&q, WIRE_OP_RC_READ_RESPONSE_ONLY, wire_psn_add(p0, 1), 1, 1024);
	answer(&q, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, wire_psn_add(p0, 2), 2, 0);
	bad += read_atomic_done(&q, false, 2048);
	CHECK(qp_stat(q.qpn).timeouts == 0, "a timeout fired: the "
	      "requests may have been sent again by the timer, not the gap");
	verdict("17 requester: an atomic ACK ahead of a READ's last response "
		"-> the rest of the READ asked again, both complete", bad);
}

/*
 * The requester when an atomic's answer is lost: it posts a FETCH_ADD and
 * a 2048-byte READ behind it; we send the READ's first response, not the
 * atomic ACK.  That response, for a later PSN, says the atomic ACK was
 * lost: the requester sends the FETCH_ADD again (and the READ behind it)
 * and drops the response, meant for a WR after the one it is waiting for,
 * instead of failing the FETCH_ADD with BAD_RESP_ERR; answered, both
 * complete.  Before that response, 50 ms unanswered bring nothing again:
 * the response asks, not the timer.
 */
static void case20(void)
{
	struct vqp q = new_qp_timed(0x20000, 18, 7);   /* no timer in the way */
	uint32_t p0 = q.sqpsn;
	struct qpstat qs;
	int bad = 0;

	bad += read_atomic_posted(&q, true, 2048);
	/* unanswered, nothing is sent again */
	bad += quiet_for(&q, 2, 50);
	answer(&q, WIRE_OP_RC_READ_RESPONSE_FIRST, wire_psn_add(p0, 1), 1,
	       1024);
	/* the FETCH_ADD again, then the READ */
	bad += sent_again(&q, WIRE_OP_RC_FETCH_ADD, p0,
			  WIRE_OP_RC_READ_REQUEST, wire_psn_add(p0, 1), 200);
	answer(&q, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, p0, 0, 0);
	answer(&q, WIRE_OP_RC_READ_RESPONSE_FIRST, wire_psn_add(p0, 1), 1,
	       1024);
	answer(&q, WIRE_OP_RC_READ_RESPONSE_LAST, wire_psn_add(p0, 2), 2, 1024);
	bad += read_atomic_done(&q, true, 2048);
	qs = qp_stat(q.qpn);
	CHECK(qs.timeouts == 0, "the QP's timeouts %" PRIu64 ": the "
	      "requests may have been sent again by the timer, not the "
	      "response", qs.timeouts);
	verdict("20 requester: a READ response ahead of the atomic ACK before "
		"it -> the FETCH_ADD sent again, the response dropped, both "
		"complete", bad);
}

/* Response i (0 to 4) of the 5120-byte READ of POSTRA on q, in a stream
 * of responses that began at response `from` (a READ asked for again from
 * there begins with FIRST, or ONLY for the last one). */
static void read5_answer(const struct vqp *q, uint32_t i, uint32_t from)
{
	uint8_t op = i < 4 ? WIRE_OP_RC_READ_RESPONSE_MIDDLE :
		     WIRE_OP_RC_READ_RESPONSE_LAST;

	if (i == from)
		op = i < 4 ? WIRE_OP_RC_READ_RESPONSE_FIRST :
		     WIRE_OP_RC_READ_RESPONSE_ONLY;
	answer(q, op, wire_psn_add(q->sqpsn, i), 0, 1024);
}

/* That READ's responses from `from` on, as a responder answers the READ
 * asked for again from there, and the FETCH_ADD's ACK; then both must
 * complete.  @return failed checks. */
static int read5_finish(const struct vqp *q, uint32_t from)
{
	for (uint32_t i = from; i < 5; i++)
		read5_answer(q, i, from);
	answer(q, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, wire_psn_add(q->sqpsn, 5), 1,
	       0);
	return read_atomic_done(q, false, 5120);
}

/*
 * The requester when a READ response is lost and later ones keep coming:
 * it posts a 5120-byte READ (five responses) and a FETCH_ADD; we send the
 * READ's responses but the second, each taken in by its own engine run,
 * with the requests sent again going out in between.  The first later
 * response asks for the rest of the READ again (and the FETCH_ADD behind
 * it); the two after it, still from the first stream, must not ask again:
 * each request sent again restarts the responder's stream, so asking at
 * every later response keeps a long READ from ever finishing.  Answered,
 * both complete.
 */
static void case30(void)
{
	struct vqp q = new_qp_timed(0x30000, 18, 7);   /* no timer in the way */
	uint32_t p0 = q.sqpsn;
	struct stats s0, s1;
	int bad = 0;

	bad += read_atomic_posted(&q, false, 5120);
	s0 = get_stats();
	hold();
	read5_answer(&q, 0, 0);
	for (uint32_t i = 2; i < 5; i++)
		read5_answer(&q, i, 0);
	for (int i = 0; i < 4; i++)
		bad += step(&q, 1, i < 3 ? "HOLD" : "NONE", NULL);
	rx_drain(50);
	bad += sent_again(&q, WIRE_OP_RC_READ_REQUEST, wire_psn_add(p0, 1),
			  WIRE_OP_RC_FETCH_ADD, wire_psn_add(p0, 5), 200);
	s1 = get_stats();
	CHECK(sdiff(&s0, &s1, "retransmits") == 1,
	      "%" PRIu64 " restarts, expected 1",
	      sdiff(&s0, &s1, "retransmits"));
	bad += read5_finish(&q, 1);
	verdict("30 requester: a READ response lost, three later ones -> "
		"the rest asked for once, both complete", bad);
}

/* Wait (up to a second) until the victim's counter `name` has moved
 * since s0.  @return the counters then. */
static struct stats stat_moved(const struct stats *s0, const char *name)
{
	uint64_t end = now_ns() + 1000000000ull;
	struct stats s1;

	do {
		usleep(2000);
		s1 = get_stats();
	} while (sdiff(s0, &s1, name) == 0 && now_ns() < end);
	return s1;
}

/* Wait (up to a second) until the victim has put a frame off for a full
 * transmit ring since s0.  @return failed checks. */
static int ring_full_since(const struct stats *s0)
{
	struct stats s1 = stat_moved(s0, "tx_full");
	int bad = 0;

	CHECK(sdiff(s0, &s1, "tx_full") > 0, "the transmit ring never "
	      "filled: the case would test nothing");
	return bad;
}

/* n new QPs (expected PSN base, base + 0x1000, ...), each sent 16 READs
 * of the whole MR (1024 responses at MTU 1024). */
#define FULL_QPS 3
static void full_reads(struct vqp *q, int n, uint32_t base)
{
	for (int i = 0; i < n; i++)
		q[i] = new_qp(base + (uint32_t)i * 0x1000);
	for (int i = 0; i < n; i++)
		reads(&q[i], q[i].epsn, 16);
}

/* Wait for all of full_reads()' responses to the n QPs, up to ms for
 * each QP in turn. */
static void full_reads_wait(const struct vqp *q, int n, uint64_t ms)
{
	for (int i = 0; i < n; i++)
		requests_until(q[i].dqpn, mr_len / 1024 * 16, ms);
}

/* All of full_reads()' responses to the n QPs came, once each, in PSN
 * order on each.  @return failed checks. */
static int full_reads_in_order(const struct vqp *q, int n)
{
	int bad = 0;

	for (int i = 0; i < n; i++) {
		unsigned int other = 0;

		bad += in_order(&q[i], q[i].epsn, mr_len / 1024 * 16,
				"16 READs of the MR");
		for (unsigned int k = 0; k < nans; k++)
			other += ans[k].dqpn == q[i].dqpn && ans[k].out_of_mr;
		CHECK(other == 0, "%u READ responses to QP %d carry bytes "
		      "the MR does not hold", other, i);
	}
	return bad;
}

/*
 * The transmit ring full: three QPs each take in 16 READs of the whole MR
 * (3072 responses, three times what the memif ring holds) while we read
 * nothing; once the ring is full (tx_full moved), and for 100 ms more, a
 * fourth QP (a local ACK timeout of 1 s, so nothing is sent again) posts
 * 8 SENDs and takes in a SEND that asks for an ACK, a fifth takes in a
 * SEND two PSNs ahead (a PSN sequence NAK owed) and a sixth a FETCH_ADD.
 * The victim must wait for room, not drop: then every response comes, in
 * PSN order on each QP, none missing and none twice, the 8 SENDs, the
 * ACK, the NAK and the atomic ACK once each, and no frame set up before
 * there was room for it (no_id_gaps()).  The QPs' expected PSNs from base
 * on.  @return failed checks.
 */
static int full_ring(uint32_t base)
{
	struct vqp q[FULL_QPS], s = new_qp_timed(base + 0x800, 18, 7);
	struct vqp n = new_qp(base + 0x900), a = new_qp(base + 0xa00);
	struct stats s0;
	unsigned int k = 0, ok = 0, nak = 0;
	int bad = 0;

	s0 = get_stats();
	full_reads(q, FULL_QPS, base);
	/* the SENDs and the answers owed come once the ring is full */
	bad += ring_full_since(&s0);
	CHECK(strcmp(ctl("POST %u 8 ff", s.qpn), "OK") == 0, "POST 8 failed");
	send_at(&s, s.epsn);
	send_at(&n, wire_psn_add(n.epsn, 2));
	fetch_add(&a, a.epsn, 0);
	usleep(100000);
	full_reads_wait(q, FULL_QPS, 3000);
	requests_until(s.dqpn, 9, 1000);
	rx_drain(50);
	bad += full_reads_in_order(q, FULL_QPS);
	for (int i = 0; i < FULL_QPS; i++)
		CHECK(qp_state_of(q[i].qpn) == ST_RTS, "QP %d not in RTS", i);
	nak = ans_count(n.dqpn, WIRE_OP_RC_ACKNOWLEDGE,
			wire_syn_nak(WIRE_NAK_PSN_SEQ)) == 1 &&
	      nth_ans(n.dqpn, 0).psn == n.epsn;
	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn != s.dqpn)
			continue;
		if (ans[i].opcode == WIRE_OP_RC_ACKNOWLEDGE)
			ok += ans[i].psn == s.epsn &&
			      ans[i].syn ==
			      wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
		else
			ok += ans[i].opcode == WIRE_OP_RC_SEND_ONLY &&
			      ans[i].psn == wire_psn_add(s.sqpsn, k++);
	}
	CHECK(k == 8 && ok == 9 && ans_count(s.dqpn, -1, -1) == 9,
	      "%u answers on the sending QP, %u requests, %u as expected: "
	      "8 SENDs in order and one ACK", ans_count(s.dqpn, -1, -1), k,
	      ok);
	CHECK(ans_count(a.dqpn, -1, -1) == 1 &&
	      ans_count(a.dqpn, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, -1) == 1,
	      "%u answers to the FETCH_ADD, expected one atomic ACK",
	      ans_count(a.dqpn, -1, -1));
	CHECK(ans_count(n.dqpn, -1, -1) == 1 && nak == 1,
	      "%u answers to the SEND ahead, expected one PSN sequence NAK "
	      "for 0x%x", ans_count(n.dqpn, -1, -1), n.epsn);
	bad += no_id_gaps();
	/* acknowledged, or they come again a second later, into the log of
	 * a later case */
	ack_to(&s, wire_psn_add(s.sqpsn, 7), 8);
	rx_drain(20);
	return bad;
}

static void case31(void)
{
	verdict("31 transmit ring full: 3072 READ responses, 8 SENDs, an ACK, "
		"a NAK and an atomic ACK held back, none lost, none twice, in "
		"order", full_ring(0x31000));
}

/*
 * A ring that takes nothing for longer than a second (a peer that hangs):
 * three QPs take in 16 READs of the whole MR each while we read nothing
 * for 1.5 s.  The victim drops what waits, as on a link that is down
 * (tx_drops), so responses are missing.  Once we read again the port
 * takes frames again, and a full ring is once more only waited for: the
 * whole of case 31 passes after it.
 */
static void case32(void)
{
	struct vqp q[FULL_QPS];
	uint32_t per = mr_len / 1024 * 16;
	unsigned int got = 0;
	struct stats s0, s1;
	int bad = 0;

	s0 = get_stats();
	full_reads(q, FULL_QPS, 0x32000);
	usleep(1500000);
	full_reads_wait(q, FULL_QPS, 200);
	rx_drain(50);
	s1 = get_stats();
	for (int i = 0; i < FULL_QPS; i++)
		got += ans_count(q[i].dqpn, -1, -1);
	CHECK(sdiff(&s0, &s1, "tx_drops") > 0 && got < FULL_QPS * per,
	      "%" PRIu64 " frames dropped, %u of %u responses came: expected "
	      "frames dropped after the stall", sdiff(&s0, &s1, "tx_drops"),
	      got, FULL_QPS * per);
	bad += full_ring(0x36000);
	verdict("32 transmit ring stalled for 1.5 s -> the frames waiting "
		"dropped; then a full ring loses nothing again", bad);
}

/*
 * An RNR NAK owed behind READ responses is not replaced by a PSN
 * sequence NAK for the same PSN: with both receives used up, one engine
 * run takes in a READ of the whole MR (64 responses, 32 sent at once),
 * a SEND that finds no receive (RNR NAK for its PSN, owed behind the
 * rest of the READ) and a SEND one PSN further (out of sequence: a
 * sequence NAK for that same PSN).  The requester must hear the RNR NAK,
 * which says why; then the 64 responses in order and that one NAK.
 */
static void case33(void)
{
	struct vqp q = new_qp(0x33000);
	uint32_t x = wire_psn_add(q.epsn, 2 + mr_len / 1024);
	int bad = 0;

	for (uint32_t i = 0; i < 2; i++) {
		send_at(&q, wire_psn_add(q.epsn, i));
	}
	rx_drain(50);
	ans_clear();
	hold();
	reads(&q, wire_psn_add(q.epsn, 2), 1);
	for (uint32_t i = 0; i < 2; i++) {
		send_at(&q, wire_psn_add(x, i));
	}
	bad += step(&q, 3, "NONE", NULL);
	/* the victim's QPs have min_rnr_timer 1 */
	bad += reads_then(&q, wire_psn_add(q.epsn, 2), WIRE_OP_RC_ACKNOWLEDGE,
			  wire_syn_rnr_nak(1), x, ST_RTS, mr_len / 1024);
	verdict("33 RNR NAK owed behind READ responses, then an out-of-"
		"sequence SEND -> the RNR NAK kept, sent after them", bad);
}

/*
 * A SEND that could not begin for want of room to send, on a QP moved to
 * SQD: with the ring full (three QPs' READs, nothing read for 200 ms), a
 * QP with a local ACK timeout of 16.8 ms and 3 retries posts a signaled
 * SEND and goes to SQD at once.  The SEND has not begun, so the QP is
 * drained at once and waits for nothing: no retries run out on it, no
 * RETRY_EXC_ERR, the QP stays in SQD, and the SEND never leaves.  The
 * READ responses all come, once each, in order.
 */
static void case34(void)
{
	struct vqp q[FULL_QPS], s = new_qp_timed(0x34800, 12, 3);
	struct stats s0 = get_stats();
	struct wcrec w[16];
	unsigned int nw;
	int bad = 0;

	full_reads(q, FULL_QPS, 0x34000);
	bad += ring_full_since(&s0);
	CHECK(strcmp(ctl("POST %u 1 1 1", s.qpn), "OK") == 0,
	      "POST 1 + SQD failed");
	usleep(200000);
	rx_drain(200);
	bad += drained_bad(&s);
	nw = wcs_of(s.qpn, w, 16);
	CHECK(nw == 0, "%u completions (first status %d), expected none",
	      nw, nw ? w[0].status : -1);
	CHECK(ans_count(s.dqpn, -1, -1) == 0, "%u requests sent in SQD",
	      ans_count(s.dqpn, -1, -1));
	full_reads_wait(q, FULL_QPS, 1000);
	rx_drain(50);
	bad += full_reads_in_order(q, FULL_QPS);
	verdict("34 SQD on a SEND that could not begin (ring full) -> drained, "
		"no retries spent, nothing sent; the READ responses in order",
		bad);
}

/*
 * SENDs behind other QPs' answers in a full ring that moves: six QPs
 * take in 16 READs each and we read slowly (at most 32 frames every 3
 * ms: the ring stays full but never stops), while a QP with a local ACK
 * timeout of 268 ms and no retry posts eight SENDs of 63 KiB (504
 * packets: post_send's kick builds none of them, the engine runs build
 * them as room opens, some 32 at a time).  Its packets must get their
 * turn, not wait for all the READs ahead of them: they go out once each,
 * are acknowledged as we see them (after some 100 ms in the ring, well
 * within the timeout: no retry is there to spend), and the SENDs
 * complete.  (Its turn comes within milliseconds, so the rule that a
 * wait for room in a ring that moves uses no retry is not reached.)
 * Only a message's last packet asks for an ACK, and 63
 * is no multiple of 32, so when the solicit timer fires (every 67 ms)
 * the QP's last packet out is most often one that did not ask while
 * the QP waits for room: the next packet asks (an AckReq within a
 * message).  When the timer finds the QP not waiting for room, its
 * last packet goes again, asking (an ACK solicit): every packet must
 * come once but for those, each of which asks, as many as the victim
 * counted.  One or the other must happen at least once.  While it waits, none of its
 * packets is set up (no_id_gaps()).
 */
static void case35(void)
{
	struct vqp q[2 * FULL_QPS], s = new_qp_timed(0x35800, 16, 0);
	uint32_t per = mr_len / 1024 * 16, mpk = mr_len / 1024 - 1;
	uint32_t npk = 8 * mpk;
	struct stats s0;
	uint64_t end;
	struct wcrec w[16];
	unsigned int k = 0, ok = 0, nw, ahead = 0, asked = 0, good = 0;
	unsigned int again = 0, again_noask = 0;
	static uint8_t came[16 * 64];
	struct stats s1;
	int bad = 0;

	s0 = get_stats();
	full_reads(q, 2 * FULL_QPS, 0x35000);
	bad += ring_full_since(&s0);
	CHECK(strcmp(ctl("POST %u 8 ff 0 %u", s.qpn, mpk * 1024), "OK") == 0,
	      "POST failed");
	end = now_ns() + 5000000000ull;
	while (seen_upto(&s) < npk && now_ns() < end) {
		ack_seen(&s, mpk);
		usleep(3000);
	}
	full_reads_wait(q, 2 * FULL_QPS, 1000);
	rx_drain(50);
	s1 = get_stats();
	CHECK(npk <= sizeof(came), "more packets than the test tracks");
	memset(came, 0, sizeof(came));
	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn == s.dqpn) {
			uint32_t off = (ans[i].psn - s.sqpsn) & 0xffffff;

			if (off < npk && came[off]) {
				/* an ACK solicit: a packet sent again */
				again++;
				again_noask += !ans[i].ackreq;
				continue;
			}
			if (off < npk)
				came[off] = 1;
			/* AckReq at each message's end, and where a tail
			 * that did not ask was asked for while the QP waited
			 * for room */
			asked += ans[i].ackreq && k % mpk != mpk - 1;
			ok += off == k++;
		}
		for (int j = 0; j < 2 * FULL_QPS && k == 0; j++)
			ahead += ans[i].dqpn == q[j].dqpn;
	}
	CHECK(k == npk && ok == npk, "%u packets, %u in order: expected the "
	      "SENDs' %u once each (besides %u sent again)", k, ok, npk,
	      again);
	printf("    case 35: %u packets sent again (ACK solicits)\n", again);
	CHECK(again == sdiff(&s0, &s1, "ack_solicits") && again_noask == 0,
	      "%u packets sent again (%u not asking), the victim's "
	      "ack_solicits +%" PRIu64, again, again_noask,
	      sdiff(&s0, &s1, "ack_solicits"));
	/* (which of the two the timer meets depends on the timing: most
	 * runs see an ask within a message) */
	CHECK(asked > 0 || again > 0, "no packet asked for a tail's ACK, "
	      "within a message or sent again: the case tests nothing of it");
	/* its turn: room that opens goes to the QP that asks next, and
	 * each run starts one QP further on, so the SENDs do not wait for
	 * all of the READs of the QPs ahead of them */
	CHECK(ahead < FULL_QPS * per, "%u READ responses came before the "
	      "first SEND's first packet, expected fewer than %u (half)",
	      ahead, FULL_QPS * per);
	bad += full_reads_in_order(q, 2 * FULL_QPS);
	nw = wcs_of(s.qpn, w, 16);
	for (unsigned int i = 0; i < nw; i++)
		good += w[i].status == PMR_WC_SUCCESS;
	CHECK(nw == 8 && good == 8, "%u completions, %u successful, expected "
	      "8 successful", nw, good);
	CHECK(qp_state_of(s.qpn) == ST_RTS, "QP not in RTS");
	bad += no_id_gaps();
	verdict("35 SENDs behind other QPs' answers in a full ring that "
		"moves -> their turn comes, each packet sent once (ACK "
		"solicits aside), a tail asked for by the next packet, "
		"completed, none set up before there was room", bad);
}

/*
 * SENDs of a UD or UC QP with the transmit ring full: three QPs' READs
 * fill it (from PSN base on) while we read nothing for 150 ms, and the
 * victim's QP qpn posts 16 signaled 64-byte SENDs to our QP dqpn (the
 * victim's command `post`; wr_ids wr0 on).  Such a send completes once
 * its frame is built, so none may complete before it can be built, and
 * none may be lost: the 16 come, once each, as opcode op in PSN order
 * (from psn0, or from the first one's PSN when psn0 is -1), and the 16
 * completions are successful, in order.  @return failed checks.
 */
static int sends_past_full_ring(uint32_t base, const char *post,
				uint32_t qpn, uint32_t dqpn, uint8_t op,
				int64_t psn0, uint64_t wr0)
{
	struct vqp q[FULL_QPS];
	struct stats s0 = get_stats();
	struct wcrec w[64];
	unsigned int k = 0, ok = 0, nw0, nw;
	int bad = 0;

	nw0 = wcs_of(qpn, w, 64);       /* (an earlier case's receives) */
	full_reads(q, FULL_QPS, base);
	bad += ring_full_since(&s0);
	CHECK(strcmp(ctl("%s", post), "OK") == 0, "%s failed", post);
	usleep(150000);
	nw = wcs_of(qpn, w, 64);
	CHECK(nw == nw0, "%u completions while the ring was full, expected "
	      "none", nw - nw0);
	full_reads_wait(q, FULL_QPS, 1000);
	requests_until(dqpn, 16, 1000);
	rx_drain(50);
	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn != dqpn)
			continue;
		if (k == 0 && psn0 < 0)
			psn0 = ans[i].psn;
		ok += ans[i].opcode == op &&
		      ans[i].psn == wire_psn_add((uint32_t)psn0, k) &&
		      ans[i].plen == 64;
		k++;
	}
	CHECK(k == 16 && ok == 16, "%u SENDs, %u as expected: 16 once each, "
	      "in order", k, ok);
	bad += full_reads_in_order(q, FULL_QPS);
	nw = wcs_of(qpn, w, 64);
	k = ok = 0;
	for (unsigned int i = nw0; i < nw; i++, k++)
		ok += w[i].opcode == PMR_WC_SEND &&
		      w[i].status == PMR_WC_SUCCESS && w[i].wr_id == wr0 + k;
	CHECK(k == 16 && ok == 16, "%u completions, %u successful SENDs in "
	      "order, expected 16", k, ok);
	bad += no_id_gaps();
	return bad;
}

static void case36(void)
{
	uint32_t dq = 0x5A5A5;
	char post[64];

	snprintf(post, sizeof(post), "UDSEND 16 %u", dq);
	verdict("36 UD SENDs with the transmit ring full -> each sent once, "
		"then completed",
		sends_past_full_ring(0x3c000, post, ud_qpn, dq,
				     WIRE_OP_UD_SEND_ONLY, -1, 7200));
}

/*
 * A READ asked for again, then a response of the first stream: the
 * requester posts a 5120-byte READ and a FETCH_ADD with a local ACK
 * timeout of 134 ms; both are sent again: by the timer (after 134 ms,
 * before the next timeout at 268 ms) with `syn` 0, else at once on the
 * NAK `syn` (a PSN sequence NAK, or an RNR NAK of the shortest wait,
 * 0.01 ms) for the READ's PSN.  Then we send the READ's third response,
 * as if late from the first stream.  It shows a gap at the PSN just
 * asked for: no third copy of the requests.  Answered, both complete.
 * @return failed checks.
 */
static int asked_once(uint32_t epsn, uint8_t syn)
{
	struct vqp q = new_qp_timed(epsn, 15, 7);
	uint32_t p0 = q.sqpsn;
	bool rnr = syn != 0 && wire_syn_kind(syn) == WIRE_AETH_RNR_NAK;
	const char *counter = rnr ? "nak_rnr_rx" : "nak_seq_rx";
	struct stats s0 = get_stats(), s1;
	struct qpstat qs;
	int bad = 0;

	bad += read_atomic_posted(&q, false, 5120);
	if (syn != 0)
		aeth_to(&q, p0, syn, 0);
	/* the READ again from its first response, then the FETCH_ADD: on
	 * the NAK well before the 134 ms timer could send them */
	bad += sent_again(&q, WIRE_OP_RC_READ_REQUEST, p0,
			  WIRE_OP_RC_FETCH_ADD, wire_psn_add(p0, 5),
			  syn != 0 ? 60 : 400);
	s1 = get_stats();
	qs = qp_stat(q.qpn);
	CHECK(syn != 0 || qs.timeouts >= 1, "sent again with no timeout: "
	      "not the timer's doing");
	CHECK(syn == 0 || (qs.timeouts == 0 &&
			   sdiff(&s0, &s1, counter) == 1), "the QP's timeouts %"
	      PRIu64 ", %s +%" PRIu64 ": expected the NAK's doing, not the "
	      "timer's", qs.timeouts, counter, sdiff(&s0, &s1, counter));
	read5_answer(&q, 2, 0);
	rx_drain(30);
	CHECK(ans_count(q.dqpn, -1, -1) == 4, "%u requests after the late "
	      "response, expected no more than the 4",
	      ans_count(q.dqpn, -1, -1));
	return bad + read5_finish(&q, 0);
}

static void case37(void)
{
	verdict("37 a READ sent again by the timer, then a late response of "
		"the first stream -> not asked for a third time",
		asked_once(0x37000, 0));
}

static void case38(void)
{
	int bad = asked_once(0x38000, wire_syn_nak(WIRE_NAK_PSN_SEQ));

	bad += asked_once(0x38800, wire_syn_rnr_nak(1));
	verdict("38 a READ sent again on a sequence NAK, then on an RNR NAK; "
		"then a late response of the first stream -> not asked for a "
		"third time", bad);
}

/*
 * The ACK timer starts afresh with the first packet that leaves: a QP
 * with a local ACK timeout of 268 ms and one retry posts a SEND while
 * three QPs' READs fill the ring and we read nothing for 400 ms.  Its
 * timer runs while the SEND waits for room (at 268 ms the ring has taken
 * nothing for a whole timeout: the retry is used, with nothing to send
 * again; a timeout is counted).  Then we read at full speed, see the
 * SEND's packet at once and acknowledge it at 600 ms: after the deadline
 * the timer had while the SEND waited (536 ms), before the one its packet
 * started (668 ms or later).  The stall stays under the 1 s after which
 * frames are dropped.
 * The SEND completes, its packet was sent once, the QP stays in RTS.
 */
static void case39(void)
{
	struct vqp q[FULL_QPS], s = new_qp_timed(0x39800, 16, 1);
	struct stats s0;
	struct qpstat qs;
	uint64_t t0, seen;
	struct wcrec w[16];
	unsigned int nw;
	int bad = 0;

	s0 = get_stats();
	full_reads(q, FULL_QPS, 0x39000);
	bad += ring_full_since(&s0);
	CHECK(strcmp(ctl("POST %u 1 1", s.qpn), "OK") == 0, "POST failed");
	t0 = now_ns();
	usleep(400000);
	requests_until(s.dqpn, 1, 800);
	seen = now_ns();
	CHECK(ans_count(s.dqpn, -1, -1) == 1, "the SEND did not come within "
	      "1.2 s of its post");
	/* it must leave before the deadline the post's timer has then
	 * (536 ms), or the restart is not what the case tells apart */
	CHECK(seen - t0 < 530000000ull, "the SEND came %" PRIu64 " ms after "
	      "its post, not before 530: the case tests nothing",
	      (seen - t0) / 1000000);
	while (now_ns() < t0 + 600000000ull)
		rx_drain(0);
	ack_to(&s, s.sqpsn, 1);
	qs = qp_stat(s.qpn);
	CHECK(qs.timeouts >= 1, "no timeout while the SEND waited in a "
	      "stalled ring: the case tests nothing");
	CHECK(qs.retransmits == 0, "the QP's retransmits %" PRIu64
	      ", expected none: nothing was in flight to send again",
	      qs.retransmits);
	full_reads_wait(q, FULL_QPS, 1000);
	rx_drain(100);
	bad += full_reads_in_order(q, FULL_QPS);
	CHECK(ans_count(s.dqpn, -1, -1) == 1, "the SEND's packet came %u "
	      "times (first after %" PRIu64 " ms), expected once",
	      ans_count(s.dqpn, -1, -1), (seen - t0) / 1000000);
	nw = wcs_of(s.qpn, w, 16);
	CHECK(nw == 1 && w[0].status == PMR_WC_SUCCESS, "%u completions "
	      "(first status %d), expected one, successful", nw,
	      nw ? w[0].status : -1);
	CHECK(qp_state_of(s.qpn) == ST_RTS, "QP not in RTS");
	verdict("39 a SEND that waited 400 ms for room, acknowledged 200 ms "
		"after it left -> its timer counted from its packet, no "
		"retransmission, completed", bad);
}

/*
 * The mbuf pool run dry: the victim's pool keeps at most 8 mbufs free
 * (the victim takes the rest after every engine run) while one QP sends
 * 8 signaled SENDs of 16 KiB (128 packets), another answers a READ of the
 * whole MR (64 responses) and a third owes ACKs for two SENDs.  A frame
 * that finds no mbuf is put off (tx_no_mbuf), not dropped and not sent
 * twice: every packet comes once, in PSN order, the SENDs complete, the
 * QPs stay in RTS, and nothing is sent again by a timer (the sender's
 * timeout is 1 s).  The device keeps a stash of up to 32 mbufs of its own (see STARVE), so
 * a run must want more frames than that and the 8 free hold: post_send's
 * kick wants 32 of the SENDs' packets, and finds no mbuf itself when the
 * stash holds fewer than 24; else it sends them, refills the stash and
 * leaves at most 8 free, and the next engine run (budget 64, nothing taken
 * in since the kick) wants 64.  That the READ
 * responses and the ACK are put off too depends on when their requests
 * arrive (they were, when this case was written).  Starving works on
 * DPDK 22.11's memif, which takes an mbuf per frame it receives; a PMD
 * that allocates a whole burst at once would take in nothing meanwhile.
 * It needs the victim's tx_flush off (hostile_starve runs it so): with
 * memif's default a pass hands its frames to the port every 8 KiB, and
 * memif, which copies them, gives their mbufs back to the pool at once,
 * so that sending alone cannot run it dry.
 */
static void case41(void)
{
	const char *da = getenv("HOSTILE_DEVARGS");
	struct vqp s, r, n;
	uint32_t per = mr_len / 1024, mpk = 16, npk = 8 * mpk;
	struct stats s0, s1;
	struct qpstat qs;
	struct wcrec w[16];
	unsigned int k = 0, ok = 0, nw, good = 0, acks;
	const char *res;
	uint64_t end;
	int bad = 0;

	if (da == NULL || strstr(da, "tx_flush=0") == NULL) {
		printf("SKIP: 41 mbuf pool run dry while sending: needs the "
		       "victim's tx_flush=0 (hostile_starve)\n");
		fflush(stdout);
		return;
	}
	s = new_qp_timed(0x41000, 18, 7);
	r = new_qp(0x41800);
	n = new_qp(0x41c00);
	res = ctl("STARVE 8");
	CHECK(strncmp(res, "OK", 2) == 0, "STARVE: %s", res);
	s0 = get_stats();
	CHECK(strcmp(ctl("POST %u 8 ff 0 %u", s.qpn, mpk * 1024), "OK") == 0,
	      "POST failed");
	reads(&r, r.epsn, 1);
	for (uint32_t i = 0; i < 2; i++)
		send_at(&n, wire_psn_add(n.epsn, i));
	end = now_ns() + 3000000000ull;
	while ((ans_count(s.dqpn, -1, -1) < npk ||
		ans_count(r.dqpn, -1, -1) < per ||
		ans_count(n.dqpn, -1, -1) < 1) && now_ns() < end) {
		ack_seen(&s, mpk);
		usleep(1000);
	}
	rx_drain(50);
	s1 = get_stats();
	CHECK(strcmp(ctl("FEED"), "OK") == 0, "FEED failed");
	CHECK(sdiff(&s0, &s1, "tx_no_mbuf") > 0, "no frame was put off for "
	      "want of an mbuf: the case tests nothing");
	qs = qp_stat(s.qpn);
	CHECK(qs.retransmits == 0 && qs.timeouts == 0, "the sender's "
	      "retransmits %" PRIu64 ", timeouts %" PRIu64 ", expected none",
	      qs.retransmits, qs.timeouts);
	for (unsigned int i = 0; i < nans; i++) {
		if (ans[i].dqpn != s.dqpn)
			continue;
		ok += ans[i].psn == wire_psn_add(s.sqpsn, k) &&
		      ans[i].opcode == (k % mpk == 0 ? WIRE_OP_RC_SEND_FIRST :
					k % mpk == mpk - 1 ?
					WIRE_OP_RC_SEND_LAST :
					WIRE_OP_RC_SEND_MIDDLE);
		k++;
	}
	CHECK(k == npk && ok == npk, "%u packets, %u in order: expected the "
	      "SENDs' %u once each", k, ok, npk);
	bad += in_order(&r, r.epsn, per, "a READ of the MR");
	acks = ans_count(n.dqpn, WIRE_OP_RC_ACKNOWLEDGE,
			 wire_syn_ack(WIRE_AETH_CREDIT_INVALID));
	CHECK(acks >= 1 && acks == ans_count(n.dqpn, -1, -1) &&
	      nth_ans(n.dqpn, acks - 1).psn == wire_psn_add(n.epsn, 1),
	      "%u answers to the two SENDs, %u ACKs, the last for 0x%x: "
	      "expected ACKs only, the last for 0x%x",
	      ans_count(n.dqpn, -1, -1), acks,
	      acks ? nth_ans(n.dqpn, acks - 1).psn : 0,
	      wire_psn_add(n.epsn, 1));
	nw = wcs_of(s.qpn, w, 16);
	for (unsigned int i = 0; i < nw; i++)
		good += w[i].status == PMR_WC_SUCCESS;
	CHECK(nw == 8 && good == 8, "%u completions, %u successful, expected "
	      "8 successful", nw, good);
	CHECK(qp_state_of(s.qpn) == ST_RTS && qp_state_of(r.qpn) == ST_RTS &&
	      qp_state_of(n.qpn) == ST_RTS, "a QP not in RTS");
	verdict("41 mbuf pool run dry while sending (and, when they come "
		"then, answering a READ and owing ACKs) -> frames put off, "
		"each sent once, in order, completed", bad);
}

/*
 * An ARP request while the transmit ring is full: three QPs' READs fill
 * it while we read nothing, and a host 10.98.0.7 asks for the victim's
 * address.  The reply finds no room and is dropped (the asker asks
 * again), not queued behind the READ responses and not squeezed into the
 * full queue: no reply comes, and every READ response comes once, in
 * order.  Asked again once the ring moves, the victim answers, once.
 */
static void case42(void)
{
	static const uint8_t xip[4] = { 10, 98, 0, 7 };
	static const uint8_t xmac[6] = { 0x02, 0, 0, 0x98, 0, 0x07 };
	struct vqp q[FULL_QPS];
	struct stats s0 = get_stats(), s1, s2;
	int bad = 0;

	arp_got = 0;
	full_reads(q, FULL_QPS, 0x42000);
	bad += ring_full_since(&s0);
	s1 = get_stats();
	arp_ask(xip, xmac);
	/* taken in (and its reply dropped) before we read again */
	s2 = stat_moved(&s1, "arp_rx");
	CHECK(sdiff(&s1, &s2, "arp_rx") == 1 && sdiff(&s1, &s2, "arp_tx") == 0,
	      "ARP taken in +%" PRIu64 ", sent +%" PRIu64 " while the ring "
	      "was full: expected the request in, no reply out",
	      sdiff(&s1, &s2, "arp_rx"), sdiff(&s1, &s2, "arp_tx"));
	full_reads_wait(q, FULL_QPS, 3000);
	rx_drain(50);
	bad += full_reads_in_order(q, FULL_QPS);
	CHECK(arp_got == 0, "%u ARP replies to the request made while the "
	      "ring was full, expected none (dropped)", arp_got);
	s1 = get_stats();
	arp_ask(xip, xmac);
	rx_drain(50);
	s2 = get_stats();
	CHECK(arp_got == 1 && sdiff(&s1, &s2, "arp_tx") == 1, "%u ARP "
	      "replies to the request asked again (sent +%" PRIu64 "), "
	      "expected one", arp_got, sdiff(&s1, &s2, "arp_tx"));
	verdict("42 an ARP request while the transmit ring is full -> the "
		"reply dropped, the ring's frames untouched; asked again, "
		"answered", bad);
}

/*
 * An unasked-for tail whose solicit comes due while the QP waits for room
 * to send its next WQE, and the QP moved to SQD before that WQE began: a
 * QP with a local ACK timeout of 537 ms (a solicit after 134 ms) and no
 * retry sends an unsignaled SEND (no AckReq); three QPs' READs fill the
 * ring; it posts a signaled SEND, which waits for room past the solicit
 * time; then one more SEND with a move to SQD.  The waiting SENDs never
 * begin, so the tail's ACK must still be asked for (its packet sent again
 * with AckReq, once), well before the ACK timeout: no timeout, no
 * RETRY_EXC_ERR, the QP drained in SQD, nothing else sent.
 */
static void case43(void)
{
	struct vqp q[FULL_QPS], s = new_qp_timed(0x43800, 17, 0);
	struct stats s0, s1;
	struct qpstat qs;
	uint64_t t0, tb, end;
	struct wcrec w[16];
	unsigned int nw;
	int bad = 0;

	/* (the QPs first: a new QP clears the answer log) */
	for (int i = 0; i < FULL_QPS; i++)
		q[i] = new_qp(0x43000 + (uint32_t)i * 0x1000);
	CHECK(strcmp(ctl("POST %u 1 0", s.qpn), "OK") == 0, "POST failed");
	t0 = now_ns();
	requests_until(s.dqpn, 1, 50);
	CHECK(ans_count(s.dqpn, -1, -1) == 1 && !nth_ans(s.dqpn, 0).ackreq,
	      "%u packets, the first with AckReq %d: expected one that did "
	      "not ask (the case tests nothing)", ans_count(s.dqpn, -1, -1),
	      nth_ans(s.dqpn, 0).ackreq);
	s0 = get_stats();
	for (int i = 0; i < FULL_QPS; i++)
		reads(&q[i], q[i].epsn, 16);
	bad += ring_full_since(&s0);
	CHECK(strcmp(ctl("POST %u 1 1", s.qpn), "OK") == 0, "POST failed");
	tb = now_ns();
	CHECK(tb - t0 < 120000000ull, "the second SEND posted %" PRIu64
	      " ms after the first, not before its solicit (134 ms): the "
	      "case tests nothing", (tb - t0) / 1000000);
	while (now_ns() < t0 + 200000000ull)
		usleep(1000);
	CHECK(strcmp(ctl("POST %u 1 1 1", s.qpn), "OK") == 0,
	      "POST + SQD failed");
	end = t0 + 500000000ull;     /* (we are at t0 + 200 ms or later) */
	if (requests_until(s.dqpn, 2, now_ns() < end ?
			   (end - now_ns()) / 1000000ull : 0) >= 2)
		ack_to(&s, s.sqpsn, 1);
	full_reads_wait(q, FULL_QPS, 1000);
	rx_drain(50);
	s1 = get_stats();
	CHECK(ans_count(s.dqpn, -1, -1) == 2 &&
	      nth_ans(s.dqpn, 1).psn == s.sqpsn && nth_ans(s.dqpn, 1).ackreq,
	      "%u packets to our QP, the second PSN 0x%x AckReq %d: expected "
	      "the tail sent again once, asking, within 500 ms, and nothing "
	      "else", ans_count(s.dqpn, -1, -1), nth_ans(s.dqpn, 1).psn,
	      nth_ans(s.dqpn, 1).ackreq);
	qs = qp_stat(s.qpn);
	CHECK(sdiff(&s0, &s1, "ack_solicits") == 1 && qs.timeouts == 0,
	      "ack_solicits +%" PRIu64 ", the QP's timeouts %" PRIu64
	      ", expected +1 and none", sdiff(&s0, &s1, "ack_solicits"),
	      qs.timeouts);
	nw = wcs_of(s.qpn, w, 16);
	CHECK(nw == 0, "%u completions (first status %d), expected none (the "
	      "tail is unsignaled, the rest never began)", nw,
	      nw ? w[0].status : -1);
	bad += drained_bad(&s);
	bad += full_reads_in_order(q, FULL_QPS);
	verdict("43 a tail's solicit due while the QP waits for room, then "
		"SQD before the next WQE began -> the tail still asked for, "
		"drained, no timeout", bad);
}

/* UC SENDs with the transmit ring full, as UD in case 36; the QP stays
 * in RTS. */
static void case40(void)
{
	struct vqp u = new_vqp(true, 0x40800, 0, 0, 2);
	char post[64];
	int bad;

	snprintf(post, sizeof(post), "POST %u 16 ffff", u.qpn);
	bad = sends_past_full_ring(0x40000, post, u.qpn, u.dqpn,
				   WIRE_OP_UC_SEND_ONLY, u.sqpsn, 7000);
	CHECK(qp_state_of(u.qpn) == ST_RTS, "UC QP not in RTS");
	verdict("40 UC SENDs with the transmit ring full -> each sent once, "
		"then completed", bad);
}

/*
 * A WQE that fails its local checks while the transmit ring is full: three
 * QPs' READs fill the ring while we read nothing, and a QP with a 268 ms
 * local ACK timeout and no retry posts a signaled SEND whose lkey no MR
 * has.  The WQE needs no room to fail: its LOC_PROT_ERR completion comes
 * while the ring is still full (within 100 ms), the QP goes to ERR, no
 * timeout fires, nothing of it is sent, and the READ responses still all
 * come, in order.
 */
static void case44(void)
{
	struct vqp q[FULL_QPS], s = new_qp_timed(0x44800, 16, 0);
	struct stats s0 = get_stats(), sp, s1;
	struct qpstat qs;
	struct wcrec w[16];
	unsigned int nw, flushed = 0;
	int bad = 0;

	full_reads(q, FULL_QPS, 0x44000);
	bad += ring_full_since(&s0);
	sp = get_stats();
	CHECK(strcmp(ctl("POSTBAD %u", s.qpn), "OK") == 0, "POSTBAD failed");
	usleep(100000);
	nw = wcs_of(s.qpn, w, 16);
	s1 = get_stats();
	/* the SEND's error, then the QP's receives flushed */
	for (unsigned int i = 1; i < nw; i++)
		flushed += w[i].status == PMR_WC_WR_FLUSH_ERR;
	CHECK(nw == 1 + NRECV && w[0].wr_id == 7300 &&
	      w[0].status == PMR_WC_LOC_PROT_ERR && flushed == NRECV,
	      "%u completions (first wr_id %" PRIu64 " status %d, %u "
	      "flushed) while the ring was full, expected LOC_PROT_ERR for "
	      "7300 and %u flushed receives", nw, nw ? w[0].wr_id : 0,
	      nw ? w[0].status : -1, flushed, NRECV);
	/* frames were still put off after the post: the ring stayed full,
	 * and no frame was dropped (it moved again within the second) */
	CHECK(sdiff(&sp, &s1, "tx_full") > 0 && sdiff(&s0, &s1, "tx_drops") == 0,
	      "tx_full +%" PRIu64 " since the post, tx_drops +%" PRIu64
	      ": expected a ring still full, nothing dropped",
	      sdiff(&sp, &s1, "tx_full"), sdiff(&s0, &s1, "tx_drops"));
	CHECK(qp_state_of(s.qpn) == ST_ERR, "QP state %d, expected ERR",
	      qp_state_of(s.qpn));
	full_reads_wait(q, FULL_QPS, 1000);
	rx_drain(50);
	qs = qp_stat(s.qpn);
	CHECK(qs.timeouts == 0, "the QP's timeouts %" PRIu64, qs.timeouts);
	CHECK(ans_count(s.dqpn, -1, -1) == 0, "%u packets of the failed WQE",
	      ans_count(s.dqpn, -1, -1));
	bad += full_reads_in_order(q, FULL_QPS);
	verdict("44 a WQE with a bad lkey while the transmit ring is full -> "
		"LOC_PROT_ERR at once, no room waited for, nothing sent", bad);
}

/*
 * pmr_dereg_mr of an MR a remote WRITE is still writing (FIRST in, LAST
 * not yet): EBUSY, and the WRITE completes; once it has, the dereg
 * succeeds and the rkey is gone (a WRITE to it is a remote access error).
 */
static void case15(void)
{
	const uint8_t ack = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
	struct vqp q = new_qp(0x15000);
	struct wire_build b;
	unsigned int same;
	uint64_t va;
	uint32_t rkey;
	int bad = 0, ret;

	if (sscanf(ctl("SCRATCH"), "OK %" SCNu64 " %u", &va, &rkey) != 2)
		die("SCRATCH failed");
	build_base(&b, WIRE_OP_RC_WRITE_FIRST, q.qpn, q.epsn);
	b.va = va;
	b.rkey = rkey;
	b.dma_len = 2048;
	b.ackreq = false;
	send_pkt(&b, 1024, 0x77, false);
	rx_drain(20);
	ret = dereg_scratch(0x77, &same);
	CHECK(ret == EBUSY, "dereg_mr mid-WRITE returned %d, not EBUSY", ret);
	CHECK(same == 1024, "%u bytes written by the FIRST, not 1024", same);
	build_base(&b, WIRE_OP_RC_WRITE_LAST, q.qpn, wire_psn_add(q.epsn, 1));
	send_pkt(&b, 1024, 0x77, false);
	rx_drain(50);
	CHECK(ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE, ack) == 1,
	      "one ACK for the WRITE");
	ret = dereg_scratch(0x77, &same);
	CHECK(ret == 0, "dereg_mr after the WRITE returned %d", ret);
	CHECK(same == 2048, "%u bytes written, not 2048", same);
	CHECK(qp_state_of(q.qpn) == PMR_QPS_RTS, "QP not in RTS");
	if (bad) {
		verdict("15 dereg_mr mid-WRITE -> EBUSY, then 0", bad);
		return;
	}
	/* the old rkey names no MR now */
	q.epsn = wire_psn_add(q.epsn, 2);
	ans_clear();
	write_only(&q, va, rkey, 8, 8);
	verdict("15 dereg_mr mid-WRITE -> EBUSY, then 0; the rkey is gone",
		expect_fatal(&q, 0x62, q.epsn, PMR_EVENT_QP_ACCESS_ERR, -1));
}

/*
 * A fresh scratch MR nothing else uses (an earlier case's may still be
 * registered: it goes first, and must go, or an EBUSY after would not be
 * this READ's doing), the engine held, and a READ of all of it to q.
 */
static void scratch_read(const struct vqp *q)
{
	unsigned int same;
	uint64_t va;
	uint32_t rkey;
	int ret = dereg_scratch(0, &same);

	if (ret != 0 && ret != -1)
		die("scratch MR still in use: dereg_mr %d", ret);
	if (sscanf(ctl("SCRATCH"), "OK %" SCNu64 " %u", &va, &rkey) != 2)
		die("SCRATCH failed");
	hold();
	read_at(q, q->epsn, va, rkey, SCRATCH_SIZE);
}

/*
 * pmr_dereg_mr of an MR a READ is still being answered from: a READ of the
 * whole scratch MR (64 responses at MTU 1024) taken in by one engine run,
 * which sends the first ROCE_RX_BURST (32) of them, then dereg_mr at once:
 * EBUSY, and the rest of the responses follow in order; once they are all
 * sent the dereg succeeds.
 */
static void case29(void)
{
	struct vqp q = new_qp(0x29000);
	unsigned int same;
	int bad = 0, ret = -1;

	scratch_read(&q);
	bad += step(&q, 1, "DEREG", &ret);
	CHECK(ret == EBUSY, "dereg_mr mid-READ returned %d, not EBUSY", ret);
	rx_drain(100);
	bad += in_order(&q, q.epsn, SCRATCH_SIZE / 1024, "the READ");
	ret = dereg_scratch(0, &same);
	CHECK(ret == 0, "dereg_mr after the READ returned %d", ret);
	CHECK(qp_state_of(q.qpn) == PMR_QPS_RTS, "QP not in RTS");
	verdict("29 dereg_mr mid-READ -> EBUSY, every response sent, then 0",
		bad);
}

/*
 * pmr_dereg_mr at once after the QP answering a READ from the MR moved
 * to ERR, or to RESET (STEP action ERRDEREG / RESETDEREG: no engine run
 * between): as case 29, a READ of the whole scratch MR taken in by one
 * run, which sends the first ROCE_RX_BURST (32) responses.  A QP in ERR
 * or RESET answers no READ any more, so the MR is not busy: 0, not EBUSY,
 * and no response follows.  @return failed checks.
 */
static int dereg_after_move(uint32_t epsn, const char *action)
{
	struct vqp q = new_qp(epsn);
	int bad = 0, ret;

	scratch_read(&q);
	bad += step(&q, 1, action, &ret);
	CHECK(ret == 0, "%s: dereg_mr returned %d, expected 0", action, ret);
	rx_drain(100);
	bad += in_order(&q, q.epsn, 32, "the run before the move");
	return bad;
}

/*
 * pmr_dereg_mr while a QP in ERR still owes a fatal NAK behind the READ
 * responses it is sending from the MR: a READ of the whole scratch MR,
 * then a WRITE with a bad rkey at the PSN after it, taken in by one run
 * (the WRITE moves the QP to ERR, its NAK owed behind the READ's
 * responses), then dereg_mr at once.  That QP still reads the MR for the
 * responses before its NAK: EBUSY.  Then every response goes, in order,
 * the NAK last, and the dereg succeeds.  @return failed checks.
 */
static int dereg_fatal_owed(uint32_t epsn)
{
	struct vqp q = new_qp(epsn), w;
	uint32_t n = SCRATCH_SIZE / 1024;
	unsigned int same, k, ok = 0;
	struct ans last;
	int bad = 0, ret = -1;

	scratch_read(&q);
	w = q;
	w.epsn = wire_psn_add(q.epsn, n);
	write_only(&w, mr_va, mr_rkey ^ 0x100, 8, 8);
	bad += step(&q, 2, "DEREG", &ret);
	CHECK(ret == EBUSY, "dereg_mr with a fatal NAK owed behind the READ "
	      "returned %d, not EBUSY", ret);
	rx_drain(100);
	k = ans_count(q.dqpn, -1, -1);
	for (unsigned int i = 0; i < n; i++) {
		struct ans a = nth_ans(q.dqpn, i);

		ok += a.psn == wire_psn_add(q.epsn, i) &&
		      a.opcode >= WIRE_OP_RC_READ_RESPONSE_FIRST &&
		      a.opcode <= WIRE_OP_RC_READ_RESPONSE_ONLY;
	}
	last = nth_ans(q.dqpn, n);
	CHECK(k == n + 1 && ok == n && last.opcode == WIRE_OP_RC_ACKNOWLEDGE &&
	      last.syn == wire_syn_nak(WIRE_NAK_REM_ACCESS) &&
	      last.psn == w.epsn,
	      "%u answers, %u READ responses in order, then opcode 0x%x "
	      "syndrome 0x%x PSN 0x%x: expected %u, then a remote access NAK "
	      "for 0x%x", k, ok, last.opcode, last.syn, last.psn, n, w.epsn);
	CHECK(qp_state_of(q.qpn) == ST_ERR, "QP not in ERR");
	ret = dereg_scratch(0, &same);
	CHECK(ret == 0, "dereg_mr after the NAK returned %d", ret);
	return bad;
}

/*
 * A NAK that waited for room and went stale.  While three QPs' READ
 * responses keep the ring full, a QP takes in a request its expected PSN
 * X cannot take, so a NAK for X is owed:
 * - STALE_SEQ: a SEND at X + 1 (a PSN sequence NAK);
 * - STALE_RNR: a third SEND for its two receive WQEs (an RNR NAK);
 * - STALE_LATE: SENDs at X + 1 and X + 2 (a sequence NAK; X + 2 is
 *   dropped without another).
 * Then, for SEQ and RNR, the request comes again, as the requester sends
 * it after its timeout or RNR wait (for RNR once a receive WQE is posted
 * for each of the two), followed by the next one, and both are taken in.  When room
 * comes the NAK for X is not sent: it would only send the requester back
 * for nothing; the one answer is the ACK for the last request.  For
 * LATE, X itself comes (late, not sent again), so X + 1 and X + 2, which
 * were dropped, are still missing: the NAK asks from X + 1 instead (and
 * acknowledges X: no ACK); sent X + 1 and X + 2, the victim ACKs X + 2.
 * Every receive WQE completes successfully.
 */
enum stale { STALE_SEQ, STALE_RNR, STALE_LATE };

/* Three QPs' READ responses (full_reads() on q, from epsn) fill the ring,
 * then the engine is held: each STEP takes in exactly what we sent, and
 * the ring stays full (we read nothing).  *s0: the counters from then on.
 * @return failed checks. */
/* QP q's completions are `want` successful receives of 16 bytes (the
 * SENDs send_at() builds), and no more.  @return failed checks. */
static int recvs_ok(const struct vqp *q, unsigned int want)
{
	struct wcrec w[16];
	unsigned int nw = wcs_of(q->qpn, w, 16), ok = 0;
	int bad = 0;

	for (unsigned int i = 0; i < nw; i++)
		ok += w[i].status == PMR_WC_SUCCESS &&
		      (w[i].opcode & PMR_WC_RECV) && w[i].len == 16;
	CHECK(nw == want && ok == want, "%u receive completions, %u "
	      "successful with 16 bytes, expected %u", nw, ok, want);
	return bad;
}

static int full_ring_held(struct vqp *q, uint32_t epsn, struct stats *s0)
{
	int bad;

	*s0 = get_stats();
	full_reads(q, FULL_QPS, epsn);
	bad = ring_full_since(s0);
	*s0 = get_stats();
	hold();
	return bad;
}

static int stale_nak(uint32_t epsn, enum stale how)
{
	struct vqp q[FULL_QPS], n = new_qp(epsn + 0x800);
	uint32_t x = n.epsn, sends = how == STALE_SEQ ? 2 : 3;
	struct stats s0, s1;
	struct ans a0, a1;
	unsigned int nans_n;
	int bad = full_ring_held(q, epsn, &s0);

	if (how == STALE_RNR) {
		for (uint32_t i = 0; i < 3; i++)
			send_at(&n, wire_psn_add(x, i));
		bad += step(&n, 3, "HOLD", NULL);
		x = wire_psn_add(x, 2);
		CHECK(strncmp(ctl("RECV %u", n.qpn), "OK", 2) == 0,
		      "RECV failed");
		sends = 4;
	} else {
		send_at(&n, wire_psn_add(x, 1));
		if (how == STALE_LATE)
			send_at(&n, wire_psn_add(x, 2));
		bad += step(&n, how == STALE_LATE ? 2 : 1, "HOLD", NULL);
	}
	if (how != STALE_SEQ)
		CHECK(strncmp(ctl("RECV %u", n.qpn), "OK", 2) == 0,
		      "RECV failed");
	send_at(&n, x);
	if (how != STALE_LATE)
		send_at(&n, wire_psn_add(x, 1));
	bad += step(&n, how == STALE_LATE ? 1 : 2, "NONE", NULL);
	s1 = get_stats();
	CHECK(how == STALE_RNR || sdiff(&s0, &s1, "out_of_seq") ==
	      (how == STALE_LATE ? 2u : 1u), "out_of_seq +%" PRIu64
	      ": the SENDs ahead were not taken for what they are",
	      sdiff(&s0, &s1, "out_of_seq"));
	full_reads_wait(q, FULL_QPS, 3000);
	rx_drain(50);
	bad += full_reads_in_order(q, FULL_QPS);
	if (how == STALE_LATE) {
		/* the NAK asked from X + 1: send it and X + 2 again */
		for (uint32_t i = 1; i < 3; i++)
			send_at(&n, wire_psn_add(x, i));
		x = wire_psn_add(x, 1);
		/* (the ACK for X + 2, then a moment for anything after it) */
		CHECK(answer_until(n.dqpn, wire_psn_add(x, 1), 1000),
		      "no answer for 0x%x", wire_psn_add(x, 1));
		rx_drain(10);
	}
	nans_n = ans_count(n.dqpn, -1, -1);
	a0 = nth_ans(n.dqpn, 0);
	a1 = nth_ans(n.dqpn, nans_n ? nans_n - 1 : 0);
	if (how == STALE_LATE)   /* (X + 1 may be ACKed on its own first) */
		CHECK(nans_n >= 2 && a0.opcode == WIRE_OP_RC_ACKNOWLEDGE &&
		      a0.syn == wire_syn_nak(WIRE_NAK_PSN_SEQ) && a0.psn == x &&
		      ans_count(n.dqpn, WIRE_OP_RC_ACKNOWLEDGE,
				wire_syn_ack(WIRE_AETH_CREDIT_INVALID)) ==
		      nans_n - 1 && a1.psn == wire_psn_add(x, 1),
		      "%u answers (first: syndrome 0x%x PSN 0x%x, last: 0x%x "
		      "0x%x), expected a sequence NAK for 0x%x, then ACKs up "
		      "to 0x%x", nans_n, a0.syn, a0.psn, a1.syn, a1.psn, x,
		      wire_psn_add(x, 1));
	else
		CHECK(nans_n == 1 && a0.opcode == WIRE_OP_RC_ACKNOWLEDGE &&
		      a0.syn == wire_syn_ack(WIRE_AETH_CREDIT_INVALID) &&
		      a0.psn == wire_psn_add(x, 1),
		      "%u answers (first: opcode 0x%x syndrome 0x%x PSN "
		      "0x%x), expected one ACK for 0x%x", nans_n, a0.opcode,
		      a0.syn, a0.psn, wire_psn_add(x, 1));
	bad += recvs_ok(&n, sends);
	CHECK(qp_state_of(n.qpn) == ST_RTS, "QP not in RTS");
	return bad;
}

/*
 * The control of STALE_RNR: the same three SENDs for two receive WQEs
 * while the ring is full, and then neither a receive WQE nor the third
 * SEND again.  The RNR NAK for it was owed: when room comes it goes,
 * the last answer (after the ACK for the second SEND), and the two SENDs
 * taken in complete.  @return failed checks.
 */
static int rnr_owed(uint32_t epsn)
{
	struct vqp q[FULL_QPS], n = new_qp(epsn + 0x800);
	uint32_t x = wire_psn_add(n.epsn, 2);
	struct stats s0, s1;
	struct ans a0, a;
	unsigned int k;
	int bad = full_ring_held(q, epsn, &s0);

	for (uint32_t i = 0; i < 3; i++)
		send_at(&n, wire_psn_add(n.epsn, i));
	bad += step(&n, 3, "NONE", NULL);
	full_reads_wait(q, FULL_QPS, 3000);
	CHECK(answer_until(n.dqpn, x, 1000), "no answer for 0x%x", x);
	rx_drain(10);
	bad += full_reads_in_order(q, FULL_QPS);
	s1 = get_stats();
	k = ans_count(n.dqpn, -1, -1);
	a0 = nth_ans(n.dqpn, 0);
	a = nth_ans(n.dqpn, 1);
	CHECK(k == 2 && a0.opcode == WIRE_OP_RC_ACKNOWLEDGE &&
	      a0.syn == wire_syn_ack(WIRE_AETH_CREDIT_INVALID) &&
	      a0.psn == wire_psn_add(x, WIRE_PSN_MASK) &&
	      a.opcode == WIRE_OP_RC_ACKNOWLEDGE &&
	      wire_syn_kind(a.syn) == WIRE_AETH_RNR_NAK && a.psn == x &&
	      sdiff(&s0, &s1, "nak_rnr_tx") == 1,
	      "%u answers (first: opcode 0x%x syndrome 0x%x PSN 0x%x; "
	      "second: 0x%x 0x%x 0x%x), nak_rnr_tx +%" PRIu64 ": expected "
	      "an ACK for 0x%x, then an RNR NAK for 0x%x", k, a0.opcode,
	      a0.syn, a0.psn, a.opcode, a.syn, a.psn,
	      sdiff(&s0, &s1, "nak_rnr_tx"), wire_psn_add(x, WIRE_PSN_MASK),
	      x);
	bad += recvs_ok(&n, 2);
	return bad;
}

static void case46(void)
{
	int bad = stale_nak(0x46000, STALE_SEQ);

	bad += stale_nak(0x4a000, STALE_RNR);
	bad += rnr_owed(0x52000);
	bad += stale_nak(0x4e000, STALE_LATE);
	verdict("46 a sequence NAK, an RNR NAK owed on a full ring and made "
		"stale by the request taken in -> not sent (but sent when not "
		"made stale); a late request with later ones dropped -> the "
		"NAK asks from after it", bad);
}

/* The victim's qps_active once two readings 20 ms apart agree (it
 * counts every QP with work: earlier cases' QPs may come and go), and its
 * counters then (*s); UINT64_MAX when it did not settle in 50 readings. */
static uint64_t settled_active(struct stats *s)
{
	uint64_t a = UINT64_MAX, b;

	for (int i = 0; i < 50; i++) {
		rx_drain(20);
		*s = get_stats();
		b = stat_of("qps_active");
		if (b == a)
			return a;
		a = b;
	}
	return UINT64_MAX;
}

/*
 * An ACK the responder cannot send for want of the peer's MAC: a QP
 * whose peer is 10.98.0.77 (an address nobody answers ARP for) takes in
 * a SEND that asks for an ACK, from our address (so the victim learns no
 * MAC from it).  The ACK is dropped (the peer's requester would ask
 * again) and the receive completes; the QP, with nothing to send and
 * nothing owed, leaves the active list (qps_active back where it was):
 * the failed lookup is not taken for a requester waiting for its
 * neighbour, which would keep the QP in every engine run for good.
 */
static void case47(void)
{
	struct vqp q = new_vqp(false, 0x47000, 14, 7, 77);
	struct stats s0, s1;
	struct wcrec w[16];
	uint64_t a0, a1;
	unsigned int nw;
	int bad = 0;

	a0 = settled_active(&s0);
	send_at(&q, q.epsn);
	a1 = settled_active(&s1);
	CHECK(a0 != UINT64_MAX && a1 != UINT64_MAX, "the victim's qps_active "
	      "did not settle (before the SEND: %s, after: %s): the case "
	      "cannot judge", a0 != UINT64_MAX ? "settled" : "no",
	      a1 != UINT64_MAX ? "settled" : "no");
	CHECK(sdiff(&s0, &s1, "arp_tx") >= 1, "no ARP request for the "
	      "peer: the ACK found its MAC, the case tests nothing");
	CHECK(ans_count(q.dqpn, -1, -1) == 0, "%u answers to a peer whose "
	      "MAC is unknown", ans_count(q.dqpn, -1, -1));
	nw = wcs_of(q.qpn, w, 16);
	CHECK(nw == 1 && w[0].status == PMR_WC_SUCCESS && w[0].len == 16,
	      "%u completions (first status %d), expected one receive", nw,
	      nw ? w[0].status : -1);
	CHECK(a1 == a0, "QPs active %" PRIu64 " before the SEND, %" PRIu64
	      " after: the QP stayed active", a0, a1);
	verdict("47 an ACK dropped for an unresolved neighbour -> the QP does "
		"not stay active", bad);
}

static void case45(void)
{
	int bad = dereg_after_move(0x45000, "ERRDEREG");

	bad += dereg_after_move(0x45800, "RESETDEREG");
	bad += dereg_fatal_owed(0x45c00);
	verdict("45 dereg_mr right after the QP answering a READ from it went "
		"to ERR or RESET -> 0, no response after; in ERR with its "
		"fatal NAK still owed behind the responses -> EBUSY", bad);
}

static void case1(void)
{
	struct { const char *n; uint64_t va; uint32_t len; } t[] = {
		{ "past the end", mr_va + mr_len, 8 },
		{ "straddling the end", mr_va + mr_len - 4, 8 },
		{ "before the start", mr_va - 8, 8 },
		{ "wrapping 2^64", UINT64_MAX - 3, 8 },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vqp q = new_qp(0x1000 + i * 0x10);
		char name[96];

		write_only(&q, t[i].va, mr_rkey, t[i].len, t[i].len);
		snprintf(name, sizeof(name), "1 WRITE ONLY %s -> NAK remote access",
			 t[i].n);
		verdict(name, expect_fatal(&q, 0x62, q.epsn,
					   PMR_EVENT_QP_ACCESS_ERR, -1));
	}
}

static void case2(void)
{
	struct wire_build b;
	struct vqp q;

	/* FIRST (RETH len 1024 + 100) then a LAST of 1024: over the length */
	q = new_qp(0x2000);
	build_base(&b, WIRE_OP_RC_WRITE_FIRST, q.qpn, q.epsn);
	b.va = mr_va;
	b.rkey = mr_rkey;
	b.dma_len = 1024 + 100;
	/* the FIRST is legal and lands in the MR: the guard value itself,
	 * so the MR must still be all guard bytes afterwards */
	b.ackreq = false;          /* else its ACK is owed, and correct */
	send_pkt(&b, 1024, GUARD_BYTE, false);
	build_base(&b, WIRE_OP_RC_WRITE_LAST, q.qpn, wire_psn_add(q.epsn, 1));
	send_pkt(&b, 1024, 0x3C, false);
	verdict("2 WRITE FIRST + LAST over the RETH length -> NAK invalid",
		expect_fatal(&q, 0x61, wire_psn_add(q.epsn, 1),
			     PMR_EVENT_QP_REQ_ERR, -1));

	/* a MIDDLE or LAST with no message in progress */
	{
		static const struct {
			uint8_t op;
			uint32_t len;
			const char *what;
		} orphan[] = {
			{ WIRE_OP_RC_WRITE_MIDDLE, 1024, "2 WRITE MIDDLE without FIRST" },
			{ WIRE_OP_RC_WRITE_LAST, 16, "2 WRITE LAST without FIRST" },
			{ WIRE_OP_RC_SEND_LAST, 16, "2 SEND LAST without FIRST" },
			{ WIRE_OP_RC_SEND_MIDDLE, 1024, "2 SEND MIDDLE without FIRST" },
		};
		char what[96];

		for (unsigned int i = 0; i < sizeof(orphan) / sizeof(orphan[0]);
		     i++) {
			q = new_qp(0x2100 + 0x100 * i);
			build_base(&b, orphan[i].op, q.qpn, q.epsn);
			send_pkt(&b, orphan[i].len, 0x3C, false);
			snprintf(what, sizeof(what), "%s -> NAK invalid",
				 orphan[i].what);
			verdict(what, expect_fatal(&q, 0x61, q.epsn,
						   PMR_EVENT_QP_REQ_ERR, -1));
		}
	}
}

static void case3(void)
{
	struct { const char *n; uint64_t va; uint32_t len; uint8_t syn; int ev; }
	t[] = {
		/* over the 2^31 message limit: checked before the MR */
		{ "len 2^31+1", mr_va, 0x80000001u, 0x61, PMR_EVENT_QP_REQ_ERR },
		{ "len 2^32-1", mr_va, 0xFFFFFFFFu, 0x61, PMR_EVENT_QP_REQ_ERR },
		{ "VA past the end", mr_va + mr_len, 64, 0x62,
		  PMR_EVENT_QP_ACCESS_ERR },
		{ "VA straddling the end", mr_va + mr_len - 32, 64, 0x62,
		  PMR_EVENT_QP_ACCESS_ERR },
		{ "VA before the start", mr_va - 64, 64, 0x62,
		  PMR_EVENT_QP_ACCESS_ERR },
		{ "VA wrapping 2^64", UINT64_MAX - 3, 64, 0x62,
		  PMR_EVENT_QP_ACCESS_ERR },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vqp q = new_qp(0x3000 + i * 0x100);
		char name[96];
		int bad;

		read_at(&q, q.epsn, t[i].va, mr_rkey, t[i].len);
		bad = expect_fatal(&q, t[i].syn, q.epsn, t[i].ev, -1);
		for (unsigned int k = 0; k < nans; k++)
			if (ans[k].dqpn == q.dqpn && ans[k].plen) {
				printf("    READ response with %u bytes\n",
				       ans[k].plen);
				bad++;
			}
		snprintf(name, sizeof(name), "3 READ %s -> NAK 0x%02x, no data",
			 t[i].n, t[i].syn);
		verdict(name, bad);
	}
}

static void case4(void)
{
	/* the CAS compares with the guard bytes' value: wrongly done past
	 * the MR it would swap them, and verdict()'s guard check fails */
	const struct {
		const char *name;
		uint8_t opcode;
		uint64_t va;
		uint32_t rkey;
		uint64_t swap_add, compare;
		uint8_t syn;
		int ev;
	} t[] = {
		/* unaligned, inside the MR */
		{ "4 FETCH_ADD unaligned -> NAK invalid (0x61)",
		  WIRE_OP_RC_FETCH_ADD, mr_va + 4, mr_rkey, 1, 0,
		  0x61, PMR_EVENT_QP_REQ_ERR },
		/* aligned, in the MR without remote rights (a guard area):
		 * the QP allows atomics, the MR check fails -> remote
		 * access error (roce_resp.c rc_atomic) */
		{ "4 FETCH_ADD on an MR without remote atomic -> NAK access (0x62)",
		  WIRE_OP_RC_FETCH_ADD, nr_va + NRSLOTS * RSLOT + RLEN,
		  nr_rkey, 1, 0, 0x62, PMR_EVENT_QP_ACCESS_ERR },
		/* compare-and-swap past the end of the MR */
		{ "4 COMPARE_SWAP past the MR -> NAK access (0x62)",
		  WIRE_OP_RC_COMPARE_SWAP, mr_va + mr_len, mr_rkey, 0,
		  0xA5A5A5A5A5A5A5A5ull, 0x62, PMR_EVENT_QP_ACCESS_ERR },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vqp q = new_qp(0x4000 + 0x100 * i);
		struct wire_build b;

		build_base(&b, t[i].opcode, q.qpn, q.epsn);
		b.va = t[i].va;
		b.rkey = t[i].rkey;
		b.swap_add = t[i].swap_add;
		b.compare = t[i].compare;
		send_pkt(&b, 0, 0, false);
		verdict(t[i].name, expect_fatal(&q, t[i].syn, q.epsn, t[i].ev,
						-1));
	}
}

static void case5(void)
{
	struct wire_build b;
	struct vqp q;

	q = new_qp(0x5000);
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, q.epsn);
	send_pkt(&b, 300, 0x3C, false);
	/* the engine's LOC_LEN_ERR path moves the QP to ERR without an
	 * async event (pmr_rq_complete / nak(..., -1)) */
	verdict("5 SEND ONLY 300 bytes into 256 -> LOC_LEN_ERR once, NAK invalid",
		expect_fatal(&q, 0x61, q.epsn, -1, PMR_WC_LOC_LEN_ERR));

	/* the same over two packets: FIRST 1024 already too long */
	q = new_qp(0x5100);
	build_base(&b, WIRE_OP_RC_SEND_FIRST, q.qpn, q.epsn);
	send_pkt(&b, 1024, 0x3C, false);
	build_base(&b, WIRE_OP_RC_SEND_LAST, q.qpn, wire_psn_add(q.epsn, 1));
	send_pkt(&b, 8, 0x3C, false);
	verdict("5 SEND FIRST 1024 into 256 -> LOC_LEN_ERR once, NAK invalid",
		expect_fatal(&q, 0x61, q.epsn, -1, PMR_WC_LOC_LEN_ERR));
}

static void case6(void)
{
	struct wire_build b;
	struct stats s0, s1;
	struct vqp q;
	struct wcrec w[16];
	int ev_t[16];
	const char *r;
	uint64_t udid = 0;
	int bad = 0;

	q = new_qp(0x6000);
	r = ctl("RECV %u", ud_qpn);
	if (sscanf(r, "OK %" SCNu64, &udid) != 1)
		die("RECV: %s", r);
	s0 = get_stats();
	/* an RC SEND for a QPN that does not exist */
	build_base(&b, WIRE_OP_RC_SEND_ONLY, 0xFFFF00, 0);
	send_pkt(&b, 16, 0x3C, false);
	/* a SEND to the real QP, at the right PSN, with a bad ICRC */
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, q.epsn);
	send_pkt(&b, 16, 0x3C, true);
	/* UD with the wrong Q_Key */
	build_base(&b, WIRE_OP_UD_SEND_ONLY, ud_qpn, 7);
	b.ackreq = false;
	b.qkey = ud_qkey ^ 1;
	b.src_qpn = q.dqpn;
	send_pkt(&b, 32, 0x3C, false);
	/* UD with the wrong Q_Key and a bad ICRC: counted once, as ICRC */
	send_pkt(&b, 32, 0x3C, true);
	/* transport mismatches: a UD SEND (right Q_Key) to the RC QP, an RC
	 * SEND to the UD QP: malformed, nothing delivered */
	build_base(&b, WIRE_OP_UD_SEND_ONLY, q.qpn, 9);
	b.ackreq = false;
	b.qkey = ud_qkey;
	b.src_qpn = q.dqpn;
	send_pkt(&b, 32, 0x3C, false);
	build_base(&b, WIRE_OP_RC_SEND_ONLY, ud_qpn, 0);
	send_pkt(&b, 32, 0x3C, false);
	/* a good SEND for the RC QP at its PSN, to the victim's MAC but
	 * another IP address: not the victim's, dropped before any QP */
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, q.epsn);
	b.dgid[15] ^= 0x40;
	send_pkt(&b, 16, 0x3C, false);
	rx_drain(150);
	s1 = get_stats();
	CHECK(sdiff(&s0, &s1, "rx_drop_not_roce") == 1,
	      "rx_drop_not_roce +%" PRIu64, sdiff(&s0, &s1, "rx_drop_not_roce"));
	CHECK(nans == 0, "%u answers to silently dropped packets", nans);
	CHECK(sdiff(&s0, &s1, "rx_drop_unknown_qp") == 1,
	      "rx_drop_unknown_qp +%" PRIu64, sdiff(&s0, &s1, "rx_drop_unknown_qp"));
	CHECK(sdiff(&s0, &s1, "rx_drop_icrc") == 2, "rx_drop_icrc +%" PRIu64,
	      sdiff(&s0, &s1, "rx_drop_icrc"));
	CHECK(sdiff(&s0, &s1, "rx_drop_qkey") == 1, "rx_drop_qkey +%" PRIu64,
	      sdiff(&s0, &s1, "rx_drop_qkey"));
	CHECK(sdiff(&s0, &s1, "rx_drop_malformed") == 2,
	      "rx_drop_malformed +%" PRIu64, sdiff(&s0, &s1, "rx_drop_malformed"));
	CHECK(sdiff(&s0, &s1, "nak_seq_tx") + sdiff(&s0, &s1, "nak_inv_tx") +
	      sdiff(&s0, &s1, "nak_acc_tx") == 0, "NAKs sent");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "RC QP not RTS");
	CHECK(qp_state_of(ud_qpn) == ST_RTS, "UD QP not RTS");
	CHECK(wcs_of(q.qpn, w, 16) == 0, "RC completions");
	CHECK(wcs_of(ud_qpn, w, 16) == 0, "UD completions");
	CHECK(evs_of(q.qpn, ev_t, 16) == 0, "RC events");
	CHECK(evs_of(ud_qpn, ev_t, 16) == 0, "UD events");

	/* both QPs still work: the RC SEND at the same PSN, a good UD */
	send_at(&q, q.epsn);
	build_base(&b, WIRE_OP_UD_SEND_ONLY, ud_qpn, 8);
	b.ackreq = false;
	b.qkey = ud_qkey;
	b.src_qpn = q.dqpn;
	send_pkt(&b, 32, 0x3C, false);
	rx_drain(150);
	CHECK(ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE, -1) == 1 &&
	      wire_syn_kind(nth_ans(q.dqpn, 0).syn) == WIRE_AETH_ACK &&
	      nth_ans(q.dqpn, 0).psn == q.epsn, "one ACK for the good SEND");
	CHECK(wcs_of(q.qpn, w, 16) == 1 && w[0].status == PMR_WC_SUCCESS &&
	      w[0].len == 16 && w[0].wr_id == q.rid[0], "RC receive after");
	CHECK(wcs_of(ud_qpn, w, 16) == 1 && w[0].status == PMR_WC_SUCCESS &&
	      w[0].len == 32 + 40 && w[0].wr_id == udid, "UD receive after");
	verdict("6 unknown QPN / bad ICRC / wrong Q_Key / not our IP -> "
		"dropped, counted", bad);
}

static void case7(void)
{
	struct wire_build b;
	struct stats s0, s1;
	struct vqp q;
	struct wcrec w[16];
	int ev_t[16];
	int bad = 0;
	unsigned int nw;

	/* expected PSN near the wrap, so +5 crosses 2^24 */
	q = new_qp(0xFFFFFE);
	s0 = get_stats();
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, wire_psn_add(q.epsn, 5));
	send_pkt(&b, 64, 0x11, false);
	send_pkt(&b, 64, 0x11, false);     /* again: no second NAK */
	rx_drain(150);
	CHECK(ans_count(q.dqpn, -1, -1) == 1 &&
	      ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE,
			wire_syn_nak(WIRE_NAK_PSN_SEQ)) == 1,
	      "one PSN-sequence NAK");
	for (unsigned int i = 0; i < nans; i++)
		if (ans[i].dqpn == q.dqpn)
			CHECK(ans[i].psn == q.epsn, "NAK PSN 0x%x, expected 0x%x",
			      ans[i].psn, q.epsn);
	CHECK(wcs_of(q.qpn, w, 16) == 0, "completion for an out-of-sequence SEND");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS after a sequence NAK");
	if (bad)
		ans_dump();
	ans_clear();

	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, q.epsn);
	send_pkt(&b, 64, 0x22, false);
	rx_drain(100);
	send_pkt(&b, 64, 0x22, false);     /* duplicate */
	rx_drain(150);
	s1 = get_stats();
	CHECK(ans_count(q.dqpn, -1, -1) == 2 &&
	      ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE, -1) == 2,
	      "%u answers, expected an ACK and a re-ACK", ans_count(q.dqpn, -1, -1));
	for (unsigned int i = 0; i < nans; i++)
		if (ans[i].dqpn == q.dqpn)
			CHECK(wire_syn_kind(ans[i].syn) == WIRE_AETH_ACK &&
			      ans[i].psn == q.epsn,
			      "answer syn 0x%02x psn 0x%x, expected ACK 0x%x",
			      ans[i].syn, ans[i].psn, q.epsn);
	nw = wcs_of(q.qpn, w, 16);
	CHECK(nw == 1, "%u receive completions, expected 1", nw);
	if (nw >= 1)
		CHECK(w[0].status == PMR_WC_SUCCESS && w[0].len == 64 &&
		      w[0].wr_id == q.rid[0] && w[0].opcode == PMR_WC_RECV,
		      "receive status %d len %u", w[0].status, w[0].len);
	CHECK(sdiff(&s0, &s1, "dup_requests") == 1, "dup_requests +%" PRIu64,
	      sdiff(&s0, &s1, "dup_requests"));
	CHECK(sdiff(&s0, &s1, "nak_seq_tx") == 1, "nak_seq_tx +%" PRIu64,
	      sdiff(&s0, &s1, "nak_seq_tx"));
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");
	CHECK(evs_of(q.qpn, ev_t, 16) == 0, "async events");
	verdict("7 PSN +5 -> one sequence NAK; duplicate SEND delivered once", bad);
}

static void case8(void)
{
	struct wire_build b;
	struct vqp q;
	struct wcrec w[16];
	int ev_t[16];
	int bad = 0;
	uint32_t psns[3];

	q = new_qp(0x8000);
	psns[0] = q.sqpsn;
	psns[1] = wire_psn_add(q.sqpsn, 0xFFFFFF);
	psns[2] = wire_psn_add(q.sqpsn, 3);
	for (int i = 0; i < 3; i++) {
		build_base(&b, WIRE_OP_RC_ACKNOWLEDGE, q.qpn, psns[i]);
		b.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
		send_pkt(&b, 0, 0, false);
		b.syndrome = wire_syn_nak(WIRE_NAK_REM_ACCESS);
		send_pkt(&b, 0, 0, false);
		b.syndrome = wire_syn_nak(WIRE_NAK_PSN_SEQ);
		send_pkt(&b, 0, 0, false);
		b.syndrome = wire_syn_rnr_nak(1);
		send_pkt(&b, 0, 0, false);
		build_base(&b, WIRE_OP_RC_READ_RESPONSE_ONLY, q.qpn, psns[i]);
		b.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
		send_pkt(&b, 64, 0x77, false);
		build_base(&b, WIRE_OP_RC_READ_RESPONSE_FIRST, q.qpn, psns[i]);
		b.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
		send_pkt(&b, 1024, 0x77, false);
		build_base(&b, WIRE_OP_RC_READ_RESPONSE_MIDDLE, q.qpn, psns[i]);
		send_pkt(&b, 1024, 0x77, false);
		build_base(&b, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, q.qpn, psns[i]);
		b.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
		b.orig = 0x7777777777777777ull;
		send_pkt(&b, 0, 0, false);
	}
	rx_drain(200);
	CHECK(ans_count(q.dqpn, -1, -1) == 0, "%u answers to stray answers",
	      ans_count(q.dqpn, -1, -1));
	CHECK(wcs_of(q.qpn, w, 16) == 0, "completions from stray answers");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");
	CHECK(evs_of(q.qpn, ev_t, 16) == 0, "async events");
	CHECK(!guards_bad(), "guards");

	/* and the QP still works as a responder */
	ans_clear();
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q.qpn, q.epsn);
	send_pkt(&b, 8, 0x1, false);
	rx_drain(150);
	CHECK(ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE, -1) == 1, "ACK after");
	CHECK(wcs_of(q.qpn, w, 16) == 1 && w[0].status == PMR_WC_SUCCESS,
	      "receive after");
	verdict("8 unsolicited ACK/NAK/READ responses/atomic ACKs -> dropped", bad);
}

/* A UD datagram larger than the posted receive (GRH 40 + 300 > 256):
 * the receive completes with LOC_LEN_ERR exactly once, nothing is written
 * past the buffer, nothing is answered. */
static void case9(void)
{
	struct wire_build b;
	struct wcrec w[16];
	const char *r;
	uint64_t udid = 0;
	unsigned int nw;
	int bad = 0;

	ans_clear();
	r = ctl("RECV %u", ud_qpn);
	if (sscanf(r, "OK %" SCNu64, &udid) != 1)
		die("RECV: %s", r);
	build_base(&b, WIRE_OP_UD_SEND_ONLY, ud_qpn, 10);
	b.ackreq = false;
	b.qkey = ud_qkey;
	b.src_qpn = 0x77;
	send_pkt(&b, 300, 0x3C, false);
	rx_drain(150);
	nw = wcs_of(ud_qpn, w, 16);
	/* the first UD completion is case 6's good datagram */
	CHECK(nw == 2, "%u UD completions, expected 2", nw);
	if (nw >= 2)
		CHECK(w[1].wr_id == udid && w[1].status == PMR_WC_LOC_LEN_ERR,
		      "UD completion wr_id %" PRIu64 " status %s", w[1].wr_id,
		      pmr_wc_status_str(w[1].status));
	CHECK(nans == 0, "answers to a UD datagram");
	/* one datagram from anyone must not take the UD QP down */
	CHECK(qp_state_of(ud_qpn) == PMR_QPS_RTS,
	      "UD QP state %d after an oversized datagram, expected RTS",
	      qp_state_of(ud_qpn));
	verdict("9 UD datagram over the receive size -> LOC_LEN_ERR once, no overflow",
		bad);
}

/* A message cut short by a new one: the receive a SEND FIRST holds, and
 * the other one, complete exactly once when the QP fails; a duplicate
 * atomic is answered from the saved result, never executed again. */
static void case10(void)
{
	struct wire_build b;
	struct vqp q;
	int bad = 0;
	uint64_t orig[3] = { 0 };
	unsigned int k = 0;

	/* SEND FIRST of 128 bytes: a FIRST carries exactly one path MTU, so
	 * it is an invalid request at its own PSN (no receive is taken);
	 * the SEND ONLY after it finds the QP in ERR and is dropped */
	q = new_qp(0xA000);
	build_base(&b, WIRE_OP_RC_SEND_FIRST, q.qpn, q.epsn);
	b.ackreq = false;
	send_pkt(&b, 128, 0x3C, false);
	send_at(&q, wire_psn_add(q.epsn, 1));
	verdict("10 SEND FIRST short of the MTU -> NAK invalid, receives flushed once",
		expect_fatal(&q, 0x61, q.epsn, PMR_EVENT_QP_REQ_ERR, -1));

	q = new_qp(0xA100);
	build_base(&b, WIRE_OP_RC_WRITE_FIRST, q.qpn, q.epsn);
	b.ackreq = false;
	b.va = mr_va;
	b.rkey = mr_rkey;
	b.dma_len = 4096;
	send_pkt(&b, 1024, GUARD_BYTE, false);
	send_at(&q, wire_psn_add(q.epsn, 1));
	verdict("10 WRITE FIRST then SEND ONLY -> NAK invalid, receives flushed once",
		expect_fatal(&q, 0x61, wire_psn_add(q.epsn, 1),
			     PMR_EVENT_QP_REQ_ERR, -1));

	q = new_qp(0xA200);
	for (int i = 0; i < 3; i++) {
		build_base(&b, WIRE_OP_RC_FETCH_ADD, q.qpn,
			   wire_psn_add(q.epsn, i == 2 ? 1 : 0));
		b.va = mr_va + 64;
		b.rkey = mr_rkey;
		b.swap_add = i == 2 ? UINT64_MAX : 1;   /* +1, dup, -1 */
		send_pkt(&b, 0, 0, false);
		rx_drain(50);
	}
	rx_drain(100);
	for (unsigned int i = 0; i < nans; i++)
		if (ans[i].dqpn == q.dqpn &&
		    ans[i].opcode == WIRE_OP_RC_ATOMIC_ACKNOWLEDGE && k < 3)
			orig[k++] = ans[i].orig;
	CHECK(k == 3 && ans_count(q.dqpn, -1, -1) == 3, "%u atomic ACKs", k);
	CHECK(orig[0] == 0xA5A5A5A5A5A5A5A5ull && orig[1] == orig[0] &&
	      orig[2] == orig[0] + 1, "orig %" PRIx64 " %" PRIx64 " %" PRIx64,
	      orig[0], orig[1], orig[2]);
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");
	CHECK(!guards_bad(), "MR back to its value (the duplicate not executed)");
	verdict("10 duplicate FETCH_ADD answered from the saved result", bad);
}

static char **split_args(const char *s, int *argc)
{
	static char *v[64];
	char *d = strdup(s);
	int n = 0;

	v[n++] = "hostile";
	for (char *t = strtok(d, " \t"); t && n < 63; t = strtok(NULL, " \t"))
		v[n++] = t;
	v[n] = NULL;
	*argc = n;
	return v;
}

/*
 * The Solicited Event bit of the victim's requests: set on the last (or
 * only) packet of a solicited SEND or WRITE_WITH_IMM, whether the packet
 * was written whole from the QP's template (one-packet messages) or built
 * by the general path (the 2048-byte SEND); never on an unsolicited SEND,
 * a plain WRITE (nothing completes at the responder to solicit) or a
 * message's first packet.  Once acknowledged, all five complete.
 */
static void case48(void)
{
	static const struct { uint8_t op; bool se; uint32_t plen; } want[8] = {
		{ WIRE_OP_RC_SEND_ONLY, true, 64 },
		{ WIRE_OP_RC_SEND_ONLY, false, 64 },
		{ WIRE_OP_RC_WRITE_ONLY, false, 64 },
		{ WIRE_OP_RC_WRITE_ONLY_IMM, true, 64 },
		{ WIRE_OP_RC_SEND_FIRST, false, 1024 },
		{ WIRE_OP_RC_SEND_LAST, true, 1024 },
		{ WIRE_OP_RC_READ_REQUEST, false, 0 },
		{ WIRE_OP_RC_FETCH_ADD, false, 0 },
	};
	struct vqp q = new_qp(0x48000);
	struct wcrec w[16];
	unsigned int k, nw, ok = 0;
	const char *r;
	int bad = 0;

	if (strncmp(ctl("SCRATCH"), "OK", 2) != 0)
		die("SCRATCH failed");
	r = ctl("POSTSE %u", q.qpn);
	CHECK(strcmp(r, "OK") == 0, "POSTSE: %s", r);
	k = requests_until(q.dqpn, 8, 1000);
	CHECK(k == 8, "%u requests, expected 8", k);
	for (unsigned int i = 0; i < k && i < 8; i++) {
		struct ans a = nth_ans(q.dqpn, i);

		CHECK(a.opcode == want[i].op && a.se == want[i].se &&
		      a.plen == want[i].plen &&
		      a.psn == wire_psn_add(q.sqpsn, i),
		      "request %u: opcode 0x%02x SE %d %u bytes psn 0x%x, "
		      "expected 0x%02x SE %d %u bytes", i, a.opcode, a.se,
		      a.plen, a.psn, want[i].op, want[i].se, want[i].plen);
	}
	ack_to(&q, wire_psn_add(q.sqpsn, 5), 5);
	answer(&q, WIRE_OP_RC_READ_RESPONSE_ONLY, wire_psn_add(q.sqpsn, 6), 6,
	       64);
	answer(&q, WIRE_OP_RC_ATOMIC_ACKNOWLEDGE, wire_psn_add(q.sqpsn, 7), 7,
	       0);
	rx_drain(50);
	nw = wcs_of(q.qpn, w, 16);
	for (unsigned int i = 0; i < nw; i++)
		ok += w[i].wr_id == 7400 + ok && w[i].status == PMR_WC_SUCCESS;
	CHECK(nw == 7 && ok == 7, "%u completions, %u of them 7400.. in "
	      "order and successful, expected 7", nw, ok);
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");
	verdict("48 SE set on the last packet of solicited SENDs and "
		"WRITE_WITH_IMMs only, one packet or two, never on READ or "
		"atomic requests", bad);
}

/* A UC packet of opcode op at psn to u, plen bytes of fill; a WRITE's
 * FIRST or ONLY to the start of the MR, dma_len bytes. */
static void uc_pkt(const struct vqp *u, uint8_t op, uint32_t psn,
		   uint32_t plen, uint8_t fill, uint32_t dma_len)
{
	struct wire_build b;

	build_base(&b, op, u->qpn, psn);
	b.ackreq = false;
	b.va = mr_va;
	b.rkey = mr_rkey;
	b.dma_len = dma_len;
	send_pkt(&b, plen, fill, false);
}

/*
 * UC packets that continue no message of their kind, at the expected
 * PSN: dropped with the rest of their message, never placed through the
 * state of a message that ended.  (1) A SEND ONLY too long for the
 * receive buffer (LOC_LEN_ERR), then a SEND LAST: the LAST completes no
 * receive again and is dropped; a SEND ONLY after it takes the second
 * receive.  (2) A WRITE FIRST of 2048 bytes (its 1024 bytes the guard
 * value), a SEND ONLY that abandons it, then its MIDDLE and LAST: nothing
 * of them is written into the MR.  (3) A WRITE FIRST as in (2), then a
 * SEND LAST, which continues no SEND and abandons the WRITE, then the
 * WRITE's LAST: neither completes a receive or writes into the MR.
 */
static void case50(void)
{
	struct vqp u = new_vqp(true, 0x50000, 0, 0, 2);
	struct vqp v = new_vqp(true, 0x50800, 0, 0, 2);
	struct vqp x = new_vqp(true, 0x50c00, 0, 0, 2);
	struct stats s0, s1;
	struct wcrec w[16];
	unsigned int nw;
	uint32_t p;
	int bad = 0;

	s0 = get_stats();
	p = u.epsn;
	uc_pkt(&u, WIRE_OP_UC_SEND_ONLY, p, RLEN + 64, 0x3C, 0);
	uc_pkt(&u, WIRE_OP_UC_SEND_LAST, wire_psn_add(p, 1), 16, 0x3C, 0);
	uc_pkt(&u, WIRE_OP_UC_SEND_ONLY, wire_psn_add(p, 2), 16, 0x3C, 0);
	p = v.epsn;
	uc_pkt(&v, WIRE_OP_UC_WRITE_FIRST, p, 1024, GUARD_BYTE, 2048);
	uc_pkt(&v, WIRE_OP_UC_SEND_ONLY, wire_psn_add(p, 1), 16, 0x3C, 0);
	uc_pkt(&v, WIRE_OP_UC_WRITE_MIDDLE, wire_psn_add(p, 2), 1024, 0x3C, 0);
	uc_pkt(&v, WIRE_OP_UC_WRITE_LAST, wire_psn_add(p, 3), 1024, 0x3C, 0);
	p = x.epsn;
	uc_pkt(&x, WIRE_OP_UC_WRITE_FIRST, p, 1024, GUARD_BYTE, 2048);
	uc_pkt(&x, WIRE_OP_UC_SEND_LAST, wire_psn_add(p, 1), 16, 0x3C, 0);
	uc_pkt(&x, WIRE_OP_UC_WRITE_LAST, wire_psn_add(p, 2), 1024, 0x3C, 0);
	rx_drain(50);
	s1 = get_stats();
	nw = wcs_of(u.qpn, w, 16);
	CHECK(nw == 2 && w[0].wr_id == u.rid[0] &&
	      w[0].status == PMR_WC_LOC_LEN_ERR && w[1].wr_id == u.rid[1] &&
	      w[1].status == PMR_WC_SUCCESS && w[1].len == 16,
	      "SEND ONLY too long, SEND LAST, SEND ONLY: %u completions "
	      "(first wr_id %" PRIu64 " status %d, second %" PRIu64 " %d), "
	      "expected LOC_LEN_ERR then success", nw, nw ? w[0].wr_id : 0,
	      nw ? w[0].status : -1, nw > 1 ? w[1].wr_id : 0,
	      nw > 1 ? w[1].status : -1);
	nw = wcs_of(v.qpn, w, 16);
	CHECK(nw == 1 && w[0].wr_id == v.rid[0] &&
	      w[0].status == PMR_WC_SUCCESS && w[0].len == 16,
	      "WRITE FIRST, SEND ONLY, WRITE MIDDLE, LAST: %u completions "
	      "(first status %d), expected the SEND's", nw,
	      nw ? w[0].status : -1);
	nw = wcs_of(x.qpn, w, 16);
	CHECK(nw == 0, "WRITE FIRST, SEND LAST, WRITE LAST: %u completions "
	      "(first status %d), expected none", nw, nw ? w[0].status : -1);
	/* (2)'s LAST after its dropped MIDDLE goes as the rest of its
	 * message; (3)'s SEND LAST ends its message, so the WRITE LAST is
	 * judged on its own */
	CHECK(sdiff(&s0, &s1, "rx_drop_malformed") == 4,
	      "rx_drop_malformed +%" PRIu64 ", expected 4 (the SEND LAST "
	      "of (1), the WRITE MIDDLE of (2), both LASTs of (3))",
	      sdiff(&s0, &s1, "rx_drop_malformed"));
	CHECK(qp_state_of(u.qpn) == ST_RTS && qp_state_of(v.qpn) == ST_RTS &&
	      qp_state_of(x.qpn) == ST_RTS, "a UC QP left RTS");
	verdict("50 UC MIDDLE or LAST continuing no message of its kind -> "
		"dropped, the message in progress abandoned: no second "
		"completion of a receive, no write through an abandoned "
		"WRITE", bad);
}

/* ---- 49: random frames ---- */

static uint64_t rng_state;

/* xorshift64*: the same frames for the same seed */
static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* true with probability pct / 100 */
static bool rnd_pct(uint32_t pct)
{
	return rnd_below(100) < pct;
}

/* An opcode of the table, of transport tr most of the time. */
static uint8_t rnd_opcode(int tr)
{
	for (;;) {
		uint8_t op = (uint8_t)rnd();
		const struct wire_opcode_info *i = wire_opcode_info(op);

		if (i != NULL && i->transport != WIRE_TRANSPORT_CNP &&
		    (i->transport == tr || rnd_pct(15)))
			return op;
	}
}

/*
 * One random frame to the victim's QP qpn: an opcode of the table (of
 * transport tr mostly, request or answer) with random fields near the
 * values that reach the transport's checks (PSNs near psn, addresses in
 * and around the MR, its rkey), then most of the time changed: bytes of
 * the BTH and what follows, or its length, made consistent again (IP
 * lengths and checksum, ICRC), or bytes anywhere left inconsistent.
 * @return false when no frame was built (headers the builder refuses).
 */
static bool storm_frame(uint32_t qpn, int tr, uint32_t psn)
{
	const uint32_t bth_off = WIRE_ETH_LEN + WIRE_IPV4_LEN + WIRE_UDP_LEN;
	struct wire_build b;
	struct rte_mbuf *m;
	uint32_t plen = 0, len, room;
	uint8_t *f;
	int hl, r;

	build_base(&b, rnd_opcode(tr), qpn, wire_psn_add(psn,
		   rnd_pct(90) ? rnd_below(24) - 8 : rnd()));
	b.ackreq = rnd_pct(50);
	b.se = rnd_pct(20);
	b.mig = rnd_pct(5);
	if (rnd_pct(5))
		b.pkey = (uint16_t)rnd();
	b.va = rnd_pct(80) ? mr_va + rnd_below(MR_SIZE + 128) - 64 :
	       (uint64_t)rnd() << 32 | rnd();
	b.rkey = rnd_pct(75) ? mr_rkey : rnd_pct(40) ? nr_rkey : rnd();
	b.dma_len = rnd_pct(85) ? rnd_below(2200) : rnd();
	b.syndrome = (uint8_t)rnd();
	b.msn = rnd_pct(80) ? rnd_below(8) : rnd() & WIRE_PSN_MASK;
	b.swap_add = rnd();
	b.compare = rnd();
	b.orig = rnd();
	b.imm = rnd();
	b.inv_rkey = rnd();
	b.qkey = rnd_pct(70) ? ud_qkey : rnd();
	b.src_qpn = rnd() & WIRE_PSN_MASK;
	if (wire_opcode_info(b.opcode)->flags & WIRE_OPF_PAYLOAD)
		plen = rnd_pct(10) ? 1024 : rnd_below(1100);

	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		die("no mbuf");
	f = rte_pktmbuf_mtod(m, uint8_t *);
	room = rte_pktmbuf_tailroom(m);
	b.payload_len = plen;
	hl = wire_build_hdrs(f, room, &b);
	if (hl < 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	memset(f + hl, (int)rnd(), plen);
	r = wire_build_finish(f, room, (size_t)hl + plen);
	if (r < 0)
		die("wire_build_finish: %s", wire_err_str(r));
	len = (uint32_t)r;
	r = (int)rnd_below(100);
	if (r < 30) {
		/* bytes of the BTH and after it, consistent again */
		for (uint32_t k = 1 + rnd_below(4); k > 0; k--)
			f[bth_off + rnd_below(len - WIRE_ICRC_LEN - bth_off)] =
				(uint8_t)rnd();
		if (wire_reseal(f, len) != 0)
			die("wire_reseal: a whole frame refused");
	} else if (r < 40) {
		/* another length, consistent again: the opcode's headers
		 * cut short, or more or fewer payload bytes than the pad
		 * says */
		uint32_t n = bth_off + WIRE_ICRC_LEN + rnd_below(len - bth_off + 64);

		if (n > room)
			n = room;
		for (uint32_t k = len; k < n; k++)
			f[k] = (uint8_t)rnd();
		len = n;
		(void)wire_reseal(f, len);  /* (a BTH cut short: left so) */
	} else if (r < 48) {
		/* any byte, left inconsistent (checksum, ICRC, addresses) */
		f[rnd_below(len)] ^= (uint8_t)(1 + rnd_below(255));
	} else if (r < 50) {
		len = rnd_below(len);     /* cut anywhere */
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	tx_frame(m);
	return true;
}

/* Check the completions of a storm QP: no WR completes twice, receives
 * are the QP's own, and a QP in ERR has completed every WR (nsend sends
 * posted, wr_id from id0).  @return failed checks. */
static int storm_wcs(const struct vqp *q, unsigned int nsend, uint64_t id0)
{
	struct wcrec w[32];
	int st = qp_state_of(q->qpn), bad = 0;
	unsigned int nw = wcs_of(q->qpn, w, 32), nrecv = 0;

	/* (the state first: a QP that went to ERR a moment ago may still
	 * be flushing) */
	for (int k = 0; st == ST_ERR && nw < NRECV + nsend && k < 10; k++) {
		rx_drain(20);
		nw = wcs_of(q->qpn, w, 32);
	}

	CHECK(st == ST_RTS || st == ST_ERR || st == PMR_QPS_SQE,
	      "QP %u in state %d", q->qpn, st);
	for (unsigned int i = 0; i < nw; i++) {
		bool recv = w[i].opcode & PMR_WC_RECV;

		for (unsigned int j = 0; j < i; j++)
			CHECK(w[j].wr_id != w[i].wr_id, "QP %u: wr_id %" PRIu64
			      " completed twice", q->qpn, w[i].wr_id);
		if (recv) {
			nrecv++;
			CHECK(w[i].wr_id == q->rid[0] || w[i].wr_id == q->rid[1],
			      "QP %u: a receive completion with wr_id %" PRIu64
			      " it never posted", q->qpn, w[i].wr_id);
		} else {
			CHECK(w[i].wr_id >= id0 && w[i].wr_id < id0 + nsend,
			      "QP %u: a send completion with wr_id %" PRIu64
			      " it never posted", q->qpn, w[i].wr_id);
		}
	}
	if (bad)
		for (unsigned int i = 0; i < nw; i++)
			printf("    QP %u completion %u: wr_id %" PRIu64 " status"
			       " %s opcode 0x%x len %u\n", q->qpn, i,
			       w[i].wr_id, pmr_wc_status_str(w[i].status),
			       (unsigned int)w[i].opcode, w[i].len);
	if (st == ST_ERR)
		CHECK(nw == NRECV + nsend && nrecv == NRECV, "QP %u in ERR: %u "
		      "completions (%u receives), expected %u", q->qpn, nw,
		      nrecv, NRECV + nsend);
	return bad;
}

/*
 * Random frames: 32 rounds of 64 frames, each round to a new QP of the
 * victim (RC, every fourth UC) whose requester, in half the rounds, has
 * SENDs (of two packets in some) or a READ and a FETCH_ADD posted, and
 * now and then to the UD QP
 * or a QP that does not exist.  Frames of every opcode with fields near
 * the values that pass the checks, changed (bytes, lengths) and made
 * consistent again so that they reach the transport, or left broken.
 * Whatever the frames, the victim must stay up and answer, write nothing
 * outside the MR and the receive buffers, complete no WR twice and
 * none it never posted, complete every WR of a QP in ERR, and take a
 * SEND on a new QP afterwards.  HOSTILE_SEED picks other frames (the
 * seed is printed).
 */
static void case49(void)
{
	struct { struct vqp q; unsigned int nsend; uint64_t id0; } v[32];
	const char *seed = getenv("HOSTILE_SEED");
	uint64_t rx0, rx1, sent = 0;
	struct wcrec w[16];
	unsigned int nw;
	struct vqp q;
	int bad = 0;

	rng_state = seed ? strtoull(seed, NULL, 0) : 0x49u;
	if (rng_state == 0)
		rng_state = 1;
	printf("    case 49: seed 0x%" PRIx64 "\n", rng_state);
	if (strncmp(ctl("SCRATCH"), "OK", 2) != 0)
		die("SCRATCH failed");
	ctl("STATS");
	rx0 = stat_of("rx_pkts");
	for (unsigned int i = 0; i < 32; i++) {
		bool uc = i % 4 == 3;
		const char *r = "OK";

		v[i].q = uc ? new_vqp(true, 0x490000 + i * 0x1000, 0, 0, 2) :
			 new_qp_timed(0x490000 + i * 0x1000, 8, 2);
		v[i].nsend = 0;
		v[i].id0 = 7000;
		if (i % 8 == 1) {
			r = ctl("POSTRA %u", v[i].q.qpn);
			v[i].nsend = 2;
			v[i].id0 = 7100;
		} else if (i % 8 == 5) {
			/* two packets each: go-back-N from the middle */
			r = ctl("POST %u 8 ff 0 2048", v[i].q.qpn);
			v[i].nsend = 8;
		} else if (i % 2 == 1) {
			r = ctl("POST %u 4 f", v[i].q.qpn);
			v[i].nsend = 4;
		}
		CHECK(strcmp(r, "OK") == 0, "posting on QP %u: %s",
		      v[i].q.qpn, r);
		for (unsigned int k = 0; k < 64; k++) {
			uint32_t qpn = v[i].q.qpn, psn;
			int tr = uc ? WIRE_TRANSPORT_UC : WIRE_TRANSPORT_RC;

			if (rnd_pct(8)) {
				qpn = ud_qpn;
				tr = WIRE_TRANSPORT_UD;
			} else if (rnd_pct(3)) {
				qpn = rnd() & WIRE_PSN_MASK;
			}
			/* requests near the expected PSN, answers near
			 * the victim's own; each round moves on */
			psn = wire_psn_add(rnd_pct(60) ? v[i].q.epsn :
					   v[i].q.sqpsn, k / 2);
			sent += storm_frame(qpn, tr, psn);
		}
		rx_drain(2);
	}
	rx_drain(300);
	printf("    case 49: %" PRIu64 " frames sent\n", sent);
	ctl("STATS");
	rx1 = stat_of("rx_pkts");
	CHECK(rx1 - rx0 >= sent, "the victim counted %" PRIu64 " frames, "
	      "%" PRIu64 " were sent", rx1 - rx0, sent);
	for (unsigned int i = 0; i < 32; i++)
		bad += storm_wcs(&v[i].q, v[i].nsend, v[i].id0);
	{
		const char *r = ctl("GUARDS");
		uint64_t o, mr_changed, n;

		CHECK(sscanf(r, "OK %" SCNu64 " %" SCNu64 " %" SCNu64, &o,
			     &mr_changed, &n) == 3 && o == 0 && n == 0,
		      "bytes outside the MR or after a receive buffer "
		      "changed: %s", r);
	}
	CHECK(strcmp(ctl("REGUARD"), "OK") == 0, "REGUARD failed");
	ans_lost = 0;       /* the storm's answers: not counted */
	/* the victim still works: a SEND on a new QP completes */
	q = new_qp(0x4a0000);
	send_at(&q, q.epsn);
	rx_drain(50);
	nw = wcs_of(q.qpn, w, 16);
	CHECK(nw == 1 && w[0].status == PMR_WC_SUCCESS && w[0].len == 16,
	      "a SEND after the storm: %u completions (first status %d)",
	      nw, nw ? w[0].status : -1);
	CHECK(ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE,
			wire_syn_ack(WIRE_AETH_CREDIT_INVALID)) == 1,
	      "%u ACKs for the SEND after the storm, expected one",
	      ans_count(q.dqpn, WIRE_OP_RC_ACKNOWLEDGE,
			wire_syn_ack(WIRE_AETH_CREDIT_INVALID)));
	verdict("49 2048 random frames (fields, bytes, lengths changed; "
		"mostly consistent) -> no write outside the MR, no WR "
		"completed twice or never posted, a QP in ERR completes "
		"every WR, the victim still answers", bad);
}

/* A 64-byte WRITE ONLY of `fill` bytes to the MR's start, at psn. */
static void write_fill(const struct vqp *q, uint32_t psn, uint8_t fill)
{
	write_at(q, psn, mr_va, mr_rkey, 64, 64, fill);
}

/*
 * A READ of 64 bytes answered, a WRITE that changes those bytes, then
 * the READ again at its PSN (as its requester sends it after a lost
 * response): a duplicate, which the responder executes again (a READ's
 * data may have changed) and answers at the same PSN with the bytes as
 * they are now; counted as a duplicate, the QP still in RTS and
 * expecting the PSN after the WRITE (a SEND there is taken).
 */
static void case51(void)
{
	struct vqp q = new_qp(0x51000);
	uint32_t p0 = q.epsn;
	struct stats s0, s1;
	struct ans a[4];
	unsigned int nrr = 0;
	int bad = 0;

	s0 = get_stats();
	read_at(&q, p0, mr_va, mr_rkey, 64);
	rx_drain(50);
	write_fill(&q, wire_psn_add(p0, 1), 0x3C);
	rx_drain(50);
	read_at(&q, p0, mr_va, mr_rkey, 64);
	rx_drain(150);
	s1 = get_stats();
	for (unsigned int i = 0; i < 4; i++) {
		struct ans x = nth_ans(q.dqpn, i);

		if (x.opcode == WIRE_OP_RC_READ_RESPONSE_ONLY && nrr < 4)
			a[nrr++] = x;
	}
	CHECK(nrr == 2, "%u READ responses, expected 2", nrr);
	if (nrr == 2) {
		CHECK(a[0].psn == p0 && a[1].psn == p0 && a[0].plen == 64 &&
		      a[1].plen == 64, "READ responses psn 0x%x / 0x%x, %u / "
		      "%u bytes", a[0].psn, a[1].psn, a[0].plen, a[1].plen);
		CHECK(!a[0].out_of_mr, "the first response: not the MR's bytes");
		CHECK(a[1].out_of_mr, "the duplicate answered with the old bytes");
	}
	CHECK(sdiff(&s0, &s1, "dup_requests") == 1, "dup_requests +%" PRIu64,
	      sdiff(&s0, &s1, "dup_requests"));
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS");
	/* the MR's guard bytes back, at the PSN after the WRITE */
	write_fill(&q, wire_psn_add(p0, 2), GUARD_BYTE);
	CHECK(answer_until(q.dqpn, wire_psn_add(p0, 2), 200),
	      "no ACK for the WRITE after the duplicate");
	CHECK(qp_state_of(q.qpn) == ST_RTS, "QP not RTS at the end");
	verdict("51 a READ again at its PSN -> executed again, the bytes as "
		"they are now", bad);
}

/* The Ethernet address the victim's ACK for a SEND of ours to q at psn,
 * sent from Ethernet address smac, went to (zeros if none came). */
static void ack_dmac(const struct vqp *q, uint32_t psn, const uint8_t *smac,
		     uint8_t dmac[6])
{
	struct wire_build b;

	memset(dmac, 0, 6);
	ans_clear();
	build_base(&b, WIRE_OP_RC_SEND_ONLY, q->qpn, psn);
	memcpy(b.smac, smac, 6);
	send_pkt(&b, 16, 0x3C, false);
	if (!answer_until(q->dqpn, psn, 500))
		return;
	for (unsigned int k = 0; k < nans; k++)
		if (ans[k].dqpn == q->dqpn && ans[k].psn == psn)
			memcpy(dmac, ans[k].dmac, 6);
}

/* Whether a UD datagram of the victim's to QPN dq comes within ms
 * milliseconds (since the log was cleared); its Ethernet address in
 * dmac. */
static bool ud_arrives(uint32_t dq, uint64_t ms, uint8_t dmac[6])
{
	for (uint64_t end = now_ns() + ms * 1000000ull; now_ns() < end;) {
		rx_drain(0);
		for (unsigned int k = 0; k < nans; k++)
			if (ans[k].dqpn == dq) {
				memcpy(dmac, ans[k].dmac, 6);
				return true;
			}
	}
	return false;
}

/* The Ethernet address of the victim's next UD datagram to QPN dq. */
static void ud_dmac(uint32_t dq, uint8_t dmac[6])
{
	memset(dmac, 0, 6);
	ans_clear();
	if (strcmp(ctl("UDSEND 1 %u", dq), "OK") == 0)
		ud_arrives(dq, 500, dmac);
}


/*
 * A gratuitous ARP (sender and target our own address, not the victim's)
 * with a new Ethernet address, as a peer whose NIC failed over announces
 * itself: the victim's neighbour entry for us takes it.  A connected QP
 * keeps the address it resolved first, as an RNIC's QP keeps the one
 * modify_qp gave it; a QP connected after the ARP and a UD datagram use
 * the new one.  A second ARP puts our own address back.  Our frames come
 * from the address announced, as a real peer's would: a QP's first
 * packet from its peer also fills the entry (roce.rst).
 */
static void case52(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t moved[6] = { 0x02, 0, 0, 0x98, 0, 0x52 };
	struct vqp q1 = new_qp(0x52000), q2, q3;
	uint8_t m[6];
	int bad = 0;

	ack_dmac(&q1, q1.epsn, amac, m);
	CHECK(memcmp(m, amac, 6) == 0, "the first ACK went to ..:%02x", m[5]);
	arp_frame(1, bcast, moved, agid + 12, bcast, agid + 12);
	rx_drain(20);
	ud_dmac(0x52A52, m);
	CHECK(memcmp(m, moved, 6) == 0, "UD after the ARP: to ..:%02x, "
	      "expected ..:52", m[5]);
	ack_dmac(&q1, wire_psn_add(q1.epsn, 1), moved, m);
	CHECK(memcmp(m, amac, 6) == 0, "the QP connected before the ARP: "
	      "ACK to ..:%02x, expected ..:02 (its own)", m[5]);
	q2 = new_qp(0x52100);
	ack_dmac(&q2, q2.epsn, moved, m);
	CHECK(memcmp(m, moved, 6) == 0, "the QP connected after the ARP: "
	      "ACK to ..:%02x, expected ..:52", m[5]);
	arp_frame(1, bcast, amac, agid + 12, bcast, agid + 12);
	rx_drain(20);
	ud_dmac(0x52A52, m);
	CHECK(memcmp(m, amac, 6) == 0, "UD after the ARP back: to ..:%02x",
	      m[5]);
	q3 = new_qp(0x52200);
	ack_dmac(&q3, q3.epsn, amac, m);
	CHECK(memcmp(m, amac, 6) == 0, "after the ARP back: ACK to ..:%02x",
	      m[5]);
	CHECK(qp_state_of(q1.qpn) == ST_RTS && qp_state_of(q2.qpn) == ST_RTS,
	      "QPs not RTS");
	verdict("52 a gratuitous ARP with a new MAC -> new QPs and UD use it, "
		"a connected QP keeps its own", bad);
}

/*
 * An ACK owed when the application moves the QP to ERR and then, before
 * any engine run, to RESET: as in case 26 the ACK is not sent.  The
 * move to RESET sends what the QP owes (cases 22 and 23), but a QP in
 * ERR owes no ACK any more: the pass drops it instead.
 */
static void case53(void)
{
	ack_owed_err(0x53000, "ERRRESET", ST_RESET, "53 modify_qp to ERR then "
		     "RESET with an ACK owed -> no ACK");
}

/*
 * A PSN sequence NAK for the request behind an unanswered READ: the
 * requester posts a 5120-byte READ and a FETCH_ADD (no timer in the
 * way); we NAK the FETCH_ADD's PSN.  The NAK acknowledges the READ's
 * PSNs, so its responses were lost: the requester sends the READ again,
 * then the FETCH_ADD (go-back-N from the READ), once.  A copy of the NAK
 * then changes nothing: the go-back it asks for is under way, no progress
 * since (before, it started a third round of requests and spent a
 * retry).  Answered, both complete.
 */
static void case54(void)
{
	struct vqp q = new_qp_timed(0x54000, 18, 7);
	uint32_t p0 = q.sqpsn, p5 = wire_psn_add(p0, 5);
	struct qpstat qs;
	int bad = 0;

	bad += read_atomic_posted(&q, false, 5120);
	aeth_to(&q, p5, wire_syn_nak(WIRE_NAK_PSN_SEQ), 0);
	bad += sent_again(&q, WIRE_OP_RC_READ_REQUEST, p0,
			  WIRE_OP_RC_FETCH_ADD, p5, 60);
	aeth_to(&q, p5, wire_syn_nak(WIRE_NAK_PSN_SEQ), 0);
	rx_drain(30);
	CHECK(ans_count(q.dqpn, -1, -1) == 4, "%u requests after the NAK's "
	      "copy, expected the 4", ans_count(q.dqpn, -1, -1));
	qs = qp_stat(q.qpn);
	CHECK(qs.timeouts == 0 && qs.retransmits == 1, "the QP's timeouts %"
	      PRIu64 " retransmits %" PRIu64 ", expected 0 and 1",
	      qs.timeouts, qs.retransmits);
	bad += read5_finish(&q, 0);
	verdict("54 a sequence NAK for the request behind an unanswered READ "
		"-> the READ asked again first, once", bad);
}

/*
 * An ARP message for another address from a sender the victim does not
 * know (10.98.0.155, no other case's, announcing itself): no neighbour
 * entry is added.  A UD datagram to 10.98.0.155 then makes the victim ask
 * for its address rather than go to the one announced, and goes to the
 * one our answer gives.
 */
static void case55(void)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t announced[6] = { 0x02, 0, 0, 0x98, 0, 0x55 };
	static const uint8_t answered[6] = { 0x02, 0, 0, 0x98, 0, 0x56 };
	static const uint8_t ip[4] = { 10, 98, 0, 155 };
	const uint32_t dq = 0x55A55;
	uint8_t m[6];
	int bad = 0;

	arp_frame(1, bcast, announced, ip, bcast, ip);
	rx_drain(20);
	memcpy(arp_watch, ip, 4);
	arp_asked = 0;
	ans_clear();
	CHECK(strcmp(ctl("UDSEND 1 %u 155", dq), "OK") == 0, "UDSEND to .155");
	CHECK(!ud_arrives(dq, 200, m), "a datagram to ..:%02x before any "
	      "answer (an entry from the announcement)", m[5]);
	CHECK(arp_asked > 0, "no ARP request for .155");
	arp_frame(2, vmac, answered, ip, vmac, vgid + 12);
	CHECK(ud_arrives(dq, 500, m) && memcmp(m, answered, 6) == 0,
	      "the datagram after the answer: to ..:%02x, expected ..:56",
	      m[5]);
	verdict("55 an ARP for another address from an unknown sender -> "
		"no entry; the datagram waits for the answer", bad);
}

/* In the order they run. */
static const struct {
	unsigned int n;
	void (*fn)(void);
} cases[] = {
	{ 1, case1 },
	{ 2, case2 },
	{ 3, case3 },
	{ 4, case4 },
	{ 5, case5 },
	{ 6, case6 },
	{ 7, case7 },
	{ 8, case8 },
	{ 10, case10 },
	{ 9, case9 },
	{ 11, case11 },
	{ 12, case12 },
	{ 13, case13 },
	{ 14, case14 },
	{ 15, case15 },
	{ 16, case16 },
	{ 17, case17 },
	{ 18, case18 },
	{ 19, case19 },
	{ 20, case20 },
	{ 21, case21 },
	{ 22, case22 },
	{ 23, case23 },
	{ 24, case24 },
	{ 25, case25 },
	{ 26, case26 },
	{ 27, case27 },
	{ 28, case28 },
	{ 29, case29 },
	{ 30, case30 },
	{ 31, case31 },
	{ 32, case32 },
	{ 33, case33 },
	{ 34, case34 },
	{ 35, case35 },
	{ 36, case36 },
	{ 37, case37 },
	{ 38, case38 },
	{ 39, case39 },
	{ 40, case40 },
	{ 41, case41 },
	{ 42, case42 },
	{ 43, case43 },
	{ 44, case44 },
	{ 45, case45 },
	{ 46, case46 },
	{ 47, case47 },
	{ 48, case48 },
	{ 50, case50 },
	{ 49, case49 },
	{ 51, case51 },
	{ 52, case52 },
	{ 53, case53 },
	{ 54, case54 },
	{ 55, case55 },
};

/* HOSTILE_CASES: the case numbers to run, separated by spaces or commas
 * (all when unset). */
static bool case_selected(unsigned int n)
{
	const char *sel = getenv("HOSTILE_CASES");
	char *end;

	if (sel == NULL || *sel == '\0')
		return true;
	while (*sel != '\0') {
		unsigned long v = strtoul(sel, &end, 10);

		if (end == sel) {
			sel++;
			continue;
		}
		if (v == n)
			return true;
		sel = end;
	}
	return false;
}

static int attacker(const char *path)
{
	const char *eal = getenv("HOSTILE_EAL_ARGS");
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	struct sockaddr_un sa;
	uint64_t end;
	char **av;
	int ac;
	const char *r;
	unsigned int ran = 0;

	if (eal == NULL)
		die("HOSTILE_EAL_ARGS not set");
	av = split_args(eal, &ac);
	if (rte_eal_init(ac, av) < 0)
		die("rte_eal_init failed");
	if (rte_eth_dev_count_avail() < 1)
		die("no ethdev");
	port_id = 0;
	pool = rte_pktmbuf_pool_create("hostile", 4095, 64, 0, 8192 + 128,
				       (int)rte_socket_id());
	if (pool == NULL)
		die("mempool");
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port_id, 1, 1, &conf) ||
	    rte_eth_rx_queue_setup(port_id, 0, 1024, rte_socket_id(), NULL,
				   pool) ||
	    rte_eth_tx_queue_setup(port_id, 0, 1024, rte_socket_id(), NULL) ||
	    rte_eth_dev_start(port_id))
		die("port set-up");
	rte_eth_promiscuous_enable(port_id);
	end = now_ns() + 15000000000ull;
	do {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(port_id, &link);
		if (link.link_status)
			break;
		usleep(10000);
	} while (now_ns() < end);
	if (!link.link_status)
		die("memif link never came up");

	cfd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(cfd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect %s: %s", path, strerror(errno));
	cin = fdopen(dup(cfd), "r");
	r = ctl("INFO");
	if (sscanf(r, "OK %" SCNu64 " %u %u %" SCNu64 " %u %u %u", &mr_va,
		   &mr_rkey, &mr_len, &nr_va, &nr_rkey, &ud_qpn, &ud_qkey) != 7)
		die("INFO: %s", r);
	printf("attacker: MR 0x%" PRIx64 "+%u rkey 0x%x, no-remote MR rkey 0x%x, "
	       "UD QP 0x%x\n", mr_va, mr_len, mr_rkey, nr_rkey, ud_qpn);

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (case_selected(cases[i].n)) {
			cases[i].fn();
			ran++;
		}
	if (ran == 0)
		verdict("HOSTILE_CASES selects no case", 1);

	verdict("guard bytes intact at the end", 0);    /* verdict checks */
	ctl("QUIT");
	printf("attacker: %d failure(s)\n", fails);
	fflush(stdout);
	/* leave without closing the port: the victim exits first */
	_exit(fails ? 1 : 0);
}

int main(int argc, char **argv)
{
	const char *ctlp = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--role") == 0)
			role = argv[i + 1];
		else if (strcmp(argv[i], "--ctl") == 0)
			ctlp = argv[i + 1];
	}
	if (ctlp == NULL)
		die("usage: hostile --role victim|attacker --ctl PATH");
	if (strcmp(role, "victim") == 0)
		victim(ctlp);
	if (strcmp(role, "attacker") == 0)
		return attacker(ctlp);
	die("unknown role %s", role);
	return 1;
}
