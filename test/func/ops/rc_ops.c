/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc_ops: functional tests of the RoCE engine between two pmrdma processes
 * on RC QPs (opcodes, message sizes x path MTUs, inline, posts while
 * another thread runs the engine, several SGEs, many QPs, error statuses,
 * peer death).
 *
 *   rc_ops --role server|client --ctl PATH [--peer-ip A] [--case NAME]...
 *   rc_ops --role probe [--expect-errno EINVAL|none|N]
 *                       [--expect-list-errno ENOTCONN|N]
 *
 * The device comes from PMR_EAL_ARGS / PMR_DEVICES (pmr_roce0).  The
 * client is the requester: it drives every scenario and checks its own
 * completions.  The server is a command-driven agent: over the Unix
 * control socket at PATH the client asks it to create and connect QPs,
 * post receives, fill / verify memory and check its receive completions,
 * QP states and async events; it answers OK or FAIL with a reason.  Both
 * keep the engine progressing (pmr_progress) while waiting for the
 * control socket, so ARP and ACKs are always answered.
 *
 * The client exits 0 when every selected case passed.  The server exits 0
 * when told to quit (or to die, in the peer_kill case).
 *
 * peer_kill: the server _exit()s in the middle of a stream of WRITEs
 * (--kill-mode exit, the default), or with --kill-mode freeze stops
 * running its engine (as if hung) and exits once the client is done.
 * memif needs "freeze": DPDK 22.11's memif PMD munmaps its shared regions
 * in the interrupt thread when the peer disconnects, racing with
 * eth_memif_tx in the polling thread (the client segfaults in
 * rte_eth_tx_burst now and then).  For the same reason the two processes
 * shut down in order, without polling once the peer may be exiting.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pmr_verbs.h>
#include <pmr_roce.h>

#include "pmrt.h"

#define MAXQP 64
#define MAXSGE 8
#define BUF_SIZE (8u << 20)         /* main buffer, each side */
#define SMALL_SIZE 4096u            /* small MR (bounds tests) */
#define NR_SIZE 65536u              /* MR without remote rights */
#define CANARY 0xEE
#define GUARD 64u
#define CQ_SIZE 16384
#define WAIT_NS (20ull * 1000000000ull)
#define MIB (1u << 20)

/* ---- control protocol ----------------------------------------------------- */

enum {
	C_CASE_BEGIN = 1, C_POST_RECV, C_EXPECT_RECV, C_FILL, C_VERIFY,
	C_CANARY, C_SET64, C_GET64, C_EXPECT_QP, C_LATE_RECV, C_DIE,
	C_CASE_END, C_QUIT, C_EXPECT_NONE,
};

struct qpspec {
	uint32_t nqp;
	uint32_t path_mtu;             /* enum pmr_mtu */
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	uint32_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t psn_base;
};

struct rsge {
	uint64_t off;
	uint32_t len;
	uint32_t lkey_xor;      /* XORed into the lkey: non-zero, a bad key */
};

struct cmd {
	uint32_t type;
	int32_t qp;
	uint64_t wr_id;
	uint64_t off, len, idx0;
	uint32_t seed, guard;
	int32_t status, opcode;
	uint32_t byte_len, has_imm, imm;  /* imm in host order */
	int32_t event, state;
	uint32_t delay_ms;
	uint64_t val;
	uint32_t nsge;
	struct rsge sge[MAXSGE];
	struct qpspec spec;
	uint32_t qpn[MAXQP], psn[MAXQP];
};

struct reply {
	int32_t ok;
	char text[256];
	uint64_t val;
	uint64_t buf, small, nr;
	uint32_t buf_rkey, small_rkey, nr_rkey;
	uint32_t nqp;
	uint32_t qpn[MAXQP], psn[MAXQP];
};

/* ---- global state ------------------------------------------------------------ */

static bool is_server;
static const char *peer_ip = NULL;
static bool kill_freeze;           /* --kill-mode freeze */
static struct pmr_device *dev;
static struct pmr_context *ctx;
static struct pmr_pd *pd;
static struct pmr_cq *cq;
static uint8_t *buf, *small, *nrbuf;
static struct pmr_mr *mr, *small_mr, *nr_mr;
static struct pmr_qp *qps[MAXQP];
static uint32_t nqps;

/* completions polled but not consumed yet, in polling order */
#define STASH_MAX 65536
static struct pmr_wc stash[STASH_MAX];
static bool stash_used[STASH_MAX];
static uint32_t nstash;

struct aev {
	struct pmr_qp *qp;
	int type;
};
static struct aev aevs[256];
static uint32_t naevs;

static void poll_async(void)
{
	struct pmr_async_event ev;

	while (pmr_get_async_event(ctx, &ev) == 0) {
		if (naevs < sizeof(aevs) / sizeof(aevs[0])) {
			aevs[naevs].qp = ev.element.qp;
			aevs[naevs].type = (int)ev.event_type;
			naevs++;
		}
		printf("%s: async event %s\n", is_server ? "server" : "client",
		       pmr_event_type_str(ev.event_type));
		pmr_ack_async_event(&ev);
	}
}

static void poll_into_stash(void)
{
	struct pmr_wc wc[32];
	int n = pmr_poll_cq(cq, 32, wc);

	if (n < 0)
		pmrt_die("pmr_poll_cq: %d", n);
	for (int i = 0; i < n; i++) {
		if (nstash == STASH_MAX) {
			/* compact */
			uint32_t k = 0;

			for (uint32_t j = 0; j < nstash; j++)
				if (!stash_used[j]) {
					stash[k] = stash[j];
					stash_used[k++] = false;
				}
			nstash = k;
			if (nstash == STASH_MAX)
				pmrt_die("completion stash full");
		}
		stash[nstash] = wc[i];
		stash_used[nstash++] = false;
	}
}

static void stash_clear(void)
{
	nstash = 0;
}

/* how long take_wc waits; the SQD / ARP cases lower it */
static uint64_t wait_ns = WAIT_NS;

/* Take the oldest completion of QP qpn; wait up to wait_ns. */
static bool take_wc(uint32_t qpn, struct pmr_wc *out)
{
	uint64_t end = pmrt_now_ns() + wait_ns;
	uint32_t from = 0;

	for (;;) {
		for (uint32_t i = from; i < nstash; i++) {
			if (stash_used[i] || stash[i].qp_num != qpn)
				continue;
			stash_used[i] = true;
			*out = stash[i];
			return true;
		}
		from = nstash;
		if (pmrt_now_ns() > end)
			return false;
		poll_into_stash();
		poll_async();
	}
}

/* ---- verbs set-up ---------------------------------------------------------- */

static void dev_open(void)
{
	ctx = pmrt_open_roce(&dev);
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	if (!is_server) {
		/* no service_lcore= on these devices: the service mode is not
		 * available, and the context stays as it was (every case
		 * after this runs on it, inline) */
		int r = pmr_set_progress_mode(ctx, PMR_PROGRESS_SERVICE);

		if (r != ENOTSUP)
			pmrt_die("set_progress_mode(SERVICE) without service_lcore: "
				 "%d (%s), expected ENOTSUP", r, strerror(r));
		if (pmr_progress(ctx, 32) < 0)
			pmrt_die("pmr_progress after the refused mode change");
	}
	pd = pmr_alloc_pd(ctx);
	cq = pmr_create_cq(ctx, CQ_SIZE, NULL, NULL, 0);
	buf = pmrt_alloc_buf(BUF_SIZE);
	small = pmrt_alloc_buf(SMALL_SIZE);
	nrbuf = pmrt_alloc_buf(NR_SIZE);
	if (pd == NULL || cq == NULL || buf == NULL || small == NULL ||
	    nrbuf == NULL)
		pmrt_die("set-up: %s", strerror(errno));
	int all = PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE |
		  PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC;
	mr = pmr_reg_mr(pd, buf, BUF_SIZE, all);
	small_mr = pmr_reg_mr(pd, small, SMALL_SIZE, all);
	nr_mr = pmr_reg_mr(pd, nrbuf, NR_SIZE, PMR_ACCESS_LOCAL_WRITE);
	if (mr == NULL || small_mr == NULL || nr_mr == NULL)
		pmrt_die("reg_mr: %s", strerror(errno));
}

static struct pmr_qp *qp_create(const struct qpspec *s)
{
	struct pmr_qp_cap cap = {
		.max_send_wr = s->max_send_wr, .max_recv_wr = s->max_recv_wr,
		.max_send_sge = s->max_send_sge, .max_recv_sge = s->max_recv_sge,
		.max_inline_data = s->max_inline,
	};
	struct pmr_qp *qp = pmrt_qp_create(pd, cq, PMR_QPT_RC, &cap,
					   PMR_ACCESS_REMOTE_WRITE |
					   PMR_ACCESS_REMOTE_READ |
					   PMR_ACCESS_REMOTE_ATOMIC, 0);

	if (cap.max_inline_data < s->max_inline)
		pmrt_die("max_inline_data granted %u < %u", cap.max_inline_data,
			 s->max_inline);
	return qp;
}

static void qp_connect_ip(struct pmr_qp *qp, const struct qpspec *s,
			  uint32_t my_psn, uint32_t dqpn, uint32_t dpsn,
			  const char *ip)
{
	struct pmrt_conn c = {
		.type = PMR_QPT_RC, .path_mtu = (enum pmr_mtu)s->path_mtu,
		.sq_psn = my_psn, .dest_qpn = dqpn, .rq_psn = dpsn,
		.hop_limit = 64,
		.max_dest_rd_atomic = 16, .max_rd_atomic = 16,
		.min_rnr_timer = (uint8_t)s->min_rnr_timer,
		.timeout = (uint8_t)s->timeout,
		.retry_cnt = (uint8_t)s->retry_cnt,
		.rnr_retry = (uint8_t)s->rnr_retry,
	};

	pmrt_ip_to_gid(ip, c.dgid);
	pmrt_qp_connect(qp, &c);
}

static void qp_connect(struct pmr_qp *qp, const struct qpspec *s,
		       uint32_t my_psn, uint32_t dqpn, uint32_t dpsn)
{
	qp_connect_ip(qp, s, my_psn, dqpn, dpsn, peer_ip);
}

static void qps_destroy(void)
{
	/* let late completions and events arrive, then drop them */
	uint64_t end = pmrt_now_ns() + 2000000ull;

	while (pmrt_now_ns() < end) {
		poll_into_stash();
		poll_async();
	}
	for (uint32_t i = 0; i < nqps; i++) {
		int r = pmr_destroy_qp(qps[i]);

		if (r)
			pmrt_die("destroy_qp: %s", strerror(r));
		qps[i] = NULL;
	}
	nqps = 0;
	poll_into_stash();
	stash_clear();
	naevs = 0;
}

static void print_stats(void)
{
	struct pmr_roce_port_stats s;
	const char *who = is_server ? "server" : "client";

	if (pmr_roce_port_stats(dev, &s)) {
		printf("%s: no port stats\n", who);
		return;
	}
	printf("%s: port stats: rx_pkts %" PRIu64 " rx_bytes %" PRIu64
	       " tx_pkts %" PRIu64 " tx_bytes %" PRIu64 " tx_full %" PRIu64
	       " tx_drops %" PRIu64 "\n", who, s.rx_pkts, s.rx_bytes,
	       s.tx_pkts, s.tx_bytes, s.tx_full, s.tx_drops);
	printf("%s:   drops: not_roce %" PRIu64 " malformed %" PRIu64
	       " icrc %" PRIu64 " unknown_qp %" PRIu64 " state %" PRIu64
	       " qkey %" PRIu64 " no_recv %" PRIu64 "\n", who,
	       s.rx_drop_not_roce, s.rx_drop_malformed, s.rx_drop_icrc,
	       s.rx_drop_unknown_qp, s.rx_drop_state, s.rx_drop_qkey,
	       s.rx_drop_no_recv);
	printf("%s:   arp rx %" PRIu64 " tx %" PRIu64 "; retransmits %" PRIu64
	       " timeouts %" PRIu64 " rnr_waits %" PRIu64 " dup %" PRIu64
	       " out_of_seq %" PRIu64 "\n", who, s.arp_rx, s.arp_tx,
	       s.retransmits, s.timeouts, s.rnr_waits, s.dup_requests,
	       s.out_of_seq);
	printf("%s:   nak rx/tx: seq %" PRIu64 "/%" PRIu64 " rnr %" PRIu64
	       "/%" PRIu64 " inv %" PRIu64 "/%" PRIu64 " acc %" PRIu64
	       "/%" PRIu64 " op %" PRIu64 "/%" PRIu64 "\n", who,
	       s.nak_seq_rx, s.nak_seq_tx, s.nak_rnr_rx, s.nak_rnr_tx,
	       s.nak_inv_rx, s.nak_inv_tx, s.nak_acc_rx, s.nak_acc_tx,
	       s.nak_op_rx, s.nak_op_tx);
	fflush(stdout);
}

/* ============================================================================
 * Server
 * ==========================================================================*/

