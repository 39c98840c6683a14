/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest_client: a perftest (ib_write_lat / ib_read_lat / ib_atomic_lat)
 * client on pmrdma, for interoperability tests against a real perftest
 * server (e.g. Linux soft-RoCE in an rxe-peer guest).  Unlike perftest, it
 * checks the data of every iteration.
 *
 *   perftest_client --test write|read|atomic [--atomic fa|cas] [-n N]
 *                   [-s SIZE] [-p PORT] [-m MTU] [--gid-index I]
 *                   [--hs-pre N] [--hs-post N] [--timeout SEC]
 *                   [--no-rand-check] [--client-first] SERVER_IP
 *
 * The device is the first pmr_roce device of PMR_DEVICES / PMR_EAL_ARGS.
 *
 * perftest's out-of-band exchange (TCP, client writes first at every step,
 * the server answers; each message is read with one read() of its exact
 * size, so each one is written with one write()):
 *   version (16 bytes, "6.06" + NULs), cycle buffer (4 bytes, big endian,
 *   larger wins), cache line size (4 bytes, big endian, larger wins), MTU
 *   (2 bytes: the ibv_mtu enum as decimal text + NUL, smaller wins), then
 *   108-byte connection messages "LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID:SRQN:"
 *   -- hs-pre (2) of them before the QPs go to RTR/RTS, hs-post (2) after
 *   (perftest 4.5 as packaged by Debian 12: 4 in all); traffic
 *   starts after the last.  read_lat and atomic_lat end with one more
 *   exchange ("close"), which the server waits for; write_lat's server may
 *   or may not (the client tries, and accepts the server just closing).
 *
 * What is checked:
 *  write:  the ping-pong of RDMA WRITEs: each side spins on the last byte
 *          of its own buffer, which carries the iteration counter.  In
 *          perftest 4.5 (run_iter_lat_write skips the first wait on the
 *          SERVER) the server writes first and the client answers each
 *          write; --client-first gives the other order (where the client
 *          skips its first wait), which some perftest versions use.  A
 *          client that writes first against a server that does too races:
 *          its write i+1 can overwrite the counter before the server saw i.  Every iteration, the server's write must
 *          have landed in our buffer: size-1 zero bytes (the server's
 *          write_lat buffer is zeroed; ours is re-filled with a canary
 *          before each iteration) and the counter, nothing beyond.
 *  read:   every READ completes with SUCCESS, opcode RDMA_READ and
 *          byte_len == size; every READ returns the same bytes (nothing
 *          writes the server's buffer) and those bytes are what the
 *          server's perftest put there: perftest fills the buffer with
 *          (char)rand() after srand(time(NULL)), so the data must match
 *          glibc's rand() stream for a seed near the current time, at
 *          offset BUFF_SIZE (the advertised vaddr is buf + BUFF_SIZE).
 *  atomic: FETCH_AND_ADD of 1 (perftest's ATOMIC_ADD_VALUE) N times: the
 *          returned values are v0, v0+1, ..., v0+N-1; CMP_AND_SWAP with
 *          compare 0 / swap 0 (ATOMIC_SWAP_VALUE, compare left 0): every
 *          result equals v0.  v0 must be the rand() bytes as above.  Then
 *          beyond what perftest does: FA returns v0+N for one more FA of 0;
 *          CAS(v0 -> ~v0) returns v0 and CAS(~v0 -> v0) returns ~v0.
 *
 * Exit status 0 when everything passed, 1 otherwise, 2 for usage errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pmr_verbs.h>

#include "pmrt.h"
#include <pmr_roce.h>

#define VERSION_STR "6.06"
#define VERSION_LEN 16
#define MSG_LEN 108
#define CYCLE_BUFFER 4096
#define CACHE_LINE 64
#define CANARY 0xA5
#define MIN_RNR_TIMER 12
#define QP_TIMEOUT 14

enum test { T_WRITE, T_READ, T_ATOMIC };

struct dest {
	unsigned lid, out_reads, qpn, psn, rkey, srqn;
	unsigned long long vaddr;
	uint8_t gid[16];
};

static enum test test = T_WRITE;
static bool cas;
static unsigned long iters = 1000;
static unsigned long size;          /* 0: the test's default */
static int port = 18515;
static int mtu_num = 1024;
static int gid_index;
static int hs_pre = 2, hs_post = 2;
static double timeout_s = 120;
static bool rand_check = true;
static bool client_first;           /* write: who writes first */
static const char *server;

static struct pmr_device *dev;
static struct pmr_context *ctx;
static struct pmr_pd *pd;
static struct pmr_cq *cq;
static struct pmr_qp *qp;
static struct pmr_mr *mr;
static uint8_t *buf;
static size_t bs;                   /* BUFF_SIZE: max(size, cycle buffer) */
static int sock = -1;
static uint64_t deadline;
static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("perftest_client: FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failures++;
}

static void check_deadline(const char *what)
{
	if (pmrt_now_ns() > deadline)
		pmrt_die("timed out (%.0f s) %s", timeout_s, what);
}

/* ---- TCP, with the engine running meanwhile ---------------------------- */

static void tcp_connect(void)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, server, &sa.sin_addr) != 1)
		pmrt_die("bad server address %s", server);
	for (;;) {
		struct pollfd p;
		int err = 0;
		socklen_t el = sizeof(err);

		sock = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (sock < 0)
			pmrt_die("socket: %s", strerror(errno));
		if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		if (errno != EINPROGRESS)
			pmrt_die("connect: %s", strerror(errno));
		p.fd = sock;
		p.events = POLLOUT;
		for (;;) {
			int n = poll(&p, 1, 1);

			if (n > 0)
				break;
			pmrt_progress();
			check_deadline("connecting");
		}
		getsockopt(sock, SOL_SOCKET, SO_ERROR, &err, &el);
		if (err == 0)
			break;
		close(sock);
		sock = -1;
		check_deadline("connecting");
		for (int i = 0; i < 100; i++) {
			pmrt_progress();
			usleep(1000);
		}
	}
	int one = 1;

	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* One write() per message (the peer reads each with one read()). */
