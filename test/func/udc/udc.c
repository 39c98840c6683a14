/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udc: functional tests of UD and UC QPs (and RC over IPv6) between two
 * pmrdma processes on the wire.
 *
 *   udc --role server|client --ctl PATH --peer-ip A [--gid-index I]
 *       [--case NAME]...
 *
 * --peer-ip is the other side's IPv4 or IPv6 address (its GID); --gid-index
 * our source GID (0 for the first address of PMR_DEVICES: the IPv4-mapped
 * GID when ipv4= is given, else the IPv6 one; 1 for ipv6= when both are).
 *
 * The client drives every case and checks its send completions; the
 * server is a command-driven agent on the Unix control socket at PATH
 * (create QPs, post receives, check receive completions, data, the GRH
 * area and the port counters).  Both keep the engine running
 * (pmr_progress) while they wait on the control socket.
 *
 * Cases (path MTU = the port's active MTU):
 *  ud_sizes   UD SEND / SEND_WITH_IMM of 0, 1, MTU-1, MTU bytes: 40 bytes of
 *             GRH area first (IPv4: 20 zero bytes + the sender's IPv4
 *             header; IPv6: its IPv6 header), data at 40, byte_len = len +
 *             40, PMR_WC_GRH, src_qp = the sender's QPN, immediate data
 *  ud_qkey    a Q_Key mismatch: sender SUCCESS, nothing received,
 *             rx_drop_qkey + 1; the posted receive then takes a good one
 *  ud_too_big a UD send of MTU + 1: PMR_WC_LOC_LEN_ERR, the QP in SQE;
 *             a send posted in SQE flushed; SQE -> RTS and the next sends
 *             work (the flushed one never goes)
 *  sqd        UC, then UD: RTS -> SQD gives SQ_DRAINED; a send posted in
 *             SQD waits for RTS
 *  ud_multi   one UD QP sending to two receiver QPs through two AHs
 *  uc_send    UC SEND of 1, MTU, 3 MTU + 17 and 16384 bytes (+ WITH_IMM)
 *  uc_write   UC RDMA_WRITE and WRITE_WITH_IMM, contents and guard bytes
 *  uc_norecv  UC SEND with no receive posted: sender SUCCESS, nothing
 *             received (rx_drop_no_recv + 1); a later one arrives fine
 *  uc_badrkey UC WRITE with a bad rkey: sender SUCCESS, nothing written
 *  rc_v6      RC SEND, WRITE and READ (meant for IPv6 devices)
 *  ud_v6      = ud_sizes (meant for IPv6 devices: the GRH area is the
 *             40-byte IPv6 header)
 *
 * The client exits 0 when every selected case passed.
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

#include <pmr_verbs.h>
#include <pmr_roce.h>

#include "pmrt.h"

#define MAXQP 4
#define BUF_SIZE (4u << 20)
#define CANARY 0xEE
#define CQ_SIZE 4096
#define WAIT_NS (10ull * 1000000000ull)
#define QKEY 0x11111111u
#define GRH 40

/* ---- control protocol ----------------------------------------------------- */

enum {
	C_SETUP = 1, C_POST_RECV, C_EXPECT_RECV, C_EXPECT_NONE, C_FILL,
	C_CANARY, C_VERIFY, C_CHECK_BYTE, C_STATS, C_END, C_QUIT,
};

struct cmd {
	uint32_t type;
	int32_t qp;
	uint32_t qp_type, nqp, path_mtu;
	uint32_t peer_qpn[MAXQP], peer_psn[MAXQP];
	uint64_t wr_id, off, len;
	uint32_t seed, guard;
	int32_t status, opcode;
	uint32_t byte_len, has_imm, imm, ud, src_qp, ms;
	uint8_t byte;
};

struct reply {
	int32_t ok;
	char text[256];
	uint32_t qpn[MAXQP], psn[MAXQP];
	uint64_t buf;
	uint32_t rkey;
	struct pmr_roce_port_stats st;
};

/* ---- global state ------------------------------------------------------------ */

static bool is_server;
static const char *peer_ip;
static uint8_t peer_gid[16], my_gid[16];
static bool v6;
static int gid_index;
static struct pmr_device *dev;
static struct pmr_context *ctx;
static struct pmr_pd *pd;
static struct pmr_cq *cq;
static uint8_t *buf;
static struct pmr_mr *mr;
static struct pmr_qp *qps[MAXQP];
static struct pmr_ah *ahs[MAXQP];
static uint32_t nqps;
static int mtu;                   /* bytes */
static enum pmr_mtu mtu_enum;

#define STASH_MAX 4096
static struct pmr_wc stash[STASH_MAX];
static uint32_t nstash;

static void poll_into_stash(void)
{
	struct pmr_wc wc[32];
	int n = pmr_poll_cq(cq, 32, wc);

	if (n < 0)
		pmrt_die("pmr_poll_cq: %d", n);
	for (int i = 0; i < n; i++) {
		if (nstash == STASH_MAX)
			pmrt_die("completion stash full");
		stash[nstash++] = wc[i];
	}
}

/* Take the oldest completion of QP qpn within ns. */
static bool take_wc(uint32_t qpn, struct pmr_wc *out, uint64_t ns)
{
	uint64_t end = pmrt_now_ns() + ns;

	for (;;) {
		for (uint32_t i = 0; i < nstash; i++) {
			if (stash[i].qp_num != qpn)
				continue;
			*out = stash[i];
			memmove(&stash[i], &stash[i + 1],
				(nstash - i - 1) * sizeof(stash[0]));
			nstash--;
			return true;
		}
		if (pmrt_now_ns() > end)
			return false;
		poll_into_stash();
	}
}

/* ---- verbs set-up ------------------------------------------------------------ */

static void dev_open(void)
{
	struct pmr_port_attr pa;
	union pmr_gid g;

	ctx = pmrt_open_roce(&dev);
	fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	pd = pmr_alloc_pd(ctx);
	cq = pmr_create_cq(ctx, CQ_SIZE, NULL, NULL, 0);
	buf = pmrt_alloc_buf(BUF_SIZE);
	if (pd == NULL || cq == NULL || buf == NULL)
		pmrt_die("set-up: %s", strerror(errno));
	mr = pmr_reg_mr(pd, buf, BUF_SIZE, PMR_ACCESS_LOCAL_WRITE |
			PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
			PMR_ACCESS_REMOTE_ATOMIC);
	if (mr == NULL)
		pmrt_die("reg_mr: %s", strerror(errno));
	if (pmr_query_port(ctx, 1, &pa))
		pmrt_die("query_port");
	mtu_enum = pa.active_mtu;
	mtu = pmr_mtu_to_num(pa.active_mtu);
	if (pmr_query_gid(ctx, 1, gid_index, &g))
		pmrt_die("query_gid %d", gid_index);
	memcpy(my_gid, g.raw, 16);
	pmrt_ip_to_gid(peer_ip, peer_gid);
	v6 = !(peer_gid[10] == 0xff && peer_gid[11] == 0xff &&
	       memcmp(peer_gid, "\0\0\0\0\0\0\0\0\0\0", 10) == 0);
	{
		static const uint8_t zero[16];

		if (memcmp(my_gid, zero, 16) == 0)
			pmrt_die("GID index %d is empty", gid_index);
	}
}

static struct pmr_qp *qp_create(enum pmr_qp_type t)
{
	struct pmr_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 64,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	unsigned int access = PMR_ACCESS_REMOTE_WRITE;

	if (t == PMR_QPT_RC)
		access |= PMR_ACCESS_REMOTE_READ;
	return pmrt_qp_create(pd, cq, t, &cap, access, QKEY);
}

static void qp_ready(struct pmr_qp *qp, enum pmr_qp_type t, uint32_t my_psn,
		     uint32_t dqpn, uint32_t dpsn)
{
	struct pmrt_conn c = {
		.type = t, .path_mtu = mtu_enum,
		.sq_psn = my_psn, .dest_qpn = dqpn, .rq_psn = dpsn,
		.sgid_index = (uint8_t)gid_index, .hop_limit = 64,
		.max_dest_rd_atomic = 4, .max_rd_atomic = 4, .min_rnr_timer = 12,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
	};

	memcpy(c.dgid, peer_gid, 16);
	pmrt_qp_connect(qp, &c);
}

static struct pmr_ah *ah_create(void)
{
	struct pmr_ah_attr a;
	struct pmr_ah *ah;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.hop_limit = 64;
	a.grh.sgid_index = (uint8_t)gid_index;
	memcpy(a.grh.dgid.raw, peer_gid, 16);
	ah = pmr_create_ah(pd, &a);
	if (ah == NULL)
		pmrt_die("create_ah: %s", strerror(errno));
	return ah;
}

static void qps_destroy(void)
{
	uint64_t end = pmrt_now_ns() + 2000000ull;

	while (pmrt_now_ns() < end)
		poll_into_stash();
	for (uint32_t i = 0; i < MAXQP; i++) {
		if (qps[i] != NULL && pmr_destroy_qp(qps[i]))
			pmrt_die("destroy_qp");
		qps[i] = NULL;
		if (ahs[i] != NULL && pmr_destroy_ah(ahs[i]))
			pmrt_die("destroy_ah");
		ahs[i] = NULL;
	}
	nqps = 0;
	poll_into_stash();
	nstash = 0;
}

/* ============================================================================
 * Server
 * ==========================================================================*/

static struct reply rep;

/* The GRH area of a UD receive: IPv4: 20 zero bytes, then the IPv4 header
 * (version/IHL 0x45, protocol UDP, source = the sender, destination = us);
 * IPv6: the IPv6 header (version 6, next header UDP, the two GIDs). */
static void check_grh(const uint8_t *g)
{
	if (!v6) {
		int64_t i = pmrt_check_byte(g, 20, 0);

		if (i >= 0) {
			pmrt_rep_fail("GRH byte %" PRId64 " is %#x, expected 0", i, g[i]);
			return;
		}
		g += 20;
		if (g[0] != 0x45 || g[9] != 17 || memcmp(g + 12, peer_gid + 12, 4) ||
		    memcmp(g + 16, my_gid + 12, 4))
			pmrt_rep_fail("GRH area: IPv4 header %02x ... proto %u src "
				 "%u.%u.%u.%u dst %u.%u.%u.%u (expected 0x45, 17, "
				 "%s -> us)", g[0], g[9], g[12], g[13], g[14],
				 g[15], g[16], g[17], g[18], g[19], peer_ip);
		return;
	}
	if ((g[0] >> 4) != 6 || g[6] != 17 || memcmp(g + 8, peer_gid, 16) ||
	    memcmp(g + 24, my_gid, 16)) {
		char s[64], d[64];

		inet_ntop(AF_INET6, g + 8, s, sizeof(s));
		inet_ntop(AF_INET6, g + 24, d, sizeof(d));
		pmrt_rep_fail("GRH area: IPv6 header version %u next header %u src %s "
			 "dst %s (expected 6, 17, %s -> us)", g[0] >> 4, g[6], s,
			 d, peer_ip);
	}
}

static void srv_expect_recv(const struct cmd *c)
{
	struct pmr_wc wc;
	const uint8_t *p;
	uint64_t dlen;

	if (!pmrt_qp_index_ok(nqps, c->qp))
		return;
	if (!take_wc(qps[c->qp]->qp_num, &wc, WAIT_NS)) {
		pmrt_rep_fail("no receive completion on QP %#x (wr_id %" PRIu64 ")",
			 qps[c->qp]->qp_num, c->wr_id);
		return;
	}
	if (!pmrt_recv_wc_ok(&wc, c->wr_id, c->status, c->opcode, c->byte_len,
			     c->has_imm, c->imm))
		return;
	if (c->ud) {
		if (!(wc.wc_flags & PMR_WC_GRH)) {
			pmrt_rep_fail("UD recv wc: PMR_WC_GRH not set (wc_flags %#x)",
				 wc.wc_flags);
			return;
		}
		if (wc.src_qp != c->src_qp) {
			pmrt_rep_fail("UD recv wc: src_qp %#x, expected %#x", wc.src_qp,
				 c->src_qp);
			return;
		}
		check_grh(buf + c->off);
		if (!rep.ok)
			return;
	}
	/* the data (not for WRITE_WITH_IMM: it went to the target region),
	 * then the canary up to the end of the posted buffer */
	p = buf + c->off + (c->ud ? GRH : 0);
	dlen = c->opcode == PMR_WC_RECV ? c->byte_len - (c->ud ? GRH : 0) : 0;
	{
		int64_t i = pmrt_check_pat(p, dlen, c->seed, 0);

		if (i >= 0) {
			pmrt_rep_fail("recv data byte %" PRId64 " is %#x, expected %#x",
				 i, p[i], pmrt_pat(c->seed, (uint64_t)i));
			return;
		}
		uint64_t used = (c->ud ? GRH : 0) + dlen;

		i = pmrt_check_byte(buf + c->off + used, c->len - used, CANARY);
		if (i >= 0)
			pmrt_rep_fail("recv buffer byte %" PRIu64 " past the message "
				 "overwritten (%#x)", used + (uint64_t)i,
				 buf[c->off + used + (uint64_t)i]);
	}
}

static void srv_setup(const struct cmd *c)
{
	if (nqps)
		qps_destroy();
	if (c->nqp == 0 || c->nqp > MAXQP) {
		pmrt_rep_fail("bad nqp %u", c->nqp);
		return;
	}
	nstash = 0;
	for (uint32_t i = 0; i < c->nqp; i++) {
		uint32_t psn = (0x300000 + i * 7919 + c->peer_psn[i]) & 0xffffff;

		qps[i] = qp_create((enum pmr_qp_type)c->qp_type);
		qp_ready(qps[i], (enum pmr_qp_type)c->qp_type, psn,
			 c->peer_qpn[i], c->peer_psn[i]);
		rep.qpn[i] = qps[i]->qp_num;
		rep.psn[i] = psn;
	}
	nqps = c->nqp;
}

static void server_loop(void)
{
	struct cmd c;

	pmrt_rep_bind(&rep.ok, rep.text, sizeof(rep.text));
	for (;;) {
		if (!pmrt_ctl_read(&c, sizeof(c)))
			pmrt_die("control socket closed without QUIT");
		memset(&rep, 0, sizeof(rep));
		rep.ok = 1;
		rep.buf = (uintptr_t)buf;
		rep.rkey = mr->rkey;
		switch (c.type) {
		case C_SETUP:
			srv_setup(&c);
			break;
		case C_POST_RECV: {
			struct pmr_sge sg;
			struct pmr_recv_wr wr, *bad;
			int r;

			if (!pmrt_qp_index_ok(nqps, c.qp) || !pmrt_region_ok(BUF_SIZE, c.off, c.len))
				break;
			memset(buf + c.off, CANARY, c.len);
			sg.addr = (uintptr_t)(buf + c.off);
			sg.length = (uint32_t)c.len;
			sg.lkey = mr->lkey;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = c.wr_id;
			wr.sg_list = &sg;
			wr.num_sge = 1;
			r = pmr_post_recv(qps[c.qp], &wr, &bad);
			if (r)
				pmrt_rep_fail("post_recv: %s", strerror(r));
			break;
		}
		case C_EXPECT_RECV:
			srv_expect_recv(&c);
			break;
		case C_EXPECT_NONE: {
			uint64_t end = pmrt_now_ns() + (uint64_t)c.ms * 1000000ull;

			while (pmrt_now_ns() < end)
				poll_into_stash();
			if (nstash)
				pmrt_rep_fail("unexpected completion: QP %#x wr_id %"
					 PRIu64 " status %s opcode %d byte_len %u",
					 stash[0].qp_num, stash[0].wr_id,
					 pmr_wc_status_str(stash[0].status),
					 stash[0].opcode, stash[0].byte_len);
			break;
		}
		case C_FILL:
			if (pmrt_region_ok(BUF_SIZE, c.off, c.len))
				pmrt_fill_pat(buf + c.off, c.len, c.seed, 0);
			break;
		case C_CANARY:
			if (pmrt_region_ok(BUF_SIZE, c.off, c.len))
				memset(buf + c.off, CANARY, c.len);
			break;
		case C_VERIFY: {
			/* with ms: wait that long at most for the data (a
			 * WRITE that completes nothing here), running the
			 * engine */
			uint64_t end = pmrt_now_ns() + (uint64_t)c.ms * 1000000ull;
			int64_t i;

			if (!pmrt_region_ok(BUF_SIZE, c.off, c.len + c.guard))
				break;
			while ((i = pmrt_check_pat(buf + c.off, c.len, c.seed,
						   0)) >= 0 &&
			       pmrt_now_ns() < end)
				poll_into_stash();
			if (i >= 0) {
				pmrt_rep_fail("verify %" PRIu64 "+%" PRIu64 ": byte %"
					 PRId64 " is %#x, expected %#x", c.off,
					 c.len, i, buf[c.off + (uint64_t)i],
					 pmrt_pat(c.seed, (uint64_t)i));
				break;
			}
			i = pmrt_check_byte(buf + c.off + c.len, c.guard, CANARY);
			if (i >= 0)
				pmrt_rep_fail("verify: guard byte %" PRId64
					 " overwritten (%#x)", i,
					 buf[c.off + c.len + (uint64_t)i]);
			break;
		}
		case C_CHECK_BYTE: {
			int64_t i;

			if (!pmrt_region_ok(BUF_SIZE, c.off, c.len))
				break;
			i = pmrt_check_byte(buf + c.off, c.len, c.byte);
			if (i >= 0)
				pmrt_rep_fail("region %" PRIu64 "+%" PRIu64 ": byte %"
					 PRId64 " is %#x, expected %#x (written "
					 "to?)", c.off, c.len, i,
					 buf[c.off + (uint64_t)i], c.byte);
			break;
		}
		case C_STATS:
			pmr_roce_port_stats(dev, &rep.st);
			break;
		case C_END:
			qps_destroy();
			break;
		case C_QUIT: {
			char b;

			if (nqps)
				qps_destroy();
			pmrt_ctl_write(&rep, sizeof(rep));
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

static struct reply srv;
static uint32_t psn_base = 0x000100;

#define FAIL PMRT_FAIL
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
}

/* Client QPs: n of type t; the server gets nsrv QPs of the same type
 * (UD: unconnected; UC/RC: QP i connected to our QP i). */
static int setup(enum pmr_qp_type t, uint32_t n, uint32_t nsrv)
{
	struct cmd c;

	cmd_init(&c, C_SETUP);
	c.qp_type = t;
	c.nqp = nsrv;
	nstash = 0;
	for (uint32_t i = 0; i < n; i++) {
		qps[i] = qp_create(t);
		c.peer_qpn[i] = qps[i]->qp_num;
		c.peer_psn[i] = (psn_base + i * 104729) & 0xffffff;
	}
	psn_base = (psn_base + 0x10000) & 0xffffff;
	nqps = n;
	TRY(srv_cmd(&c, &srv));
	for (uint32_t i = 0; i < n; i++)
		qp_ready(qps[i], t, c.peer_psn[i], srv.qpn[i], srv.psn[i]);
	if (t == PMR_QPT_UD)
		for (uint32_t i = 0; i < nsrv; i++)
			ahs[i] = ah_create();
	return 0;
}

static int case_end(void)
{
	struct cmd c;

	qps_destroy();
	cmd_init(&c, C_END);
	return srv_cmd(&c, NULL);
}

static int s_post_recv(int qp, uint64_t wr_id, uint64_t off, uint64_t len)
{
	struct cmd c;

	cmd_init(&c, C_POST_RECV);
	c.qp = qp;
	c.wr_id = wr_id;
	c.off = off;
	c.len = len;
	return srv_cmd(&c, NULL);
}

static int s_expect_recv(int qp, uint64_t wr_id, int opcode, uint32_t byte_len,
			 bool ud, uint32_t src_qp, int has_imm, uint32_t imm,
			 uint32_t seed, uint64_t off, uint64_t len)
{
	struct cmd c;

	cmd_init(&c, C_EXPECT_RECV);
	c.qp = qp;
	c.wr_id = wr_id;
	c.status = PMR_WC_SUCCESS;
	c.opcode = opcode;
	c.byte_len = byte_len;
	c.ud = ud;
	c.src_qp = src_qp;
	c.has_imm = (uint32_t)has_imm;
	c.imm = imm;
	c.seed = seed;
	c.off = off;
	c.len = len;
	return srv_cmd(&c, NULL);
}

static int s_expect_none(uint32_t ms)
{
	struct cmd c;

	cmd_init(&c, C_EXPECT_NONE);
	c.ms = ms;
	return srv_cmd(&c, NULL);
}

static int s_region_ms(uint32_t type, uint64_t off, uint64_t len,
		       uint32_t seed, uint32_t guard, uint32_t ms)
{
	struct cmd c;

	cmd_init(&c, type);
	c.off = off;
	c.len = len;
	c.seed = seed;
	c.guard = guard;
	c.byte = CANARY;
	c.ms = ms;
	return srv_cmd(&c, NULL);
}

static int s_region(uint32_t type, uint64_t off, uint64_t len, uint32_t seed,
		    uint32_t guard)
{
	return s_region_ms(type, off, len, seed, guard, 0);
}

/* The pattern arrives within 2 s (a WRITE that completes nothing at the
 * target), then no completion comes with it. */
static int s_written(uint64_t off, uint64_t len, uint32_t seed)
{
	TRY(s_region_ms(C_VERIFY, off, len, seed, 64, 2000));
	return s_expect_none(20);
}

static int s_stats(struct pmr_roce_port_stats *st)
{
	struct cmd c;
	struct reply r;

	cmd_init(&c, C_STATS);
	TRY(srv_cmd(&c, &r));
	*st = r.st;
	return 0;
}

static uint64_t wr_seq = 1;

static int post(struct pmr_qp *qp, uint64_t wr_id, enum pmr_wr_opcode op,
		uint64_t loff, uint32_t len, uint64_t raddr, uint32_t rkey,
		struct pmr_ah *ah, uint32_t rqpn, uint32_t qkey, uint32_t imm)
{
	struct pmr_sge sg = { (uintptr_t)(buf + loff), len, mr->lkey };
	struct pmr_send_wr wr, *bad;
	int r;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PMR_SEND_SIGNALED;
	wr.imm_data = htonl(imm);
	if (ah != NULL) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = rqpn;
		wr.wr.ud.remote_qkey = qkey;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	r = pmr_post_send(qp, &wr, &bad);
	if (r)
		FAIL("post_send (opcode %d, len %u): %s", op, len, strerror(r));
	return 0;
}

static int expect_wc(struct pmr_qp *qp, uint64_t wr_id, int status,
		     int opcode, int64_t byte_len)
{
	struct pmr_wc wc;

	if (!take_wc(qp->qp_num, &wc, WAIT_NS))
		FAIL("no completion for wr_id %" PRIu64 " (expected %s)", wr_id,
		     pmr_wc_status_str((enum pmr_wc_status)status));
	if (wc.wr_id != wr_id || (int)wc.status != status)
		FAIL("completion wr_id %" PRIu64 " status %s, expected wr_id %"
		     PRIu64 " status %s", wc.wr_id, pmr_wc_status_str(wc.status),
		     wr_id, pmr_wc_status_str((enum pmr_wc_status)status));
	if (status != PMR_WC_SUCCESS)
		return 0;
	if ((int)wc.opcode != opcode)
		FAIL("completion wr_id %" PRIu64 ": opcode %d, expected %d",
		     wr_id, wc.opcode, opcode);
	if (byte_len >= 0 && wc.byte_len != (uint64_t)byte_len)
		FAIL("completion wr_id %" PRIu64 ": byte_len %u, expected %" PRId64,
		     wr_id, wc.byte_len, byte_len);
	return 0;
}

/* No completion of QP 0 comes within ms. */
static int expect_no_wc(uint32_t ms)
{
	struct pmr_wc wc;

	if (take_wc(qps[0]->qp_num, &wc, ms * 1000000ull))
		FAIL("unexpected completion: wr_id %" PRIu64 " status %s",
		     wc.wr_id, pmr_wc_status_str(wc.status));
	return 0;
}

/* The SQ_DRAINED event of QP 0 comes within 1 s, and no other event of a
 * QP (the port's, of its link, may come at any time). */
static int expect_drained(void)
{
	uint64_t end = pmrt_now_ns() + 1000000000ull;
	struct pmr_async_event ev;

	while (pmrt_now_ns() < end) {
		poll_into_stash();
		if (pmr_get_async_event(ctx, &ev) != 0)
			continue;
		pmr_ack_async_event(&ev);
		if (ev.event_type == PMR_EVENT_PORT_ACTIVE ||
		    ev.event_type == PMR_EVENT_PORT_ERR)
			continue;
		if (ev.event_type != PMR_EVENT_SQ_DRAINED ||
		    ev.element.qp != qps[0])
			FAIL("async event %s",
			     pmr_event_type_str(ev.event_type));
		return 0;
	}
	FAIL("no SQ_DRAINED within 1 s");
}

/*
 * A SEND of len bytes from QP 0 to server QP 0 (of type t): the receive
 * posted, the WR posted (msg_post); its completion and what arrived
 * (msg_check).
 */
static uint32_t msg_seed(uint64_t id, uint32_t len)
{
	return (uint32_t)id * 29u + len;
}

static int msg_post(enum pmr_qp_type t, uint64_t id, uint32_t len)
{
	pmrt_fill_pat(buf, len, msg_seed(id, len), 0);
	TRY(s_post_recv(0, id, 65536, (uint64_t)mtu + GRH));
	return post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0,
		    t == PMR_QPT_UD ? ahs[0] : NULL, srv.qpn[0], QKEY, 0);
}

static int msg_check(enum pmr_qp_type t, uint64_t id, uint32_t len)
{
	bool ud = t == PMR_QPT_UD;

	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	return s_expect_recv(0, id, PMR_WC_RECV, len + (ud ? GRH : 0), ud,
			     ud ? qps[0]->qp_num : 0, 0, 0, msg_seed(id, len),
			     65536, (uint64_t)mtu + GRH);
}

/* One UD message from our QP q to server QP sq through AH a. */
static int ud_one(int q, int sq, uint32_t len, bool imm)
{
	uint64_t id = wr_seq++;
	uint32_t seed = (uint32_t)id * 31u + len;
	uint64_t roff = 65536 * (uint64_t)(sq + 1);
	uint64_t rlen = (uint64_t)mtu + GRH + 256;

	pmrt_fill_pat(buf, len, seed, 0);
	TRY(s_post_recv(sq, id, roff, rlen));
	TRY(post(qps[q], id, imm ? PMR_WR_SEND_WITH_IMM : PMR_WR_SEND, 0, len,
		 0, 0, ahs[sq], srv.qpn[sq], QKEY, 0xA0000000u | (uint32_t)id));
	TRY(expect_wc(qps[q], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	if (s_expect_recv(sq, id, PMR_WC_RECV, len + GRH, true, qps[q]->qp_num,
			  imm, 0xA0000000u | (uint32_t)id, seed, roff, rlen)) {
		pmrt_fail_prefix("UD %s of %u bytes: ",
			 imm ? "SEND_WITH_IMM" : "SEND", len);
		return -1;
	}
	return 0;
}

static int case_ud_sizes(void)
{
	const uint32_t sizes[] = { 0, 1, (uint32_t)mtu - 1, (uint32_t)mtu };

	TRY(setup(PMR_QPT_UD, 1, 1));
	for (unsigned i = 0; i < 4; i++)
		for (int imm = 0; imm < 2; imm++)
			TRY(ud_one(0, 0, sizes[i], imm));
	return case_end();
}

static int qkey_fail(void)
{
	pmrt_fail_prefix("wrong Q_Key: ");
	return -1;
}

static int case_ud_qkey(void)
{
	struct pmr_roce_port_stats a, b;
	uint64_t id = wr_seq++;
	uint32_t seed = 77, len = 100;
	uint64_t roff = 65536, rlen = (uint64_t)mtu + GRH + 256;

	TRY(setup(PMR_QPT_UD, 1, 1));
	TRY(s_post_recv(0, id, roff, rlen));
	TRY(s_stats(&a));
	pmrt_fill_pat(buf, len, seed, 0);
	TRY(post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0, ahs[0], srv.qpn[0],
		 QKEY ^ 0x5a5a, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	if (s_expect_none(300))
		return qkey_fail();
	TRY(s_stats(&b));
	if (b.rx_drop_qkey != a.rx_drop_qkey + 1)
		FAIL("rx_drop_qkey went from %" PRIu64 " to %" PRIu64
		     " (expected +1)", a.rx_drop_qkey, b.rx_drop_qkey);
	/* the receive is still there for a good message */
	TRY(post(qps[0], id + 1, PMR_WR_SEND, 0, len, 0, 0, ahs[0], srv.qpn[0],
		 QKEY, 0));
	TRY(expect_wc(qps[0], id + 1, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	wr_seq++;
	if (s_expect_recv(0, id, PMR_WC_RECV, len + GRH, true, qps[0]->qp_num,
			  0, 0, seed, roff, rlen))
		return qkey_fail();
	return case_end();
}

static int case_ud_too_big(void)
{
	uint64_t id = wr_seq++;
	struct pmr_qp_attr a;
	int r;

	TRY(setup(PMR_QPT_UD, 1, 1));
	TRY(post(qps[0], id, PMR_WR_SEND, 0, (uint32_t)mtu + 1, 0, 0, ahs[0],
		 srv.qpn[0], QKEY, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_LOC_LEN_ERR, PMR_WC_SEND, -1));
	if (pmrt_qp_state(qps[0]) != PMR_QPS_SQE)
		FAIL("after LOC_LEN_ERR the UD QP is in state %d, not SQE (%d)",
		     pmrt_qp_state(qps[0]), PMR_QPS_SQE);
	TRY(s_expect_none(200));
	/* posted in SQE: flushed, never sent (not even back in RTS) */
	id = wr_seq++;
	TRY(post(qps[0], id, PMR_WR_SEND, 0, 77, 0, 0, ahs[0], srv.qpn[0],
		 QKEY, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_WR_FLUSH_ERR, PMR_WC_SEND, -1));
	/* SQE -> RTS recovers the send queue */
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_RTS;
	r = pmr_modify_qp(qps[0], &a, PMR_QP_STATE);
	if (r)
		FAIL("modify_qp SQE -> RTS: %s", strerror(r));
	TRY(ud_one(0, 0, (uint32_t)mtu, false));
	TRY(ud_one(0, 0, 5, false));
	TRY(expect_no_wc(100));
	TRY(s_expect_none(100));
	return case_end();
}

/*
 * RTS -> SQD with SQ_DRAINED asked for, on a UC or UD QP: the event comes
 * (these complete a WR once it is handed to the port, no ACK is waited
 * for); a SEND posted in SQD is not sent, and goes back in RTS.
 */
static int sqd_one(enum pmr_qp_type t)
{
	const char *name = t == PMR_QPT_UD ? "UD" : "UC";
	struct pmr_qp_attr a;
	uint64_t id = wr_seq++;
	int r;

	TRY(setup(t, 1, 1));
	TRY(msg_post(t, id, 300));     /* the peer's MAC resolved */
	TRY(msg_check(t, id, 300));
	memset(&a, 0, sizeof(a));
	a.qp_state = PMR_QPS_SQD;
	a.en_sqd_async_notify = 1;
	r = pmr_modify_qp(qps[0], &a, PMR_QP_STATE |
			  PMR_QP_EN_SQD_ASYNC_NOTIFY);
	if (r)
		FAIL("%s: modify_qp RTS -> SQD: %s", name, strerror(r));
	r = expect_drained();
	if (r == 0) {
		id = wr_seq++;
		r = msg_post(t, id, 40);
	}
	if (r == 0)
		r = s_expect_none(100);
	if (r == 0)
		r = expect_no_wc(10);
	if (r) {
		pmrt_fail_prefix("%s in SQD: ", name);
		return -1;
	}
	a.qp_state = PMR_QPS_RTS;
	r = pmr_modify_qp(qps[0], &a, PMR_QP_STATE);
	if (r)
		FAIL("%s: modify_qp SQD -> RTS: %s", name, strerror(r));
	r = msg_check(t, id, 40);
	if (r) {
		pmrt_fail_prefix("%s back in RTS: ", name);
		return -1;
	}
	return case_end();
}

static int case_sqd(void)
{
	TRY(sqd_one(PMR_QPT_UC));
	return sqd_one(PMR_QPT_UD);
}

static int case_ud_multi(void)
{
	TRY(setup(PMR_QPT_UD, 1, 2));
	for (int round = 0; round < 3; round++)
		for (int sq = 0; sq < 2; sq++)
			TRY(ud_one(0, sq, (uint32_t)(50 + round * 7 + sq), round & 1));
	return case_end();
}

static int case_uc_send(void)
{
	const uint32_t sizes[] = { 1, (uint32_t)mtu, 3 * (uint32_t)mtu + 17,
				   16384 };

	TRY(setup(PMR_QPT_UC, 1, 1));
	for (unsigned i = 0; i < 4; i++)
		for (int imm = 0; imm < 2; imm++) {
			uint64_t id = wr_seq++;
			uint32_t seed = (uint32_t)id * 13u, len = sizes[i];

			pmrt_fill_pat(buf, len, seed, 0);
			TRY(s_post_recv(0, id, 65536, 65536));
			TRY(post(qps[0], id, imm ? PMR_WR_SEND_WITH_IMM :
				 PMR_WR_SEND, 0, len, 0, 0, NULL, 0, 0,
				 0xB0000000u | (uint32_t)id));
			TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
			if (s_expect_recv(0, id, PMR_WC_RECV, len, false, 0, imm,
					  0xB0000000u | (uint32_t)id, seed, 65536,
					  65536)) {
				pmrt_fail_prefix("UC SEND%s of %u "
					 "bytes: ", imm ? "_WITH_IMM" : "", len);
				return -1;
			}
		}
	return case_end();
}

static int case_uc_write(void)
{
	const uint32_t sizes[] = { 1, (uint32_t)mtu, 3 * (uint32_t)mtu + 5 };
	const uint64_t toff = 1 << 20;

	TRY(setup(PMR_QPT_UC, 1, 1));
	for (unsigned i = 0; i < 3; i++)
		for (int imm = 0; imm < 2; imm++) {
			uint64_t id = wr_seq++;
			uint32_t seed = (uint32_t)id * 17u, len = sizes[i];

			pmrt_fill_pat(buf, len, seed, 0);
			TRY(s_region(C_CANARY, toff, len + 64, 0, 0));
			if (imm)
				TRY(s_post_recv(0, id, 65536, 256));
			TRY(post(qps[0], id, imm ? PMR_WR_RDMA_WRITE_WITH_IMM :
				 PMR_WR_RDMA_WRITE, 0, len, srv.buf + toff,
				 srv.rkey, NULL, 0, 0, 0xC0000000u | (uint32_t)id));
			TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS,
				      PMR_WC_RDMA_WRITE, -1));
			if (imm && s_expect_recv(0, id, PMR_WC_RECV_RDMA_WITH_IMM,
						 len, false, 0, 1,
						 0xC0000000u | (uint32_t)id, 0,
						 65536, 256)) {
				pmrt_fail_prefix("UC WRITE_WITH_IMM of "
					 "%u bytes: ", len);
				return -1;
			}
			if (imm ? s_region(C_VERIFY, toff, len, seed, 64) :
			    s_written(toff, len, seed)) {
				pmrt_fail_prefix("UC WRITE%s of %u "
					 "bytes: ", imm ? "_WITH_IMM" : "", len);
				return -1;
			}
		}
	return case_end();
}

static int case_uc_norecv(void)
{
	struct pmr_roce_port_stats a, b;
	uint64_t id = wr_seq++;
	uint32_t len = 2 * (uint32_t)mtu + 3, seed = 99;

	TRY(setup(PMR_QPT_UC, 1, 1));
	TRY(s_stats(&a));
	pmrt_fill_pat(buf, len, seed, 0);
	TRY(post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0, NULL, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	TRY(s_expect_none(300));
	TRY(s_stats(&b));
	printf("client: uc_norecv: server rx_drop_no_recv %" PRIu64 " -> %"
	       PRIu64 "\n", a.rx_drop_no_recv, b.rx_drop_no_recv);
	if (b.rx_drop_no_recv <= a.rx_drop_no_recv)
		FAIL("rx_drop_no_recv did not grow (%" PRIu64 ")",
		     b.rx_drop_no_recv);
	/* a later message with a receive posted arrives fine */
	id = wr_seq++;
	seed = 100;
	pmrt_fill_pat(buf, len, seed, 0);
	TRY(s_post_recv(0, id, 65536, 65536));
	TRY(post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0, NULL, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	if (s_expect_recv(0, id, PMR_WC_RECV, len, false, 0, 0, 0, seed, 65536,
			  65536)) {
		pmrt_fail_prefix("the SEND after the dropped one: ");
		return -1;
	}
	return case_end();
}

/*
 * A multi-packet UC SEND into a receive too small for it: the receive
 * fails with LOC_LEN_ERR exactly once (the rest of the message is
 * dropped, not failed again), the sender completes, the QP goes on.
 */
static int case_uc_toolong(void)
{
	uint64_t id = wr_seq++;
	uint32_t len = 3 * (uint32_t)mtu + 5, seed = 77;
	struct cmd c;

	TRY(setup(PMR_QPT_UC, 1, 1));
	pmrt_fill_pat(buf, len, seed, 0);
	TRY(s_post_recv(0, id, 65536, 100));
	TRY(post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0, NULL, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	cmd_init(&c, C_EXPECT_RECV);
	c.qp = 0;
	c.wr_id = id;
	c.status = PMR_WC_LOC_LEN_ERR;
	TRY(srv_cmd(&c, NULL));
	TRY(s_expect_none(200));
	/* the QP goes on: the next message arrives whole */
	id = wr_seq++;
	seed++;
	pmrt_fill_pat(buf, len, seed, 0);
	TRY(s_post_recv(0, id, 65536, 65536));
	TRY(post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0, NULL, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
	TRY(s_expect_recv(0, id, PMR_WC_RECV, len, false, 0, 0, 0, seed, 65536,
			  65536));
	return case_end();
}

static int case_uc_badrkey(void)
{
	uint64_t id = wr_seq++;
	const uint64_t toff = 1 << 20;
	uint32_t len = 2 * (uint32_t)mtu + 9;

	TRY(setup(PMR_QPT_UC, 1, 1));
	TRY(s_region(C_CANARY, toff, len + 64, 0, 0));
	pmrt_fill_pat(buf, len, 5, 0);
	TRY(post(qps[0], id, PMR_WR_RDMA_WRITE, 0, len, srv.buf + toff,
		 srv.rkey ^ 0x00100000u, NULL, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_RDMA_WRITE, -1));
	TRY(s_expect_none(300));
	if (s_region(C_CHECK_BYTE, toff, len + 64, 0, 0)) {
		pmrt_fail_prefix("bad rkey: ");
		return -1;
	}
	/* the QP still works */
	id = wr_seq++;
	TRY(post(qps[0], id, PMR_WR_RDMA_WRITE, 0, len, srv.buf + toff,
		 srv.rkey, NULL, 0, 0, 0));
	TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_RDMA_WRITE, -1));
	TRY(s_written(toff, len, 5));
	return case_end();
}

static int case_rc_v6(void)
{
	const uint32_t sizes[] = { 1, (uint32_t)mtu + 1, 20000 };
	const uint64_t toff = 1 << 20;

	TRY(setup(PMR_QPT_RC, 1, 1));
	for (unsigned i = 0; i < 3; i++) {
		uint32_t len = sizes[i];
		uint64_t id = wr_seq++;
		uint32_t seed = (uint32_t)id * 7u;

		/* SEND */
		pmrt_fill_pat(buf, len, seed, 0);
		TRY(s_post_recv(0, id, 65536, 65536));
		TRY(post(qps[0], id, PMR_WR_SEND, 0, len, 0, 0, NULL, 0, 0, 0));
		TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_SEND, -1));
		TRY(s_expect_recv(0, id, PMR_WC_RECV, len, false, 0, 0, 0, seed,
				  65536, 65536));
		/* WRITE */
		id = wr_seq++;
		seed++;
		pmrt_fill_pat(buf, len, seed, 0);
		TRY(s_region(C_CANARY, toff, len + 64, 0, 0));
		TRY(post(qps[0], id, PMR_WR_RDMA_WRITE, 0, len, srv.buf + toff,
			 srv.rkey, NULL, 0, 0, 0));
		TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_RDMA_WRITE, -1));
		TRY(s_region(C_VERIFY, toff, len, seed, 64));
		/* READ */
		id = wr_seq++;
		seed++;
		TRY(s_region(C_FILL, 2 * toff, len, seed, 0));
		memset(buf + 65536, CANARY, len + 64);
		TRY(post(qps[0], id, PMR_WR_RDMA_READ, 65536, len,
			 srv.buf + 2 * toff, srv.rkey, NULL, 0, 0, 0));
		TRY(expect_wc(qps[0], id, PMR_WC_SUCCESS, PMR_WC_RDMA_READ, len));
		if (pmrt_check_pat(buf + 65536, len, seed, 0) >= 0 ||
		    pmrt_check_byte(buf + 65536 + len, 64, CANARY) >= 0)
			FAIL("RC READ of %u bytes over %s: wrong data", len,
			     v6 ? "IPv6" : "IPv4");
	}
	return case_end();
}

/*
 * A source GID of one family and a destination of the other (IPv4-mapped
 * vs IPv6) cannot form a packet: create_ah and modify_qp to RTR refuse it
 * with EINVAL and the QP stays in INIT.  Client side only.
 */
static int case_gid_family(void)
{
	static const uint8_t other_v4[16] = { [10] = 0xff, [11] = 0xff,
					      [12] = 10, [13] = 97, [15] = 9 };
	static const uint8_t other_v6[16] = { 0xfd, [15] = 9 };
	struct pmr_qp_cap cap = { .max_send_wr = 4, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct pmr_ah_attr a;
	struct pmr_qp_attr qa;
	struct pmr_qp_init_attr ia;
	struct pmr_qp *qp;
	struct pmr_ah *ah;
	int ret;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.hop_limit = 64;
	a.grh.sgid_index = (uint8_t)gid_index;
	memcpy(a.grh.dgid.raw, v6 ? other_v4 : other_v6, 16);
	errno = 0;
	ah = pmr_create_ah(pd, &a);
	if (ah != NULL || errno != EINVAL)
		FAIL("create_ah across GID families: %p, errno %d (want EINVAL)",
		     (void *)ah, errno);

	qp = pmrt_qp_create(pd, cq, PMR_QPT_RC, &cap, PMR_ACCESS_REMOTE_WRITE,
			    QKEY);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = PMR_QPS_RTR;
	qa.path_mtu = mtu_enum;
	qa.dest_qp_num = 0x11;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 12;
	qa.ah_attr = a;
	ret = pmr_modify_qp(qp, &qa, PMR_QP_STATE | PMR_QP_AV |
			    PMR_QP_PATH_MTU | PMR_QP_DEST_QPN | PMR_QP_RQ_PSN |
			    PMR_QP_MAX_DEST_RD_ATOMIC | PMR_QP_MIN_RNR_TIMER);
	memset(&qa, 0, sizeof(qa));
	pmr_query_qp(qp, &qa, PMR_QP_STATE, &ia);
	pmr_destroy_qp(qp);
	if (ret != EINVAL || qa.qp_state != PMR_QPS_INIT)
		FAIL("RTR with an AV across GID families: %d, state %d "
		     "(want EINVAL, INIT)", ret, (int)qa.qp_state);
	return 0;
}

struct tcase {
	const char *name;
	int (*fn)(void);
};

static const struct tcase cases[] = {
	{ "ud_sizes", case_ud_sizes },
	{ "ud_qkey", case_ud_qkey },
	{ "ud_too_big", case_ud_too_big },
	{ "ud_multi", case_ud_multi },
	{ "sqd", case_sqd },
	{ "uc_send", case_uc_send },
	{ "uc_write", case_uc_write },
	{ "uc_norecv", case_uc_norecv },
	{ "uc_toolong", case_uc_toolong },
	{ "uc_badrkey", case_uc_badrkey },
	{ "rc_v6", case_rc_v6 },
	{ "ud_v6", case_ud_sizes },
	{ "gid_family", case_gid_family },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int client_run(const bool *sel)
{
	int failed = 0;

	printf("client: path MTU %d, %s, GID index %d\n", mtu,
	       v6 ? "IPv6" : "IPv4", gid_index);
	for (unsigned int i = 0; i < NCASES; i++) {
		uint64_t t0;

		if (!sel[i])
			continue;
		pmrt_failmsg[0] = '\0';
		t0 = pmrt_now_ns();
		if (cases[i].fn()) {
			struct cmd c;

			failed++;
			printf("FAIL %s (mtu %d): %s\n", cases[i].name, mtu,
			       pmrt_failmsg);
			qps_destroy();
			cmd_init(&c, C_END);
			srv_cmd(&c, NULL);
		} else {
			printf("PASS %s (mtu %d, %.2f s)\n", cases[i].name, mtu,
			       (double)(pmrt_now_ns() - t0) / 1e9);
		}
		fflush(stdout);
	}
	{
		struct cmd c;

		cmd_init(&c, C_QUIT);
		srv_cmd(&c, NULL);
	}
	printf("client: %d case(s) failed\n", failed);
	return failed ? 1 : 0;
}

/* ============================================================================
 * main
 * ==========================================================================*/

static void usage(void)
{
	fprintf(stderr, "usage: udc --role server|client --ctl PATH --peer-ip A "
		"[--gid-index I] [--case NAME]...\ncases:");
	for (unsigned int i = 0; i < NCASES; i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *role = NULL, *path = NULL;
	bool sel[NCASES], any = false;
	int rc = 0;

	memset(sel, 0, sizeof(sel));
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
		} else if (strcmp(argv[i], "--gid-index") == 0) {
			gid_index = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--case") == 0) {
			const char *n = argv[++i];
			bool found = false;

			for (unsigned int k = 0; k < NCASES; k++)
				if (strcmp(n, cases[k].name) == 0) {
					sel[k] = true;
					found = true;
				}
			if (!found) {
				fprintf(stderr, "unknown case %s\n", n);
				usage();
			}
			any = true;
		} else {
			usage();
		}
	}
	if (role == NULL || path == NULL || peer_ip == NULL)
		usage();
	if (strcmp(role, "server") == 0) {
		is_server = true;
		pmrt_name = "server";
	} else if (strcmp(role, "client") != 0)
		usage();
	if (!any)   /* the IPv4 cases */
		for (unsigned int k = 0; k < NCASES; k++)
			sel[k] = strncmp(cases[k].name, "rc_v6", 5) != 0 &&
				 strncmp(cases[k].name, "ud_v6", 5) != 0;
	pmrt_ctl_check_path(path);

	dev_open();
	printf("%s: device %s open, path MTU %d\n", role,
	       pmr_get_device_name(dev), mtu);

	pmrt_ctl_open(path, is_server);
	if (is_server)
		server_loop();
	else
		rc = client_run(sel);
	close(pmrt_ctl);
	return rc;
}