static struct reply rep;

static void srv_post_recv(const struct cmd *c)
{
	struct pmr_sge sg[MAXSGE];
	struct pmr_recv_wr wr, *bad;
	int r;

	if (!pmrt_qp_index_ok(nqps, c->qp) || c->nsge > MAXSGE) {
		if (c->nsge > MAXSGE)
			pmrt_rep_fail("too many SGEs");
		return;
	}
	for (uint32_t i = 0; i < c->nsge; i++) {
		if (!pmrt_region_ok(BUF_SIZE, c->sge[i].off, c->sge[i].len))
			return;
		memset(buf + c->sge[i].off, CANARY, c->sge[i].len);
		sg[i].addr = (uintptr_t)(buf + c->sge[i].off);
		sg[i].length = c->sge[i].len;
		sg[i].lkey = mr->lkey ^ c->sge[i].lkey_xor;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = c->wr_id;
	wr.sg_list = sg;
	wr.num_sge = (int)c->nsge;
	r = pmr_post_recv(qps[c->qp], &wr, &bad);
	if (r)
		pmrt_rep_fail("post_recv: %s", strerror(r));
}

static void srv_expect_recv(const struct cmd *c)
{
	struct pmr_wc wc;
	uint64_t total = 0, k = 0;

	if (!pmrt_qp_index_ok(nqps, c->qp))
		return;
	if (!take_wc(qps[c->qp]->qp_num, &wc)) {
		pmrt_rep_fail("no receive completion on QP %#x (wr_id %" PRIu64 ")",
			 qps[c->qp]->qp_num, c->wr_id);
		return;
	}
	if (!pmrt_recv_wc_ok(&wc, c->wr_id, c->status, c->opcode, c->byte_len,
			     c->has_imm, c->imm))
		return;
	/* the scatter list: the message, then untouched canary */
	for (uint32_t i = 0; i < c->nsge; i++)
		total += c->sge[i].len;
	for (uint32_t i = 0; i < c->nsge; i++) {
		const uint8_t *p = buf + c->sge[i].off;

		for (uint32_t j = 0; j < c->sge[i].len; j++, k++) {
			bool data = c->opcode == PMR_WC_RECV && k < wc.byte_len;
			uint8_t want = data ? pmrt_pat(c->seed, k) : CANARY;

			if (p[j] != want) {
				pmrt_rep_fail("recv data: byte %" PRIu64 " (sge %u +%u) is "
					 "%#x, expected %#x (%s; msg %u, sges %" PRIu64
					 ")", k, i, j, p[j], want,
					 data ? "message" : "canary",
					 wc.byte_len, total);
				return;
			}
		}
	}
}

static void srv_expect_qp(const struct cmd *c)
{
	uint64_t end = pmrt_now_ns() + 5000000000ull;
	enum pmr_qp_state s;

	if (!pmrt_qp_index_ok(nqps, c->qp))
		return;
	if (c->event >= 0) {
		for (;;) {
			bool found = false;

			for (uint32_t i = 0; i < naevs; i++)
				if (aevs[i].qp == qps[c->qp] &&
				    aevs[i].type == c->event)
					found = true;
			if (found)
				break;
			if (pmrt_now_ns() > end) {
				pmrt_rep_fail("no async event %s on QP %#x",
					 pmr_event_type_str((enum pmr_event_type)
							    c->event),
					 qps[c->qp]->qp_num);
				return;
			}
			pmrt_progress();
			poll_async();
		}
	}
	s = pmrt_qp_state(qps[c->qp]);
	if ((int)s != c->state)
		pmrt_rep_fail("QP %#x is in state %d, expected %d",
			 qps[c->qp]->qp_num, s, c->state);
}

/* No completion at all on the QP for delay_ms (engine progressing). */
static void srv_expect_none(const struct cmd *c)
{
	uint64_t end = pmrt_now_ns() + (uint64_t)c->delay_ms * 1000000ull;
	uint32_t qpn;

	if (!pmrt_qp_index_ok(nqps, c->qp))
		return;
	qpn = qps[c->qp]->qp_num;
	do {
		pmrt_progress();
		poll_into_stash();
		poll_async();
		for (uint32_t i = 0; i < nstash; i++)
			if (!stash_used[i] && stash[i].qp_num == qpn) {
				pmrt_rep_fail("unexpected completion on QP %#x: wr_id %"
					 PRIu64 " status %s opcode %d byte_len %u",
					 qpn, stash[i].wr_id,
					 pmr_wc_status_str(stash[i].status),
					 stash[i].opcode, stash[i].byte_len);
				return;
			}
	} while (pmrt_now_ns() < end);
}

static void srv_case_begin(const struct cmd *c)
{
	const struct qpspec *s = &c->spec;

	if (nqps)
		qps_destroy();
	if (s->nqp == 0 || s->nqp > MAXQP) {
		pmrt_rep_fail("bad nqp %u", s->nqp);
		return;
	}
	stash_clear();
	naevs = 0;
	for (uint32_t i = 0; i < s->nqp; i++) {
		uint32_t psn = (s->psn_base + 0x400000 + i * 7919) & 0xffffff;

		qps[i] = qp_create(s);
		qp_connect(qps[i], s, psn, c->qpn[i], c->psn[i]);
		rep.qpn[i] = qps[i]->qp_num;
		rep.psn[i] = psn;
	}
	nqps = s->nqp;
	rep.nqp = nqps;
}

static void server_loop(void)
{
	struct cmd c;

	pmrt_rep_bind(&rep.ok, rep.text, sizeof(rep.text));
	rep.buf = (uintptr_t)buf;
	for (;;) {
		if (!pmrt_ctl_read(&c, sizeof(c)))
			pmrt_die("control socket closed without QUIT");
		memset(&rep, 0, sizeof(rep));
		rep.ok = 1;
		rep.buf = (uintptr_t)buf;
		rep.buf_rkey = mr->rkey;
		rep.small = (uintptr_t)small;
		rep.small_rkey = small_mr->rkey;
		rep.nr = (uintptr_t)nrbuf;
		rep.nr_rkey = nr_mr->rkey;
		switch (c.type) {
		case C_CASE_BEGIN:
			srv_case_begin(&c);
			break;
		case C_POST_RECV:
			srv_post_recv(&c);
			break;
		case C_EXPECT_RECV:
			srv_expect_recv(&c);
			break;
		case C_FILL:
			if (pmrt_region_ok(BUF_SIZE, c.off, c.len))
				pmrt_fill_pat(buf + c.off, c.len, c.seed, c.idx0);
			break;
		case C_CANARY:
			if (pmrt_region_ok(BUF_SIZE, c.off, c.len))
				memset(buf + c.off, CANARY, c.len);
			break;
		case C_VERIFY: {
			int64_t i;

			if (!pmrt_region_ok(BUF_SIZE, c.off, c.len + c.guard))
				break;
			i = pmrt_check_pat(buf + c.off, c.len, c.seed, c.idx0);
			if (i >= 0) {
				pmrt_rep_fail("verify %" PRIu64 "+%" PRIu64 ": byte %" PRId64
					 " is %#x, expected %#x", c.off, c.len, i,
					 buf[c.off + (uint64_t)i],
					 pmrt_pat(c.seed, c.idx0 + (uint64_t)i));
				break;
			}
			i = pmrt_check_byte(buf + c.off + c.len, c.guard, CANARY);
			if (i >= 0)
				pmrt_rep_fail("verify %" PRIu64 "+%" PRIu64 ": guard byte %"
					 PRId64 " overwritten (%#x)", c.off, c.len,
					 i, buf[c.off + c.len + (uint64_t)i]);
			break;
		}
		case C_SET64:
			if (pmrt_region_ok(BUF_SIZE, c.off, 8))
				memcpy(buf + c.off, &c.val, 8);
			break;
		case C_GET64:
			if (pmrt_region_ok(BUF_SIZE, c.off, 8))
				memcpy(&rep.val, buf + c.off, 8);
			break;
		case C_EXPECT_QP:
			srv_expect_qp(&c);
			break;
		case C_EXPECT_NONE:
			srv_expect_none(&c);
			break;
		case C_LATE_RECV: {
			uint64_t end;

			pmrt_ctl_write(&rep, sizeof(rep));
			end = pmrt_now_ns() + (uint64_t)c.delay_ms * 1000000ull;
			while (pmrt_now_ns() < end) {
				pmrt_progress();
				poll_async();
			}
			memset(&rep, 0, sizeof(rep));
			rep.ok = 1;
			srv_post_recv(&c);
			if (!rep.ok)
				fprintf(stderr, "server: late recv: %s\n",
					rep.text);
			continue;       /* already answered */
		}
		case C_DIE:
			print_stats();
			if (c.val) {
				/* freeze: stop answering (no progress at all)
				 * until the client closes the control socket */
				char b;

				printf("server: frozen as asked\n");
				fcntl(pmrt_ctl, F_SETFL, 0);
				while (read(pmrt_ctl, &b, 1) > 0)
					;
				_exit(0);
			}
			printf("server: dying abruptly as asked\n");
			fflush(stdout);
			_exit(0);
		case C_CASE_END:
			qps_destroy();
			break;
		case C_QUIT: {
			char b;

			if (nqps)
				qps_destroy();
			pmrt_ctl_write(&rep, sizeof(rep));
			print_stats();
			/* no polling from here on: wait for the client to go
			 * (a memif peer leaving while we poll can crash us) */
			fcntl(pmrt_ctl, F_SETFL, 0);
			while (read(pmrt_ctl, &b, 1) > 0)
				;
			return;
		}
		default:
			pmrt_rep_fail("unknown command %u", c.type);
			break;
		}
		if (!rep.ok)
			fprintf(stderr, "server: command %u failed: %s\n", c.type,
				rep.text);
		pmrt_ctl_write(&rep, sizeof(rep));
	}
}

/* ============================================================================
 * Client
 * ==========================================================================*/

static struct reply srv;          /* the server's answer to CASE_BEGIN */
static uint32_t psn_counter = 0x000100;

#define FAIL PMRT_FAIL
/* a case's return when it cannot run here (the reason in pmrt_failmsg) */
#define CASE_SKIPPED 77
#define TRY PMRT_TRY


static int srv_cmd(struct cmd *c, struct reply *r)
{
	struct reply tmp;

	if (r == NULL)
		r = &tmp;
	pmrt_ctl_xchg(c, sizeof(*c), r, sizeof(*r));
	return pmrt_reply_check(r->ok, c->type, r->text);
}

static void cmd_init(struct cmd *c, uint32_t type)
{
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->event = -1;
}

static struct qpspec spec_default(void)
{
	struct qpspec s;

	memset(&s, 0, sizeof(s));
	s.nqp = 1;
	s.path_mtu = PMR_MTU_1024;
	s.max_send_wr = 64;
	s.max_recv_wr = 64;
	s.max_send_sge = 4;
	s.max_recv_sge = 4;
	s.max_inline = 0;
	s.timeout = 14;
	s.retry_cnt = 7;
	s.rnr_retry = 7;
	s.min_rnr_timer = 12;
	return s;
}

static int case_begin(const struct qpspec *s)
{
	struct cmd c;

	cmd_init(&c, C_CASE_BEGIN);
	c.spec = *s;
	if (c.spec.psn_base == 0) {
		c.spec.psn_base = psn_counter;
		psn_counter = (psn_counter + 0x10000) & 0xffffff;
	}
	stash_clear();
	for (uint32_t i = 0; i < s->nqp; i++) {
		qps[i] = qp_create(s);
		c.qpn[i] = qps[i]->qp_num;
		c.psn[i] = (c.spec.psn_base + i * 104729) & 0xffffff;
	}
	nqps = s->nqp;
	TRY(srv_cmd(&c, &srv));
	if (srv.nqp != s->nqp)
		FAIL("server made %u QPs, not %u", srv.nqp, s->nqp);
	for (uint32_t i = 0; i < s->nqp; i++)
		qp_connect(qps[i], s, c.psn[i], srv.qpn[i], srv.psn[i]);
	return 0;
}

static int case_end(void)
{
	struct cmd c;

	qps_destroy();
	cmd_init(&c, C_CASE_END);
	return srv_cmd(&c, NULL);
}

static int post_send(struct pmr_qp *qp, uint64_t wr_id, int opcode,
		     struct pmr_sge *sg, int nsge, uint64_t raddr,
		     uint32_t rkey, unsigned int flags)
{
	struct pmr_send_wr wr, *bad;
	int r;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sg;
	wr.num_sge = nsge;
	wr.opcode = (enum pmr_wr_opcode)opcode;
	wr.send_flags = flags | PMR_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (opcode == PMR_WR_SEND_WITH_IMM || opcode == PMR_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(0xC0DE0000u | (uint32_t)(wr_id & 0xffff));
	r = pmr_post_send(qp, &wr, &bad);
	if (r)
		FAIL("post_send (opcode %d, wr_id %" PRIu64 "): %s", opcode, wr_id,
		     strerror(r));
	return 0;
}

static int post_atomic(struct pmr_qp *qp, uint64_t wr_id, int opcode,
		       uint64_t laddr, uint64_t raddr, uint32_t rkey,
		       uint64_t compare_add, uint64_t swap)
{
	struct pmr_sge sg = { laddr, 8, mr->lkey };
	struct pmr_send_wr wr, *bad;
	int r;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = (enum pmr_wr_opcode)opcode;
	wr.send_flags = PMR_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	r = pmr_post_send(qp, &wr, &bad);
	if (r)
		FAIL("post_send atomic: %s", strerror(r));
	return 0;
}

static int wc_opcode_of(int wr_opcode)
{
	switch (wr_opcode) {
	case PMR_WR_SEND:
	case PMR_WR_SEND_WITH_IMM:
		return PMR_WC_SEND;
	case PMR_WR_RDMA_WRITE:
	case PMR_WR_RDMA_WRITE_WITH_IMM:
		return PMR_WC_RDMA_WRITE;
	case PMR_WR_RDMA_READ:
		return PMR_WC_RDMA_READ;
	case PMR_WR_ATOMIC_CMP_AND_SWP:
		return PMR_WC_COMP_SWAP;
	default:
		return PMR_WC_FETCH_ADD;
	}
}

/* Wait for the next send completion of qp; check wr_id and status (and, on
 * success, the opcode; byte_len when >= 0). */
static int expect_wc(struct pmr_qp *qp, uint64_t wr_id, int status,
		     int wr_opcode, int64_t byte_len)
{
	struct pmr_wc wc;

	if (!take_wc(qp->qp_num, &wc))
		FAIL("no completion for wr_id %" PRIu64 " on QP %#x (expected %s)",
		     wr_id, qp->qp_num,
		     pmr_wc_status_str((enum pmr_wc_status)status));
	if (wc.wr_id != wr_id || (int)wc.status != status)
		FAIL("completion wr_id %" PRIu64 " status %s (%d), expected wr_id %"
		     PRIu64 " status %s", wc.wr_id, pmr_wc_status_str(wc.status),
		     wc.status, wr_id,
		     pmr_wc_status_str((enum pmr_wc_status)status));
	if (status != PMR_WC_SUCCESS)
		return 0;
	if ((int)wc.opcode != wc_opcode_of(wr_opcode))
		FAIL("completion wr_id %" PRIu64 ": opcode %d, expected %d", wr_id,
		     wc.opcode, wc_opcode_of(wr_opcode));
	if (byte_len >= 0 && wc.byte_len != (uint64_t)byte_len)
		FAIL("completion wr_id %" PRIu64 ": byte_len %u, expected %" PRId64,
		     wr_id, wc.byte_len, byte_len);
	return 0;
}

/* server helpers */
static int s_post_recv(int qp, uint64_t wr_id, const struct rsge *sg,
		       uint32_t nsge)
{
	struct cmd c;

	cmd_init(&c, C_POST_RECV);
	c.qp = qp;
	c.wr_id = wr_id;
	c.nsge = nsge;
	memcpy(c.sge, sg, nsge * sizeof(*sg));
	return srv_cmd(&c, NULL);
}

static int s_post_recv1(int qp, uint64_t wr_id, uint64_t off, uint32_t len)
{
	struct rsge sg = { off, len, 0 };

	return s_post_recv(qp, wr_id, &sg, 1);
}

/* The server posts one receive on QP qp ms from now (its engine runs). */
static int s_late_recv(int qp, uint64_t wr_id, uint32_t ms,
		       const struct rsge *sg)
{
	struct cmd c;

	cmd_init(&c, C_LATE_RECV);
	c.qp = qp;
	c.wr_id = wr_id;
	c.delay_ms = ms;
	c.nsge = 1;
	c.sge[0] = *sg;
	return srv_cmd(&c, NULL);
}

static int s_expect_recv(int qp, uint64_t wr_id, int status, int opcode,
			 uint32_t byte_len, bool imm, uint32_t seed,
			 const struct rsge *sg, uint32_t nsge)
{
	struct cmd c;

	cmd_init(&c, C_EXPECT_RECV);
	c.qp = qp;
	c.wr_id = wr_id;
	c.status = status;
	c.opcode = opcode;
	c.byte_len = byte_len;
	c.has_imm = imm;
	c.imm = 0xC0DE0000u | (uint32_t)(wr_id & 0xffff);
	c.seed = seed;
	c.nsge = nsge;
	memcpy(c.sge, sg, nsge * sizeof(*sg));
	return srv_cmd(&c, NULL);
}

static int s_region(uint32_t type, uint64_t off, uint64_t len, uint32_t seed,
		    uint64_t idx0, uint32_t guard)
{
	struct cmd c;

	cmd_init(&c, type);
	c.off = off;
	c.len = len;
	c.seed = seed;
	c.idx0 = idx0;
	c.guard = guard;
	return srv_cmd(&c, NULL);
}

static int s_expect_qp(int qp, int state, int event)
{
	struct cmd c;

	cmd_init(&c, C_EXPECT_QP);
	c.qp = qp;
	c.state = state;
	c.event = event;
	return srv_cmd(&c, NULL);
}

static int s_set64(uint64_t off, uint64_t v)
{
	struct cmd c;

	cmd_init(&c, C_SET64);
	c.off = off;
	c.val = v;
	return srv_cmd(&c, NULL);
}

static int s_get64(uint64_t off, uint64_t *v)
{
	struct cmd c;
	struct reply r;

	cmd_init(&c, C_GET64);
	c.off = off;
	TRY(srv_cmd(&c, &r));
	*v = r.val;
	return 0;
}

/* local checks */
static int l_verify(uint64_t off, uint64_t len, uint32_t seed, uint64_t idx0,
		    uint32_t guard)
{
	int64_t i = pmrt_check_pat(buf + off, len, seed, idx0);

	if (i >= 0)
		FAIL("local data at %" PRIu64 "+%" PRIu64 ": byte %" PRId64
		     " is %#x, expected %#x", off, len, i, buf[off + (uint64_t)i],
		     pmrt_pat(seed, idx0 + (uint64_t)i));
	i = pmrt_check_byte(buf + off + len, guard, CANARY);
	if (i >= 0)
		FAIL("local guard at %" PRIu64 "+%" PRIu64 ": byte %" PRId64
		     " overwritten", off, len, i);
	return 0;
}

static uint64_t wr_seq = 1;

/* One SEND (optionally with imm) of len bytes, checked at the server. */
static int do_send(int q, uint32_t len, int opcode, unsigned int flags,
		   uint32_t seed)
{
	uint64_t id = wr_seq++;
	uint64_t loff = 0, roff = 0;
	uint32_t rlen = len + GUARD;
	struct pmr_sge sg = { (uintptr_t)(buf + loff), len, mr->lkey };
	struct rsge rs = { roff, rlen, 0 };

	pmrt_fill_pat(buf + loff, len, seed, 0);
	TRY(s_post_recv1(q, id, roff, rlen));
	TRY(post_send(qps[q], id, opcode, &sg, 1, 0, 0, flags));
	if (flags & PMR_SEND_INLINE)
		memset(buf + loff, 0, len);  /* inline: reusable at once */
	TRY(expect_wc(qps[q], id, PMR_WC_SUCCESS, opcode, -1));
	return s_expect_recv(q, id, PMR_WC_SUCCESS, PMR_WC_RECV, len,
			     opcode == PMR_WR_SEND_WITH_IMM, seed, &rs, 1);
}

/* One RDMA WRITE (optionally with imm) of len bytes, checked at the server. */
static int do_write(int q, uint32_t len, int opcode, unsigned int flags,
		    uint32_t seed)
{
	uint64_t id = wr_seq++;
	uint64_t loff = 0, roff = 2 * MIB;
	struct pmr_sge sg = { (uintptr_t)(buf + loff), len, mr->lkey };
	struct rsge rs = { 4 * MIB, 256, 0 };
	bool imm = opcode == PMR_WR_RDMA_WRITE_WITH_IMM;

	pmrt_fill_pat(buf + loff, len, seed, 0);
	TRY(s_region(C_CANARY, roff, len + GUARD, 0, 0, 0));
	if (imm)
		TRY(s_post_recv1(q, id, rs.off, rs.len));
	TRY(post_send(qps[q], id, opcode, &sg, 1, srv.buf + roff, srv.buf_rkey,
		      flags));
	if (flags & PMR_SEND_INLINE)
		memset(buf + loff, 0, len);
	TRY(expect_wc(qps[q], id, PMR_WC_SUCCESS, opcode, -1));
	if (imm)
		TRY(s_expect_recv(q, id, PMR_WC_SUCCESS, PMR_WC_RECV_RDMA_WITH_IMM,
				  len, true, seed, &rs, 1));
	return s_region(C_VERIFY, roff, len, seed, 0, GUARD);
}

/* One RDMA READ of len bytes from the server, checked locally. */
static int do_read(int q, uint32_t len, uint32_t seed)
{
	uint64_t id = wr_seq++;
	uint64_t loff = 2 * MIB, roff = 2 * MIB + 64;
	struct pmr_sge sg = { (uintptr_t)(buf + loff), len, mr->lkey };

	TRY(s_region(C_FILL, roff, len, seed, 0, 0));
	memset(buf + loff, CANARY, len + GUARD);
	TRY(post_send(qps[q], id, PMR_WR_RDMA_READ, &sg, 1, srv.buf + roff,
		      srv.buf_rkey, 0));
	TRY(expect_wc(qps[q], id, PMR_WC_SUCCESS, PMR_WR_RDMA_READ, len));
	return l_verify(loff, len, seed, 0, GUARD);
}

/* ---- cases ------------------------------------------------------------------- */

static int case_opcodes(void)
{
	struct qpspec s = spec_default();
	uint64_t aoff = 6 * MIB, loc = 6 * MIB, v, id;
	uint64_t *lv = (uint64_t *)(buf + loc);

	TRY(case_begin(&s));
	TRY(do_send(0, 1000, PMR_WR_SEND, 0, 11));
	TRY(do_send(0, 3000, PMR_WR_SEND_WITH_IMM, 0, 12));
	TRY(do_send(0, 0, PMR_WR_SEND_WITH_IMM, 0, 13));
	TRY(do_write(0, 5000, PMR_WR_RDMA_WRITE, 0, 14));
	TRY(do_write(0, 5000, PMR_WR_RDMA_WRITE_WITH_IMM, 0, 15));
	TRY(do_write(0, 100, PMR_WR_RDMA_WRITE_WITH_IMM, 0, 16));
	TRY(do_write(0, 0, PMR_WR_RDMA_WRITE_WITH_IMM, 0, 17));
	TRY(do_read(0, 5000, 18));

	/* compare and swap: equal -> swapped */
	TRY(s_set64(aoff, 0x1111222233334444ull));
	*lv = 0;
	id = wr_seq++;
	TRY(post_atomic(qps[0], id, PMR_WR_ATOMIC_CMP_AND_SWP, (uintptr_t)lv,
			srv.buf + aoff, srv.buf_rkey, 0x1111222233334444ull,
			0x5555666677778888ull));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_ATOMIC_CMP_AND_SWP, 8));
	if (*lv != 0x1111222233334444ull)
		FAIL("CMP_AND_SWP (swap) returned %#" PRIx64, *lv);
	TRY(s_get64(aoff, &v));
	if (v != 0x5555666677778888ull)
		FAIL("CMP_AND_SWP (swap): remote is %#" PRIx64, v);
	/* not equal -> unchanged */
	id = wr_seq++;
	TRY(post_atomic(qps[0], id, PMR_WR_ATOMIC_CMP_AND_SWP, (uintptr_t)lv,
			srv.buf + aoff, srv.buf_rkey, 0x1ull, 0x2ull));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_ATOMIC_CMP_AND_SWP, 8));
	if (*lv != 0x5555666677778888ull)
		FAIL("CMP_AND_SWP (no swap) returned %#" PRIx64, *lv);
	TRY(s_get64(aoff, &v));
	if (v != 0x5555666677778888ull)
		FAIL("CMP_AND_SWP (no swap): remote changed to %#" PRIx64, v);
	/* fetch and add, with a carry across 32 bits */
	TRY(s_set64(aoff + 8, 0x00000000fffffff0ull));
	id = wr_seq++;
	TRY(post_atomic(qps[0], id, PMR_WR_ATOMIC_FETCH_AND_ADD, (uintptr_t)lv,
			srv.buf + aoff + 8, srv.buf_rkey, 0x100000020ull, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_ATOMIC_FETCH_AND_ADD, 8));
	if (*lv != 0x00000000fffffff0ull)
		FAIL("FETCH_AND_ADD returned %#" PRIx64, *lv);
	TRY(s_get64(aoff + 8, &v));
	if (v != 0x0000000200000010ull)
		FAIL("FETCH_AND_ADD: remote is %#" PRIx64, v);
	return case_end();
}