static void tcp_write(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len > 0) {
		ssize_t n = send(sock, b, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				pmrt_progress();
				check_deadline("writing to the server");
				continue;
			}
			pmrt_die("write: %s", strerror(errno));
		}
		b += n;
		len -= (size_t)n;
	}
}

/* @return bytes read: len, or fewer when the server closed (allow_eof). */
static size_t tcp_read(void *p, size_t len, bool allow_eof, uint64_t until)
{
	uint8_t *b = p;
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(sock, b + got, len - got, 0);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			if (allow_eof)
				return got;
			pmrt_die("the server closed the connection (%zu of %zu bytes)",
				 got, len);
		}
		if (errno != EAGAIN && errno != EINTR)
			pmrt_die("read: %s", strerror(errno));
		struct pollfd pf = { .fd = sock, .events = POLLIN };

		poll(&pf, 1, 1);
		pmrt_progress();
		if (until && pmrt_now_ns() > until)
			return got;
		check_deadline("reading from the server");
	}
	return got;
}

static void xchg(const void *mine, void *theirs, size_t len)
{
	tcp_write(mine, len);
	tcp_read(theirs, len, false, 0);
}

static void fmt_dest(const struct dest *d, char *msg)
{
	int n = snprintf(msg, MSG_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:",
			 d->lid, d->out_reads, d->qpn, d->psn, d->rkey,
			 d->vaddr);

	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, (size_t)(MSG_LEN - n), "%02x:", d->gid[i]);
	n += snprintf(msg + n, (size_t)(MSG_LEN - n), "%08x:", d->srqn);
	if (n != MSG_LEN - 1)
		pmrt_die("connection message is %d bytes, not %d", n, MSG_LEN - 1);
}

