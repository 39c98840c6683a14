/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The local ACK timers of many RC QPs, on the engine's timer wheel: each
 * QP that waits only for its timer sits in the slot of its deadline, and
 * a check visits the slots whose time has come, not every QP waiting.
 * What the wheel must not change: every timer fires, never before its
 * deadline, and not a turn of the wheel late (a turn is 1024 slots of at
 * least 16 us, 16.4 ms at the least; the timeouts used here are longer,
 * so a deadline many turns away must wait out the turns between).
 *
 * One process, a RoCE device on a port made of two rte_rings the
 * program holds (rte_eth_from_rings).  The QPs are connected to a QPN
 * that never answers: each posts one SEND, and the program takes the
 * frames off the transmit ring, telling the QPs apart by their PSNs.  A
 * QP's second frame is the SEND sent again at its timeout.
 *
 * - spread: QPS QPs with timeouts of 16.8, 67 and 134 ms, their SENDs
 *   posted over some 20 ms, so their deadlines fall in many slots and
 *   many turns away.  Each is sent again no earlier than its timeout
 *   after it was first sent, and less than LATE_MS after that.
 * - paused: QPs whose deadlines pass while the engine does not run for
 *   longer than a turn of the wheel, as many others destroyed in their
 *   slots before; the first runs after it send every one left again,
 *   once, and none of the destroyed.
 * - earlier: QPs waiting in a slot get a deadline earlier than the
 *   slot's turn (the solicit timer of a SEND that did not ask, a quarter
 *   of the ACK timeout of the SEND before it); it fires on time.
 * - later: an ACK restarts the timer of QPs waiting in a slot, past it;
 *   they stay there until it comes due, move on, and fire on time.
 *
 *   timer_wheel     run by ring.sh (EAL arguments, the configuration)
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"
#include "wire.h"

enum {
	RING = 4096,            /* the transmit ring: room for every frame */
	QPS = 240,              /* spread(): QPs, three timeouts */
	PAUSED = 32,            /* paused(): QPs */
	EARLIER = 16,           /* earlier(): QPs */
	LATER = 16,             /* later(): QPs */
	PAUSE_MS = 60,          /* paused(): the engine not run this long */
	LATE_MS = 15,           /* later than its deadline by less than this
				 * (a turn of the wheel is longer) */
	PSN_STEP = 16,          /* QP i's first PSN: PSN0 + i * PSN_STEP */
	PSN0 = 0x1000,
	DQPN = 0xabcd,          /* a QPN that never answers */
	NET = 96,               /* the device's address: 10.NET.0.1 */
};

static struct vt v;
static struct ringport rp;
static struct rte_mempool *pool;        /* the program's own frames */
static const uint8_t t12 = 12;          /* timeout 12: 16.8 ms */

static uint64_t now_us(void)
{
	return rte_rdtsc() * 1000000 / rte_get_tsc_hz();
}

/* The local ACK timeout `t` in microseconds: 4.096 us * 2^t. */
static uint64_t timeout_us(uint8_t t)
{
	return (4096ull << t) / 1000;
}

/* When each QP's first and second frames were seen: `before`, the time
 * before the post or the engine run that sent the first (no later than
 * it went); `again`, the time the second was taken off the ring (no
 * earlier than it went). */
struct seen {
	uint64_t before, again;
	unsigned int frames;
};

/* run_and_take_k()'s count, frame by frame (take_one()) */
struct take {
	struct seen *seen;
	unsigned int n, other;
	uint32_t k;
	uint64_t before, after;
};

static void take_one(const struct wire_pkt *p, void *arg)
{
	struct take *t = arg;
	uint32_t i;

	if (p == NULL || p->dqpn != DQPN || p->psn < PSN0 + t->k ||
	    (p->psn - PSN0 - t->k) % PSN_STEP != 0 ||
	    (i = (p->psn - PSN0 - t->k) / PSN_STEP) >= t->n) {
		t->other++;
	} else {
		struct seen *s = &t->seen[i];

		if (s->frames == 0 && s->before == 0)
			s->before = t->before;
		else if (s->frames == 1)
			s->again = t->after;
		s->frames++;
	}
}

/*
 * Sixteen engine runs, then every frame off the transmit ring: frames of
 * QP i's k-th PSN counted in seen[i] (n QPs).  @return frames not of
 * those.
 */
static unsigned int run_and_take_k(struct seen *seen, unsigned int n,
				   uint32_t k)
{
	struct take t = { seen, n, 0, k, now_us(), 0 };

	/* (the engine checks its timers every 16 runs) */
	for (int j = 0; j < 16; j++)
		CHECK(pmr_progress(v.ctx, 64) >= 0);
	t.after = now_us();
	ringport_take(&rp, take_one, &t);
	return t.other;
}

static unsigned int run_and_take(struct seen *seen, unsigned int n)
{
	return run_and_take_k(seen, n, 0);
}

/* QP i, connected to DQPN with timeout `t`, its first PSN by i. */
static struct pmr_qp *new_qp(struct pmr_cq *cq, unsigned int i, uint8_t t)
{
	struct vt_opts o = vt_opts_default();
	struct pmr_qp *qp = vt_qp(v.pd, PMR_QPT_RC, cq, cq, 4, 0);