static int case_sizes(void)
{
	static const int mtus[] = { 256, 512, 1024, 2048, 4096 };

	for (unsigned int m = 0; m < 5; m++) {
		struct qpspec s = spec_default();
		uint32_t mtu = (uint32_t)mtus[m];
		uint32_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu, MIB };

		s.path_mtu = pmr_num_to_mtu(mtus[m]);
		/* the first MTU also crosses the PSN wrap-around */
		if (m == 0)
			s.psn_base = 0xfffe00;
		TRY(case_begin(&s));
		for (unsigned int i = 0; i < 7; i++) {
			uint32_t seed = m * 100 + i;
			int r;

			r = do_send(0, sizes[i], PMR_WR_SEND, 0, seed);
			if (r == 0)
				r = do_write(0, sizes[i], PMR_WR_RDMA_WRITE, 0,
					     seed + 1000);
			if (r == 0)
				r = do_read(0, sizes[i], seed + 2000);
			if (r) {
				char t[64];

				snprintf(t, sizeof(t), "mtu %u size %u: ", mtu,
					 sizes[i]);
				pmrt_fail_prefix("%s", t);
				return -1;
			}
		}
		TRY(case_end());
	}
	return 0;
}

static int case_inline(void)
{
	struct qpspec s = spec_default();

	s.max_inline = 256;
	TRY(case_begin(&s));
	TRY(do_send(0, 1, PMR_WR_SEND, PMR_SEND_INLINE, 21));
	TRY(do_send(0, 200, PMR_WR_SEND, PMR_SEND_INLINE, 22));
	TRY(do_send(0, 256, PMR_WR_SEND_WITH_IMM, PMR_SEND_INLINE, 23));
	TRY(do_write(0, 1, PMR_WR_RDMA_WRITE, PMR_SEND_INLINE, 24));
	TRY(do_write(0, 256, PMR_WR_RDMA_WRITE, PMR_SEND_INLINE, 25));
	TRY(do_write(0, 128, PMR_WR_RDMA_WRITE_WITH_IMM, PMR_SEND_INLINE, 26));
	/* the path MTU below the inline size: two packets */
	TRY(case_end());
	s.path_mtu = PMR_MTU_256;
	TRY(case_begin(&s));
	TRY(do_send(0, 256, PMR_WR_SEND, PMR_SEND_INLINE, 27));
	TRY(do_write(0, 256, PMR_WR_RDMA_WRITE, PMR_SEND_INLINE, 28));
	return case_end();
}