static void parse_dest(const char *msg, struct dest *d)
{
	const char *p = msg;
	unsigned v[16];
	int n;

	if (memchr(msg, '\0', MSG_LEN) == NULL)
		pmrt_die("server message is not NUL-terminated");
	if (sscanf(p, "%x:%x:%x:%x:%x:%llx:%n", &d->lid, &d->out_reads,
		   &d->qpn, &d->psn, &d->rkey, &d->vaddr, &n) != 6)
		pmrt_die("cannot parse the server's message <%s>", msg);
	p += n;
	for (int i = 0; i < 16; i++) {
		if (sscanf(p, "%x:%n", &v[i], &n) != 1 || v[i] > 0xff)
			pmrt_die("cannot parse the GID in <%s>", msg);
		d->gid[i] = (uint8_t)v[i];
		p += n;
	}
	if (sscanf(p, "%x:", &d->srqn) != 1)
		pmrt_die("cannot parse the SRQN in <%s>", msg);
}

static void hand_shake(const struct dest *mine, struct dest *theirs,
		       const char *what)
{
	char out[MSG_LEN], in[MSG_LEN];

	memset(out, 0, sizeof(out));
	fmt_dest(mine, out);
	xchg(out, in, MSG_LEN);
	parse_dest(in, theirs);
	printf("perftest_client: %s: sent <%s> got <%s>\n", what, out, in);
}

/* ---- glibc rand() (TYPE_3 random()), to recognise perftest's buffer ---- */

static uint32_t *rstate;
static size_t rstate_len;

/* out[k] = (char)rand() number skip + k after srand(seed). */
static void glibc_rand_bytes(uint32_t seed, size_t skip, size_t n,
			     uint8_t *out)
{
	size_t need = 344 + skip + n;

	if (rstate_len < need) {
		free(rstate);
		rstate = malloc(need * sizeof(*rstate));
		if (rstate == NULL)
			pmrt_die("out of memory");
		rstate_len = need;
	}
	int32_t word = seed == 0 ? 1 : (int32_t)seed;

	rstate[0] = (uint32_t)word;
	for (int i = 1; i < 31; i++) {
		int32_t hi = word / 127773, lo = word % 127773;

		word = 16807 * lo - 2836 * hi;
		if (word < 0)
			word += 2147483647;
		rstate[i] = (uint32_t)word;
	}
	for (int i = 31; i < 34; i++)
		rstate[i] = rstate[i - 31];
	for (size_t i = 34; i < need; i++)
		rstate[i] = rstate[i - 31] + rstate[i - 3];
	for (size_t k = 0; k < n; k++)
		out[k] = (uint8_t)(rstate[344 + skip + k] >> 1);
}

static void rand_selftest(void)
{
	uint8_t mine[64];

	srand(12345);
	glibc_rand_bytes(12345, 0, sizeof(mine), mine);
	for (size_t i = 0; i < sizeof(mine); i++)
		if (mine[i] != (uint8_t)rand())
			pmrt_die("glibc rand() model does not match this libc");
}

/* @return true if data[0..n) is perftest's rand() fill at offset off for a
 * seed near now (the server's time(NULL) when it made its buffer). */
static bool rand_match(const uint8_t *data, size_t n, size_t off,
		       uint32_t *seed_out)
{
	uint8_t *tmp = malloc(n);
	uint32_t t = (uint32_t)time(NULL);
	const long windows[] = { 900, 2 * 86400 };
	bool found = false;

	if (tmp == NULL)
		pmrt_die("out of memory");
	for (unsigned w = 0; w < 2 && !found; w++) {
		for (long d = -windows[w]; d <= windows[w] && !found; d++) {
			if (w == 1 && d >= -windows[0] && d <= windows[0])
				continue;
			glibc_rand_bytes(t + (uint32_t)d, off, n, tmp);
			if (memcmp(tmp, data, n) == 0) {
				*seed_out = t + (uint32_t)d;
				found = true;
			}
		}
	}
	free(tmp);
	return found;
}

static void check_rand(const uint8_t *data, size_t n, const char *what)
{
	uint32_t seed;

	if (!rand_check)
		return;
	if (n < 4) {
		printf("perftest_client: %s: %zu bytes are too few to identify "
		       "perftest's rand() fill; not checked\n", what, n);
		return;
	}
	if (rand_match(data, n, bs, &seed))
		printf("perftest_client: %s: data is perftest's rand() fill "
		       "(srand(%u), now %ld), offset %zu: OK\n", what, seed,
		       (long)time(NULL), bs);
	else
		fail("%s: the %zu bytes returned are not the server buffer's "
		     "rand() contents at offset %zu for any seed within 2 days "
		     "of now", what, n, bs);
}

