/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A RoCE device whose link goes away and comes back, its peer replaced:
 * the program of memif_restart.sh (a memif peer process killed and
 * another started) and veth_away.sh (af_packet, the other end of its veth
 * pair taken down and up).  Its RoCE device (PMR_DEVICES) is its own
 * neighbour, so that two of its QPs exchange frames through the peer,
 * which sends back what it receives.
 *
 * - with "listen" (a memif server device) the program writes
 *   DIR/listening, the script starts the first client, and the device
 *   raises one PORT_ACTIVE within 10 s;
 * - with the peer there, a SEND passes;
 * - the program writes DIR/ready and the script takes the peer away; the
 *   program waits for the link to go down without running the engine
 *   (link_gone_quietly()), then one PORT_ERR comes within 10 s;
 * - with no peer, three SENDs are posted: a UD one, which completes
 *   (a datagram is done once built) and whose frame the device drops
 *   once it has held it for a second (tx_drops); an RC one with a 67 ms
 *   ACK timeout and 7 retries, which ends in RETRY_EXC_ERR; and an RC
 *   one with a 1.07 s timeout and 7 retries, still waiting.  Nothing is
 *   received;
 * - the program writes DIR/down, and the script brings a peer back 1.5 s
 *   later (meanwhile a memif client device's starts of its port fail:
 *   no server);
 * - one PORT_ACTIVE within 10 s: a memif client device connected to the
 *   new server (memif itself does not try again), a new client to a
 *   server device, or the link up again.  The waiting RC SEND then
 *   completes (a retransmission), its bytes in place, and the dropped
 *   datagram never arrives: the next one does, alone.  A SEND passes.
 * - with "gone" the program then writes DIR/last, the script deletes the
 *   device's interface (af_packet), and one PORT_ERR comes within 10 s.
 *
 * With "nosock" (af_packet) libpmrdma's socket() calls fail (EMFILE: this
 * program's socket() is the one they reach), so that the device has no
 * socket to read its interface's flags with: it is made all the same
 * (with a warning, which the script looks for), a SEND passes, and with
 * the link down (DIR/ready, the other end down) the port's own report
 * stands: no event in 1.5 s, pmr_query_port ACTIVE.  After DIR/down the
 * script brings the other end up and writes DIR/up; a SEND passes.
 *
 * With "setupfail" (a memif client) the first three receive queue set-ups
 * of the device's port after DIR/ready fail (EIO: this program's
 * rte_eth_rx_queue_setup() is the one libpmrdma reaches): the device's
 * restarts of its port fail in their set-up, and later ones go on, until
 * the new server takes one.
 *
 * With "downfirst" (af_packet) the link is down before the device is
 * made: the SENDs are posted at once, before any engine run,
 * pmr_query_port says DOWN, no event comes, and the SENDs fare as those
 * posted with the peer away (DIR/down, the other end brought up, one
 * PORT_ACTIVE, the datagram never arrives).
 *
 * With "noargs" (af_packet) libpmrdma's rte_kvargs_parse() calls fail, so
 * that the device does not learn its interface's name from the port's
 * arguments: it warns (twice: the arguments, the interface), and all
 * goes on as with "nosock".
 *
 *   peer_away DIR [listen] [gone] [nosock] [noargs] [setupfail]
 *             [downfirst]
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmr_verbs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "vt.h"
#include "port_counts.h"     /* after vt.h */

#define GRH 40

static bool nosock, noargs;

/* Whether the call at ret came from libpmrdma. */
static bool from_libpmrdma(void *ret)
{
	Dl_info info;

	return dladdr(ret, &info) != 0 && info.dli_fname != NULL &&
	       strstr(info.dli_fname, "libpmrdma") != NULL;
}

/* socket() as libpmrdma reaches it: with "nosock", its own calls fail. */
int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (nosock && from_libpmrdma(__builtin_return_address(0))) {
		errno = EMFILE;
		return -1;
	}
	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "socket");
	return real != NULL ? real(domain, type, protocol) : -1;
}

/* rte_kvargs_parse() as libpmrdma reaches it: with "noargs", its own
 * calls fail (as they would on arguments DPDK's parser refuses). */
struct rte_kvargs *rte_kvargs_parse(const char *args,
				    const char *const valid_keys[])
{
	static struct rte_kvargs *(*real)(const char *, const char *const[]);

	if (noargs && from_libpmrdma(__builtin_return_address(0)))
		return NULL;
	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "rte_kvargs_parse");
	return real != NULL ? real(args, valid_keys) : NULL;
}

static int setup_fails;         /* rx queue set-ups still to fail */
static int setup_failed;        /* and failed so far */

/* rte_eth_rx_queue_setup() as libpmrdma reaches it: with "setupfail",
 * armed, it fails. */
int rte_eth_rx_queue_setup(uint16_t port, uint16_t queue, uint16_t n,
			   unsigned int socket_id,
			   const struct rte_eth_rxconf *conf,
			   struct rte_mempool *pool)
{
	static int (*real)(uint16_t, uint16_t, uint16_t, unsigned int,
			   const struct rte_eth_rxconf *,
			   struct rte_mempool *);