/*
 * A second thread runs the engine (pmr_progress) all the while: most
 * posts, in inline mode, find the engine lock taken and ring the QP's
 * doorbell instead of sending; the progress thread must take them up.
 * Inline and gathered WRITEs alternate, each checked at the server.
 */
static atomic_int busy_stop, busy_err;
static atomic_uint busy_work;       /* engine work the thread did */

static void *busy_main(void *arg)
{
	cpu_set_t cpus;
	int r;

	/* off this process's CPU (EAL pinned it, and the thread inherits
	 * that): on the same one, the two threads would take turns and
	 * the lock would rarely be seen taken */
	CPU_ZERO(&cpus);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != *(int *)arg)
			CPU_SET(c, &cpus);
	r = pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	if (r != 0)
		atomic_store(&busy_err, r);
	while (!atomic_load(&busy_stop)) {
		if ((r = pmr_progress(ctx, 64)) < 0) {
			atomic_store(&busy_err, -r);
			break;
		}
		atomic_fetch_add(&busy_work, (unsigned int)r);
	}
	return NULL;
}

static int case_busy_engine(void)
{
	struct qpspec s = spec_default();
	struct pmr_roce_port_stats st0, st1;
	pthread_t th;
	int ret = 0, cpu = sched_getcpu();
	uint64_t end;
	uint32_t i;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		snprintf(pmrt_failmsg, sizeof(pmrt_failmsg), "one CPU (the "
			 "threads would take turns, never meeting at the lock)");
		return CASE_SKIPPED;
	}
	s.max_inline = 256;
	TRY(case_begin(&s));
	if (pmr_roce_port_stats(dev, &st0))
		FAIL("pmr_roce_port_stats");
	atomic_store(&busy_stop, 0);
	atomic_store(&busy_err, 0);
	atomic_store(&busy_work, 0);
	if (pthread_create(&th, NULL, busy_main, &cpu) != 0)
		FAIL("pthread_create");
	/* 2000 WRITEs, and on until the progress thread has done engine
	 * work and some post found the engine busy (its doorbell taken up
	 * by the thread), at most 2 s: the thread shares its CPU with the
	 * other process, which a scheduler may not take from it for a while */
	end = pmrt_now_ns() + 2000000000ull;
	for (i = 0; ret == 0; i++) {
		if (i >= 2000 && (pmrt_now_ns() >= end ||
				  (atomic_load(&busy_work) != 0 &&
				   !pmr_roce_port_stats(dev, &st1) &&
				   st1.doorbells != st0.doorbells)))
			break;
		ret = do_write(0, 8 + i % 200, PMR_WR_RDMA_WRITE,
			       i & 1 ? PMR_SEND_INLINE : 0, 300 + i % 2000);
	}
	atomic_store(&busy_stop, 1);
	pthread_join(th, NULL);
	TRY(ret);
	if (atomic_load(&busy_err) != 0)
		FAIL("progress thread: %s", strerror(atomic_load(&busy_err)));
	/* it ran the engine, not only waited at the lock */
	if (atomic_load(&busy_work) == 0)
		FAIL("the progress thread did no engine work in %u WRITEs "
		     "(2 s)", i);
	/* and some WRITE was posted while it held the engine */
	if (pmr_roce_port_stats(dev, &st1))
		FAIL("pmr_roce_port_stats");
	if (st1.doorbells == st0.doorbells)
		FAIL("no post rang a doorbell in %u WRITEs (2 s)", i);
	return case_end();
}

/* Local SGEs at scattered offsets; byte k of the message = pmrt_pat(seed, k). */
static void fill_lsges(struct pmr_sge *sg, const struct rsge *l, int n,
		       uint32_t seed)
{
	uint64_t k = 0;

	for (int i = 0; i < n; i++) {
		pmrt_fill_pat(buf + l[i].off, l[i].len, seed, k);
		memset(buf + l[i].off + l[i].len, CANARY, GUARD);
		k += l[i].len;
		sg[i].addr = (uintptr_t)(buf + l[i].off);
		sg[i].length = l[i].len;
		sg[i].lkey = mr->lkey;
	}
}

static int case_sge(void)
{
	struct qpspec s = spec_default();
	/* 4 send SGEs: 100 + 1 + 3000 + 2047 = 5148 bytes (MTU 1024) */
	static const struct rsge ls[4] = {
		{ 0, 100, 0 }, { 10000, 1, 0 }, { 20000, 3000, 0 },
		{ 30000, 2047, 0 } };
	/* 3 receive SGEs: 7 + 4000 + 2000 = 6007 bytes */
	static const struct rsge rs[3] = {
		{ 100000, 7, 0 }, { 110000, 4000, 0 }, { 120000, 2000, 0 } };
	/* READ scatter: 3 SGEs 1500 + 1 + 3000 = 4501 */
	static const struct rsge ld[3] = {
		{ 1 * MIB + 5, 1500, 0 }, { 1 * MIB + 9000, 1, 0 },
		{ 1 * MIB + 20000, 3000, 0 } };
	struct pmr_sge sg[4];
	uint64_t id;

	TRY(case_begin(&s));
	/* SEND 4 SGEs -> receive 3 SGEs */
	id = wr_seq++;
	fill_lsges(sg, ls, 4, 31);
	TRY(s_post_recv(0, id, rs, 3));
	TRY(post_send(qps[0], id, PMR_WR_SEND, sg, 4, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_SEND, -1));
	TRY(s_expect_recv(0, id, PMR_WC_SUCCESS, PMR_WC_RECV, 5148, false, 31,
			  rs, 3));
	/* SEND_WITH_IMM 2 SGEs filling the 3 receive SGEs exactly (6007) */
	{
		static const struct rsge l2[2] = { { 0, 4003, 0 },
						   { 50000, 2004, 0 } };

		id = wr_seq++;
		fill_lsges(sg, l2, 2, 32);
		TRY(s_post_recv(0, id, rs, 3));
		TRY(post_send(qps[0], id, PMR_WR_SEND_WITH_IMM, sg, 2, 0, 0, 0));
		TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_SEND, -1));
		TRY(s_expect_recv(0, id, PMR_WC_SUCCESS, PMR_WC_RECV, 6007, true,
				  32, rs, 3));
	}
	/* WRITE gathered from 4 SGEs */
	id = wr_seq++;
	fill_lsges(sg, ls, 4, 33);
	TRY(s_region(C_CANARY, 3 * MIB, 5148 + GUARD, 0, 0, 0));
	TRY(post_send(qps[0], id, PMR_WR_RDMA_WRITE, sg, 4, srv.buf + 3 * MIB,
		      srv.buf_rkey, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_RDMA_WRITE, -1));
	TRY(s_region(C_VERIFY, 3 * MIB, 5148, 33, 0, GUARD));
	/* READ scattered to 3 SGEs */
	id = wr_seq++;
	TRY(s_region(C_FILL, 3 * MIB, 4501, 34, 0, 0));
	for (int i = 0; i < 3; i++) {
		memset(buf + ld[i].off, CANARY, ld[i].len + GUARD);
		sg[i].addr = (uintptr_t)(buf + ld[i].off);
		sg[i].length = ld[i].len;
		sg[i].lkey = mr->lkey;
	}
	TRY(post_send(qps[0], id, PMR_WR_RDMA_READ, sg, 3, srv.buf + 3 * MIB,
		      srv.buf_rkey, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_RDMA_READ, 4501));
	{
		uint64_t k = 0;

		for (int i = 0; i < 3; i++) {
			TRY(l_verify(ld[i].off, ld[i].len, 34, k, GUARD));
			k += ld[i].len;
		}
	}
	return case_end();
}

static int case_manyqp(void)
{
	struct qpspec s = spec_default();
	const uint32_t n = MAXQP, rounds = 2;
	/* server: recv at 7 MiB + 8 KiB * slot, write target at 5 MiB + 8 KiB *
	 * slot (slot = 2q + r),
	 * read source area at 1 MiB (pattern index = offset in the area);
	 * client: send source 1 MiB + 8 KiB * (2q + r), read dest 3 MiB + ... */
	uint64_t id0;

	s.nqp = n;
	s.max_send_wr = 16;
	s.max_recv_wr = 8;
	s.path_mtu = PMR_MTU_1024;
	TRY(case_begin(&s));
	TRY(s_region(C_FILL, 1 * MIB, n * rounds * 8192, 41, 0, 0));
	TRY(s_region(C_CANARY, 5 * MIB, n * rounds * 8192, 0, 0, 0));
	id0 = wr_seq;
	wr_seq += n * rounds * 3;
	for (uint32_t q = 0; q < n; q++)
		for (uint32_t r = 0; r < rounds; r++)
			TRY(s_post_recv1((int)q, id0 + (q * rounds + r) * 3,
					 7 * MIB + (uint64_t)(q * rounds + r) * 8192,
					 8192));
	/* post interleaved: every QP gets one op at a time */
	for (uint32_t r = 0; r < rounds; r++)
		for (uint32_t op = 0; op < 3; op++)
			for (uint32_t q = 0; q < n; q++) {
				uint32_t slot = q * rounds + r;
				uint64_t id = id0 + slot * 3 + op;
				uint32_t len = 300 + q * 37 + r * 1000;
				uint64_t l = (op == 2 ? 3 * MIB : 1 * MIB) +
					     (uint64_t)slot * 8192;
				struct pmr_sge sg = { (uintptr_t)(buf + l), len,
						      mr->lkey };

				if (op == 0) {
					pmrt_fill_pat(buf + l, len, 1000 + slot, 0);
					TRY(post_send(qps[q], id, PMR_WR_SEND, &sg, 1,
						      0, 0, 0));
				} else if (op == 1) {
					/* the same source, written remotely */
					TRY(post_send(qps[q], id, PMR_WR_RDMA_WRITE,
						      &sg, 1, srv.buf + 5 * MIB +
						      (uint64_t)slot * 8192,
						      srv.buf_rkey, 0));
				} else {
					memset(buf + l, CANARY, len + GUARD);
					TRY(post_send(qps[q], id, PMR_WR_RDMA_READ,
						      &sg, 1, srv.buf + 1 * MIB +
						      (uint64_t)slot * 8192,
						      srv.buf_rkey, 0));
				}
			}
	/* completions: in posting order per QP */
	for (uint32_t q = 0; q < n; q++)
		for (uint32_t r = 0; r < rounds; r++)
			for (uint32_t op = 0; op < 3; op++) {
				uint32_t slot = q * rounds + r;
				static const int ops[3] = { PMR_WR_SEND,
					PMR_WR_RDMA_WRITE, PMR_WR_RDMA_READ };

				if (expect_wc(qps[q], id0 + slot * 3 + op,
					      PMR_WC_SUCCESS, ops[op], -1)) {
					char t[64];

					snprintf(t, sizeof(t), "QP %u: ", q);
					pmrt_fail_prefix("%s", t);
					return -1;
				}
			}
	for (uint32_t q = 0; q < n; q++)
		for (uint32_t r = 0; r < rounds; r++) {
			uint32_t slot = q * rounds + r;
			uint32_t len = 300 + q * 37 + r * 1000;
			struct rsge rs = { 7 * MIB + (uint64_t)slot * 8192, 8192, 0 };

			TRY(s_expect_recv((int)q, id0 + slot * 3, PMR_WC_SUCCESS,
					  PMR_WC_RECV, len, false, 1000 + slot,
					  &rs, 1));
			TRY(s_region(C_VERIFY, 5 * MIB + (uint64_t)slot * 8192, len,
				     1000 + slot, 0, GUARD));
			TRY(l_verify(3 * MIB + (uint64_t)slot * 8192, len, 41,
				     (uint64_t)slot * 8192, GUARD));
		}
	return case_end();
}