/* ---- verbs ---------------------------------------------------------------- */

static void dev_open(void)
{
	ctx = pmrt_open_roce(&dev);
	pd = pmr_alloc_pd(ctx);
	cq = pmr_create_cq(ctx, 256, NULL, NULL, 0);
	if (pd == NULL || cq == NULL)
		pmrt_die("set-up: %s", strerror(errno));
}

static void qp_create(void)
{
	struct pmr_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	qp = pmrt_qp_create(pd, cq, PMR_QPT_RC, &cap, PMR_ACCESS_REMOTE_WRITE |
			    PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC, 0);
}

static void qp_connect(const struct dest *me, const struct dest *rem,
		       enum pmr_mtu mtu)
{
	struct pmrt_conn c = {
		.type = PMR_QPT_RC, .path_mtu = mtu,
		.sq_psn = me->psn, .dest_qpn = rem->qpn, .rq_psn = rem->psn,
		.sgid_index = (uint8_t)gid_index, .hop_limit = 0xff,
		.max_dest_rd_atomic = (uint8_t)me->out_reads,
		.max_rd_atomic = (uint8_t)(rem->out_reads < me->out_reads ?
					   rem->out_reads : me->out_reads),
		.min_rnr_timer = MIN_RNR_TIMER,
		.timeout = QP_TIMEOUT, .retry_cnt = 7, .rnr_retry = 7,
	};

	if (c.max_rd_atomic == 0)
		c.max_rd_atomic = 1;
	memcpy(c.dgid, rem->gid, 16);
	pmrt_qp_connect(qp, &c);
}