	o.timeout = t;
	o.retry_cnt = 3;
	o.sq_psn = PSN0 + i * PSN_STEP;
	vt_connect(&v, qp, DQPN, &o);
	return qp;
}

/* A signaled SEND: it asks for its ACK, so its local ACK timer decides
 * when it goes again (an unsignaled one would be asked for at a quarter
 * of the timeout). */
static void post_send(struct pmr_qp *qp, uint64_t wr_id, unsigned int flags)
{
	static uint8_t data[16];
	struct pmr_sge s = { (uintptr_t)data, sizeof(data), 0 };
	struct pmr_send_wr w = vt_swr(wr_id, PMR_WR_SEND, &s, 1,
				      PMR_SEND_INLINE | flags);

	CHECK_EQ(vt_post_send1(qp, &w), 0);
}

static void post_one(struct pmr_qp *qp, uint64_t wr_id)
{
	post_send(qp, wr_id, PMR_SEND_SIGNALED);
}

/*
 * Each of the n QPs' second frame against its deadline, to[i % nto] us
 * after its first: none missing, none early (again - before is no more
 * than the time between the two), none LATE_MS or more late.  `what`
 * names the case in the messages and the line printed.
 */
static void check_again(const char *what, const struct seen *seen,
			unsigned int n, const uint64_t *to, unsigned int nto)
{
	unsigned int early = 0, late = 0, missing = 0;
	uint64_t late_max = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t d = seen[i].again - seen[i].before, t = to[i % nto];

		if (seen[i].frames < 2) {
			missing++;
			continue;
		}
		if (d < t)
			early++;
		else if (d - t >= LATE_MS * 1000)
			late++;
		if (d > t && d - t > late_max)
			late_max = d - t;
	}
	EXPECT_EQ_MSG(missing, 0, "%s: QPs whose frame did not go again",
		      what);
	EXPECT_EQ_MSG(early, 0, "%s: QPs whose frame went again before its "
		      "deadline", what);
	EXPECT_EQ_MSG(late, 0, "%s: QPs whose frame went again %d ms or more "
		      "after its deadline", what, LATE_MS);
	printf("%s: %u QPs, %u sent again early, %u not sent again, %lu us "
	       "late at most\n", what, n, early, missing,
	       (unsigned long)late_max);
}

/* n QPs on a CQ of their own, QP i with timeout tmo[i % ntmo], moved
 * to RTS; seen[] cleared. */
static struct pmr_cq *make_qps(struct pmr_qp **qp, struct seen *seen,
			       unsigned int n, const uint8_t *tmo,
			       unsigned int ntmo)
{
	struct pmr_cq *cq = vt_cq(&v, 4 * (int)n);

	memset(seen, 0, n * sizeof(*seen));
	for (unsigned int i = 0; i < n; i++)
		qp[i] = new_qp(cq, i, tmo[i % ntmo]);
	run_and_take(seen, n);                  /* the moves to RTS */
	return cq;
}