/* After an error the QP is in ERR: a later WR is flushed. */
static int expect_flushed(int q)
{
	uint64_t id = wr_seq++;
	struct pmr_sge sg = { (uintptr_t)buf, 16, mr->lkey };

	TRY(post_send(qps[q], id, PMR_WR_SEND, &sg, 1, 0, 0, 0));
	TRY(expect_wc(qps[q], id, PMR_WC_WR_FLUSH_ERR, PMR_WR_SEND, -1));
	if (pmrt_qp_state(qps[q]) != PMR_QPS_ERR)
		FAIL("requester QP not in ERR after the error");
	return 0;
}

/* One RDMA op expected to fail with `st`; the server QP must end in ERR
 * (with async event `ev` unless -1). */
static int rdma_error(int opcode, uint64_t raddr, uint32_t rkey, uint32_t len,
		      int st, int ev)
{
	struct qpspec s = spec_default();
	uint64_t id = wr_seq++;
	struct pmr_sge sg = { (uintptr_t)buf, len, mr->lkey };

	TRY(case_begin(&s));
	if (opcode == PMR_WR_ATOMIC_CMP_AND_SWP ||
	    opcode == PMR_WR_ATOMIC_FETCH_AND_ADD)
		TRY(post_atomic(qps[0], id, opcode, (uintptr_t)buf, raddr, rkey,
				1, 2));
	else
		TRY(post_send(qps[0], id, opcode, &sg, 1, raddr, rkey, 0));
	TRY(expect_wc(qps[0], id, st, opcode, -1));
	TRY(expect_flushed(0));
	TRY(s_expect_qp(0, PMR_QPS_ERR, ev));
	return case_end();
}

static int case_err_rkey(void)
{
	TRY(rdma_error(PMR_WR_RDMA_WRITE, srv.buf + 4096, srv.buf_rkey ^ 0x5a,
		       100, PMR_WC_REM_ACCESS_ERR, PMR_EVENT_QP_ACCESS_ERR));
	TRY(rdma_error(PMR_WR_RDMA_READ, srv.buf + 4096, srv.buf_rkey ^ 0x5a,
		       100, PMR_WC_REM_ACCESS_ERR, PMR_EVENT_QP_ACCESS_ERR));
	return 0;
}

static int case_err_bounds(void)
{
	/* WRITE running 10 bytes past the end of the small MR */
	TRY(rdma_error(PMR_WR_RDMA_WRITE, srv.small + SMALL_SIZE - 90,
		       srv.small_rkey, 100, PMR_WC_REM_ACCESS_ERR,
		       PMR_EVENT_QP_ACCESS_ERR));
	/* READ starting before it */
	TRY(rdma_error(PMR_WR_RDMA_READ, srv.small - 8, srv.small_rkey, 100,
		       PMR_WC_REM_ACCESS_ERR, PMR_EVENT_QP_ACCESS_ERR));
	/* multi-packet WRITE whose end is out of bounds (MTU 1024) */
	TRY(rdma_error(PMR_WR_RDMA_WRITE, srv.small + 1024, srv.small_rkey,
		       SMALL_SIZE, PMR_WC_REM_ACCESS_ERR,
		       PMR_EVENT_QP_ACCESS_ERR));
	/* atomic on the last 4 bytes of the MR... aligned: 8 bytes past */
	TRY(rdma_error(PMR_WR_ATOMIC_FETCH_AND_ADD, srv.small + SMALL_SIZE,
		       srv.small_rkey, 8, PMR_WC_REM_ACCESS_ERR,
		       PMR_EVENT_QP_ACCESS_ERR));
	return 0;
}

static int case_err_rights(void)
{
	TRY(rdma_error(PMR_WR_RDMA_WRITE, srv.nr, srv.nr_rkey, 100,
		       PMR_WC_REM_ACCESS_ERR, PMR_EVENT_QP_ACCESS_ERR));
	TRY(rdma_error(PMR_WR_RDMA_READ, srv.nr, srv.nr_rkey, 100,
		       PMR_WC_REM_ACCESS_ERR, PMR_EVENT_QP_ACCESS_ERR));
	TRY(rdma_error(PMR_WR_ATOMIC_CMP_AND_SWP, srv.nr, srv.nr_rkey, 8,
		       PMR_WC_REM_ACCESS_ERR, PMR_EVENT_QP_ACCESS_ERR));
	return 0;
}

static int case_err_atomic_align(void)
{
	TRY(rdma_error(PMR_WR_ATOMIC_FETCH_AND_ADD, srv.buf + 6 * MIB + 4,
		       srv.buf_rkey, 8, PMR_WC_REM_INV_REQ_ERR,
		       PMR_EVENT_QP_REQ_ERR));
	TRY(rdma_error(PMR_WR_ATOMIC_CMP_AND_SWP, srv.buf + 6 * MIB + 1,
		       srv.buf_rkey, 8, PMR_WC_REM_INV_REQ_ERR,
		       PMR_EVENT_QP_REQ_ERR));
	return 0;
}

/*
 * A SEND of sg into the server's receive rs that fails: the SEND completes
 * with sst, the receive with rst (its data not compared).
 */
static int send_recv_fail(uint64_t id, struct pmr_sge *sg, struct rsge *rs,
			  enum pmr_wc_status sst, enum pmr_wc_status rst)
{
	TRY(s_post_recv(0, id, rs, 1));
	TRY(post_send(qps[0], id, PMR_WR_SEND, sg, 1, 0, 0, 0));
	TRY(expect_wc(qps[0], id, sst, PMR_WR_SEND, -1));
	return s_expect_recv(0, id, rst, PMR_WC_RECV, 0, false, 0, rs, 1);
}

static int case_err_recv_len(void)
{
	struct qpspec s = spec_default();
	uint64_t id = wr_seq++;
	struct pmr_sge sg = { (uintptr_t)buf, 200, mr->lkey };
	struct rsge rs = { 0, 100, 0 };

	/* single packet */
	TRY(case_begin(&s));
	pmrt_fill_pat(buf, 200, 51, 0);
	TRY(send_recv_fail(id, &sg, &rs, PMR_WC_REM_INV_REQ_ERR,
			   PMR_WC_LOC_LEN_ERR));
	TRY(expect_flushed(0));
	TRY(s_expect_qp(0, PMR_QPS_ERR, -1));
	TRY(case_end());
	/* the overflow in the third packet of a multi-packet SEND */
	id = wr_seq++;
	rs.len = 2500;
	sg.length = 3000;
	TRY(case_begin(&s));
	pmrt_fill_pat(buf, 3000, 52, 0);
	TRY(send_recv_fail(id, &sg, &rs, PMR_WC_REM_INV_REQ_ERR,
			   PMR_WC_LOC_LEN_ERR));
	TRY(expect_flushed(0));
	TRY(s_expect_qp(0, PMR_QPS_ERR, -1));
	return case_end();
}

/*
 * A receive whose SGE has a bad lkey (post_recv does not look at keys;
 * the responder checks each one as the data comes): the SEND fails with
 * REM_OP_ERR, the receive with LOC_PROT_ERR, its buffer untouched, and
 * the responder's QP is in ERR.
 */
static int case_err_recv_lkey(void)
{
	struct qpspec s = spec_default();
	uint64_t id = wr_seq++;
	struct pmr_sge sg = { (uintptr_t)buf, 64, mr->lkey };
	struct rsge rs = { 0, 100, 0x80 };

	TRY(case_begin(&s));
	pmrt_fill_pat(buf, 64, 53, 0);
	TRY(send_recv_fail(id, &sg, &rs, PMR_WC_REM_OP_ERR,
			   PMR_WC_LOC_PROT_ERR));
	/* (an error completion's buffer is not compared above: the
	 * receive's 100 bytes still hold the canary post_recv wrote) */
	TRY(s_region(C_VERIFY, rs.off, 0, 0, 0, rs.len));
	TRY(expect_flushed(0));
	TRY(s_expect_qp(0, PMR_QPS_ERR, -1));
	return case_end();
}

static int case_rnr_exc(void)
{
	struct qpspec s = spec_default();
	uint64_t id = wr_seq++;
	struct pmr_sge sg = { (uintptr_t)buf, 64, mr->lkey };

	s.rnr_retry = 0;
	s.min_rnr_timer = 1;
	TRY(case_begin(&s));
	TRY(post_send(qps[0], id, PMR_WR_SEND, &sg, 1, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_RNR_RETRY_EXC_ERR, PMR_WR_SEND, -1));
	TRY(expect_flushed(0));
	/* an RNR NAK does not hurt the responder */
	TRY(s_expect_qp(0, PMR_QPS_RTS, -1));
	return case_end();
}

static int case_rnr_late(void)
{
	struct qpspec s = spec_default();
	uint64_t id = wr_seq++;
	struct pmr_sge sg = { (uintptr_t)buf, 3000, mr->lkey };
	struct rsge rs = { 0, 4096, 0 };
	struct pmr_roce_port_stats a, b;

	s.rnr_retry = 7;
	s.min_rnr_timer = 12;       /* 0.64 ms */
	TRY(case_begin(&s));
	pmrt_fill_pat(buf, 3000, 61, 0);
	TRY(pmr_roce_port_stats(dev, &a));
	TRY(s_late_recv(0, id, 200, &rs));
	TRY(post_send(qps[0], id, PMR_WR_SEND, &sg, 1, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_SEND, -1));
	TRY(pmr_roce_port_stats(dev, &b));
	printf("client: rnr_late: %" PRIu64 " RNR NAKs received while waiting\n",
	       b.nak_rnr_rx - a.nak_rnr_rx);
	/* the receive came 200 ms late: the SEND must have met RNR NAKs */
	if (b.nak_rnr_rx == a.nak_rnr_rx)
		FAIL("no RNR NAK received while the receive was late");
	TRY(s_expect_recv(0, id, PMR_WC_SUCCESS, PMR_WC_RECV, 3000, false, 61,
			  &rs, 1));
	return case_end();
}

/* ---- SQ drain ----------------------------------------------------------------- */

/* Async events of `type` recorded for qp so far. */
static unsigned int aev_count(struct pmr_qp *qp, int type)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < naevs; i++)
		if (aevs[i].qp == qp && aevs[i].type == type)
			n++;
	return n;
}

/* Progress the engine and collect completions and events for `ns`. */
static void spin_ns(uint64_t ns)
{
	uint64_t end = pmrt_now_ns() + ns;

	do {
		pmrt_progress();
		poll_into_stash();
		poll_async();
	} while (pmrt_now_ns() < end);
}

/* Whether a completion of QP qpn sits unconsumed in the stash. */
static bool wc_pending(uint32_t qpn, struct pmr_wc *out)
{
	for (uint32_t i = 0; i < nstash; i++)
		if (!stash_used[i] && stash[i].qp_num == qpn) {
			*out = stash[i];
			return true;
		}
	return false;
}

/* RTS -> SQD, SQ_DRAINED asked for when `notify`. */
static int to_sqd(bool notify)
{
	struct pmr_qp_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_SQD;
	a.en_sqd_async_notify = notify;
	r = pmr_modify_qp(qps[0], &a, PMR_QP_STATE |
			  (notify ? PMR_QP_EN_SQD_ASYNC_NOTIFY : 0));
	if (r)
		FAIL("modify RTS -> SQD: %s", strerror(r));
	if (pmrt_qp_state(qps[0]) != PMR_QPS_SQD)
		FAIL("QP in state %d after RTS -> SQD", pmrt_qp_state(qps[0]));
	return 0;
}

static int to_rts(void)
{
	struct pmr_qp_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	r = pmr_modify_qp(qps[0], &a, PMR_QP_STATE);
	if (r)
		FAIL("modify SQD -> RTS: %s", strerror(r));
	return 0;
}

/* Nothing reaches the server's QP qp for ms (its engine runs). */
static int s_expect_none(int qp, uint32_t ms)
{
	struct cmd c;

	cmd_init(&c, C_EXPECT_NONE);
	c.qp = qp;
	c.delay_ms = ms;
	return srv_cmd(&c, NULL);
}