static void post(enum pmr_wr_opcode op, uint64_t wr_id, void *laddr,
		 uint32_t len, uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		 uint64_t swap)
{
	struct pmr_sge sg = { (uintptr_t)laddr, len, mr->lkey };
	struct pmr_send_wr wr, *bad;
	int r;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = PMR_SEND_SIGNALED;
	if (op == PMR_WR_ATOMIC_FETCH_AND_ADD || op == PMR_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	r = pmr_post_send(qp, &wr, &bad);
	if (r)
		pmrt_die("post_send (wr_id %" PRIu64 "): %s", wr_id, strerror(r));
}

/* Poll one completion; check it. @return false on a failed check. */
static bool wait_wc(uint64_t wr_id, enum pmr_wc_opcode op, uint32_t byte_len,
		    bool check_len)
{
	struct pmr_wc wc;
	uint64_t until = pmrt_now_ns() + 30000000000ull;
	int n;

	while ((n = pmr_poll_cq(cq, 1, &wc)) == 0) {
		if (pmrt_now_ns() > until)
			pmrt_die("no completion for wr_id %" PRIu64 " within 30 s",
				 wr_id);
		check_deadline("waiting for a completion");
	}
	if (n < 0)
		pmrt_die("poll_cq: %d", n);
	if (wc.status != PMR_WC_SUCCESS) {
		fail("wr_id %" PRIu64 ": completion status %s (vendor_err %u)",
		     wc.wr_id, pmr_wc_status_str(wc.status), wc.vendor_err);
		return false;
	}
	if (wc.wr_id != wr_id || wc.opcode != op ||
	    (check_len && wc.byte_len != byte_len)) {
		fail("completion wr_id %" PRIu64 " opcode %d byte_len %u, expected "
		     "wr_id %" PRIu64 " opcode %d byte_len %u", wc.wr_id,
		     wc.opcode, wc.byte_len, wr_id, op, byte_len);
		return false;
	}
	return true;
}

/* ---- the tests -------------------------------------------------------------- */

static int run_write(const struct dest *rem)
{
	uint8_t *sbuf = buf, *rbuf = buf + bs;
	unsigned long scnt = 0, ccnt = 0;

	memset(buf, 0, 2 * bs);
	memset(rbuf, CANARY, bs);
	rbuf[size - 1] = 0;
	for (unsigned long i = 1; i <= iters; i++) {
		uint64_t until = pmrt_now_ns() + 30000000000ull;

		/* our write i first (upstream perftest's older order) */
		if (client_first) {
			sbuf[size - 1] = (uint8_t)i;
			post(PMR_WR_RDMA_WRITE, i, sbuf, (uint32_t)size,
			     rem->vaddr, rem->rkey, 0, 0);
			scnt++;
		}
		/* the server's write i: spin on our last byte */
		while (rbuf[size - 1] != (uint8_t)i) {
			struct pmr_wc wc;
			int n = pmr_poll_cq(cq, 1, &wc);

			if (n < 0)
				pmrt_die("poll_cq: %d", n);
			if (n == 1) {
				if (wc.status != PMR_WC_SUCCESS ||
				    wc.opcode != PMR_WC_RDMA_WRITE ||
				    wc.wr_id != ccnt + 1) {
					fail("iteration %lu: write completion wr_id %"
					     PRIu64 " status %s opcode %d",
					     i, wc.wr_id,
					     pmr_wc_status_str(wc.status),
					     wc.opcode);
					return -1;
				}
				ccnt++;
			}
			if (pmrt_now_ns() > until) {
				fail("iteration %lu: the server's WRITE did not "
				     "arrive within 30 s (last byte %#x)", i,
				     rbuf[size - 1]);
				return -1;
			}
			check_deadline("waiting for the server's WRITE");
		}
		/* what landed: size-1 zero bytes, the counter, then canary */
		for (size_t k = 0; k + 1 < size; k++)
			if (rbuf[k] != 0) {
				fail("iteration %lu: byte %zu of the server's "
				     "WRITE is %#x, expected 0", i, k, rbuf[k]);
				return -1;
			}
		for (size_t k = size; k < bs; k++)
			if (rbuf[k] != CANARY) {
				fail("iteration %lu: byte %zu beyond the WRITE's "
				     "%lu bytes was overwritten (%#x)", i, k,
				     size, rbuf[k]);
				return -1;
			}
		/* re-arm: the server's next write only comes after ours */
		memset(rbuf, CANARY, size - 1);
		if (!client_first) {
			sbuf[size - 1] = (uint8_t)i;
			post(PMR_WR_RDMA_WRITE, i, sbuf, (uint32_t)size,
			     rem->vaddr, rem->rkey, 0, 0);
			scnt++;
		}
	}
	while (ccnt < scnt) {
		if (!wait_wc(ccnt + 1, PMR_WC_RDMA_WRITE, 0, false))
			return -1;
		ccnt++;
	}
	printf("perftest_client: write: %lu iterations of %lu bytes, every "
	       "WRITE of the server landed with the expected contents\n",
	       iters, size);
	return 0;
}

static int run_read(const struct dest *rem)
{
	uint8_t *first = malloc(size);
	uint8_t *lb = buf;

	if (first == NULL)
		pmrt_die("out of memory");
	for (unsigned long i = 1; i <= iters; i++) {
		memset(lb, CANARY, bs);
		post(PMR_WR_RDMA_READ, i, lb, (uint32_t)size, rem->vaddr,
		     rem->rkey, 0, 0);
		if (!wait_wc(i, PMR_WC_RDMA_READ, (uint32_t)size, true))
			return -1;
		for (size_t k = size; k < bs; k++)
			if (lb[k] != CANARY) {
				fail("iteration %lu: byte %zu beyond the READ's "
				     "%lu bytes was overwritten", i, k, size);
				return -1;
			}
		if (i == 1) {
			memcpy(first, lb, size);
			continue;
		}
		if (memcmp(first, lb, size) != 0) {
			size_t k = 0;

			while (first[k] == lb[k])
				k++;
			fail("iteration %lu: READ returned different data than "
			     "the first READ (byte %zu: %#x, first %#x)", i, k,
			     lb[k], first[k]);
			return -1;
		}
	}
	printf("perftest_client: read: %lu READs of %lu bytes, all SUCCESS "
	       "with byte_len %lu and identical data (first bytes %02x %02x "
	       "%02x %02x)\n", iters, size, size, first[0],
	       size > 1 ? first[1] : 0, size > 2 ? first[2] : 0,
	       size > 3 ? first[3] : 0);
	check_rand(first, size, "read");
	free(first);
	return 0;
}

static int run_atomic(const struct dest *rem)
{
	uint64_t *res = (uint64_t *)(void *)buf;
	uint64_t v0 = 0;
	enum pmr_wr_opcode op = cas ? PMR_WR_ATOMIC_CMP_AND_SWP :
				      PMR_WR_ATOMIC_FETCH_AND_ADD;
	enum pmr_wc_opcode wop = cas ? PMR_WC_COMP_SWAP : PMR_WC_FETCH_ADD;
	const char *name = cas ? "CMP_AND_SWAP" : "FETCH_AND_ADD";

	for (unsigned long i = 1; i <= iters; i++) {
		uint64_t want;

		*res = 0xdeadbeefcafef00dull ^ i;
		/* perftest: FA adds ATOMIC_ADD_VALUE (1); CAS swaps in
		 * ATOMIC_SWAP_VALUE (0) with compare_add left 0 */
		post(op, i, res, 8, rem->vaddr, rem->rkey, cas ? 0 : 1, 0);
		if (!wait_wc(i, wop, 8, false))
			return -1;
		if (i == 1)
			v0 = *res;
		want = cas ? v0 : v0 + (i - 1);
		if (*res != want) {
			fail("%s iteration %lu returned %#" PRIx64 ", expected %#"
			     PRIx64 " (v0 %#" PRIx64 ")", name, i, *res, want,
			     v0);
			return -1;
		}
	}
	printf("perftest_client: atomic: %lu %s returned the expected "
	       "sequence from v0 = %#" PRIx64 "\n", iters, name, v0);
	{
		uint8_t b[8];

		memcpy(b, &v0, 8);
		check_rand(b, 8, "atomic v0");
	}
	/* beyond perftest: the final value / a successful swap */
	if (!cas) {
		post(PMR_WR_ATOMIC_FETCH_AND_ADD, iters + 1, res, 8, rem->vaddr,
		     rem->rkey, 0, 0);
		if (!wait_wc(iters + 1, wop, 8, false))
			return -1;
		if (*res != v0 + iters) {
			fail("FETCH_AND_ADD of 0 after %lu adds returned %#" PRIx64
			     ", expected %#" PRIx64, iters, *res, v0 + iters);
			return -1;
		}
	} else {
		post(op, iters + 1, res, 8, rem->vaddr, rem->rkey, v0, ~v0);
		if (!wait_wc(iters + 1, wop, 8, false))
			return -1;
		if (*res != v0) {
			fail("CAS(%#" PRIx64 " -> %#" PRIx64 ") returned %#" PRIx64,
			     v0, ~v0, *res);
			return -1;
		}
		post(op, iters + 2, res, 8, rem->vaddr, rem->rkey, ~v0, v0);
		if (!wait_wc(iters + 2, wop, 8, false))
			return -1;
		if (*res != ~v0) {
			fail("CAS(%#" PRIx64 " -> %#" PRIx64 ") returned %#" PRIx64
			     " (the previous swap did not happen?)", ~v0, v0,
			     *res);
			return -1;
		}
	}
	printf("perftest_client: atomic: the follow-up %s checks passed\n",
	       cas ? "swap" : "add");
	return 0;
}

/* ---- main ------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: perftest_client --test write|read|atomic [--atomic fa|cas]"
		" [-n N] [-s SIZE] [-p PORT] [-m MTU] [--gid-index I]"
		" [--hs-pre N] [--hs-post N] [--timeout SEC] [--no-rand-check]"
		" [--client-first]"
		" SERVER_IP\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char ver[VERSION_LEN], rver[VERSION_LEN + 1];
	uint32_t v, rv;
	char mtus[2], rmtu[3];
	struct dest me, rem, tmp;
	struct pmr_device_attr da;
	enum pmr_mtu mtu;
	int rc;

	pmrt_name = "perftest_client";
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;

		if (strcmp(a, "--test") == 0 && has) {
			a = argv[++i];
			if (strcmp(a, "write") == 0)
				test = T_WRITE;
			else if (strcmp(a, "read") == 0)
				test = T_READ;
			else if (strcmp(a, "atomic") == 0)
				test = T_ATOMIC;
			else
				usage();
		} else if (strcmp(a, "--atomic") == 0 && has) {
			a = argv[++i];
			if (strcmp(a, "cas") == 0)
				cas = true;
			else if (strcmp(a, "fa") != 0)
				usage();
		} else if (strcmp(a, "-n") == 0 && has) {
			iters = strtoul(argv[++i], NULL, 0);
		} else if (strcmp(a, "-s") == 0 && has) {
			size = strtoul(argv[++i], NULL, 0);
		} else if (strcmp(a, "-p") == 0 && has) {
			port = atoi(argv[++i]);
		} else if (strcmp(a, "-m") == 0 && has) {
			mtu_num = atoi(argv[++i]);
		} else if (strcmp(a, "--gid-index") == 0 && has) {
			gid_index = atoi(argv[++i]);
		} else if (strcmp(a, "--hs-pre") == 0 && has) {
			hs_pre = atoi(argv[++i]);
		} else if (strcmp(a, "--hs-post") == 0 && has) {
			hs_post = atoi(argv[++i]);
		} else if (strcmp(a, "--timeout") == 0 && has) {
			timeout_s = atof(argv[++i]);
		} else if (strcmp(a, "--client-first") == 0) {
			client_first = true;
		} else if (strcmp(a, "--no-rand-check") == 0) {
			rand_check = false;
		} else if (a[0] != '-' && server == NULL) {
			server = a;
		} else {
			usage();
		}
	}
	if (server == NULL || iters == 0 || hs_pre < 1 || hs_post < 0 ||
	    pmr_num_to_mtu(mtu_num) == 0)
		usage();
	if (size == 0)
		size = test == T_ATOMIC ? 8 : 2;   /* perftest's defaults */
	if (test == T_ATOMIC && size != 8)
		pmrt_die("atomics are 8 bytes");
	deadline = pmrt_now_ns() + (uint64_t)(timeout_s * 1e9);
	rand_selftest();

	dev_open();
	if (pmr_query_device(ctx, &da))
		pmrt_die("query_device");
	qp_create();

	/* my side, as perftest's set_up_connection makes it */
	memset(&me, 0, sizeof(me));
	me.lid = 0;
	me.out_reads = (unsigned)da.max_qp_rd_atom;
	me.qpn = qp->qp_num;
	srand48((long)getpid() * time(NULL));
	me.psn = (unsigned)lrand48() & 0xffffff;
	{
		union pmr_gid g;

		if (pmr_query_gid(ctx, 1, gid_index, &g))
			pmrt_die("query_gid %d", gid_index);
		memcpy(me.gid, g.raw, 16);
	}

	tcp_connect();
	printf("perftest_client: connected to %s:%d\n", server, port);

	/* 1. versions */
	memset(ver, 0, sizeof(ver));
	strcpy(ver, VERSION_STR);
	memset(rver, 0, sizeof(rver));
	xchg(ver, rver, VERSION_LEN);
	printf("perftest_client: server version %s\n", rver);
	/* 2. cycle buffer, 3. cache line size: the larger wins */
	v = htonl(CYCLE_BUFFER);
	xchg(&v, &rv, 4);
	rv = ntohl(rv);
	unsigned cycle = rv > CYCLE_BUFFER ? rv : CYCLE_BUFFER;
	v = htonl(CACHE_LINE);
	xchg(&v, &rv, 4);
	rv = ntohl(rv);
	printf("perftest_client: cycle buffer %u, cache line %u\n", cycle,
	       rv > CACHE_LINE ? rv : CACHE_LINE);
	/* 4. MTU: the enum as text, the smaller wins */
	mtu = pmr_num_to_mtu(mtu_num);
	snprintf(mtus, sizeof(mtus), "%d", (int)mtu);
	memset(rmtu, 0, sizeof(rmtu));
	xchg(mtus, rmtu, 2);
	{
		long r = strtol(rmtu, NULL, 10);

		if (r >= PMR_MTU_256 && r <= PMR_MTU_4096 && r < (long)mtu)
			mtu = (enum pmr_mtu)r;
		printf("perftest_client: server MTU %s, path MTU %d\n", rmtu,
		       pmr_mtu_to_num(mtu));
	}

	/* the buffer: two BUFF_SIZE halves, the second one is the target */
	bs = size > cycle ? size : cycle;
	buf = aligned_alloc(4096, 2 * bs);
	if (buf == NULL)
		pmrt_die("out of memory");
	memset(buf, 0, 2 * bs);
	mr = pmr_reg_mr(pd, buf, 2 * bs, PMR_ACCESS_LOCAL_WRITE |
			PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ |
			PMR_ACCESS_REMOTE_ATOMIC);
	if (mr == NULL)
		pmrt_die("reg_mr: %s", strerror(errno));
	me.rkey = mr->rkey;
	me.vaddr = (uintptr_t)(buf + bs);

	/* 5. connection messages */
	for (int i = 0; i < hs_pre; i++)
		hand_shake(&me, i == 0 ? &rem : &tmp, "handshake (pre)");
	if (hs_pre > 1 && memcmp(&rem, &tmp, sizeof(rem)) != 0)
		fail("the server's connection messages differ");
	printf("perftest_client: remote QPN %#x PSN %#x RKEY %#x VADDR %#llx "
	       "OUT_READS %u\n", rem.qpn, rem.psn, rem.rkey, rem.vaddr,
	       rem.out_reads);
	qp_connect(&me, &rem, mtu);
	for (int i = 0; i < hs_post; i++)
		hand_shake(&me, &tmp, "handshake (post)");

	switch (test) {
	case T_WRITE:
		rc = run_write(&rem);
		break;
	case T_READ:
		rc = run_read(&rem);
		break;
	default:
		rc = run_atomic(&rem);
		break;
	}
	if (rc)
		failures++;

	/* close: read_lat / atomic_lat servers wait for one more exchange */
	if (rc == 0) {
		char out[MSG_LEN], in[MSG_LEN];
		size_t got;

		memset(out, 0, sizeof(out));
		fmt_dest(&me, out);
		if (send(sock, out, MSG_LEN, MSG_NOSIGNAL) != MSG_LEN) {
			if (test != T_WRITE)
				fail("close: write: %s", strerror(errno));
		} else {
			got = tcp_read(in, MSG_LEN, true,
				       pmrt_now_ns() + 10000000000ull);
			if (got == MSG_LEN)
				printf("perftest_client: close exchange done\n");
			else if (test != T_WRITE)
				fail("close: the server answered %zu of %d bytes",
				     got, MSG_LEN);
			else
				printf("perftest_client: no close exchange (%zu "
				       "bytes; the server just closed)\n", got);
		}
	}
	close(sock);
	/* let the last ACKs go out */
	for (int i = 0; i < 100; i++) {
		pmrt_progress();
		usleep(1000);
	}
	{
		struct pmr_roce_port_stats s;

		if (pmr_roce_port_stats(dev, &s) == 0)
			printf("perftest_client: port: rx %" PRIu64 " tx %" PRIu64
			       " retransmits %" PRIu64 " timeouts %" PRIu64
			       " dup %" PRIu64 " naks rx seq/rnr/inv/acc/op %"
			       PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%"
			       PRIu64 " drops icrc %" PRIu64 " malformed %" PRIu64
			       "\n", s.rx_pkts, s.tx_pkts, s.retransmits,
			       s.timeouts, s.dup_requests, s.nak_seq_rx,
			       s.nak_rnr_rx, s.nak_inv_rx, s.nak_acc_rx,
			       s.nak_op_rx, s.rx_drop_icrc, s.rx_drop_malformed);
	}
	if (failures) {
		printf("perftest_client: %d failure(s)\n", failures);
		return 1;
	}
	printf("perftest_client: PASS\n");
	return 0;
}