static void destroy_all(struct pmr_qp **qp, unsigned int n,
			struct pmr_cq *cq, struct seen *seen)
{
	for (unsigned int i = 0; i < n; i++)
		if (qp[i] != NULL)
			CHECK_EQ(pmr_destroy_qp(qp[i]), 0);
	run_and_take(seen, n);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

static void spread(void)
{
	static const uint8_t tmo[3] = { 12, 14, 15 };  /* 16.8, 67, 134 ms */
	const uint64_t to[3] = { timeout_us(12), timeout_us(14),
				 timeout_us(15) };
	static struct pmr_qp *qp[QPS];
	static struct seen seen[QPS];
	struct pmr_cq *cq = make_qps(qp, seen, QPS, tmo, 3);
	unsigned int posted = 0, other = 0;
	uint64_t t0;

	/* a SEND on each QP, one every 80 us or so, the engine running
	 * all the while; then until every QP has sent its SEND again */
	t0 = now_us();
	while (now_us() - t0 < 400000) {
		bool all = true;

		if (posted < QPS && now_us() - t0 >= posted * 80ull) {
			seen[posted].before = now_us();
			post_one(qp[posted], posted);
			posted++;
		}
		other += run_and_take(seen, QPS);
		for (unsigned int i = 0; i < QPS && all; i++)
			all = seen[i].frames >= 2;
		if (all)
			break;
	}
	EXPECT_EQ_MSG(posted, QPS, "SENDs posted");
	EXPECT_EQ_MSG(other, 0, "frames not of the QPs");
	check_again("spread (timeouts 16.8, 67, 134 ms)", seen, QPS, to, 3);
	destroy_all(qp, QPS, cq, seen);
}

static void paused(void)
{
	static struct pmr_qp *qp[PAUSED];
	static struct seen seen[PAUSED];
	struct pmr_cq *cq = make_qps(qp, seen, PAUSED, &t12, 1);
	unsigned int again = 0, twice = 0, gone = 0;
	uint64_t t0;

	for (unsigned int i = 0; i < PAUSED; i++)
		post_one(qp[i], i);
	run_and_take(seen, PAUSED);
	for (unsigned int i = 0; i < PAUSED; i++)
		CHECK_EQ(seen[i].frames, 1u);
	/* every other QP destroyed while it waits on the wheel, in the
	 * slots of the others (their deadlines microseconds apart): those
	 * left must be found past them */
	for (unsigned int i = 1; i < PAUSED; i += 2) {
		CHECK_EQ(pmr_destroy_qp(qp[i]), 0);
		qp[i] = NULL;
	}
	/* run a while, short of the timeout, so that the wheel has been
	 * checked since; then nothing for longer than a turn */
	t0 = now_us();
	while (now_us() - t0 < 5000)
		run_and_take(seen, PAUSED);
	rte_delay_us_sleep(PAUSE_MS * 1000);
	for (int k = 0; k < 4; k++)
		run_and_take(seen, PAUSED);
	for (unsigned int i = 0; i < PAUSED; i++) {
		if (qp[i] == NULL) {
			gone += seen[i].frames > 1;
			continue;
		}
		again += seen[i].frames >= 2;
		twice += seen[i].frames > 2;
	}
	EXPECT_EQ_MSG(again, PAUSED / 2, "QPs sent again in the first runs "
		      "after a pause longer than a turn of the wheel");
	EXPECT_EQ_MSG(twice, 0, "QPs sent again more than once");
	EXPECT_EQ_MSG(gone, 0, "destroyed QPs sent again");
	printf("paused: %u QPs whose timeouts passed while the engine did "
	       "not run for %d ms (as many destroyed as they waited): %u "
	       "sent again in the first runs after, %u more than once\n",
	       PAUSED / 2, PAUSE_MS, again, twice);
	destroy_all(qp, PAUSED, cq, seen);
}

/*
 * A deadline earlier than the slot a QP waits in: EARLIER QPs (timeout
 * 16.8 ms) each post a signaled SEND and wait on the wheel at its ACK
 * deadline; then an unsignaled SEND, whose tail did not ask, starts the
 * solicit timer, a quarter of the timeout (4.2 ms), before that slot
 * comes due.  The second SEND is sent again, asking, at 4.2 ms, not when
 * the first SEND's slot comes due.
 */
static void earlier(void)
{
	static struct pmr_qp *qp[EARLIER];
	static struct seen seen[EARLIER];
	struct pmr_cq *cq = make_qps(qp, seen, EARLIER, &t12, 1);
	const uint64_t to = timeout_us(12) / 4;
	uint64_t t0;
	for (unsigned int i = 0; i < EARLIER; i++)
		post_one(qp[i], i);
	for (int k = 0; k < 4; k++)
		run_and_take(seen, EARLIER);    /* on the wheel, waiting */
	memset(seen, 0, sizeof(seen));
	for (unsigned int i = 0; i < EARLIER; i++) {
		seen[i].before = now_us();
		post_send(qp[i], 100 + i, 0);
	}
	t0 = now_us();
	while (now_us() - t0 < 14000)   /* short of the first's timeout */
		run_and_take_k(seen, EARLIER, 1);
	check_again("earlier (solicit at 4.2 ms)", seen, EARLIER, &to, 1);
	destroy_all(qp, EARLIER, cq, seen);
}

/*
 * A deadline later than the slot a QP waits in: LATER QPs (timeout 16.8
 * ms) each post a signaled SEND A and wait on the wheel at its ACK
 * deadline; 8 ms later each posts a signaled SEND B and A is acknowledged,
 * which restarts the timer for B: a deadline past A's slot, where the QP
 * stays until that slot comes due and moves it on.  B is sent again at
 * its own timeout, 16.8 ms after the ACK, neither at A's nor never.
 */
static void later(void)
{
	static struct pmr_qp *qp[LATER];
	static struct seen seen[LATER];
	struct pmr_cq *cq = make_qps(qp, seen, LATER, &t12, 1);
	const uint64_t to = timeout_us(12);
	uint64_t t0;
	for (unsigned int i = 0; i < LATER; i++)
		post_one(qp[i], i);
	t0 = now_us();
	while (now_us() - t0 < 8000)
		run_and_take(seen, LATER);
	memset(seen, 0, sizeof(seen));
	for (unsigned int i = 0; i < LATER; i++)
		post_one(qp[i], 100 + i);
	for (unsigned int i = 0; i < LATER; i++) {
		seen[i].before = now_us();
		ringport_ack(&rp, pool, qp[i]->qp_num, PSN0 + i * PSN_STEP, 1);
	}
	t0 = now_us();
	while (now_us() - t0 < 40000)
		run_and_take_k(seen, LATER, 1);
	check_again("later (timeout 16.8 ms from the ACK)", seen, LATER, &to,
		    1);
	destroy_all(qp, LATER, cq, seen);
}

int main(void)
{
	pool = ringport_open(&rp, &v, "wheel", RING, NET, 256);
	spread();
	paused();
	earlier();
	later();
	vt_close(&v);
	return vt_exit();
}