	if (setup_fails > 0) {
		setup_fails--;
		setup_failed++;
		return -EIO;
	}
	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "rte_eth_rx_queue_setup");
	return real != NULL ? real(port, queue, n, socket_id, conf, pool) :
			      -ENOSYS;
}

/* The peer going away: wait for the port's link to go down, seen
 * without a burst (no engine run; pmr_query_port reads the link), and
 * 200 ms more for memif to unmap the peer's rings: DPDK 22.11's memif can
 * crash a process that bursts meanwhile (roce.rst, *Not supported
 * yet*). */
static void link_gone_quietly(struct vt *v)
{
	struct pmr_port_attr pa;
	uint64_t t0 = vt_now_ms();

	do {
		CHECK_EQ(pmr_query_port(v->ctx, 1, &pa), 0);
		if (pa.state != PMR_PORT_ACTIVE)
			break;
		usleep(1000);
	} while (vt_now_ms() - t0 < 10000);
	EXPECT_MSG(pa.state != PMR_PORT_ACTIVE, "the link still up");
	usleep(200000);
}

/* Run the engine until DIR/name exists (10 s at most). */
static void wait_mark(struct vt *v, const char *dir, const char *name)
{
	char path[512];
	uint64_t t0 = vt_now_ms();

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK) != 0 && vt_now_ms() - t0 < 10000)
		CHECK(pmr_progress(v->ctx, 32) >= 0);
	CHECK(access(path, F_OK) == 0);
}

static void mark(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fclose(f);
}

/* The SENDs posted while the peer is away, and their receivers. */
struct away {
	struct vt_pair ud, rc_short, rc_long;
	struct pmr_mr *mr;
	uint8_t buf[6][GRH + 64];       /* ud, short, long: send, recv */
};

static void post_recv(struct away *a, struct pmr_qp *qp, int i)
{
	struct pmr_sge s = { (uintptr_t)a->buf[i], sizeof(a->buf[i]),
			     a->mr->lkey };
	struct pmr_recv_wr rw = vt_rwr((uint64_t)i, &s, 1);

	CHECK_EQ(vt_post_recv1(qp, &rw), 0);
}

/* A 64-byte SEND of buf[i] (filled with `fill`) on qp; UD to p's peer. */
static void post_send(struct away *a, struct vt_pair *p, int i, uint8_t fill,
		      uint32_t qkey)
{
	struct pmr_sge s = { (uintptr_t)a->buf[i], 64, a->mr->lkey };
	struct pmr_send_wr sw = vt_swr((uint64_t)i, PMR_WR_SEND, &s, 1,
				       PMR_SEND_SIGNALED);

	memset(a->buf[i], fill, 64);
	if (p->ah != NULL) {
		sw.wr.ud.ah = p->ah;
		sw.wr.ud.remote_qpn = p->qp[1]->qp_num;
		sw.wr.ud.remote_qkey = qkey;
	}
	CHECK_EQ(vt_post_send1(p->qp[0], &sw), 0);
}

static void away_post(struct vt *v, struct away *a)
{
	struct vt_opts o = vt_opts_default();

	memset(a->buf, 0, sizeof(a->buf));
	a->mr = vt_mr(v->pd, a->buf, sizeof(a->buf), PMR_ACCESS_LOCAL_WRITE);
	vt_pair(v, PMR_QPT_UD, &o, 1, &a->ud);
	vt_pair(v, PMR_QPT_RC, &o, 1, &a->rc_short);     /* 67 ms x 8 */
	o.timeout = 18;                                  /* 1.07 s x 8 */
	vt_pair(v, PMR_QPT_RC, &o, 1, &a->rc_long);
	post_recv(a, a->ud.qp[1], 3);
	post_recv(a, a->rc_short.qp[1], 4);
	post_recv(a, a->rc_long.qp[1], 5);
	post_send(a, &a->ud, 0, 0xa1, o.qkey);
	post_send(a, &a->rc_short, 1, 0xb2, o.qkey);
	post_send(a, &a->rc_long, 2, 0xc3, o.qkey);
}

/* With no peer: the datagram done and its frame dropped, the short RC
 * SEND out of retries, the long one waiting, nothing received. */