/* Spin up to 2 s for an SQ_DRAINED of QP 0, then 50 ms more for a second
 * one; fail unless exactly `want` came. */
static int expect_drained(unsigned int want)
{
	uint64_t end = pmrt_now_ns() + 2000000000ull;
	unsigned int n;

	while (want > 0 && aev_count(qps[0], PMR_EVENT_SQ_DRAINED) < want &&
	       pmrt_now_ns() < end)
		spin_ns(1000000);
	spin_ns(50000000);
	n = aev_count(qps[0], PMR_EVENT_SQ_DRAINED);
	if (n != want)
		FAIL("%u SQ_DRAINED event(s), expected %u", n, want);
	return 0;
}

/* A WRITE, so that the MAC is resolved and nothing after it waits for
 * ARP. */
static int resolve_first(void)
{
	return do_write(0, 64, PMR_WR_RDMA_WRITE, 0, 80);
}

/*
 * RTS -> SQD while a 64 KiB WRITE (64 packets at MTU 1024) is on its way:
 * the WRITE completes and lands, SQ_DRAINED comes once (only when asked
 * for), a SEND posted in SQD waits, and goes once back in RTS.
 */
static int sqd_drain_one(bool notify)
{
	struct qpspec s = spec_default();
	const uint32_t len = 64 * 1024, slen = 3000;
	const uint64_t roff = 2 * MIB, soff = 1 * MIB;
	struct pmr_sge sg = { (uintptr_t)buf, len, mr->lkey };
	struct pmr_sge ss = { (uintptr_t)(buf + soff), slen, mr->lkey };
	struct rsge rs = { 4 * MIB, 4096, 0 };
	struct pmr_wc wc;
	uint64_t id, sid;
	const char *tag = notify ? "notify" : "no notify";
	int r;

	s.path_mtu = PMR_MTU_1024;
	TRY(case_begin(&s));
	naevs = 0;
	/* the peer's MAC resolved, so the big WRITE starts when posted */
	TRY(resolve_first());
	id = wr_seq++;
	sid = wr_seq++;
	pmrt_fill_pat(buf, len, 81, 0);
	pmrt_fill_pat(buf + soff, slen, 82, 0);
	TRY(s_region(C_CANARY, roff, len + GUARD, 0, 0, 0));
	TRY(s_post_recv1(0, sid, rs.off, rs.len));
	TRY(post_send(qps[0], id, PMR_WR_RDMA_WRITE, &sg, 1, srv.buf + roff,
		      srv.buf_rkey, 0));
	r = to_sqd(notify);
	if (r) {
		pmrt_fail_prefix("%s: ", tag);
		return -1;
	}
	/* queued while in SQD */
	TRY(post_send(qps[0], sid, PMR_WR_SEND, &ss, 1, 0, 0, 0));
	/* the WRITE begun before SQD finishes */
	r = expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_RDMA_WRITE, -1);
	if (r) {
		pmrt_fail_prefix("%s", notify ? "notify: " : "no notify: ");
		return -1;
	}
	TRY(s_region(C_VERIFY, roff, len, 81, 0, GUARD));
	/* the drained event: once, and only when asked for */
	r = expect_drained(notify ? 1 : 0);
	if (r) {
		pmrt_fail_prefix("%s: ", tag);
		return -1;
	}
	/* the SEND stays queued: nothing at the server for 100 ms (the client
	 * engine progresses while it waits for the answer), no completion */
	r = s_expect_none(0, 100);
	if (r) {
		pmrt_fail_prefix("%s: SEND posted in SQD was sent: ", tag);
		return -1;
	}
	spin_ns(10000000);
	if (wc_pending(qps[0]->qp_num, &wc))
		FAIL("%s: completion in SQD: wr_id %" PRIu64 " status %s", tag,
		     wc.wr_id, pmr_wc_status_str(wc.status));
	if (pmrt_qp_state(qps[0]) != PMR_QPS_SQD)
		FAIL("%s: QP left SQD by itself (state %d)", tag,
		     pmrt_qp_state(qps[0]));
	/* SQD -> RTS: the queued SEND goes */
	r = to_rts();
	if (r == 0)
		r = expect_wc(qps[0], sid, PMR_WC_SUCCESS, PMR_WR_SEND, -1);
	if (r) {
		pmrt_fail_prefix("%s", notify ? "notify: after SQD -> RTS: " :
			    "no notify: after SQD -> RTS: ");
		return -1;
	}
	TRY(s_expect_recv(0, sid, PMR_WC_SUCCESS, PMR_WC_RECV, slen, false, 82,
			  &rs, 1));
	if (aev_count(qps[0], PMR_EVENT_SQ_DRAINED) != (notify ? 1u : 0u))
		FAIL("%s: %u SQ_DRAINED event(s) at the end", tag,
		     aev_count(qps[0], PMR_EVENT_SQ_DRAINED));
	return case_end();
}

static int case_sqd_drain(void)
{
	char first[sizeof(pmrt_failmsg)];
	int r1, r2;

	/* both variants run, whatever the first gives */
	wait_ns = 3000000000ull;
	r1 = sqd_drain_one(true);
	snprintf(first, sizeof(first), "%s", pmrt_failmsg);
	if (r1 && nqps)
		case_end();
	pmrt_failmsg[0] = '\0';
	r2 = sqd_drain_one(false);
	wait_ns = WAIT_NS;
	if (r1 && r2) {
		char second[sizeof(pmrt_failmsg)];

		snprintf(second, sizeof(second), "%s", pmrt_failmsg);
		snprintf(pmrt_failmsg, sizeof(pmrt_failmsg), "%.250s; %.250s", first,
			 second);
	} else if (r1) {
		snprintf(pmrt_failmsg, sizeof(pmrt_failmsg), "%s", first);
	}
	return r1 || r2 ? -1 : 0;
}

/*
 * RTS -> SQD while a SEND meets RNR NAKs (the server posts its receive
 * 300 ms late).  An RNR NAK sends the requester back to the SEND's first
 * PSN, so nothing looks in flight while it waits; the SEND has begun all
 * the same, and SQ_DRAINED comes only after it is ACKed.
 */
static int case_sqd_rnr(void)
{
	struct qpspec s = spec_default();
	const uint32_t len = 3000;
	uint64_t id, end;
	struct pmr_sge sg = { (uintptr_t)buf, len, mr->lkey };
	struct rsge rs = { 0, 4096, 0 };
	struct pmr_roce_port_stats a, b;
	struct pmr_wc wc;

	TRY(case_begin(&s));        /* min_rnr_timer 12: 0.64 ms */
	TRY(resolve_first());
	id = wr_seq++;
	naevs = 0;
	pmrt_fill_pat(buf, len, 62, 0);
	TRY(pmr_roce_port_stats(dev, &a));
	TRY(s_late_recv(0, id, 300, &rs));
	TRY(post_send(qps[0], id, PMR_WR_SEND, &sg, 1, 0, 0, 0));
	TRY(to_sqd(true));
	end = pmrt_now_ns() + 1000000000ull;
	do {
		spin_ns(1000000);
		TRY(pmr_roce_port_stats(dev, &b));
	} while (b.nak_rnr_rx == a.nak_rnr_rx && pmrt_now_ns() < end);
	if (b.nak_rnr_rx == a.nak_rnr_rx)
		FAIL("no RNR NAK within 1 s of the SEND");
	spin_ns(20000000);
	if (wc_pending(qps[0]->qp_num, &wc))
		FAIL("completion before the receive was posted: wr_id %" PRIu64
		     " status %s", wc.wr_id, pmr_wc_status_str(wc.status));
	if (aev_count(qps[0], PMR_EVENT_SQ_DRAINED) != 0)
		FAIL("SQ_DRAINED while the SEND waits out RNR NAKs");
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WR_SEND, -1));
	TRY(expect_drained(1));
	TRY(s_expect_recv(0, id, PMR_WC_SUCCESS, PMR_WC_RECV, len, false, 62,
			  &rs, 1));
	return case_end();
}

/*
 * A READ of rlen bytes (remote pattern rpat, local buffer canaried) and a
 * SEND of slen bytes (pattern spat, from buf + 5 MiB) behind it with
 * sflags, into the server's receive rs: the set-up of the cases below,
 * after resolve_first().
 */
static int read_then_send(uint32_t rlen, uint32_t rpat, uint32_t slen,
			  uint32_t spat, struct rsge *rs, unsigned int sflags,
			  uint64_t *rid, uint64_t *sid)
{
	struct pmr_sge rg = { (uintptr_t)buf, rlen, mr->lkey };
	struct pmr_sge sg = { (uintptr_t)(buf + 5 * MIB), slen, mr->lkey };

	*rid = wr_seq++;
	*sid = wr_seq++;
	TRY(s_region(C_FILL, 0, rlen, rpat, 0, 0));
	memset(buf, CANARY, rlen + GUARD);
	pmrt_fill_pat(buf + 5 * MIB, slen, spat, 0);
	TRY(s_post_recv(0, *sid, rs, 1));
	TRY(post_send(qps[0], *rid, PMR_WR_RDMA_READ, &rg, 1, srv.buf,
		      srv.buf_rkey, 0));
	return post_send(qps[0], *sid, PMR_WR_SEND, &sg, 1, 0, 0, sflags);
}

/*
 * RTS -> SQD while a fenced SEND waits behind a 512 KiB READ (512 PSNs,
 * inside the window: only the fence holds the SEND): the READ completes;
 * the SEND has not begun, so SQ_DRAINED comes without it and it goes
 * only once back in RTS.
 */
static int case_sqd_fence(void)
{
	struct qpspec s = spec_default();
	const uint32_t rlen = 512 * 1024, slen = 64;
	uint64_t rid, sid;
	struct rsge rs = { 6 * MIB, 4096, 0 };
	struct pmr_wc wc;
	int r;

	TRY(case_begin(&s));
	naevs = 0;
	TRY(resolve_first());
	TRY(read_then_send(rlen, 63, slen, 64, &rs, PMR_SEND_FENCE, &rid,
			   &sid));
	TRY(to_sqd(true));
	TRY(expect_wc(qps[0], rid, PMR_WC_SUCCESS, PMR_WR_RDMA_READ, rlen));
	TRY(l_verify(0, rlen, 63, 0, GUARD));
	TRY(expect_drained(1));
	r = s_expect_none(0, 100);
	if (r) {
		pmrt_fail_prefix("fenced SEND, not begun, sent in SQD: ");
		return -1;
	}
	if (wc_pending(qps[0]->qp_num, &wc))
		FAIL("completion in SQD: wr_id %" PRIu64 " status %s", wc.wr_id,
		     pmr_wc_status_str(wc.status));
	TRY(to_rts());
	TRY(expect_wc(qps[0], sid, PMR_WC_SUCCESS, PMR_WR_SEND, -1));
	TRY(s_expect_recv(0, sid, PMR_WC_SUCCESS, PMR_WC_RECV, slen, false, 64,
			  &rs, 1));
	return case_end();
}

/*
 * A fenced SEND with a bad lkey behind a 512 KiB READ: the fence holds it
 * (the requester does not look at a WQE that must wait) until the READ
 * completes; then it fails: the READ completes first, with its data, the
 * SEND with LOC_PROT_ERR, nothing reaches the server, and the QP is in
 * ERR.
 */
static int case_fence_local_err(void)
{
	struct qpspec s = spec_default();
	const uint32_t rlen = 512 * 1024;
	struct pmr_sge rg = { (uintptr_t)buf, rlen, mr->lkey };
	struct pmr_sge sg = { (uintptr_t)(buf + 5 * MIB), 64, mr->lkey ^ 0x40 };
	uint64_t rid, sid;

	TRY(case_begin(&s));
	TRY(resolve_first());
	rid = wr_seq++;
	sid = wr_seq++;
	TRY(s_region(C_FILL, 0, rlen, 64, 0, 0));
	memset(buf, CANARY, rlen + GUARD);
	TRY(post_send(qps[0], rid, PMR_WR_RDMA_READ, &rg, 1, srv.buf,
		      srv.buf_rkey, 0));
	TRY(post_send(qps[0], sid, PMR_WR_SEND, &sg, 1, 0, 0,
		      PMR_SEND_FENCE));
	TRY(expect_wc(qps[0], rid, PMR_WC_SUCCESS, PMR_WR_RDMA_READ, rlen));
	TRY(l_verify(0, rlen, 64, 0, GUARD));
	TRY(expect_wc(qps[0], sid, PMR_WC_LOC_PROT_ERR, PMR_WR_SEND, -1));
	TRY(s_expect_none(0, 100));
	TRY(expect_flushed(0));
	return case_end();
}

/* ---- response order ------------------------------------------------- */

/*
 * A 256 KiB READ (256 responses at MTU 1024, more than one engine run
 * sends), then a SEND and a FETCH_ADD posted right behind it: the
 * responder answers in PSN order (the SEND's ACK and the atomic ACK after
 * the READ's last response), so nothing is retransmitted.  An answer that
 * overtook the READ's responses would make the requester send the READ
 * again from its first missing response.
 */
static int case_resp_order(void)
{
	struct qpspec s = spec_default();
	const uint32_t rlen = 256 * 1024, slen = 100;
	const uint64_t aoff = 6 * MIB, loc = 6 * MIB + 64;
	uint64_t *lv = (uint64_t *)(buf + loc);
	struct rsge rs = { 7 * MIB, 4096, 0 };
	struct pmr_roce_port_stats a, b;
	uint64_t rid, sid, aid, v;

	TRY(case_begin(&s));
	TRY(s_set64(aoff, 1000));
	*lv = 0;
	/* counted from here: the WRITE that resolves the MAC is not part
	 * of what is compared */
	TRY(resolve_first());
	TRY(pmr_roce_port_stats(dev, &a));
	TRY(read_then_send(rlen, 65, slen, 66, &rs, 0, &rid, &sid));
	aid = wr_seq++;
	TRY(post_atomic(qps[0], aid, PMR_WR_ATOMIC_FETCH_AND_ADD, (uintptr_t)lv,
			srv.buf + aoff, srv.buf_rkey, 7, 0));
	TRY(expect_wc(qps[0], rid, PMR_WC_SUCCESS, PMR_WR_RDMA_READ, rlen));
	TRY(expect_wc(qps[0], sid, PMR_WC_SUCCESS, PMR_WR_SEND, -1));
	TRY(expect_wc(qps[0], aid, PMR_WC_SUCCESS, PMR_WR_ATOMIC_FETCH_AND_ADD,
		      8));
	TRY(pmr_roce_port_stats(dev, &b));
	TRY(l_verify(0, rlen, 65, 0, GUARD));
	TRY(s_expect_recv(0, sid, PMR_WC_SUCCESS, PMR_WC_RECV, slen, false, 66,
			  &rs, 1));
	if (*lv != 1000)
		FAIL("FETCH_ADD returned %" PRIu64 ", expected 1000", *lv);
	TRY(s_get64(aoff, &v));
	if (v != 1007)
		FAIL("FETCH_ADD: remote is %" PRIu64 ", expected 1007", v);
	if (b.retransmits != a.retransmits || b.dup_requests != a.dup_requests)
		FAIL("retransmits +%" PRIu64 ", stale answers +%" PRIu64
		     ": an answer overtook the READ's responses",
		     b.retransmits - a.retransmits,
		     b.dup_requests - a.dup_requests);
	return case_end();
}

/* ---- ARP timeout ---------------------------------------------------------------- */

/*
 * An RC QP towards an address nobody owns on the segment (the peer's /24,
 * host .77): no ARP answer, so the SEND ends in RETRY_EXC_ERR after the
 * local ACK timeouts (timeout 8 ~ 1 ms, retry_cnt 2), the next WR is
 * flushed, and the port counters show the ARP requests and the timeouts.
 * The server takes no part.
 */
/* The peer's /24, host .77: an address nobody owns on the segment. */
static int unowned_ip(char *ip)
{
	struct in_addr ia;

	if (inet_pton(AF_INET, peer_ip, &ia) != 1)
		FAIL("bad --peer-ip %s", peer_ip);
	((uint8_t *)&ia.s_addr)[3] = 77;
	inet_ntop(AF_INET, &ia, ip, INET_ADDRSTRLEN);
	if (strcmp(ip, peer_ip) == 0)
		FAIL("the peer itself is .77");
	return 0;
}

/* QP 0 alone, made with *s (its local ACK timeout set to `timeout`, and
 * retry_cnt to 2), towards QP dqpn at ip; no completion or event kept. */
static void lone_qp(struct qpspec *s, unsigned int timeout, uint32_t dqpn,
		    const char *ip)
{
	s->timeout = timeout;
	s->retry_cnt = 2;
	stash_clear();
	naevs = 0;
	qps[0] = qp_create(s);
	nqps = 1;
	qp_connect_ip(qps[0], s, 0x1234, dqpn, 0x5678, ip);
}

/* The SEND wr_id of QP 0 ends in RETRY_EXC_ERR within 3 s; a failure
 * message starts with `where`. */
static int expect_retry_exc(uint64_t id, const char *where)
{
	int r;

	wait_ns = 3000000000ull;
	r = expect_wc(qps[0], id, PMR_WC_RETRY_EXC_ERR, PMR_WR_SEND, -1);
	wait_ns = WAIT_NS;
	if (r)
		pmrt_fail_prefix("%s", where);
	return r;
}

static int case_arp_timeout(void)
{
	struct qpspec s = spec_default();
	struct pmr_roce_port_stats a, b;
	char ip[INET_ADDRSTRLEN];
	struct pmr_sge sg = { (uintptr_t)buf, 64, mr->lkey };
	uint64_t id = wr_seq++, t0, dt;
	int r;

	TRY(unowned_ip(ip));
	lone_qp(&s, 8, 0x4321, ip);    /* ~1 ms */
	TRY(pmr_roce_port_stats(dev, &a));
	wait_ns = 3000000000ull;
	t0 = pmrt_now_ns();
	r = post_send(qps[0], id, PMR_WR_SEND, &sg, 1, 0, 0, 0);
	if (r == 0)
		r = expect_wc(qps[0], id, PMR_WC_RETRY_EXC_ERR, PMR_WR_SEND, -1);
	dt = pmrt_now_ns() - t0;
	if (r == 0)
		r = expect_flushed(0);
	wait_ns = WAIT_NS;
	if (r) {
		char t[64];

		snprintf(t, sizeof(t), "towards %s: ", ip);
		pmrt_fail_prefix("%s", t);
		return -1;
	}
	TRY(pmr_roce_port_stats(dev, &b));
	printf("client: arp_timeout: %s: RETRY_EXC_ERR after %.1f ms, arp_tx +%"
	       PRIu64 ", timeouts +%" PRIu64 "\n", ip, (double)dt / 1e6,
	       b.arp_tx - a.arp_tx, b.timeouts - a.timeouts);
	if (dt > 2000000000ull)
		FAIL("RETRY_EXC_ERR only after %.2f s", (double)dt / 1e9);
	if (b.arp_tx <= a.arp_tx)
		FAIL("no ARP request sent (arp_tx %" PRIu64 " -> %" PRIu64 ")",
		     a.arp_tx, b.arp_tx);
	if (b.timeouts <= a.timeouts || b.timeouts == 0)
		FAIL("no local ACK timeout counted (timeouts %" PRIu64 " -> %"
		     PRIu64 ")", a.timeouts, b.timeouts);
	qps_destroy();
	return 0;
}

/*
 * RTS -> SQD while a SEND waits for a neighbour nobody answers for (as in
 * arp_timeout): the SEND has not begun, so SQ_DRAINED comes at once and
 * no local ACK timeout runs for it (no RETRY_EXC_ERR in SQD, however long
 * it waits); back in RTS the look-up starts again and the SEND fails as
 * in arp_timeout.
 */
static int case_sqd_unresolved(void)
{
	struct qpspec s = spec_default();
	struct pmr_sge sg = { (uintptr_t)buf, 64, mr->lkey };
	uint64_t id = wr_seq++;
	struct pmr_wc wc;
	char ip[INET_ADDRSTRLEN];

	TRY(unowned_ip(ip));
	lone_qp(&s, 8, 0x4321, ip);    /* ~1 ms */
	TRY(post_send(qps[0], id, PMR_WR_SEND, &sg, 1, 0, 0, 0));
	TRY(to_sqd(true));
	TRY(expect_drained(1));
	spin_ns(50000000);          /* over ten ACK timeouts */
	if (wc_pending(qps[0]->qp_num, &wc))
		FAIL("completion in SQD for a SEND that had not begun: wr_id %"
		     PRIu64 " status %s", wc.wr_id, pmr_wc_status_str(wc.status));
	if (pmrt_qp_state(qps[0]) != PMR_QPS_SQD)
		FAIL("QP left SQD by itself (state %d)", pmrt_qp_state(qps[0]));
	TRY(to_rts());
	TRY(expect_retry_exc(id, "back in RTS: "));
	qps_destroy();
	return 0;
}

/*
 * RTS -> SQD (SQ_DRAINED asked for) while a SEND goes to a QP number the
 * server does not have: nobody ACKs it, so it ends in RETRY_EXC_ERR in
 * SQD (timeout 12 ~ 17 ms, retry_cnt 2: well after the 2 ms the SEND is
 * given to go out) and the QP goes to ERR.  SQ_DRAINED never comes, and the QP no longer costs the engine a visit per run
 * (qps_active back to 0).
 */
static int case_sqd_err(void)
{
	struct qpspec s = spec_default();
	struct pmr_sge sg = { (uintptr_t)buf, 64, mr->lkey };
	struct pmr_roce_port_stats st;
	uint64_t id = wr_seq++;

	lone_qp(&s, 12, 0xFFFFF0, peer_ip);   /* ~17 ms */
	TRY(post_send(qps[0], id, PMR_WR_SEND, &sg, 1, 0, 0, 0));
	/* the SEND has begun (its first packet is out) before SQD */
	spin_ns(2000000);
	TRY(to_sqd(true));
	TRY(expect_retry_exc(id, "in SQD: "));
	if (pmrt_qp_state(qps[0]) != PMR_QPS_ERR)
		FAIL("QP in state %d after RETRY_EXC_ERR in SQD, not ERR",
		     pmrt_qp_state(qps[0]));
	TRY(expect_drained(0));
	TRY(pmr_roce_port_stats(dev, &st));
	if (st.qps_active != 0)
		FAIL("%" PRIu64 " QP(s) still visited by every engine run, the "
		     "QP in ERR among them", st.qps_active);
	qps_destroy();
	return 0;
}

/* Last case: the server dies in the middle of a stream of WRITEs. */
static int case_peer_kill(void)
{
	struct qpspec s = spec_default();
	const uint32_t depth = 128, len = 16384, die_after = 100;
	uint64_t id0 = wr_seq, posted = 0, done = 0, succ = 0, flushed = 0;
	uint64_t retry_exc = 0, end, last_ok = 0, to_err = 0;
	bool told = false, err = false;
	struct pmr_sge sg = { (uintptr_t)buf, len, mr->lkey };
	struct cmd c;

	s.path_mtu = PMR_MTU_4096;
	s.timeout = 12;             /* ~16.8 ms */
	s.retry_cnt = 3;
	s.max_send_wr = depth;
	TRY(case_begin(&s));
	pmrt_fill_pat(buf, len, 71, 0);
	end = pmrt_now_ns() + 60000000000ull;
	while (!err || done < posted) {
		struct pmr_wc wc;

		while (!err && posted - done < depth) {
			TRY(post_send(qps[0], id0 + posted, PMR_WR_RDMA_WRITE, &sg,
				      1, srv.buf + 1 * MIB, srv.buf_rkey, 0));
			posted++;
		}
		if (pmrt_now_ns() > end)
			FAIL("peer_kill: stuck: posted %" PRIu64 " done %" PRIu64,
			     posted, done);
		if (pmr_poll_cq(cq, 1, &wc) != 1)
			continue;
		if (wc.wr_id != id0 + done)
			FAIL("peer_kill: completion wr_id %" PRIu64 ", expected %"
			     PRIu64 " (out of order)", wc.wr_id, id0 + done);
		done++;
		if (wc.status == PMR_WC_SUCCESS) {
			if (retry_exc || flushed)
				FAIL("peer_kill: success after an error (wr %" PRIu64
				     ")", done - 1);
			succ++;
			last_ok = pmrt_now_ns();
		} else if (wc.status == PMR_WC_RETRY_EXC_ERR) {
			if (retry_exc || flushed)
				FAIL("peer_kill: RETRY_EXC_ERR is not the first error");
			retry_exc++;
			err = true;
			to_err = pmrt_now_ns() - last_ok;
		} else if (wc.status == PMR_WC_WR_FLUSH_ERR) {
			if (!retry_exc)
				FAIL("peer_kill: WR_FLUSH_ERR before RETRY_EXC_ERR "
				     "(wr %" PRIu64 ")", done - 1);
			flushed++;
		} else {
			FAIL("peer_kill: unexpected status %s on wr %" PRIu64,
			     pmr_wc_status_str(wc.status), done - 1);
		}
		if (!told && succ >= die_after) {
			cmd_init(&c, C_DIE);
			c.val = kill_freeze;
			pmrt_ctl_write(&c, sizeof(c));
			told = true;
		}
	}
	printf("client: peer_kill: %" PRIu64 " WRITEs succeeded, 1 RETRY_EXC_ERR, "
	       "%" PRIu64 " flushed\n", succ, flushed);
	/* the ACK timer decides, whether the peer's ring is full (memif,
	 * freeze) or not: 4 timeouts of 16.8 ms after the last ACK, with
	 * room for scheduling */
	if (to_err > 600000000ull)
		FAIL("peer_kill: RETRY_EXC_ERR %" PRIu64 " ms after the last "
		     "success, expected about 67", to_err / 1000000);
	if (retry_exc != 1 || flushed == 0)
		FAIL("peer_kill: %" PRIu64 " RETRY_EXC_ERR, %" PRIu64 " flushed",
		     retry_exc, flushed);
	if (pmrt_qp_state(qps[0]) != PMR_QPS_ERR)
		FAIL("peer_kill: QP not in ERR");
	qps_destroy();
	return 0;
}