static void away_check(struct vt *v, struct away *a)
{
	struct pmr_wc wc;

	vt_poll1(a->ud.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	CHECK_EQ(vt_poll(a->rc_short.scq[0], 1, &wc, 5000), 1);
	CHECK_WC(wc, PMR_WC_RETRY_EXC_ERR);
	for (uint64_t t0 = vt_now_ms(); vt_now_ms() - t0 < 3000;)
		if (roce_counts(v->dev).tx_drops > 0)
			break;
		else
			CHECK(pmr_progress(v->ctx, 32) >= 0);
	EXPECT_MSG(roce_counts(v->dev).tx_drops > 0,
		   "frames dropped while the port took none");
	EXPECT_EQ_MSG(vt_count(a->rc_long.scq[0], 10), 0,
		      "the long RC SEND completed with no peer");
	for (int i = 0; i < 3; i++) {
		struct pmr_cq *cq = i == 0 ? a->ud.rcq[1] :
				    i == 1 ? a->rc_short.rcq[1] :
					     a->rc_long.rcq[1];

		EXPECT_EQ_MSG(vt_count(cq, 10), 0, "received with no peer");
	}
}

/* A peer back: the long RC SEND passes, the datagram stays lost and
 * the next one comes alone. */
static void back_check(struct away *a)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_wc wc;

	CHECK_EQ(vt_poll(a->rc_long.scq[0], 1, &wc, 3000), 1);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(a->rc_long.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.byte_len, 64u);
	EXPECT(memcmp(a->buf[2], a->buf[5], 64) == 0);
	EXPECT_EQ_MSG(vt_count(a->ud.rcq[1], 200), 0,
		      "the dropped datagram arrived");
	post_send(a, &a->ud, 0, 0xd4, o.qkey);
	vt_poll1(a->ud.scq[0], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	vt_poll1(a->ud.rcq[1], &wc);
	CHECK_WC(wc, PMR_WC_SUCCESS);
	EXPECT_EQ(wc.byte_len, GRH + 64u);
	EXPECT(memcmp(a->buf[0], a->buf[3] + GRH, 64) == 0);
	EXPECT_EQ_MSG(vt_count(a->ud.rcq[1], 100), 0, "a datagram more");
	vt_pair_destroy(&a->ud);
	vt_pair_destroy(&a->rc_short);
	vt_pair_destroy(&a->rc_long);
	CHECK_EQ(pmr_dereg_mr(a->mr), 0);
}

/* "nosock", "noargs": no socket for the interface's flags, the port's
 * report stands (the link up throughout). */
static int no_socket(struct vt *v, const char *dir)
{
	struct pmr_async_event ev;
	struct pmr_port_attr pa;

	vt_send_passes(v);
	mark(dir, "ready");
	EXPECT_EQ_MSG(vt_events_after(v, 1500, &ev), 0,
		      "events with the link down, no socket");
	CHECK_EQ(pmr_query_port(v->ctx, 1, &pa), 0);
	EXPECT_EQ_MSG(pa.state, PMR_PORT_ACTIVE, "the port with no socket");
	mark(dir, "down");
	wait_mark(v, dir, "up");
	vt_send_passes(v);
	vt_close(v);
	return vt_exit();
}

int main(int argc, char **argv)
{
	static struct away a;
	bool listen = false, gone = false, setupfail = false, downfirst = false;
	struct vt v;

	for (int i = 2; i < argc; i++) {
		listen |= strcmp(argv[i], "listen") == 0;
		gone |= strcmp(argv[i], "gone") == 0;
		nosock |= strcmp(argv[i], "nosock") == 0;
		noargs |= strcmp(argv[i], "noargs") == 0;
		setupfail |= strcmp(argv[i], "setupfail") == 0;
		downfirst |= strcmp(argv[i], "downfirst") == 0;
	}
	if (argc < 2 || argc - 2 != (int)listen + (int)gone + (int)nosock +
				    (int)noargs + (int)setupfail +
				    (int)downfirst) {
		fprintf(stderr, "usage: peer_away DIR [listen] [gone] "
			"[nosock] [noargs] [setupfail] [downfirst]\n");
		return 2;
	}
	vt_open(&v);
	if (nosock || noargs)
		return no_socket(&v, argv[1]);
	if (listen) {
		mark(argv[1], "listening");
		vt_port_event(&v, PMR_EVENT_PORT_ACTIVE, 10000,
			      "the first client");
	}
	if (downfirst) {
		struct pmr_async_event ev;
		struct pmr_port_attr pa;

		away_post(&v, &a);      /* before any engine run */
		CHECK_EQ(pmr_query_port(v.ctx, 1, &pa), 0);
		EXPECT_EQ_MSG(pa.state, PMR_PORT_DOWN, "made with no link");
		EXPECT_EQ_MSG(vt_events_after(&v, 100, &ev), 0,
			      "events with no link from the start");
	} else {
		vt_send_passes(&v);
		if (setupfail)
			setup_fails = 3;
		mark(argv[1], "ready");
		link_gone_quietly(&v);
		vt_port_event(&v, PMR_EVENT_PORT_ERR, 10000, "the peer gone");
		away_post(&v, &a);
	}
	away_check(&v, &a);
	mark(argv[1], "down");
	vt_port_event(&v, PMR_EVENT_PORT_ACTIVE, 10000, "another peer");
	back_check(&a);
	vt_send_passes(&v);
	if (setupfail)
		EXPECT_EQ_MSG(setup_failed, 3, "restarts failed in their set-up");
	if (gone) {
		mark(argv[1], "last");
		vt_port_event(&v, PMR_EVENT_PORT_ERR, 10000,
			      "the interface deleted");
	}
	vt_close(&v);
	return vt_exit();
}