struct tcase {
	const char *name;
	int (*fn)(void);
};

static const struct tcase cases[] = {
	{ "opcodes", case_opcodes },
	{ "sizes", case_sizes },
	{ "inline", case_inline },
	{ "busy_engine", case_busy_engine },
	{ "sge", case_sge },
	{ "manyqp", case_manyqp },
	{ "err_rkey", case_err_rkey },
	{ "err_bounds", case_err_bounds },
	{ "err_rights", case_err_rights },
	{ "err_atomic_align", case_err_atomic_align },
	{ "err_recv_len", case_err_recv_len },
	{ "err_recv_lkey", case_err_recv_lkey },
	{ "rnr_exc", case_rnr_exc },
	{ "rnr_late", case_rnr_late },
	{ "sqd_drain", case_sqd_drain },
	{ "sqd_rnr", case_sqd_rnr },
	{ "sqd_fence", case_sqd_fence },
	{ "fence_local_err", case_fence_local_err },
	{ "resp_order", case_resp_order },
	{ "arp_timeout", case_arp_timeout },
	{ "sqd_unresolved", case_sqd_unresolved },
	{ "sqd_err", case_sqd_err },
	{ "peer_kill", case_peer_kill },    /* must stay last */
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int client_run(const bool *sel)
{
	int failed = 0, skipped = 0;
	bool killed = false;

	/* the server's MR addresses for the error cases come with the first
	 * CASE_BEGIN; fetch them up front with a dummy case */
	{
		struct qpspec s = spec_default();

		if (case_begin(&s) || case_end())
			pmrt_die("first case set-up failed: %s", pmrt_failmsg);
	}
	for (unsigned int i = 0; i < NCASES; i++) {
		uint64_t t0;
		int r;

		if (!sel[i])
			continue;
		pmrt_failmsg[0] = '\0';
		t0 = pmrt_now_ns();
		r = cases[i].fn();
		if (r == CASE_SKIPPED) {
			skipped++;
			printf("SKIP %s: %s\n", cases[i].name, pmrt_failmsg);
		} else if (r) {
			failed++;
			printf("FAIL %s: %s\n", cases[i].name, pmrt_failmsg);
			/* get back in step: drop this case's QPs */
			if (nqps && strcmp(cases[i].name, "peer_kill") != 0)
				case_end();
		} else {
			printf("PASS %s (%.2f s)\n", cases[i].name,
			       (double)(pmrt_now_ns() - t0) / 1e9);
		}
		fflush(stdout);
		if (strcmp(cases[i].name, "peer_kill") == 0)
			killed = true;
	}
	if (!killed) {
		struct cmd c;

		cmd_init(&c, C_QUIT);
		srv_cmd(&c, NULL);
	}
	print_stats();
	printf("client: %d case(s) failed, %d skipped\n", failed, skipped);
	return failed ? 1 : 0;
}


/* ============================================================================
 * Probe: device opening checks, no peer (service_errors.sh)
 * ==========================================================================*/

/*
 * --role probe --expect-errno N: pmr_open_device() must fail with errno N
 * (e.g. a service_lcore that is the main lcore or not an EAL lcore);
 * --expect-errno none: it must succeed (then the device is closed).
 * --role probe alone: the open must succeed; without service_lcore= the
 * service mode is refused with ENOTSUP and the context still works
 * (a loopback-free smoke test: PD, CQ, QP to RTS, progress, clean-up).
 * --expect-list-errno N: the device cannot be made: pmr_get_device_list()
 * must fail with errno N.
 */
static int probe_run(int expect_errno, int expect_list_errno)
{
	struct pmr_device **l;
	struct pmr_context *c;
	int n, r, rc = 0;
	uint64_t t0 = pmrt_now_ns();

	errno = 0;
	l = pmr_get_device_list(&n);
	if (expect_list_errno != 0) {
		int err = errno;

		if (l != NULL || err != expect_list_errno) {
			printf("probe: FAIL: device list %s, errno %d (%s), "
			       "expected %d\n", l != NULL ? "made" : "NULL",
			       err, strerror(err), expect_list_errno);
			return 1;
		}
		printf("probe: PASS: no device (%s) after %.1f s\n",
		       strerror(err), (double)(pmrt_now_ns() - t0) / 1e9);
		return 0;
	}
	if (l == NULL || n < 1) {
		printf("probe: FAIL: no pmrdma device (errno %d)\n", errno);
		return 1;
	}
	dev = NULL;
	for (int i = 0; i < n; i++)
		if (strncmp(pmr_get_device_name(l[i]), "pmr_roce", 8) == 0)
			dev = l[i];
	if (dev == NULL) {
		printf("probe: FAIL: no pmr_roce device\n");
		return 1;
	}
	errno = 0;
	c = pmr_open_device(dev);
	if (expect_errno < 0) {
		/* the positive control: this configuration opens */
		if (c == NULL) {
			printf("probe: FAIL: pmr_open_device: %s\n",
			       strerror(errno));
			rc = 1;
		} else {
			if (pmr_close_device(c)) {
				printf("probe: FAIL: close_device\n");
				rc = 1;
			} else {
				printf("probe: PASS: pmr_open_device ok\n");
			}
		}
		pmr_free_device_list(l);
		return rc;
	}
	if (expect_errno != 0) {
		if (c != NULL) {
			printf("probe: FAIL: pmr_open_device succeeded, expected "
			       "NULL with errno %d (%s)\n", expect_errno,
			       strerror(expect_errno));
			pmr_close_device(c);
			rc = 1;
		} else if (errno != expect_errno) {
			printf("probe: FAIL: pmr_open_device: errno %d (%s), "
			       "expected %d (%s)\n", errno, strerror(errno),
			       expect_errno, strerror(expect_errno));
			rc = 1;
		} else {
			printf("probe: PASS: pmr_open_device -> NULL, errno %s\n",
			       strerror(errno));
		}
		pmr_free_device_list(l);
		return rc;
	}
	if (c == NULL) {
		printf("probe: FAIL: pmr_open_device: %s\n", strerror(errno));
		return 1;
	}
	ctx = pmrt_ctx = c;
	r = pmr_set_progress_mode(ctx, PMR_PROGRESS_SERVICE);
	if (r != ENOTSUP) {
		printf("probe: FAIL: set_progress_mode(SERVICE): %d (%s), "
		       "expected ENOTSUP\n", r, strerror(r));
		rc = 1;
	}
	/* still usable: objects, a QP up to RTS, progress, tear-down */
	{
		struct qpspec s = spec_default();
		struct pmr_qp *qp;
		struct pmr_qp_attr a;
		struct pmr_qp_init_attr ia;

		pd = pmr_alloc_pd(ctx);
		cq = pmr_create_cq(ctx, 64, NULL, NULL, 0);
		buf = aligned_alloc(4096, 4096);
		if (pd == NULL || cq == NULL || buf == NULL) {
			printf("probe: FAIL: set-up after the refused mode: %s\n",
			       strerror(errno));
			return 1;
		}
		mr = pmr_reg_mr(pd, buf, 4096, PMR_ACCESS_LOCAL_WRITE);
		if (mr == NULL) {
			printf("probe: FAIL: reg_mr: %s\n", strerror(errno));
			return 1;
		}
		peer_ip = "10.98.0.2";
		qp = qp_create(&s);
		qp_connect(qp, &s, 1, 0x100, 1);
		for (int i = 0; i < 100; i++)
			if (pmr_progress(ctx, 32) < 0) {
				printf("probe: FAIL: pmr_progress\n");
				rc = 1;
				break;
			}
		if (pmr_query_qp(qp, &a, PMR_QP_STATE, &ia) ||
		    a.qp_state != PMR_QPS_RTS) {
			printf("probe: FAIL: QP not in RTS\n");
			rc = 1;
		}
		r = pmr_set_progress_mode(ctx, PMR_PROGRESS_SERVICE);
		if (r != EBUSY && r != ENOTSUP) {
			printf("probe: FAIL: set_progress_mode(SERVICE) with a QP: "
			       "%d (%s)\n", r, strerror(r));
			rc = 1;
		}
		if (pmr_destroy_qp(qp) || pmr_dereg_mr(mr) ||
		    pmr_destroy_cq(cq) || pmr_dealloc_pd(pd)) {
			printf("probe: FAIL: tear-down\n");
			rc = 1;
		}
		r = pmr_set_progress_mode(ctx, PMR_PROGRESS_MANUAL);
		if (r == 0)
			r = pmr_set_progress_mode(ctx, PMR_PROGRESS_INLINE);
		if (r != 0) {
			printf("probe: FAIL: set_progress_mode MANUAL/INLINE: %s\n",
			       strerror(r));
			rc = 1;
		}
	}
	if (pmr_close_device(ctx)) {
		printf("probe: FAIL: close_device\n");
		rc = 1;
	}
	pmr_free_device_list(l);
	if (rc == 0)
		printf("probe: PASS: open ok, SERVICE refused with ENOTSUP, "
		       "context usable\n");
	return rc;
}

/* ============================================================================
 * main
 * ==========================================================================*/

static void usage(void)
{
	fprintf(stderr,
		"usage: rc_ops --role server|client --peer-ip A --ctl PATH "
		"[--kill-mode exit|freeze] [--case NAME]... [--skip NAME]...\n"
		"       rc_ops --role probe [--expect-errno EINVAL|none|N] "
		"[--expect-list-errno ENOTCONN|N]\ncases:");
	for (unsigned int i = 0; i < NCASES; i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

/* The index of case n in cases[] (the usage and exit if none). */
static unsigned int case_find(const char *n)
{
	for (unsigned int k = 0; k < NCASES; k++)
		if (strcmp(n, cases[k].name) == 0)
			return k;
	fprintf(stderr, "unknown case %s\n", n);
	usage();
	return 0;
}

int main(int argc, char **argv)
{
	const char *role = NULL, *path = NULL;
	int expect_errno = 0, expect_list_errno = 0;
	bool sel[NCASES], skip[NCASES], any = false;
	int rc = 0;

	memset(sel, 0, sizeof(sel));
	memset(skip, 0, sizeof(skip));
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "--role") == 0) {
			role = argv[++i];
		} else if (strcmp(argv[i], "--peer-ip") == 0) {
			peer_ip = argv[++i];
		} else if (strcmp(argv[i], "--ctl") == 0) {
			path = argv[++i];
		} else if (strcmp(argv[i], "--expect-errno") == 0) {
			const char *e = argv[++i];

			if (strcmp(e, "EINVAL") == 0)
				expect_errno = EINVAL;
			else if (strcmp(e, "ENOTSUP") == 0)
				expect_errno = ENOTSUP;
			else if (strcmp(e, "none") == 0)
				expect_errno = -1;
			else
				expect_errno = atoi(e);
		} else if (strcmp(argv[i], "--expect-list-errno") == 0) {
			const char *e = argv[++i];

			expect_list_errno = strcmp(e, "ENOTCONN") == 0 ?
					    ENOTCONN : atoi(e);
		} else if (strcmp(argv[i], "--kill-mode") == 0) {
			const char *m = argv[++i];

			if (strcmp(m, "freeze") == 0)
				kill_freeze = true;
			else if (strcmp(m, "exit") != 0)
				usage();
		} else if (strcmp(argv[i], "--case") == 0) {
			const char *n = argv[++i];

			if (strcmp(n, "all") == 0)
				memset(sel, 1, sizeof(sel));
			else
				sel[case_find(n)] = true;
			any = true;
		} else if (strcmp(argv[i], "--skip") == 0) {
			skip[case_find(argv[++i])] = true;
		} else {
			usage();
		}
	}
	if (role != NULL && strcmp(role, "probe") == 0)
		return probe_run(expect_errno, expect_list_errno);
	if (role == NULL || path == NULL || peer_ip == NULL)
		usage();
	if (strcmp(role, "server") == 0) {
		is_server = true;
		pmrt_name = "server";
		pmrt_ctl_idle = poll_async;
	} else if (strcmp(role, "client") != 0)
		usage();
	for (unsigned int k = 0; k < NCASES; k++)
		sel[k] = (sel[k] || !any) && !skip[k];
	pmrt_ctl_check_path(path);

	dev_open();
	printf("%s: device %s open\n", role, pmr_get_device_name(dev));

	pmrt_ctl_open(path, is_server);
	if (is_server)
		server_loop();
	else
		rc = client_run(sel);
	/* No engine progress after this point: the peer may be leaving (see
	 * the memif note at the top).  Nothing is owed to it any more: every
	 * request was answered before the last control exchange. */
	close(pmrt_ctl);
	return rc;
}
