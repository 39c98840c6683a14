/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr-perf: perftest-style benchmarks for pmrdma (ib_send_lat, ib_write_bw
 * ... in one program), with a raw-ethdev baseline on the same port.
 *
 *   server:  pmr-perf TEST [options] [-- EAL args]
 *   client:  pmr-perf TEST [options] HOST [-- EAL args]
 *
 * TEST is send_lat, write_lat, read_lat, atomic_lat, send_bw, write_bw,
 * read_bw or atomic_bw.  The client sends its parameters to the server
 * over TCP, so the server needs only the test name and its device.
 *
 * The program initialises EAL itself (arguments after "--", else
 * PMR_EAL_ARGS), optionally runs the raw baseline (plain Ethernet frames
 * with rte_eth_* on the port), stops the port, then creates the RoCE
 * device on that port with pmr_device_create("roce", ARGS), where ARGS
 * come from --dev or PMR_DEVICES ("roce:port=0,ipv4=...": its first roce
 * entry, or the one -d names).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <float.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "pmr_roce.h"
#include "pmr_verbs.h"
#include "bw_samples.h"

#define DEF_PORT 18515
#define MAX_SIZE (8u << 20)
#define MAX_MSG (1ul << 31)      /* the RoCE device's max_msg_sz */
#define RAW_ETHERTYPE 0x88B5
#define RAW_POOL_MBUFS 4095
#define RAW_DATA 8192
#define RAW_PAD_MAX 128         /* --raw-pad */
#define RAW_BURST 32
#define ITERS_MAX 1000000000000000000ull   /* -n: 10^18 */
#define DURATION_MAX 86400.0    /* -D: a day */
#define QPS_MAX 16384           /* -q */
#define DEPTH_MAX 16384         /* -t, -r: the RoCE device's max_qp_wr */
#define INLINE_MAX 512          /* -I: the RoCE device's max inline data */
#define CQ_MOD_MAX 16384        /* -Q (then at most the tx depth) */
#define POST_LIST_MAX 256       /* -l */
#define END_CHECK_SPINS (1u << 12)
#define OUTS_MAX 16             /* -o: the RoCE device's max_qp_rd_atom */

enum op { OP_SEND, OP_WRITE, OP_READ, OP_ATOMIC };

struct opts {
	char test[16];
	enum op op;
	bool lat;
	int qpt;                 /* PMR_QPT_RC / UC / UD */
	uint64_t size;
	bool all;
	uint64_t iters;          /* 0: default */
	double duration;         /* s; 0: iterations */
	int nqp;
	int tx_depth;
	int rx_depth;
	int mtu;                 /* 0: the port's active MTU */
	int inl;                 /* -1: default */
	int cq_mod;
	int raw;                 /* 0 no, 1 raw only, 2 raw then RDMA */
	bool one_qp;             /* latency with -q N: QP 0 alone too */
	bool bidir;              /* -b: bandwidth both ways at once */
	bool forever;            /* --run_infinitely: -D rounds until
				  * SIGINT or SIGTERM (the client's) */
	int outs;                /* -o: READs and atomics in flight (the
				  * QPs' max_rd_atomic; 0: the default) */
	int post_list;           /* WRs per pmr_post_send call (bw tests) */
	bool cas;                /* -A CMP_AND_SWAP (else FETCH_AND_ADD) */
	bool srq;                /* --use-srq: send tests receive through
				  * one SRQ of -r WRs, all QPs' */
	bool nopeak;             /* -N: no BW peak (0, as perftest's) */
	double limit_bw;         /* -w: the least BW average (the unit
				  * printed); 0: none */
	double limit_mr;         /* -y: the least message rate, Mpps */
	bool cycles;             /* -C: latency tables in TSC cycles */
	bool mr_per_qp;          /* --mr_per_qp: a memory region a QP */
	int retry_count;         /* --retry_count: RC retry_cnt, 0..7 */
	bool retry_count_set;
	int raw_burst;           /* frames per raw transmit burst */
	int raw_pad;             /* bytes after each raw frame's payload */
	/* local only */
	int gid_index;           /* -x: the QPs' source GID */
	int tclass;              /* -T: the traffic class of what this end
				  * sends (IPv4 TOS, IPv6 traffic class) */
	int qp_timeout;          /* -u: RC local ACK timeout, 4.096 us x
				  * 2^N (0: none) */
	bool qp_timeout_set;     /* -u given */
	bool raw_burst_set;      /* --raw-burst given */
	bool gbits;
	bool json;
	int output;              /* --output: enum output (0: the tables) */
	int tcp_port;
	const char *host;
	const char *hist;
	const char *samples;      /* --samples FILE (the client's) */
	const char *devargs;
	const char *ibdev;       /* -d: a device of PMR_DEVICES by name */
	int progress;            /* enum pmr_progress_mode */
	bool events;             /* -e: wait for completion events */
};

/* --output: each result as one number, as perftest's --output */
enum output { OUT_FULL, OUT_BW, OUT_MR, OUT_LAT, OUT_LAT_TYP };

static const char *const output_names[] = {
	[OUT_BW] = "bandwidth", [OUT_MR] = "message_rate",
	[OUT_LAT] = "latency", [OUT_LAT_TYP] = "latency_typical",
};

static struct opts o = {
	.size = 2, .nqp = 1, .tx_depth = 0, .rx_depth = 512, .inl = -1,
	.cq_mod = 0, .post_list = 1, .tcp_port = DEF_PORT, .qpt = PMR_QPT_RC,
	.progress = PMR_PROGRESS_INLINE, .raw_burst = RAW_BURST,
	.qp_timeout = 14,        /* 67 ms, perftest's */
	.retry_count = 7,        /* perftest's */
};

static uint64_t hz;
static int sock = -1;            /* the control connection */
static struct pmr_context *ctx;
static union pmr_gid sgid;       /* the GID of -x, the QPs' source */
static bool server;
static FILE *samples_f;          /* --samples: open on the client */

static bool peer_stopped;        /* the peer said ABORT: no word back */
static char lbuf[1 << 16];       /* the control connection's input */
static size_t llen;

/* Milliseconds since t0 (CLOCK_MONOTONIC). */
static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Nothing of this process polls the port from here on: the context goes
 * to manual progress, which with --progress service stops the engine's
 * service lcore and returns once it has left the engine, and this thread
 * no longer runs the engine (ctx NULL: drive() and tcp_line() leave it).
 * The peer's exit then cannot find this process inside a memif receive.
 */
static void engine_stop(void)
{
	if (ctx != NULL)
		pmr_set_progress_mode(ctx, PMR_PROGRESS_MANUAL);
	ctx = NULL;
}

/*
 * Before this end stops, once the control connection is up: tell the
 * peer why ("ABORT why"), then wait, at most 2 s, for it to close the
 * connection first.  The peer stops on that line without polling its
 * port again, so that it is not inside a memif receive when this
 * process's exit takes the port down (DPDK 22.11's memif can crash then,
 * doc/guides/roce.rst); this process polls nothing while it waits.
 */
static void abort_peer(const char *why)
{
	char b[600];
	int n = snprintf(b, sizeof(b), "ABORT %s\n", why);
	struct timespec t0;

	if (n > (int)sizeof(b) - 1) {
		n = (int)sizeof(b) - 1;
		b[n - 1] = '\n';
	}
	/* never blocks: a peer that reads nothing may have filled the
	 * connection, and then is not waited for either */
	if (send(sock, b, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		ssize_t r;

		if (ms_since(&t0) >= 2000)
			return;
		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			return;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = recv(sock, b, sizeof(b), MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
			return;
	}
}

/* Take in what the control connection has, without waiting.
 * @return recv()'s result (0: the peer closed it) */
static ssize_t lbuf_fill(void)
{
	ssize_t r = recv(sock, lbuf + llen, sizeof(lbuf) - llen, MSG_DONTWAIT);

	if (r > 0)
		llen += (size_t)r;
	return r;
}

/* A control line of l bytes at p that is the peer's "ABORT <reason>" */
static bool abort_line(const char *p, size_t l)
{
	return l >= 6 && memcmp(p, "ABORT ", 6) == 0;
}

/*
 * The reason in an ABORT line of the peer's that is already here (taken
 * in, or arriving without a wait), into out.  An end that stops on an
 * error of its own, most often a completion in error because the peer's
 * engine stopped, then says why the peer stopped too.
 */
static bool peer_abort(char *out, size_t n)
{
	if (llen < sizeof(lbuf))
		lbuf_fill();
	for (size_t off = 0; off < llen;) {
		char *nl = memchr(lbuf + off, '\n', llen - off);
		size_t l;

		if (nl == NULL)
			break;
		l = (size_t)(nl - (lbuf + off));
		if (abort_line(lbuf + off, l)) {
			snprintf(out, n, "%.*s", (int)(l - 6), lbuf + off + 6);
			return true;
		}
		off += l + 1;
	}
	return false;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	char why[512], peer[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (sock >= 0 && !peer_stopped && peer_abort(peer, sizeof(peer))) {
		/* the peer waits for this end to go, and is told nothing */
		peer_stopped = true;
		fprintf(stderr, "pmr-perf: %s; the peer stopped: %s\n", why,
			peer);
	} else {
		fprintf(stderr, "pmr-perf: %s\n", why);
	}
	engine_stop();
	if (sock >= 0 && !peer_stopped)
		abort_peer(why);
	exit(1);
}

/* Page faults of the process so far (minor and major). */
static uint64_t page_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
}

/*
 * calloc that dies, naming what it was for, when there is no memory, and
 * touches every page of it.  A large calloc gets pages the kernel maps at
 * their first write: a fault of a microsecond or more.  The timestamps
 * hold 512 a page, so without the touch one iteration in 512 of a latency
 * test paid a fault, and the 99.9th percentile (of raw and RDMA alike)
 * measured the faults rather than the port or the stack.
 */
static void *zalloc(size_t n, size_t size, const char *what)
{
	volatile uint8_t *p = calloc(n, size);

	if (p == NULL)
		die("out of memory for %s (%zu x %zu bytes)", what, n, size);
	for (size_t i = 0; i < n * size; i += 4096)
		p[i] = 0;
	return (void *)(uintptr_t)p;
}

/* Run the engine while the application waits, unless a service core does. */
static inline void drive(void)
{
	if (ctx != NULL && o.progress != PMR_PROGRESS_SERVICE)
		pmr_progress(ctx, 64);
}

static uint16_t port_id;
static struct pmr_device *dev;

/* The RoCE port's counters now (all zero without an RDMA device). */
static struct pmr_roce_port_stats port_stats(void)
{
	struct pmr_roce_port_stats st;

	if (dev == NULL || pmr_roce_port_stats(dev, &st) != 0)
		memset(&st, 0, sizeof(st));
	return st;
}

/* Frames the port sent a transmit call since s0 (0 when there was none). */
static double tx_per_burst(const struct pmr_roce_port_stats *s0)
{
	struct pmr_roce_port_stats s1 = port_stats();

	return s1.tx_bursts > s0->tx_bursts ?
	       (double)(s1.tx_pkts - s0->tx_pkts) /
	       (double)(s1.tx_bursts - s0->tx_bursts) : 0;
}

/* Abort a wait that made no progress for 10 s, saying what the port saw. */
static void stall_check(uint64_t since, const char *where)
{
	struct rte_eth_link link;
	struct rte_eth_stats es;
	struct pmr_roce_port_stats st;

	if (rte_rdtsc() - since < 10 * hz)
		return;
	memset(&link, 0, sizeof(link));
	memset(&es, 0, sizeof(es));
	rte_eth_link_get_nowait(port_id, &link);
	rte_eth_stats_get(port_id, &es);
	fprintf(stderr, "pmr-perf: %s: no progress for 10 s; link %s, "
		"ethdev ipackets %lu opackets %lu imissed %lu oerrors %lu\n",
		where, link.link_status ? "up" : "down", es.ipackets,
		es.opackets, es.imissed, es.oerrors);
	if (dev != NULL && pmr_roce_port_stats(dev, &st) == 0)
		fprintf(stderr, "pmr-perf: roce rx %lu tx %lu retransmits %lu "
			"timeouts %lu tx_full %lu tx_no_mbuf %lu tx_drops %lu "
			"arp tx %lu rx %lu\n", st.rx_pkts, st.tx_pkts,
			st.retransmits, st.timeouts, st.tx_full, st.tx_no_mbuf,
			st.tx_drops, st.arp_tx, st.arp_rx);
	exit(1);
}

/*
 * The value of option `name`'s argument: a decimal integer lo..hi, or a
 * clear stop (no atoi(): "4x", "" or "1e6" are not 4, 0 or 1).
 */
static long long opt_int(const char *name, const char *arg, long long lo,
			 long long hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
		die("bad %s %s: an integer %lld..%lld", name, arg, lo, hi);
	return v;
}

/* The value of option `name`'s argument: a number above 0 and at most
 * max (finite), else a clear stop saying what it must be. */
static double opt_positive(const char *name, const char *arg, double max,
			   const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (*arg == '\0' || *end != '\0' || errno != 0 || !(v > 0) ||
	    !(v <= max))
		die("bad %s %s: %s", name, arg, what);
	return v;
}

/* ---- TCP control channel ---------------------------------------------- */

static void tcp_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tcp_send(const char *fmt, ...)
{
	char b[4096];
	va_list ap;
	int n;
	size_t off = 0;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(b))
		die("control message too long");
	while (off < (size_t)n) {
		ssize_t w = send(sock, b + off, (size_t)n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("control connection: send: %s", strerror(errno));
		off += (size_t)w;
	}
}

/* Take one line if a whole one is buffered or arrives without waiting. */
static bool tcp_try_line(char *out, size_t n)
{
	char *nl;

	for (;;) {
		nl = memchr(lbuf, '\n', llen);
		if (nl != NULL) {
			size_t l = (size_t)(nl - lbuf);

			if (abort_line(lbuf, l)) {
				peer_stopped = true;
				die("the peer stopped: %.*s", (int)(l - 6),
				    lbuf + 6);
			}
			if (l >= n)
				die("control line too long");
			memcpy(out, lbuf, l);
			out[l] = '\0';
			memmove(lbuf, nl + 1, llen - l - 1);
			llen -= l + 1;
			return true;
		}
		if (llen == sizeof(lbuf))
			die("control line too long");
		ssize_t r = lbuf_fill();

		if (r == 0)
			die("control connection closed by the peer");
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return false;
			die("control connection: recv: %s", strerror(errno));
		}
	}
}

/* Wait for a line, keeping the engine (ARP, ACKs, retransmits) running. */
static void tcp_line(char *out, size_t n)
{
	while (!tcp_try_line(out, n)) {
		if (ctx != NULL && o.progress != PMR_PROGRESS_SERVICE) {
			for (int i = 0; i < 256; i++)
				drive();
		} else {
			struct pollfd p = { .fd = sock, .events = POLLIN };

			poll(&p, 1, 1);
		}
	}
}

static void tcp_expect(const char *word)
{
	char l[256];

	tcp_line(l, sizeof(l));
	if (strcmp(l, word) != 0)
		die("control: expected '%s', got '%s'", word, l);
}

/* l, a line that came where only the peer's END can: stop if it is not */
static void end_check(const char *l)
{
	if (strncmp(l, "END", 3) != 0 || (l[3] != '\0' && l[3] != ' '))
		die("control: expected 'END', got '%s'", l);
}

static void barrier(const char *name)
{
	tcp_send("%s\n", name);
	tcp_expect(name);
}

static void tcp_open(void)
{
	int one = 1;

	if (server) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons((uint16_t)o.tcp_port),
					 .sin_addr.s_addr = htonl(INADDR_ANY) };
		int ls = socket(AF_INET, SOCK_STREAM, 0);

		if (ls < 0)
			die("socket: %s", strerror(errno));
		setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 ||
		    listen(ls, 1) != 0)
			die("TCP port %d: %s", o.tcp_port, strerror(errno));
		sock = accept(ls, NULL, NULL);
		if (sock < 0)
			die("accept: %s", strerror(errno));
		close(ls);
	} else {
		struct addrinfo hints = { .ai_family = AF_INET,
					  .ai_socktype = SOCK_STREAM }, *res;
		char port[16];

		snprintf(port, sizeof(port), "%d", o.tcp_port);
		if (getaddrinfo(o.host, port, &hints, &res) != 0)
			die("cannot resolve '%s'", o.host);
		for (int t = 0;; t++) {
			int fd = socket(AF_INET, SOCK_STREAM, 0);

			if (fd < 0)
				die("socket: %s", strerror(errno));
			if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
				sock = fd;
				break;
			}
			/* (sock stays -1: die() must not write to a
			 * descriptor number another thread may have
			 * taken since) */
			close(fd);
			if (t > 300)
				die("cannot connect to %s:%d", o.host,
				    o.tcp_port);
			usleep(100000);
		}
		freeaddrinfo(res);
	}
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- statistics and output -------------------------------------------- */

struct lat_res {
	uint64_t bytes, iters;
	double min, max, typ, avg, sd, p99, p999;
	uint64_t faults;            /* page faults of the process in the
				     * measured iterations */
	double tx_per_burst;        /* RDMA: frames the client's port sent
				     * a transmit call in them */
	uint64_t events;            /* -e: completion events the client took
				     * in the loop */
};

struct bw_res {
	uint64_t bytes, iters;
	double peak, avg, mpps;     /* MB/s (1e6 B/s), Mpps */
	unsigned int max_burst;     /* raw: most frames one transmit call
				     * took */
	unsigned int frame_max;     /* raw: the longest frame received */
	double send_us;             /* raw: the sender's time from its
				     * first transmit call to its last */
	uint64_t faults;            /* page faults of the sender (the
				     * client) in the measured run */
	double tx_per_burst;        /* RDMA: frames the client's port sent
				     * a transmit call in it */
	uint64_t events;            /* -e: completion events the client took
				     * in it */
	double us;                  /* RDMA: the client's time from its first
				     * post to its last completion */
	double warm_us;             /* RDMA: its warm-up's (the same) */
	/* -b: each way's messages and average bandwidth (the fields above
	 * hold the two summed) */
	uint64_t local_iters, remote_iters;
	double local_avg, remote_avg;
};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *s, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n) - 1;

	return s[i >= n ? n - 1 : i];
}

/* Samples in microseconds, sorted in place. */
static struct lat_res lat_stats(double *s, size_t n, uint64_t bytes)
{
	struct lat_res r = { .bytes = bytes, .iters = n };
	double sum = 0, sq = 0;

	if (n == 0)
		return r;
	qsort(s, n, sizeof(*s), cmp_dbl);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	r.avg = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (s[i] - r.avg) * (s[i] - r.avg);
	r.sd = sqrt(sq / (double)n);
	r.min = s[0];
	r.max = s[n - 1];
	r.typ = s[n / 2];
	r.p99 = pct(s, n, 0.99);
	r.p999 = pct(s, n, 0.999);
	return r;
}

/* Where notes beside the results go: stdout, or stderr with --output,
 * whose stdout carries the numbers alone. */
static FILE *note_out(void)
{
	return o.output ? stderr : stdout;
}

static const char *mode_name(bool raw)
{
	return raw ? "raw" : "rdma";
}

/* -A, as perftest names it */
static const char *atomic_name(void)
{
	return o.cas ? "CMP_AND_SWAP" : "FETCH_AND_ADD";
}

/* After the test's name in an RDMA table's title: its atomic, or its
 * receives through an SRQ. */
static const char *test_variant(void)
{
	static char b[32];

	if (o.op == OP_ATOMIC)
		snprintf(b, sizeof(b), " %s", atomic_name());
	else
		snprintf(b, sizeof(b), "%s", o.srq ? " through an SRQ" : "");
	return b;
}

static void lat_header(bool raw)
{
	if (o.json || o.output)
		return;
	printf("---------------------------------------------------------------------------------------\n");
	printf(" %s %s%s%s\n", !raw ? "pmrdma" : o.op == OP_READ ?
	       "raw ethdev ping-pong (same port; a request of at most 16 bytes, the data back):" :
	       "raw ethdev ping-pong (same port, same payload per frame):",
	       raw ? "" : o.test, raw ? "" : test_variant(), raw ? "" :
	       (o.op == OP_SEND || o.op == OP_WRITE ? " (half round trip)" : " (full round trip)"));
	if (o.cycles)
		printf(" #bytes #iterations    t_min[cycles]  t_max[cycles] t_typical[cycles]  t_avg[cycles]  t_stdev[cycles] 99%% percentile[cycles] 99.9%% percentile[cycles] \n");
	else
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec] \n");
}

/* The progress mode, as --progress names it. */
static const char *progress_name(void)
{
	return o.progress == PMR_PROGRESS_SERVICE ? "service" :
	       o.progress == PMR_PROGRESS_MANUAL ? "manual" : "inline";
}

static int qp_outs(void);
static uint64_t atomic_result(void);
static int mrs_count(void);
static struct pmr_qp_attr qp_query(int mask);

/* A GID as an IPv6 address (an IPv4-mapped one as ::ffff:a.b.c.d). */
static const char *gid_str(const union pmr_gid *g, char *b, size_t n)
{
	return inet_ntop(AF_INET6, g->raw, b, (socklen_t)n) != NULL ? b : "?";
}

/* JSON, an RDMA result: the QPs' source GID (-x) and traffic class
 * (-T), in a read or atomic test -o as the QPs have it, in an atomic
 * test its type (-A) and the value its last one on QP 0 gave back
 * (FETCH_AND_ADD: the adds before it on that QP; CMP_AND_SWAP: 1), in a
 * send test whether it receives through an SRQ
 * (--use-srq), with RC the local ACK timeout of -u and the retry count of
 * --retry_count as they have them, and the MRs the QPs' buffers are in
 * (--mr_per_qp: one a QP) */
static void json_qp_fields(void)
{
	char g[INET6_ADDRSTRLEN];

	printf(",\"gid_index\":%d,\"gid\":\"%s\",\"tclass\":%d",
	       o.gid_index, gid_str(&sgid, g, sizeof(g)), o.tclass);
	if (o.op == OP_READ || o.op == OP_ATOMIC)
		printf(",\"outs\":%d", qp_outs());
	if (o.op == OP_ATOMIC)  /* and what QP 0's last one gave back */
		printf(",\"atomic_type\":\"%s\",\"atomic_result\":%lu",
		       atomic_name(), atomic_result());
	if (o.op == OP_SEND)
		printf(",\"srq\":%s", o.srq ? "true" : "false");
	if (o.qpt == PMR_QPT_RC)
		printf(",\"qp_timeout\":%d,\"retry_count\":%d",
		       qp_query(PMR_QP_TIMEOUT).timeout,
		       qp_query(PMR_QP_RETRY_CNT).retry_cnt);
	printf(",\"mrs\":%d", mrs_count());
}

/* A latency result: a row of the table, with --json an object of the
 * given mode and number of QPs, or with --output its t_avg or t_typical
 * alone. */
static void lat_print_as(const struct lat_res *r, const char *mode, int nqp)
{
	/* -C: the table and --output in TSC cycles (JSON stays in usec) */
	double k = o.cycles ? (double)hz / 1e6 : 1;

	if (o.output) {
		printf("%.6f\n", (o.output == OUT_LAT ? r->avg : r->typ) * k);
	} else if (o.json) {
		printf("{\"test\":\"%s\",\"mode\":\"%s\",\"qps\":%d,\"bytes\":%lu,"
		       "\"iterations\":%lu,\"t_min\":%.3f,\"t_max\":%.3f,"
		       "\"t_typical\":%.3f,\"t_avg\":%.3f,\"t_stdev\":%.3f,"
		       "\"p99\":%.3f,\"p99_9\":%.3f,\"page_faults\":%lu",
		       o.test, mode, nqp, r->bytes, r->iters, r->min, r->max,
		       r->typ, r->avg, r->sd, r->p99, r->p999, r->faults);
		/* RDMA results: the engine's progress mode, and the
		 * frames a transmit call of the client's port */
		if (strcmp(mode, "raw") != 0) {
			json_qp_fields();
			printf(",\"progress\":\"%s\",\"events\":%s,"
			       "\"cq_events\":%lu,\"tx_frames_per_burst\":%.2f",
			       progress_name(), o.events ? "true" : "false",
			       r->events, r->tx_per_burst);
		}
		printf("}\n");
	} else {
		printf(" %-7lu %-10lu   %-7.2f        %-7.2f      %-7.2f          %-7.2f        %-7.2f          %-7.2f                %-7.2f\n",
		       r->bytes, r->iters, r->min * k, r->max * k, r->typ * k,
		       r->avg * k, r->sd * k, r->p99 * k, r->p999 * k);
	}
	fflush(stdout);
}

static void lat_print(const struct lat_res *r, bool raw)
{
	lat_print_as(r, mode_name(raw), o.nqp);
}

/*
 * r's t_typical and 99.9th percentile as ratios to ref's: with --json an
 * object of `mode` (with vs_typ, r's 99.9th percentile against ref's
 * t_typical too), else a line saying what is compared.
 */
static void lat_ratio_print(const char *mode, const char *what,
			    uint64_t size, const struct lat_res *r,
			    const struct lat_res *ref, bool vs_typ)
{
	double a = r->typ / ref->typ, b = r->p999 / ref->p999;
	double c = r->p999 / ref->typ;

	if (o.json) {
		printf("{\"test\":\"%s\",\"mode\":\"%s\",\"qps\":%d,"
		       "\"bytes\":%lu,\"t_typical_ratio\":%.3f,"
		       "\"p99_9_ratio\":%.3f", o.test, mode, o.nqp, size, a, b);
		if (vs_typ)
			printf(",\"p99_9_vs_raw_typical\":%.3f", c);
		printf("}\n");
	} else {
		printf(" ratio %-11s %-7lu t_typical x%.2f   99.9%% x%.2f", what,
		       size, a, b);
		if (vs_typ)
			printf("   (99.9%% / raw t_typical x%.2f)", c);
		printf("\n");
	}
	fflush(stdout);
}

static void bw_header(bool raw)
{
	const char *u = o.gbits ? "Gb/sec" : "MB/sec";

	if (o.json || o.output)
		return;
	printf("---------------------------------------------------------------------------------------\n");
	printf(" %s %s%s%s\n", raw ? "raw ethdev streaming (receiver side, same port):" : "pmrdma",
	       raw ? "" : o.test, raw ? "" : test_variant(),
	       o.bidir ? " (bidirectional: the two ways summed)" : "");
	printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n", u, u);
}

/* A bandwidth of mbs x 10^6 bytes a second in perftest's units: MB/sec
 * of 2^20 bytes, or with --report_gbits Gb/sec of 10^9 bits. */
static double bw_unit(double mbs)
{
	return o.gbits ? mbs * 8 / 1000 : mbs * 1e6 / 1048576;
}

/* A bandwidth result: a row of the table, a JSON object, or with
 * --output its BW average or message rate alone. */
static void bw_print(const struct bw_res *r, bool raw)
{
	double peak = o.nopeak ? 0 : r->peak;   /* -N: 0, as perftest's */

	if (o.output == OUT_BW) {
		printf("%.6f\n", bw_unit(r->avg));
	} else if (o.output == OUT_MR) {
		printf("%.6f\n", r->mpps);
	} else if (o.json) {
		/* the RDMA line says how it posted (-l); the client's raw
		 * line the frames it handed to each transmit call at most
		 * (--raw-burst), the most one call took, the bytes after
		 * each frame's payload (--raw-pad), the longest frame the
		 * receiver saw and the sender's time from its first
		 * transmit call to the return of its last */
		printf("{\"test\":\"%s\",\"mode\":\"%s\",\"qps\":%d,\"bytes\":%lu,"
		       "\"iterations\":%lu,\"bw_peak\":%.2f,\"bw_avg\":%.2f,"
		       "\"unit\":\"%s\",\"msg_rate_mpps\":%.6f", o.test,
		       mode_name(raw), o.nqp, r->bytes, r->iters,
		       bw_unit(peak), bw_unit(r->avg),
		       o.gbits ? "Gb/sec" : "MB/sec", r->mpps);
		printf(",\"page_faults\":%lu,\"bidirectional\":%s", r->faults,
		       o.bidir ? "true" : "false");
		if (o.bidir)	/* each way: the client's, the server's */
			printf(",\"iterations_client\":%lu,"
			       "\"iterations_server\":%lu,"
			       "\"bw_avg_client\":%.2f,\"bw_avg_server\":%.2f",
			       r->local_iters, r->remote_iters,
			       bw_unit(r->local_avg), bw_unit(r->remote_avg));
		if (!raw) {
			json_qp_fields();
			printf(",\"progress\":\"%s\",\"events\":%s,"
			       "\"cq_events\":%lu,\"post_list\":%d,"
			       "\"tx_frames_per_burst\":%.2f,\"warmup_us\":%.1f",
			       progress_name(), o.events ? "true" : "false",
			       r->events, o.post_list, r->tx_per_burst,
			       r->warm_us);
		} else if (!server) {	/* the sender's: the client's */
			printf(",\"raw_burst\":%d,\"raw_burst_max\":%u,"
			       "\"raw_pad\":%d,\"raw_frame_max\":%u,"
			       "\"raw_send_us\":%.1f",
			       o.raw_burst, r->max_burst, o.raw_pad,
			       r->frame_max, r->send_us);
		}
		printf("}\n");
	} else {
		printf(" %-10lu %-10lu     %-10.2f         %-10.2f       %-10.6f\n",
		       r->bytes, r->iters, bw_unit(peak), bw_unit(r->avg),
		       r->mpps);
	}
	fflush(stdout);
}

/* num / den as a ratio to print; with nothing to divide by (0-byte
 * messages carry no bytes) "-" in the text, null in JSON. */
static void ratio_fmt(char *b, size_t n, double num, double den)
{
	if (den > 0)
		snprintf(b, n, o.json ? "%.3f" : "x%.3f", num / den);
	else
		snprintf(b, n, "%s", o.json ? "null" : "-");
}

/* pmrdma's bandwidth and message rate as ratios to the raw port's. */
/* -w, -y: whether the RDMA result r is below either limit, each said on
 * stderr (the run goes on; pmr-perf then exits with 1, as perftest's). */
static bool below_limits(const struct bw_res *r)
{
	bool below = false;

	if (o.limit_bw > 0 && bw_unit(r->avg) < o.limit_bw) {
		fprintf(stderr, "pmr-perf: %lu bytes: BW average %.2f %s below "
			"the -w limit %.2f\n", r->bytes, bw_unit(r->avg),
			o.gbits ? "Gb/sec" : "MB/sec", o.limit_bw);
		below = true;
	}
	if (o.limit_mr > 0 && r->mpps < o.limit_mr) {
		fprintf(stderr, "pmr-perf: %lu bytes: message rate %.6f Mpps "
			"below the -y limit %.6f\n", r->bytes, r->mpps,
			o.limit_mr);
		below = true;
	}
	return below;
}

static void bw_ratio_print(const struct bw_res *r, const struct bw_res *raw,
			   uint64_t bytes)
{
	char bw[32], mr[32];

	ratio_fmt(bw, sizeof(bw), r->avg, raw->avg);
	ratio_fmt(mr, sizeof(mr), r->mpps, raw->mpps);
	printf(o.json ? "{\"test\":\"%s\",\"mode\":\"ratio\",\"qps\":%d,\"bytes\":%lu,\"bw_ratio\":%s,\"msg_rate_ratio\":%s}\n" :
	       " ratio pmrdma/raw (%s, %d QP) %-7lu BW %s   MsgRate %s\n",
	       o.test, o.nqp, bytes, bw, mr);
}

/* ---- histogram (gnuplot) ------------------------------------------------ */

static void histogram(const double *rdma, size_t n, const double *raw,
		      size_t nraw, uint64_t size, bool many)
{
	char path[512], dat[2][600];
	const double *s[2] = { rdma, raw };
	size_t cnt[2] = { n, nraw };
	double hi = 0, bin;
	FILE *g;

	if (o.hist == NULL || n == 0)
		return;
	if (many) {
		const char *dot = strrchr(o.hist, '.');
		int base = dot ? (int)(dot - o.hist) : (int)strlen(o.hist);

		snprintf(path, sizeof(path), "%.*s-%lu%s", base, o.hist, size,
			 dot ? dot : ".png");
	} else {
		snprintf(path, sizeof(path), "%s", o.hist);
	}
	/* histogram up to 2 x the larger 99th percentile (preemptions of
	 * milliseconds would squash it); the CDF, log x, shows everything */
	for (int k = 0; k < 2; k++)
		if (cnt[k] && pct(s[k], cnt[k], 0.99) > hi)
			hi = pct(s[k], cnt[k], 0.99);
	hi *= 2;
	bin = hi / 100;
	for (int k = 0; k < 2; k++) {
		FILE *f;
		size_t nb = 101;
		double *h;

		if (cnt[k] == 0)
			continue;
		snprintf(dat[k], sizeof(dat[k]), "%s.%d.dat", path, k);
		f = fopen(dat[k], "w");
		if (f == NULL)
			return;
		h = zalloc(nb, sizeof(*h), "the histogram");
		for (size_t i = 0; i < cnt[k]; i++) {
			size_t b = (size_t)(s[k][i] / bin);

			if (b < nb)
				h[b] += 1;
		}
		/* block 0: bin centre, fraction; block 1: sorted sample, CDF */
		for (size_t b = 0; b < nb; b++)
			fprintf(f, "%g %g\n", (b + 0.5) * bin,
				h[b] / (double)cnt[k]);
		fprintf(f, "\n\n");
		size_t step = cnt[k] / 4000 + 1;

		for (size_t i = 0; i < cnt[k]; i += step)
			fprintf(f, "%g %g\n", s[k][i], (double)(i + 1) / (double)cnt[k]);
		fprintf(f, "%g 1\n", s[k][cnt[k] - 1]);
		free(h);
		fclose(f);
	}
	g = popen("gnuplot", "w");
	if (g == NULL)
		return;
	fprintf(g, "set terminal pngcairo size 960,400 font ',9'\n"
		"set output '%s'\nset termoption noenhanced\n"
		"set multiplot layout 1,2 title '%s, %lu B "
		"(%s)'\nset grid\nset xlabel 'latency [usec]'\n"
		"set xrange [0:%g]\nset ylabel 'fraction of samples'\n"
		"set style fill transparent solid 0.5 noborder\n"
		"set boxwidth %g\n",
		path, o.test, size,
		o.op == OP_SEND || o.op == OP_WRITE ? "half round trip" :
		"round trip", hi, bin);
	fprintf(g, "set title 'histogram (to 2 x p99)'\n"
		"plot '%s' i 0 u 1:2 w boxes t 'pmrdma'", dat[0]);
	if (nraw)
		fprintf(g, ", '%s' i 0 u 1:2 w boxes t 'raw ethdev'", dat[1]);
	fprintf(g, "\nset title 'CDF (all samples)'\nset ylabel 'P(latency <= x)'\n"
		"set logscale x\nset autoscale x\nset yrange [0:1.01]\n"
		"plot '%s' i 1 u 1:2 w steps lw 2 t 'pmrdma'", dat[0]);
	if (nraw)
		fprintf(g, ", '%s' i 1 u 1:2 w steps lw 2 t 'raw ethdev'", dat[1]);
	fprintf(g, "\nunset multiplot\n");
	if (pclose(g) != 0)
		fprintf(stderr, "pmr-perf: gnuplot failed for %s\n", path);
	unlink(dat[0]);
	if (nraw)
		unlink(dat[1]);
}

/* ---- raw ethdev baseline --------------------------------------------- */

static struct rte_mempool *raw_pool;
static struct rte_ether_addr raw_mac;

static void raw_setup(void)
{
	struct rte_eth_conf conf;
	uint16_t nrx = 1024, ntx = 1024;
	int ret, socket = rte_eth_dev_socket_id(port_id);

	if (socket < 0)
		socket = 0;
	if (raw_pool == NULL)
		raw_pool = rte_pktmbuf_pool_create("pmrperf_raw",
			RAW_POOL_MBUFS, 256, 0, RTE_PKTMBUF_HEADROOM + RAW_DATA,
			rte_socket_id());
	if (raw_pool == NULL)
		die("raw: mbuf pool: %s", rte_strerror(rte_errno));
	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port_id, 1, 1, &conf);
	if (ret != 0)
		die("raw: configure port %u: %s", port_id, strerror(-ret));
	rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &nrx, &ntx);
	ret = rte_eth_rx_queue_setup(port_id, 0, nrx, (unsigned)socket, NULL,
				     raw_pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port_id, 0, ntx, (unsigned)socket,
					     NULL);
	if (ret != 0)
		die("raw: queue set-up: %s", strerror(-ret));
	rte_eth_promiscuous_enable(port_id);
	for (int ms = 0;; ms += 10) {     /* memif client: server may be late */
		ret = rte_eth_dev_start(port_id);
		if (ret == 0)
			break;
		if (ms > 10000)
			die("raw: start port %u: %s", port_id, strerror(-ret));
		usleep(10000);
	}
	rte_eth_macaddr_get(port_id, &raw_mac);
}

static void wait_link(void)
{
	struct rte_eth_link link;

	for (int ms = 0; ms < 10000; ms += 10) {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(port_id, &link);
		if (link.link_status)
			return;
		usleep(10000);
	}
	fprintf(stderr, "pmr-perf: port %u: link still down after 10 s\n",
		port_id);
}

/*
 * Start the port on the server first, then on the client.  A memif client
 * that connects while the server's port is not started yet (or while the
 * server reconfigures its queues) ends up with a link that is "up" but
 * passes no frames: seen here in about 1 run in 3 without this ordering.
 */
static void ordered_start(void (*start)(void), const char *tag)
{
	if (server) {
		start();
		tcp_send("%s\n", tag);
	} else {
		tcp_expect(tag);
		start();
	}
	wait_link();
}

/* Frame: Ethernet (broadcast, ours, 0x88B5), then payload, then o.raw_pad
 * bytes that are not payload (--raw-pad: zero but in the bandwidth tests'
 * stream); >= 60 bytes. */
static struct rte_mbuf *raw_frame(const uint8_t *payload, uint32_t len,
				  uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(raw_pool);
	struct rte_ether_hdr *eh;
	uint32_t flen = 14 + len + (uint32_t)o.raw_pad;
	uint8_t *p;

	if (flen < 60)
		flen = 60;
	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flen);
	eh = (struct rte_ether_hdr *)p;
	memset(&eh->dst_addr, 0xff, 6);
	eh->src_addr = raw_mac;
	eh->ether_type = rte_cpu_to_be_16(RAW_ETHERTYPE);
	memcpy(p + 14, payload, len);
	if (flen >= 18)
		memcpy(p + 14, &seq, 4);
	return m;
}

/* Send all n frames; the clock is read only when the port was full (as
 * the RDMA side, which reads it only when it has to wait).  @return the
 * most frames one transmit call took. */
static uint16_t raw_tx(struct rte_mbuf **m, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(port_id, 0, m, n), most = sent, k;
	uint64_t t0;

	if (sent == n)
		return most;
	t0 = rte_rdtsc();
	while (sent < n) {
		k = rte_eth_tx_burst(port_id, 0, m + sent, n - sent);
		sent += k;
		if (k > most)
			most = k;
		stall_check(t0, "raw transmit");
	}
	return most;
}

/* Receive one frame of ours, copying its payload; NULL-safe for others. */
static int raw_rx_copy(uint8_t *dst, uint32_t cap, uint32_t *len)
{
	struct rte_mbuf *m;

	if (rte_eth_rx_burst(port_id, 0, &m, 1) == 0)
		return 0;
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RAW_ETHERTYPE)) {
		rte_pktmbuf_free(m);
		return 0;
	}
	uint32_t l = rte_pktmbuf_pkt_len(m) - 14;

	if (l > cap)
		l = cap;
	memcpy(dst, rte_pktmbuf_mtod_offset(m, uint8_t *, 14), l);
	*len = l;
	rte_pktmbuf_free(m);
	return 1;
}

static uint32_t frag_size(void)
{
	return (uint32_t)o.mtu;
}

/*
 * The iterations of a latency loop (the client's): `warm` of warm-up,
 * then `iters` measured, `total` in all.  The warm-up is a tenth of the
 * iterations and 10 more (`base`), then goes on while it has taken less
 * than a second, up to `want`: enough iterations for
 * WARM_FRAMES frames each way (stamp()).  The buffers of the port's
 * rings (memif's 1024 slots by default, af_packet's frame count) are
 * mapped at their first use, a page fault each, and a warm-up that has
 * gone round them leaves none to a measured iteration.  (Where an
 * iteration takes milliseconds, as with service progress on a machine
 * with fewer CPUs than pollers, it stops at a second.  A quarter of a
 * second was too short for the ASan build's read_lat -s 262144, whose
 * iterations of some 0.5 ms went round the request ring's 1024 slots
 * in none of its runs on the AMD VM on 2026-12-06.)
 */
#define WARM_FRAMES 2048
struct lat_iters {
	uint64_t iters, base, want;
	uint64_t warm, total;        /* grow together while the warm-up
				      * goes on */
	uint64_t f0;                 /* page faults at the first measured one */
	struct pmr_roce_port_stats s0;   /* and the RoCE port's counters */
};

/*
 * The frames an iteration of a latency test of `size` bytes sends the way
 * that carries fewer: a READ's request is one frame whatever the size (the
 * data comes back in ceil(size / MTU)), an atomic is one each way, a SEND
 * or WRITE ceil(size / MTU) each way (one for an empty message).  The raw
 * loop sends the same numbers (raw_lat()).
 */
static uint64_t lat_frames(uint64_t size)
{
	uint64_t frag = frag_size();

	if (o.op == OP_READ || o.op == OP_ATOMIC || size <= frag)
		return 1;
	return (size + frag - 1) / frag;
}

static void lat_iters_init(struct lat_iters *li, uint64_t iters,
			   uint64_t size)
{
	uint64_t frames = lat_frames(size);

	li->iters = iters;
	li->base = iters / 10 + 10;
	li->want = RTE_MAX(li->base, (WARM_FRAMES + frames - 1) / frames);
	li->warm = li->base;
	li->total = li->base + iters;
	li->f0 = 0;
}

/*
 * Iteration it's timestamp into t (sized for li->want + li->iters + 1).
 * From the end of the base warm-up on, the warm-up goes on an iteration
 * at a time, up to `want`, while it has taken less than a second in
 * all.  (Not foretold from the pace of the base iterations:
 * those pay for the rings' first use, up to 64 page faults an iteration
 * of a 256 KiB READ's answer, and a read_lat -s 262144 whose warm-up was
 * judged so stayed at 40 iterations and left a fault to each measured
 * one.)  At the first measured iteration, the page faults so far (a
 * system call, outside every sample).
 */
static inline void stamp(uint64_t *t, uint64_t it, struct lat_iters *li)
{
	if (unlikely(it == li->warm)) {
		if (it < li->want && rte_rdtsc() - t[0] < hz) {
			li->warm++;
			li->total++;
		} else {
			li->f0 = page_faults();
			li->s0 = port_stats();
		}
	}
	t[it] = rte_rdtsc();
}

/*
 * A latency loop's measured iterations in microseconds, in the order they
 * ran, from its timestamps t (divided by div: 2 for a half round trip).
 * With --samples, they go to its file too, as "mode,bytes,iteration,usec"
 * lines, before lat_stats() sorts them; an iteration is numbered as the
 * loop counts it, the warm-up's included, so that its number modulo -Q
 * tells the signaled one (with one QP and one size, the -Q-th, 2 -Q-th
 * ... post of the loop: number mod -Q = -Q - 1).
 */
static double *lat_samples(const uint64_t *t, const struct lat_iters *li,
			   double div, const char *mode, uint64_t bytes)
{
	double *s = zalloc(li->iters, sizeof(*s), "the samples");

	for (uint64_t i = 0; i < li->iters; i++)
		s[i] = (double)(t[li->warm + i + 1] - t[li->warm + i]) *
		       1e6 / (double)hz / div;
	if (samples_f != NULL)
		for (uint64_t i = 0; i < li->iters; i++)
			fprintf(samples_f, "%s,%" PRIu64 ",%" PRIu64 ",%.6f\n",
				mode, bytes, li->warm + i, s[i]);
	return s;
}

/* --samples FILE, opened before any set-up, with its header line */
static void samples_open(void)
{
	samples_f = fopen(o.samples, "w");
	if (samples_f == NULL)
		die("cannot write --samples %s: %s", o.samples,
		    strerror(errno));
	fprintf(samples_f, "mode,bytes,iteration,usec\n");
}

/* ... and closed at the end: a sample lost on the way fails the run */
static void samples_close(void)
{
	if (samples_f == NULL)
		return;
	if (ferror(samples_f) | fclose(samples_f))     /* (both, always) */
		die("writing --samples %s failed", o.samples);
	samples_f = NULL;
}

/* Send a message of `size` bytes as its nfr frames of at most frag bytes,
 * one at a time (the ping-pong's messages are one frame at 2 and 64 B). */
static void raw_send_msg(const uint8_t *buf, uint64_t size, uint32_t frag,
			 uint32_t nfr)
{
	for (uint32_t f = 0; f < nfr; f++) {
		uint64_t off = (uint64_t)f * frag;
		uint32_t pl = size - off < frag ? (uint32_t)(size - off) : frag;
		struct rte_mbuf *m = raw_frame(buf + off, pl, f);

		if (m == NULL)
			die("raw: no mbuf for a frame");
		raw_tx(&m, 1);
	}
}

/*
 * -e: the last ev_wait() came back without an event (after 10 ms asleep,
 * or END_CHECK_SPINS engine runs), so that the callers' checks below run
 * then too, not only every END_CHECK_SPINS times (each may be a wait).
 */
static bool ev_timeout;

/* Whether a loop that found nothing new checks for END or a stall now:
 * every END_CHECK_SPINS times, and after a wait for an event timed out. */
static inline bool idle_due(uint32_t *spins)
{
	bool t = ev_timeout;

	ev_timeout = false;
	return ++*spins % END_CHECK_SPINS == 0 || t;
}

/*
 * A latency loop found nothing new: every END_CHECK_SPINS times (with -e,
 * after a wait for an event that timed out) the server looks for the
 * client's END, the client (and the server once the test is under way)
 * checks for a stall.  @return true when END came.
 */
static inline bool lat_idle(uint32_t *spins, uint64_t ts, uint64_t it,
			    const char *what)
{
	char l[64];

	if (!idle_due(spins))
		return false;
	if (server && tcp_try_line(l, sizeof(l))) {
		end_check(l);
		return true;
	}
	if (!server || it > 0)
		stall_check(ts, what);
	return false;
}

/*
 * A message of `size` bytes is ceil(size / MTU) frames.  send_lat and
 * write_lat: a message each way.  read_lat: as a READ, a request without
 * the data (16 bytes, a RETH's size) and the data back.  atomic_lat (8
 * bytes): 8 bytes each way.
 */
static void raw_lat(uint64_t size, uint64_t iters, struct lat_res *res,
		    double **samples, size_t *nsamples)
{
	uint32_t frag = frag_size();
	uint32_t nfr = (uint32_t)((size + frag - 1) / frag);
	uint64_t req = o.op == OP_READ && size > 16 ? 16 : size;
	uint32_t nreq = (uint32_t)((req + frag - 1) / frag);
	uint8_t *buf, *rbuf;
	struct lat_iters li;
	uint64_t *t = NULL;

	if (nfr == 0)
		nfr = 1;
	if (nreq == 0)
		nreq = 1;
	/* frames are copied out of and into buffers as long as the
	 * message, at the frame's place in it, as the stack's are */
	buf = zalloc(1, size + frag, "the raw message");
	rbuf = zalloc(nfr, frag, "the raw message received");
	lat_iters_init(&li, iters, size);
	if (!server)
		t = zalloc(li.want + iters + 1, sizeof(*t), "the timestamps");
	barrier("RAWLAT");
	if (server) {
		uint32_t got = 0, len, spins = 0;

		for (;;) {
			if (raw_rx_copy(rbuf + (uint64_t)got * frag, frag,
					&len)) {
				if (++got == nreq) {
					got = 0;
					raw_send_msg(buf, size, frag, nfr);
				}
			} else if (lat_idle(&spins, 0, 0, NULL)) {
				break;
			}
		}
	} else {
		uint64_t it, f;

		for (it = 0; it < li.total; it++) {
			uint32_t got = 0, len;
			uint64_t t0;

			stamp(t, it, &li);
			raw_send_msg(buf, req, frag, nreq);
			t0 = rte_rdtsc();
			/* as the RDMA loops: no clock read per empty poll */
			for (uint32_t spins = 0; got < nfr;) {
				got += (uint32_t)raw_rx_copy(rbuf +
					(uint64_t)got * frag, frag, &len);
				if (got < nfr)
					lat_idle(&spins, t0, 1,
						 "raw ping-pong (frame lost?)");
			}
		}
		t[li.total] = rte_rdtsc();
		f = page_faults() - li.f0;
		tcp_send("END\n");
		/* like the RDMA test: half round trip for send/write */
		double div = o.op == OP_SEND || o.op == OP_WRITE ? 2 : 1;
		double *s = lat_samples(t, &li, div, "raw", size);

		*res = lat_stats(s, iters, size);
		res->faults = f;
		*samples = s;
		*nsamples = iters;
		free(t);
	}
	barrier("RAWLATDONE");
	free(buf);
	free(rbuf);
}

/* The receiving end of a raw stream: its frames, their bytes (each at
 * most pl, the payload a frame carries), the clock at the first and the
 * last, and the longest frame. */
struct raw_rx {
	uint64_t rx, bytes, tf, tl;
	uint32_t flen_max;
};

/* One receive burst of a raw stream: each of its frames counted and its
 * payload copied to its place in buf (nfr frames of frag bytes).
 * @return the frames the burst brought, the stream's or not */
static uint16_t raw_rx_poll(struct raw_rx *s, uint8_t *buf, uint32_t nfr,
			    uint32_t frag, uint32_t pl)
{
	struct rte_mbuf *m[RAW_BURST];
	uint16_t n = rte_eth_rx_burst(port_id, 0, m, RAW_BURST);
	uint64_t rx0 = s->rx;

	for (uint16_t i = 0; i < n; i++) {
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m[i],
			const struct rte_ether_hdr *);

		if (eh->ether_type == rte_cpu_to_be_16(RAW_ETHERTYPE)) {
			uint32_t len = rte_pktmbuf_pkt_len(m[i]) - 14;

			s->flen_max = RTE_MAX(s->flen_max, len + 14);
			if (len > pl)
				len = pl;
			memcpy(buf + s->rx % nfr * frag,
			       rte_pktmbuf_mtod_offset(m[i], uint8_t *, 14),
			       len);
			s->rx++;
			s->bytes += len;
		}
	}
	/* the clock runs from the stream's first frame to its last:
	 * another frame the port brings does not move it (on af_packet,
	 * the segments of this program's TCP connection when it runs over
	 * the same interface, in both directions: a delayed ACK 44 ms after
	 * the stream's end made a 5000-message stream measure a fifth of
	 * its rate) */
	if (s->rx != rx0) {
		uint64_t now = rte_rdtsc();

		if (rx0 == 0)
			s->tf = now;
		s->tl = now;
	}
	if (n)
		rte_pktmbuf_free_bulk(m, n);
	return n;
}

/* The nanoseconds from a stream's first frame to its last, as received
 * (0 with fewer than two frames). */
static double raw_rx_ns(const struct raw_rx *s)
{
	return s->rx > 1 ? (double)(s->tl - s->tf) * 1e9 / (double)hz : 0.0;
}

/* A raw stream's receiving end tells its sender what it took. */
static void raw_rx_report(const struct raw_rx *s)
{
	tcp_send("RES %lu %lu %.0f %u\n", s->rx, s->bytes, raw_rx_ns(s),
		 s->flen_max);
}

/* A result line that sscanf() took up to end: nothing after it, and
 * no sign (%lu takes "-1" as a huge number). */
static bool result_line_ok(const char *l, int end)
{
	return end > 0 && l[end] == '\0' && strchr(l, '-') == NULL;
}

/* The receiving end's report, at the sender. */
static void raw_rx_result(struct raw_rx *s, double *ns)
{
	char l[256];
	int end = -1;

	memset(s, 0, sizeof(*s));
	tcp_line(l, sizeof(l));
	if (sscanf(l, "RES %lu %lu %lf %u%n", &s->rx, &s->bytes, ns,
		   &s->flen_max, &end) != 4 || !result_line_ok(l, end) ||
	    !isfinite(*ns))
		die("raw: bad result '%s'", l);
}

/* A stream's bandwidth (MB/s) and message rate (Mpps) from what its
 * receiver took over ns nanoseconds, the first frame counted out (its
 * arrival starts the clock); 0 when no time was measured. */
static void raw_rate(uint64_t rx, uint64_t bytes, double ns, uint32_t nfr,
		     uint32_t pl, double *avg, double *mpps)
{
	*avg = ns > 0 ? (double)(bytes - pl) / ns * 1e3 : 0;
	*mpps = ns > 0 ? (double)(rx - 1) / nfr / ns * 1e3 : 0;
}

/* Whether the raw sender's END came (looked for every 256 calls), and
 * when it was seen. */
struct raw_end {
	bool seen;
	uint64_t tsc, spins;
};

static void raw_end_look(struct raw_end *e)
{
	char l[256];

	if (!e->seen && ++e->spins % 256 == 0 && tcp_try_line(l, sizeof(l))) {
		end_check(l);
		e->seen = true;
		e->tsc = rte_rdtsc();
	}
}

/*
 * The receiving end of a raw stream takes frames until the sender's END
 * and no frame for 50 ms after it, then reports what it took.
 */
static void raw_rx_until_end(struct raw_rx *s, struct raw_end *e,
			     uint8_t *buf, uint32_t nfr, uint32_t frag,
			     uint32_t pl)
{
	for (;;) {
		uint16_t n = raw_rx_poll(s, buf, nfr, frag, pl);

		raw_end_look(e);
		if (e->seen && n == 0 && rte_rdtsc() - e->tsc > hz / 20)
			break;
	}
	raw_rx_report(s);
}

/*
 * -b: both ends stream and receive at once.  Neither waits on a full
 * port (its peer may be waiting on its own, and only receiving frees
 * either): frames the port did not take are offered again after the
 * next receive burst.  When its own frames are out it says END and
 * takes frames until the peer's END and 50 ms with none; then the two
 * reports cross.  *mine is what the peer took of this end's stream,
 * *theirs what this end took of the peer's; *send_tsc the TSC cycles
 * until this end's last frame was taken.
 */
static void raw_bw_both(uint64_t frames, double duration, uint8_t *src,
			uint8_t *dst, uint32_t nfr, uint32_t frag, uint32_t pl,
			struct raw_rx *mine, double *mine_ns,
			struct raw_rx *theirs, uint64_t *sent_out,
			unsigned int *max_burst, uint64_t *send_tsc)
{
	struct rte_mbuf *m[RAW_BURST];
	uint64_t sent = 0, built = 0;
	uint64_t t0 = rte_rdtsc(), tmax = (uint64_t)(duration * (double)hz);
	uint16_t have = 0, off = 0;
	struct raw_end e = { 0 };

	memset(theirs, 0, sizeof(*theirs));
	*max_burst = 0;
	while (have > 0 || (duration > 0 ? rte_rdtsc() - t0 < tmax :
			    built < frames)) {
		if (have == 0) {
			uint16_t n = (uint16_t)o.raw_burst;

			if (duration == 0 && frames - built < n)
				n = (uint16_t)(frames - built);
			for (off = 0; have < n; have++) {
				m[have] = raw_frame(src + (built + have) % nfr * frag,
						    pl, (uint32_t)(built + have));
				if (m[have] == NULL)
					break;
			}
			built += have;
		}
		if (have > 0) {
			uint16_t k = rte_eth_tx_burst(port_id, 0, m + off, have);

			off += k;
			have -= k;
			sent += k;
			if (k > *max_burst)
				*max_burst = k;
		}
		raw_rx_poll(theirs, dst, nfr, frag, pl);
		raw_end_look(&e);
	}
	*send_tsc = rte_rdtsc() - t0;
	tcp_send("END %lu\n", sent);
	raw_rx_until_end(theirs, &e, dst, nfr, frag, pl);
	raw_rx_result(mine, mine_ns);
	*sent_out = sent;
}

/* The raw stream of iters messages (for o.duration seconds instead when
 * there is one, except for a warm-up, always iters).  A warm-up sends
 * WARM_FRAMES frames at least: the measured stream then finds every
 * buffer of the port's ring mapped (lat_iters_init()).  With -b both
 * ends send one (raw_bw_both()); the result, at the client, has both
 * ways summed. */
static void raw_bw(uint64_t size, uint64_t iters, bool warm,
		   struct bw_res *res)
{
	uint32_t frag = frag_size();
	uint32_t pl = size < frag ? (uint32_t)size : frag;
	/* (a message of 0 bytes is one frame, as an empty SEND is) */
	uint32_t nfr = size ? (uint32_t)((size + frag - 1) / frag) : 1;
	/* a message's frames come out of (and go into) a buffer as long as
	 * the message, each at its place, as the stack's do: a stream of
	 * large messages pays for memory that one frame's worth, always in
	 * cache, would hide; with -b one to send from, one to receive in */
	uint8_t *buf = zalloc(nfr, frag, "the raw message");
	uint8_t *rbuf = o.bidir ? zalloc(nfr, frag, "the raw message") : buf;
	uint64_t frames = iters * nfr, sent = 0, f0, faults;
	double duration = warm ? 0 : o.duration;
	struct raw_rx mine, theirs;
	unsigned int max_burst = 0;
	double ns = 0, send_ns;
	uint64_t t0;

	if (warm && frames < WARM_FRAMES)
		frames = WARM_FRAMES;
	barrier("RAWBW");
	if (server && !o.bidir) {
		struct raw_end e = { 0 };

		memset(&theirs, 0, sizeof(theirs));
		raw_rx_until_end(&theirs, &e, buf, nfr, frag, pl);
		goto done;
	}
	memset(buf, 0xa5, (size_t)nfr * frag);
	f0 = page_faults();
	t0 = rte_rdtsc();
	if (o.bidir) {
		uint64_t send_tsc;

		raw_bw_both(frames, duration, buf, rbuf, nfr, frag, pl,
			    &mine, &ns, &theirs, &sent, &max_burst, &send_tsc);
		faults = page_faults() - f0;
		send_ns = (double)send_tsc * 1e9 / (double)hz;
	} else {
		struct rte_mbuf *m[RAW_BURST];
		uint64_t tmax = (uint64_t)(duration * (double)hz);
		unsigned int took;

		while (duration > 0 ? rte_rdtsc() - t0 < tmax : sent < frames) {
			uint16_t n = (uint16_t)o.raw_burst, k = 0;

			if (duration == 0 && frames - sent < n)
				n = (uint16_t)(frames - sent);
			for (; k < n; k++) {
				m[k] = raw_frame(buf + (sent + k) % nfr * frag,
						 pl, (uint32_t)(sent + k));
				if (m[k] == NULL)
					break;
			}
			if (k == 0)
				continue;
			took = raw_tx(m, k);
			sent += k;
			if (took > max_burst)
				max_burst = took;
		}
		faults = page_faults() - f0;
		send_ns = (double)(rte_rdtsc() - t0) * 1e9 / (double)hz;
		tcp_send("END %lu\n", sent);
		raw_rx_result(&mine, &ns);
	}
	if (server)
		goto done;
	memset(res, 0, sizeof(*res));
	res->bytes = size;
	res->max_burst = max_burst;
	res->frame_max = mine.flen_max;
	res->faults = faults;
	res->send_us = send_ns / 1e3;
	/* each way measured by its receiver, from its first frame to its
	 * last; -b: the two ways summed */
	res->iters = mine.rx / nfr;
	raw_rate(mine.rx, mine.bytes, ns, nfr, pl, &res->avg, &res->mpps);
	if (o.bidir) {
		double mpps;

		res->local_iters = res->iters;
		res->local_avg = res->avg;
		res->remote_iters = theirs.rx / nfr;
		raw_rate(theirs.rx, theirs.bytes, raw_rx_ns(&theirs), nfr, pl,
			 &res->remote_avg, &mpps);
		res->iters += res->remote_iters;
		res->avg += res->remote_avg;
		res->mpps += mpps;
	}
	res->peak = res->avg;
	if (!o.json && !warm && mine.rx < sent)
		fprintf(note_out(), " (raw: %lu of %lu frames received)\n",
			mine.rx, sent);
done:
	barrier("RAWBWDONE");
	if (rbuf != buf)
		free(rbuf);
	free(buf);
}

/* ---- RDMA resources ---------------------------------------------------- */

struct rqp {
	struct pmr_qp *qp;
	struct pmr_mr *mr;       /* its slot's: the one MR, or its own */
	uint8_t *lbuf;           /* local: send source / read destination */
	uint8_t *rbuf;           /* target of the peer's WRITE / source of its READ */
	uint32_t psn;
	/* the peer's */
	uint32_t rqpn, rpsn, rrkey;
	uint64_t rladdr, rraddr;
	union pmr_gid rgid;
	/* run state */
	uint32_t out;            /* outstanding send WRs */
	uint32_t unsig;          /* posted since the last signaled one */
	uint64_t cnt;
	uint64_t left;           /* bandwidth tests with -n: WRs still to
				  * post on this QP (its share of -n) */
};

static struct pmr_pd *pd;
static struct pmr_mr *mr;
static struct pmr_cq *scq, *rcq;
static struct pmr_srq *srq;      /* --use-srq */
static uint32_t *qpn_sorted;     /* --use-srq: the QPs' numbers, sorted, */
static int *qpn_idx;             /* and the index of each one's QP */

/*
 * -e: the completion channel of both CQs, and whether each is armed
 * ([0] the send CQ, [1] the receive CQ).
 */
static struct pmr_comp_channel *chan;
static bool armed[2];
static uint64_t ev_taken;        /* events taken so far */

/*
 * -e: a poll of cq found nothing.  If cq is not armed, arm it and return:
 * the caller polls again, for a completion that came before the arming.
 * Else wait for an event on the channel, take it and acknowledge it (it
 * may be the other CQ's).  While waiting, with inline or manual progress,
 * the engine runs between looks at the channel (no other thread would run
 * it), as rc_pingpong -e does; with service progress the thread sleeps in
 * poll().  Either returns now and then without an event (END_CHECK_SPINS
 * looks, 10 ms) so that the callers' checks for END and for a stall run.
 */
static void ev_wait(struct pmr_cq *cq)
{
	struct pollfd p = { .fd = chan->fd, .events = POLLIN };
	bool *a = &armed[cq != scq];
	struct pmr_cq *ecq;
	void *ectx;
	int n;

	if (!*a) {
		if (pmr_req_notify_cq(cq, 0) != 0)
			die("pmr_req_notify_cq failed");
		*a = true;
		return;
	}
	if (o.progress == PMR_PROGRESS_SERVICE) {
		n = poll(&p, 1, 10);
	} else {
		for (uint32_t i = 0; (n = poll(&p, 1, 0)) == 0 &&
		     i < END_CHECK_SPINS; i++)
			drive();
	}
	if (n < 0 && errno != EINTR)
		die("poll on the completion channel: %s", strerror(errno));
	if (n <= 0) {
		ev_timeout = true;
		return;
	}
	if (pmr_get_cq_event(chan, &ecq, &ectx) != 0)
		die("pmr_get_cq_event: %s", strerror(errno));
	pmr_ack_cq_events(ecq, 1);
	armed[ecq != scq] = false;
	ev_taken++;
}

static struct rqp *qps;
static uint8_t *mem;
static size_t slot;              /* bytes per QP: lbuf then rbuf */
static struct pmr_ah *ud_ah;

static char devargs[1024];
static int dev_mtu = 1024;      /* --dev's mtu=, the device's default */

/*
 * The RoCE device's arguments from PMR_DEVICES: the entry named o.ibdev
 * (-d), named as the library names them (pmr_ + driver + the entry's
 * position, counted from 0 over all drivers), else the first roce entry.
 * Stops when there is none such.
 */
static void devices_pick(const char *list, char *out, size_t n)
{
	const char *e = list;
	int pos = 0;

	while (*e != '\0') {
		size_t len = strcspn(e, ";"), dl, al = 0;
		const char *d = e, *end = e + len, *colon;
		char name[64];

		/* as the library reads the list: entries trimmed, empty ones
		 * not counted, the driver's name trimmed */
		while (d < end && isspace((unsigned char)*d))
			d++;
		while (end > d && isspace((unsigned char)end[-1]))
			end--;
		e += len + (e[len] == ';');
		if (d == end)
			continue;
		colon = memchr(d, ':', (size_t)(end - d));
		dl = (size_t)((colon ? colon : end) - d);
		while (dl > 0 && isspace((unsigned char)d[dl - 1]))
			dl--;
		if (colon != NULL)
			al = (size_t)(end - colon - 1);
		snprintf(name, sizeof(name), "pmr_%.*s%d", (int)dl, d, pos++);
		if (o.ibdev == NULL ? dl == 4 && strncmp(d, "roce", 4) == 0 :
		    strcmp(name, o.ibdev) == 0) {
			if (dl != 4 || strncmp(d, "roce", 4) != 0)
				die("-d %s: a %.*s device; pmr-perf needs a "
				    "roce one", o.ibdev, (int)dl, d);
			snprintf(out, n, "%.*s", (int)al,
				 colon != NULL ? colon + 1 : "");
			return;
		}
	}
	if (o.ibdev != NULL)
		die("-d %s: no such device in PMR_DEVICES='%s'", o.ibdev, list);
	die("no roce device in PMR_DEVICES='%s': give one, or --dev "
	    "port=0,ipv4=A.B.C.D[,mac=...]", list);
}

static void parse_devargs(void)
{
	const char *s = getenv("PMR_DEVICES");
	const char *p;

	if (o.devargs != NULL)
		snprintf(devargs, sizeof(devargs), "%s", o.devargs);
	else if (s == NULL)
		die("no device: give --dev port=0,ipv4=A.B.C.D[,mac=...] or "
		    "PMR_DEVICES=roce:port=0,ipv4=...");
	else
		devices_pick(s, devargs, sizeof(devargs));
	p = strstr(devargs, "port=");
	port_id = p ? (uint16_t)atoi(p + 5) : 0;
	p = strstr(devargs, "mtu=");
	if (p != NULL) {
		char v[16];

		snprintf(v, sizeof(v), "%.*s", (int)strcspn(p + 4, ","), p + 4);
		dev_mtu = (int)opt_int("mtu (--dev)", v, 256, 4096);
	}
}

/* Replace or add key=val in devargs. */
static void set_arg(const char *key, const char *val)
{
	char k[64], out[1024] = "", *save, *tok, *copy = strdup(devargs);

	snprintf(k, sizeof(k), "%s=", key);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strncmp(tok, k, strlen(k)) != 0)
			snprintf(out + strlen(out), sizeof(out) - strlen(out),
				 "%s%s", out[0] ? "," : "", tok);
	free(copy);
	snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s%s",
		 out[0] ? "," : "", k, val);
	snprintf(devargs, sizeof(devargs), "%s", out);
}

static void dev_create(void)
{
	char mtu[16];

	snprintf(mtu, sizeof(mtu), "%d", o.mtu);
	set_arg("mtu", mtu);
	if (o.progress == PMR_PROGRESS_SERVICE)
		set_arg("progress", "service");
	dev = pmr_device_create("roce", devargs);
	if (dev == NULL)
		die("pmr_device_create(\"roce\", \"%s\"): %s", devargs,
		    strerror(errno));
	ctx = pmr_open_device(dev);
	if (ctx == NULL)
		die("pmr_open_device: %s", strerror(errno));
	if (o.progress != PMR_PROGRESS_SERVICE) {
		int ret = pmr_set_progress_mode(ctx, o.progress);

		if (ret)
			die("pmr_set_progress_mode: %s", strerror(ret));
	}
	pd = pmr_alloc_pd(ctx);
	if (pd == NULL)
		die("pmr_alloc_pd: %s", strerror(errno));
}

/* The largest message of the run: -s, or with -a 8 MiB (UD: the MTU, a
 * UD message being one packet). */
static uint64_t max_size(void)
{
	if (!o.all)
		return o.size;
	return o.qpt == PMR_QPT_UD ? (uint64_t)o.mtu : MAX_SIZE;
}

static int cmp_qpn(const void *a, const void *b)
{
	uint32_t x = qps[*(const int *)a].qp->qp_num;
	uint32_t y = qps[*(const int *)b].qp->qp_num;

	return x < y ? -1 : x > y;
}

/* --use-srq: a receive's completion names its QP by number only (the
 * SRQ's WRs are no QP's): the numbers sorted, each with its QP's index */
static void qpn_map_make(void)
{
	qpn_idx = zalloc((size_t)o.nqp, sizeof(*qpn_idx), "the QP map");
	qpn_sorted = zalloc((size_t)o.nqp, sizeof(*qpn_sorted), "the QP map");
	for (int i = 0; i < o.nqp; i++)
		qpn_idx[i] = i;
	qsort(qpn_idx, (size_t)o.nqp, sizeof(*qpn_idx), cmp_qpn);
	for (int i = 0; i < o.nqp; i++)
		qpn_sorted[i] = qps[qpn_idx[i]].qp->qp_num;
}

/* The index of the QP a receive completion belongs to: its wr_id, or
 * with --use-srq the QP of its number. */
static int rx_qp(const struct pmr_wc *wc)
{
	int lo = 0, hi = o.nqp - 1;

	if (srq == NULL)
		return (int)wc->wr_id;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (qpn_sorted[mid] < wc->qp_num)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (qpn_sorted[lo] != wc->qp_num)
		die("a receive completion of QP 0x%x, none of the test's",
		    wc->qp_num);
	return qpn_idx[lo];
}

#define MR_ACCESS (PMR_ACCESS_LOCAL_WRITE | PMR_ACCESS_REMOTE_WRITE | \
		   PMR_ACCESS_REMOTE_READ | PMR_ACCESS_REMOTE_ATOMIC)

static void qps_create(void)
{
	struct pmr_qp_init_attr ia;
	uint64_t ms = max_size();
	int ncqe;

	slot = (size_t)(ms + 64 + 63) / 64 * 64 * 2;
	mem = aligned_alloc(4096, (slot * (size_t)o.nqp + 4095) / 4096 * 4096);
	if (mem == NULL)
		die("out of memory for %d x %zu bytes", o.nqp, slot);
	memset(mem, 0, slot * (size_t)o.nqp);
	if (!o.mr_per_qp) {
		mr = pmr_reg_mr(pd, mem, slot * (size_t)o.nqp, MR_ACCESS);
		if (mr == NULL)
			die("pmr_reg_mr: %s", strerror(errno));
	}
	if (o.events && (chan = pmr_create_comp_channel(ctx)) == NULL)
		die("pmr_create_comp_channel: %s", strerror(errno));
	ncqe = o.nqp * o.tx_depth;
	scq = pmr_create_cq(ctx, ncqe < 16 ? 16 : ncqe, NULL, chan, 0);
	ncqe = o.srq ? o.rx_depth : o.nqp * o.rx_depth;
	rcq = pmr_create_cq(ctx, ncqe < 16 ? 16 : ncqe, NULL, chan, 0);
	if (scq == NULL || rcq == NULL)
		die("pmr_create_cq: %s", strerror(errno));
	if (o.srq) {
		struct pmr_srq_init_attr sa = {
			.attr = { .max_wr = (uint32_t)o.rx_depth,
				  .max_sge = 1 },
		};

		srq = pmr_create_srq(pd, &sa);
		if (srq == NULL)
			die("pmr_create_srq (%d WRs): %s", o.rx_depth,
			    strerror(errno));
	}
	qps = zalloc((size_t)o.nqp, sizeof(*qps), "the QPs");
	for (int i = 0; i < o.nqp; i++) {
		struct rqp *q = &qps[i];

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = scq;
		ia.recv_cq = rcq;
		ia.srq = srq;
		ia.qp_type = (enum pmr_qp_type)o.qpt;
		ia.cap.max_send_wr = (uint32_t)o.tx_depth;
		ia.cap.max_recv_wr = srq != NULL ? 0 :
				     o.op == OP_SEND ? (uint32_t)o.rx_depth : 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		ia.cap.max_inline_data = (uint32_t)o.inl;
		q->qp = pmr_create_qp(pd, &ia);
		if (q->qp == NULL)
			die("pmr_create_qp (%d of %d): %s", i + 1, o.nqp,
			    strerror(errno));
		q->lbuf = mem + slot * (size_t)i;
		q->rbuf = q->lbuf + slot / 2;
		q->mr = mr;
		if (o.mr_per_qp) {
			q->mr = pmr_reg_mr(pd, q->lbuf, slot, MR_ACCESS);
			if (q->mr == NULL)
				die("pmr_reg_mr (QP %d of %d): %s", i + 1,
				    o.nqp, strerror(errno));
		}
		q->psn = (uint32_t)(lrand48() & 0xffffff);
	}
	if (srq != NULL)
		qpn_map_make();
}

/* The memory the QPs hold, as the library reports it (pmr_query_qp_mem;
 * the formula is in doc/guides/verbs.rst).  The CQs, sized by the test
 * for all the QPs, and the registered buffer are the test's own. */
static void qps_mem_print(void)
{
	struct pmr_qp_mem m, big;
	size_t total = 0;

	memset(&big, 0, sizeof(big));
	for (int i = 0; i < o.nqp; i++) {
		int ret = pmr_query_qp_mem(qps[i].qp, &m);

		if (ret)
			die("pmr_query_qp_mem: %s", strerror(ret));
		total += m.total;
		if (m.total > big.total)
			big = m;
	}
	if (o.json) {
		printf("{\"test\":\"%s\",\"mode\":\"qp_mem\",\"qps\":%d,"
		       "\"total\":%zu,\"per_qp_max\":%zu,\"object\":%zu,"
		       "\"sq\":%zu,\"rq\":%zu,\"device\":%zu,"
		       "\"sq_slots\":%u,\"sq_slot\":%u,\"rq_slots\":%u,"
		       "\"rq_slot\":%u}\n", o.test, o.nqp, total, big.total,
		       big.object, big.sq, big.rq, big.device, big.sq_slots,
		       big.sq_slot, big.rq_slots, big.rq_slot);
		return;
	}
	if (o.nqp > 1)
		printf(" QP memory: %d QPs, %zu bytes (%.2f MiB); the largest:",
		       o.nqp, total, (double)total / (1 << 20));
	else
		printf(" QP memory:");
	printf(" %zu bytes = object %zu + send queue %u x %u + receive "
	       "queue %u x %u + device %zu\n", big.total, big.object,
	       big.sq_slots, big.sq_slot, big.rq_slots, big.rq_slot,
	       big.device);
}

/* The next field of *p: hex, at most max, ended by a space or the end of
 * the line. */
static bool hex_field(const char **p, uint64_t max, uint64_t *v)
{
	char *end;

	if (**p != ' ')
		return false;
	(*p)++;
	if (!isxdigit((unsigned char)**p))
		return false;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (errno != 0 || *v > max || (*end != ' ' && *end != '\0'))
		return false;
	*p = end;
	return true;
}

static int hex_digit(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/*
 * A peer's "QP qpn psn rkey laddr raddr gid" into q: the QP number and
 * PSN of 24 bits, the key of 32, the addresses of 64, the GID 32 hex
 * digits, and nothing else.
 */
static bool qp_line_parse(const char *l, struct rqp *q)
{
	uint64_t qpn, psn, rkey, la, ra;

	if (strncmp(l, "QP", 2) != 0)
		return false;
	l += 2;
	if (!hex_field(&l, 0xffffff, &qpn) || !hex_field(&l, 0xffffff, &psn) ||
	    !hex_field(&l, UINT32_MAX, &rkey) ||
	    !hex_field(&l, UINT64_MAX, &la) || !hex_field(&l, UINT64_MAX, &ra))
		return false;
	if (*l++ != ' ' || strlen(l) != 32 ||
	    strspn(l, "0123456789abcdefABCDEF") != 32)
		return false;
	q->rqpn = (uint32_t)qpn;
	q->rpsn = (uint32_t)psn;
	q->rrkey = (uint32_t)rkey;
	q->rladdr = la;
	q->rraddr = ra;
	for (int b = 0; b < 16; b++)
		q->rgid.raw[b] = (uint8_t)(hex_digit(l[2 * b]) << 4 |
					   hex_digit(l[2 * b + 1]));
	return true;
}

/* An IPv4-mapped GID (::ffff:a.b.c.d): RoCEv2 over IPv4. */
static bool gid_is_v4(const union pmr_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g->raw, pfx, sizeof(pfx)) == 0;
}

/* -x: the device's GID at that index, the QPs' source (an unused entry
 * reads as zeroes) */
static void sgid_pick(void)
{
	static const union pmr_gid zero;

	if (pmr_query_gid(ctx, 1, o.gid_index, &sgid) != 0 ||
	    memcmp(&sgid, &zero, sizeof(zero)) == 0)
		die("-x %d: the device has no GID at that index (0 is its "
		    "IPv4 or IPv6 address, 1 its IPv6 one when it has both)",
		    o.gid_index);
}

static void qps_exchange(void)
{
	char l[256], mine[INET6_ADDRSTRLEN], theirs[INET6_ADDRSTRLEN];

	sgid_pick();
	for (int i = 0; i < o.nqp; i++) {
		struct rqp *q = &qps[i];
		char g[33];

		for (int b = 0; b < 16; b++)
			sprintf(g + 2 * b, "%02x", sgid.raw[b]);
		tcp_send("QP %06x %06x %08x %016lx %016lx %s\n",
			 q->qp->qp_num, q->psn, q->mr->rkey,
			 (uint64_t)(uintptr_t)q->lbuf,
			 (uint64_t)(uintptr_t)q->rbuf, g);
	}
	for (int i = 0; i < o.nqp; i++) {
		tcp_line(l, sizeof(l));
		if (!qp_line_parse(l, &qps[i]))
			die("bad QP line '%s'", l);
		/* the engine takes no path from one family to the other */
		if (gid_is_v4(&qps[i].rgid) != gid_is_v4(&sgid))
			die("this end's GID %s (-x %d) and the peer's %s are "
			    "not of one family (IPv4, IPv6): give each end the "
			    "-x of the same one",
			    gid_str(&sgid, mine, sizeof(mine)), o.gid_index,
			    gid_str(&qps[i].rgid, theirs, sizeof(theirs)));
	}
}

/* The QPs' max_rd_atomic and max_dest_rd_atomic: -o (default 16) where
 * the test sends READs or atomics, else 1 (the responder's resources are
 * scanned on every progress call: none more than needed) */
static uint8_t rd_atomic(void)
{
	return o.op == OP_READ || o.op == OP_ATOMIC ? (uint8_t)o.outs : 1;
}

static void qps_connect(void)
{
	struct pmr_qp_attr a;

	for (int i = 0; i < o.nqp; i++) {
		struct rqp *q = &qps[i];
		int ret, mask;

		memset(&a, 0, sizeof(a));
		a.qp_state = PMR_QPS_INIT;
		a.port_num = 1;
		mask = PMR_QP_STATE | PMR_QP_PKEY_INDEX | PMR_QP_PORT;
		if (o.qpt == PMR_QPT_UD) {
			a.qkey = 0x11111111;
			mask |= PMR_QP_QKEY;
		} else {
			a.qp_access_flags = PMR_ACCESS_REMOTE_WRITE |
				(o.qpt == PMR_QPT_RC ? PMR_ACCESS_REMOTE_READ |
				 PMR_ACCESS_REMOTE_ATOMIC : 0);
			mask |= PMR_QP_ACCESS_FLAGS;
		}
		ret = pmr_modify_qp(q->qp, &a, mask);
		if (ret)
			die("modify_qp INIT: %s", strerror(ret));

		memset(&a, 0, sizeof(a));
		a.qp_state = PMR_QPS_RTR;
		mask = PMR_QP_STATE;
		if (o.qpt != PMR_QPT_UD) {
			a.path_mtu = pmr_num_to_mtu(o.mtu);
			a.dest_qp_num = q->rqpn;
			a.rq_psn = q->rpsn;
			a.ah_attr.is_global = 1;
			a.ah_attr.port_num = 1;
			a.ah_attr.grh.dgid = q->rgid;
			a.ah_attr.grh.sgid_index = (uint8_t)o.gid_index;
			a.ah_attr.grh.hop_limit = 64;
			a.ah_attr.grh.traffic_class = (uint8_t)o.tclass;
			mask |= PMR_QP_AV | PMR_QP_PATH_MTU | PMR_QP_DEST_QPN |
				PMR_QP_RQ_PSN;
			if (o.qpt == PMR_QPT_RC) {
				/* responder resources only where needed: the
				 * engine scans them on every progress call */
				a.max_dest_rd_atomic = rd_atomic();
				a.min_rnr_timer = 1;
				mask |= PMR_QP_MAX_DEST_RD_ATOMIC |
					PMR_QP_MIN_RNR_TIMER;
			}
		}
		ret = pmr_modify_qp(q->qp, &a, mask);
		if (ret)
			die("modify_qp RTR: %s", strerror(ret));

		memset(&a, 0, sizeof(a));
		a.qp_state = PMR_QPS_RTS;
		a.sq_psn = q->psn;
		mask = PMR_QP_STATE | PMR_QP_SQ_PSN;
		if (o.qpt == PMR_QPT_RC) {
			a.timeout = (uint8_t)o.qp_timeout;
			a.retry_cnt = (uint8_t)o.retry_count;
			a.rnr_retry = 7;
			a.max_rd_atomic = rd_atomic();
			mask |= PMR_QP_TIMEOUT | PMR_QP_RETRY_CNT |
				PMR_QP_RNR_RETRY | PMR_QP_MAX_QP_RD_ATOMIC;
		}
		ret = pmr_modify_qp(q->qp, &a, mask);
		if (ret)
			die("modify_qp RTS: %s", strerror(ret));
	}
	if (o.qpt == PMR_QPT_UD) {
		struct pmr_ah_attr aa;

		memset(&aa, 0, sizeof(aa));
		aa.is_global = 1;
		aa.port_num = 1;
		aa.grh.dgid = qps[0].rgid;
		aa.grh.sgid_index = (uint8_t)o.gid_index;
		aa.grh.hop_limit = 64;
		aa.grh.traffic_class = (uint8_t)o.tclass;
		ud_ah = pmr_create_ah(pd, &aa);
		if (ud_ah == NULL)
			die("pmr_create_ah: %s", strerror(errno));
	}
}

/* The first QP's attributes, as pmr_query_qp says. */
static struct pmr_qp_attr qp_query(int mask)
{
	struct pmr_qp_attr a;
	struct pmr_qp_init_attr ia;
	int ret = pmr_query_qp(qps[0].qp, &a, mask, &ia);

	if (ret != 0)
		die("pmr_query_qp: %s", strerror(ret));
	return a;
}

/* The memory regions the QPs' buffers are in, counted by their keys */
static int mrs_count(void)
{
	int n = 1;

	for (int i = 1; i < o.nqp; i++)
		n += qps[i].mr->lkey != qps[0].mr->lkey;
	return n;
}

/* The value QP 0's last atomic gave back (the buffer it went to). */
static uint64_t atomic_result(void)
{
	return *(volatile uint64_t *)qps[0].rbuf;
}

/* -o as the first QP has it: its max_rd_atomic */
static int qp_outs(void)
{
	return qp_query(PMR_QP_MAX_QP_RD_ATOMIC).max_rd_atomic;
}

/* Receives cover the whole target half-slot (any size, UD GRH too);
 * with --use-srq they go to the SRQ, all into the first QP's. */
static void post_recv(struct rqp *q, int idx, int n)
{
	struct pmr_sge sge = { .addr = (uintptr_t)(srq != NULL ? qps[0].rbuf :
						   q->rbuf),
			       .length = (uint32_t)(slot / 2),
			       .lkey = (srq != NULL ? &qps[0] : q)->mr->lkey };
	struct pmr_recv_wr wr[64], *bad;

	/* one post per 64 WRs: each post may run the engine (inline mode) */
	while (n > 0) {
		int k = n < 64 ? n : 64, ret;

		for (int i = 0; i < k; i++)
			wr[i] = (struct pmr_recv_wr){ .wr_id = (uint64_t)idx,
				.sg_list = &sge, .num_sge = 1,
				.next = i + 1 < k ? &wr[i + 1] : NULL };
		ret = srq != NULL ? pmr_post_srq_recv(srq, wr, &bad) :
				    pmr_post_recv(q->qp, wr, &bad);
		if (ret)
			die("%s: %s", srq != NULL ? "pmr_post_srq_recv" :
			    "pmr_post_recv", strerror(ret));
		n -= k;
	}
}

static void wr_fill(struct pmr_send_wr *wr, struct pmr_sge *sge, struct rqp *q,
		    uint64_t size)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)q->lbuf;
	sge->length = (uint32_t)size;
	sge->lkey = q->mr->lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	switch (o.op) {
	case OP_SEND:
		wr->opcode = PMR_WR_SEND;
		if (o.qpt == PMR_QPT_UD) {
			wr->wr.ud.ah = ud_ah;
			wr->wr.ud.remote_qpn = q->rqpn;
			wr->wr.ud.remote_qkey = 0x11111111;
		}
		break;
	case OP_WRITE:
		wr->opcode = PMR_WR_RDMA_WRITE;
		wr->wr.rdma.remote_addr = q->rraddr;
		wr->wr.rdma.rkey = q->rrkey;
		break;
	case OP_READ:
		sge->addr = (uintptr_t)q->rbuf;
		wr->opcode = PMR_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = q->rladdr;
		wr->wr.rdma.rkey = q->rrkey;
		break;
	case OP_ATOMIC:
		sge->addr = (uintptr_t)q->rbuf;
		sge->length = 8;
		wr->wr.atomic.remote_addr = q->rladdr;
		wr->wr.atomic.rkey = q->rrkey;
		if (o.cas) {
			/* the first swaps the target's 0 for 1; each later
			 * one finds 1, not its 0, and gives 1 back */
			wr->opcode = PMR_WR_ATOMIC_CMP_AND_SWP;
			wr->wr.atomic.compare_add = 0;
			wr->wr.atomic.swap = 1;
		} else {
			wr->opcode = PMR_WR_ATOMIC_FETCH_AND_ADD;
			wr->wr.atomic.compare_add = 1;
		}
		break;
	}
	if ((o.op == OP_SEND || o.op == OP_WRITE) && size <= (uint64_t)o.inl)
		wr->send_flags |= PMR_SEND_INLINE;
}

static void check_wc(const struct pmr_wc *wc, const char *what)
{
	if (wc->status != PMR_WC_SUCCESS)
		die("%s: completion with error: %s (qp 0x%x, wr_id %lu)", what,
		    pmr_wc_status_str(wc->status), wc->qp_num, wc->wr_id);
}

/* Up to 32 completions of cq into wc, the engine run first with manual
 * progress (no poll would run it).  @return how many */
static int take_wcs(struct pmr_cq *cq, struct pmr_wc *wc)
{
	int n;

	if (o.progress == PMR_PROGRESS_MANUAL)
		drive();
	n = pmr_poll_cq(cq, 32, wc);
	if (n < 0)
		die("pmr_poll_cq: %d", n);
	return n;
}

/* Reap send completions; wr_id = qp index << 32 | WRs it retires. */
static uint64_t reap_send(void)
{
	struct pmr_wc wc[32];
	uint64_t done = 0;
	int n = take_wcs(scq, wc);

	for (int i = 0; i < n; i++) {
		struct rqp *q = &qps[wc[i].wr_id >> 32];
		uint32_t k = (uint32_t)wc[i].wr_id;

		check_wc(&wc[i], "send");
		q->out -= k;
		done += k;
	}
	return done;
}

/*
 * Post k copies of wr (k <= o.post_list) as one list: one pmr_post_send
 * call, so (inline progress) one transmit burst for up to 32 packets of
 * them.  Every
 * o.cq_mod-th WR is signaled (and the last one when `last`); its wr_id
 * says how many WRs it retires.
 */
static void post_chain(struct rqp *q, int idx, const struct pmr_send_wr *wr,
		       int k, bool last)
{
	/* static: a 256-WR array on the stack costs page probes per call on
	 * the latency path (the program posts from one thread) */
	static struct pmr_send_wr wrs[256];
	struct pmr_send_wr *bad;
	int ret;

	for (int i = 0; i < k; i++) {
		wrs[i] = *wr;
		wrs[i].next = i + 1 < k ? &wrs[i + 1] : NULL;
		q->unsig++;
		if ((last && i + 1 == k) || q->unsig >= (uint32_t)o.cq_mod) {
			wrs[i].send_flags |= PMR_SEND_SIGNALED;
			wrs[i].wr_id = (uint64_t)idx << 32 | q->unsig;
			q->unsig = 0;
		} else {
			wrs[i].send_flags &= ~(unsigned)PMR_SEND_SIGNALED;
		}
	}
	ret = pmr_post_send(q->qp, wrs, &bad);
	if (ret)
		die("pmr_post_send: %s (WR %ld of the list)", strerror(ret),
		    (long)(bad - wrs));
	q->out += (uint32_t)k;
}

/* Post one WR, waiting for a send queue slot first. */
static void post_one(struct rqp *q, int idx, const struct pmr_send_wr *wr,
		     bool force_signal)
{
	if (q->out >= (uint32_t)o.tx_depth) {
		uint64_t ts = rte_rdtsc();

		while (q->out >= (uint32_t)o.tx_depth && reap_send() == 0)
			stall_check(ts, "waiting for a send queue slot");
	}
	post_chain(q, idx, wr, 1, force_signal);
}

/* Drain every signaled WR and tell the peer to leave its loop. */
static void finish_client(void)
{
	uint64_t t0 = rte_rdtsc();

	for (int i = 0; i < o.nqp; i++) {
		struct rqp *q = &qps[i];

		if (q->unsig) {    /* one signaled WR retires the rest */
			struct pmr_send_wr wr;
			struct pmr_sge sge;

			wr_fill(&wr, &sge, q, o.op == OP_ATOMIC ? 8 : 1);
			if (o.op == OP_WRITE || o.op == OP_SEND)
				wr.opcode = PMR_WR_RDMA_WRITE, wr.wr.rdma.remote_addr = q->rraddr + slot / 2 - 8, wr.wr.rdma.rkey = q->rrkey;
			if (o.qpt == PMR_QPT_UD) {
				/* UD: unsignaled sends complete with no CQE */
				q->out = 0, q->unsig = 0;
				continue;
			}
			wr.wr_id = 0;
			post_one(q, i, &wr, true);
		}
	}
	for (;;) {
		bool busy = false;

		for (int i = 0; i < o.nqp && !busy; i++)
			busy = qps[i].out != 0;
		if (!busy)
			break;
		reap_send();
		if (rte_rdtsc() - t0 > 10 * hz)
			die("send completions still missing after 10 s");
	}
	tcp_send("END\n");
}

/* Run the engine until the peer's next control line, into l. */
static void serve_until_line(char *l, size_t n)
{
	uint32_t spins = 0;

	/* service progress: the engine runs on its own lcore, and this
	 * thread sleeps until the line comes */
	if (o.progress == PMR_PROGRESS_SERVICE) {
		struct pollfd p = { .fd = sock, .events = POLLIN };

		while (!tcp_try_line(l, n))
			if (poll(&p, 1, 100) < 0 && errno != EINTR)
				die("poll: %s", strerror(errno));
		return;
	}
	for (;;) {
		drive();
		if (++spins % END_CHECK_SPINS == 0 && tcp_try_line(l, n))
			break;
	}
}

static void serve_stream_until_line(char *l, size_t n);

/* Server side: serve the client's stream (serve_stream_until_line())
 * until it says END. */
static void serve_until_end(void)
{
	char l[64];

	serve_stream_until_line(l, sizeof(l));
	end_check(l);
}

/* ---- latency tests -------------------------------------------------------- */

/* The latency test on the first nqp QPs (round-robin): o.nqp, or 1 for
 * --one-qp-compare's reference. */
static double *rdma_lat(uint64_t size, uint64_t iters, int nqp,
			struct lat_res *res)
{
	struct lat_iters li;
	uint64_t it, f = 0, ev0 = ev_taken;
	double tpb = 0;
	uint64_t *t;

	lat_iters_init(&li, iters, size);
	t = server ? NULL :
		zalloc(li.want + iters + 1, sizeof(*t), "the timestamps");
	bool half = o.op == OP_SEND || o.op == OP_WRITE;
	struct pmr_send_wr *wrs = zalloc((size_t)o.nqp, sizeof(*wrs),
					  "the WRs");
	struct pmr_sge *sges = zalloc((size_t)o.nqp, sizeof(*sges),
				      "the SGEs");

	for (int i = 0; i < o.nqp; i++) {
		wr_fill(&wrs[i], &sges[i], &qps[i], size);
		qps[i].cnt = 0;
		qps[i].out = 0;
		qps[i].unsig = 0;
		memset(qps[i].rbuf, 0, size);
		memset(qps[i].lbuf, 0, size);
	}
	barrier("LAT");

	if (o.op == OP_SEND) {
		struct pmr_wc wc;
		uint32_t spins = 0;

		for (it = 0; server || it < li.total; it++) {
			struct rqp *q = &qps[it % (uint64_t)nqp];
			int idx = (int)(it % (uint64_t)nqp);

			if (!server) {
				stamp(t, it, &li);
				post_one(q, idx, &wrs[idx], false);
			}
			uint64_t ts = rte_rdtsc();

			for (;;) {
				int n;

				if (o.progress == PMR_PROGRESS_MANUAL)
					drive();
				n = pmr_poll_cq(rcq, 1, &wc);
				if (n == 1)
					break;
				if (n < 0)
					die("pmr_poll_cq: %d", n);
				if (lat_idle(&spins, ts, it,
					     "send_lat: waiting for a receive"))
					goto out;
				if (o.events)
					ev_wait(rcq);
			}
			check_wc(&wc, "recv");
			/* the server answers on the QP it heard on: the
			 * client's answer comes on the QP it asked on */
			if (!server && rx_qp(&wc) != idx)
				die("send_lat: the answer to QP %d came on "
				    "QP %d", idx, rx_qp(&wc));
			idx = rx_qp(&wc);
			q = &qps[idx];
			post_recv(q, idx, 1);
			if (server)
				post_one(q, idx, &wrs[idx], false);
			if (q->out >= (uint32_t)o.tx_depth / 2)
				reap_send();
		}
	} else if (o.op == OP_WRITE) {
		uint32_t spins = 0;

		for (it = 0; server || it < li.total; it++) {
			int idx = (int)(it % (uint64_t)nqp);
			struct rqp *q = &qps[idx];
			uint8_t v = (uint8_t)(q->cnt++ % 255 + 1);
			volatile uint8_t *poll = q->rbuf + size - 1;

			if (!server) {
				stamp(t, it, &li);
				q->lbuf[size - 1] = v;
				post_one(q, idx, &wrs[idx], false);
			}
			uint64_t ts = rte_rdtsc();

			while (*poll != v) {
				drive();
				if (lat_idle(&spins, ts, it,
					     "write_lat: waiting for the peer's WRITE"))
					goto out;
			}
			if (server) {
				q->lbuf[size - 1] = v;
				post_one(q, idx, &wrs[idx], false);
			}
			if (q->out >= (uint32_t)o.tx_depth / 2)
				reap_send();
		}
	} else {
		uint32_t spins = 0;

		if (server) {
			serve_until_end();
			goto out;
		}
		for (it = 0; it < li.total; it++) {
			int idx = (int)(it % (uint64_t)nqp);
			struct rqp *q = &qps[idx];

			stamp(t, it, &li);
			post_one(q, idx, &wrs[idx], true);
			/* the clock read every END_CHECK_SPINS empty polls,
			 * as in the other loops and the raw baseline */
			while (q->out != 0)
				if (reap_send() == 0) {
					lat_idle(&spins, t[it], it,
						 "waiting for a completion");
					if (o.events)
						ev_wait(scq);
				}
		}
	}
	t[li.total] = rte_rdtsc();
	f = page_faults() - li.f0;
	tpb = tx_per_burst(&li.s0);
	finish_client();
out:
	barrier("LATDONE");
	free(wrs);
	free(sges);
	if (server)
		return NULL;
	/* (QP 0 alone: --one-qp-compare's second run) */
	double *s = lat_samples(t, &li, half ? 2 : 1,
				nqp < o.nqp ? "one_qp" : "rdma", size);

	*res = lat_stats(s, iters, size);
	res->faults = f;
	res->tx_per_burst = tpb;
	res->events = ev_taken - ev0;
	free(t);
	return s;
}

/*
 * --one-qp-compare: the same latency test on QP 0 alone, straight after
 * the N QPs' (the same process pair, a moment later: the machine in the
 * same state), and the ratio of the two.
 */
static void one_qp_compare(uint64_t size, uint64_t iters,
			   const struct lat_res *many)
{
	struct lat_res r;
	double *smp = rdma_lat(size, iters, 1, &r);
	char what[32];

	free(smp);
	if (server)
		return;
	if (!o.json)
		printf(" the same on one QP alone:\n");
	lat_print_as(&r, "one_qp", 1);
	snprintf(what, sizeof(what), "%d QPs/one", o.nqp);
	lat_ratio_print("qps_ratio", what, size, many, &r, false);
}

/* ---- bandwidth tests ------------------------------------------------------ */

/* A receive CQ's completions taken (send_bw's receiving side) and their
 * receives posted again, in runs of one QP (one call each).  @return how
 * many */
static int reap_recv(void)
{
	struct pmr_wc wc[32];
	int n = take_wcs(rcq, wc);

	for (int i = 0, run = 0; i < n; i++) {
		check_wc(&wc[i], "recv");
		run++;
		/* (through an SRQ: all at once, to the SRQ) */
		if (i + 1 == n ||
		    (srq == NULL && wc[i + 1].wr_id != wc[i].wr_id)) {
			int idx = rx_qp(&wc[i]);

			post_recv(&qps[idx], idx, run);
			run = 0;
		}
	}
	return n;
}

/*
 * Serve the peer's stream until its next control line, into l: send_bw's
 * receive completions taken and their receives posted again (with -e,
 * waiting for events between), else the engine run (serve_until_line()).
 */
static void serve_stream_until_line(char *l, size_t n)
{
	uint32_t spins = 0;

	if (o.op != OP_SEND) {
		serve_until_line(l, n);
		return;
	}
	for (;;) {
		int k = reap_recv();

		if (k == 0 && idle_due(&spins) && tcp_try_line(l, n))
			return;
		if (k == 0 && o.events)
			ev_wait(rcq);
	}
}

/*
 * -b: this side's stream is done, and *res its result.  It tells the
 * peer, serves the peer's stream (its receives posted again for send_bw,
 * the engine run) until the peer's result comes, then adds the peer's way
 * to *res, keeping each way's messages and average apart.
 */
static void bw_both_end(struct bw_res *res)
{
	uint64_t iters;
	double avg, peak, mpps;
	char l[256];
	int end = -1;

	tcp_send("BWRES %lu %.6f %.6f %.6f\n", res->iters, res->avg,
		 res->peak, res->mpps);
	serve_stream_until_line(l, sizeof(l));
	if (sscanf(l, "BWRES %lu %lf %lf %lf%n", &iters, &avg, &peak,
		   &mpps, &end) != 4 || !result_line_ok(l, end) ||
	    !isfinite(avg) || !isfinite(peak) || !isfinite(mpps))
		die("bad result from the peer '%s'", l);
	res->local_iters = res->iters;
	res->local_avg = res->avg;
	res->remote_iters = iters;
	res->remote_avg = avg;
	res->iters += iters;
	res->avg += avg;
	res->peak += peak;
	res->mpps += mpps;
}

/*
 * Whether the bandwidth warm-up goes on after its -t messages a QP: until
 * the port has carried WARM_FRAMES frames each way since s0 (RC's ACKs
 * and answers back; UC and UD send nothing back), so that the measured
 * run finds every buffer of the port's rings mapped (lat_iters_init()),
 * for at most a quarter of a second from t0.
 */
static bool bw_warm_more(const struct pmr_roce_port_stats *s0, uint64_t t0)
{
	struct pmr_roce_port_stats st;

	if (rte_rdtsc() - t0 >= hz / 4)
		return false;
	st = port_stats();
	return st.tx_pkts - s0->tx_pkts < WARM_FRAMES ||
	       (o.qpt == PMR_QPT_RC && st.rx_pkts - s0->rx_pkts < WARM_FRAMES);
}

static void rdma_bw(uint64_t size, uint64_t iters, bool warmup,
		    struct bw_res *res)
{
	struct pmr_send_wr *wrs = zalloc((size_t)o.nqp, sizeof(*wrs),
					  "the WRs");
	struct pmr_sge *sges = zalloc((size_t)o.nqp, sizeof(*sges),
				      "the SGEs");
	uint64_t posted = 0, done = 0, t0, t1, tmax, tlast, f0, faults, tstop = 0;
	struct bw_samples b = { .every = 1 };
	struct pmr_roce_port_stats s0;
	uint64_t ev0;
	double tpb;
	bool timed = o.duration > 0 && !warmup;
	/* the number of messages not fixed: a timed run, and a warm-up */
	bool open = timed || warmup;

	for (int i = 0; i < o.nqp; i++) {
		wr_fill(&wrs[i], &sges[i], &qps[i], size);
		qps[i].out = 0;
		qps[i].unsig = 0;
		/* -n shared out, each QP's last WR signaled: exactly -n
		 * messages, none posted to retire an unsignaled tail */
		qps[i].left = iters / (uint64_t)o.nqp +
			      ((uint64_t)i < iters % (uint64_t)o.nqp);
	}
	if (server && !o.bidir) {
		barrier("BW");
		serve_until_end();
		barrier("BWDONE");
		free(wrs);
		free(sges);
		return;
	}

	barrier("BW");
	b.s = zalloc(BW_SAMPLES, sizeof(*b.s), "the samples");
	tmax = (uint64_t)(o.duration * (double)hz);
	f0 = page_faults();
	s0 = port_stats();
	ev0 = ev_taken;
	t0 = rte_rdtsc();
	tlast = t0;
	for (;;) {
		bool more = timed ? rte_rdtsc() - t0 < tmax :
			    posted < iters ||
			    (warmup && bw_warm_more(&s0, t0));

		if (!more && tstop == 0)
			tstop = rte_rdtsc();    /* posting ends: the drain */
		if (!more && done == posted)
			break;
		if (more) {
			for (int i = 0; i < o.nqp; i++) {
				struct rqp *q = &qps[i];

				while (q->out < (uint32_t)o.tx_depth &&
				       (open || q->left > 0)) {
					uint64_t k = (uint64_t)o.post_list;
					bool last;

					if (k > (uint64_t)o.tx_depth - q->out)
						k = (uint64_t)o.tx_depth - q->out;
					if (!open && k > q->left)
						k = q->left;
					last = !open && k == q->left;
					post_chain(q, i, &wrs[i], (int)k, last);
					posted += k;
					if (!open)
						q->left -= k;
					/* a QP that has posted its share
					 * drains from now on, with less
					 * posting beside it: the steady
					 * state ends with the first */
					if (!open && q->left == 0 && tstop == 0)
						tstop = rte_rdtsc();
				}
			}
		}
		uint64_t k = reap_send();
		/* -b, send_bw: the peer's messages taken in as well */
		int r = o.bidir && o.op == OP_SEND ? reap_recv() : 0;

		if (k == 0)
			stall_check(tlast, "bandwidth test: waiting for completions");
		else
			tlast = rte_rdtsc();
		if (k) {
			done += k;
			bw_sample_add(&b, rte_rdtsc(), done);
		}
		if (open && !more) {
			for (int i = 0; i < o.nqp; i++)
				if (qps[i].unsig && qps[i].out < (uint32_t)o.tx_depth) {
					post_one(&qps[i], i, &wrs[i], true);
					posted++;
				}
		}
		/* (everything that could be posted is: the send queues are
		 * full, or the drain; -b, send_bw: both CQs armed before a
		 * wait, the receive CQ first) */
		if (k == 0 && r == 0 && o.events)
			ev_wait(o.bidir && o.op == OP_SEND && !armed[1] ?
				rcq : scq);
	}
	t1 = rte_rdtsc();
	faults = page_faults() - f0;
	tpb = tx_per_burst(&s0);
	memset(res, 0, sizeof(*res));
	res->bytes = size;
	res->iters = done;
	res->faults = faults;
	res->tx_per_burst = tpb;
	res->events = ev_taken - ev0;
	res->us = (double)(t1 - t0) * 1e6 / (double)hz;
	if (t1 > t0) {
		double sec = (double)(t1 - t0) / (double)hz;

		res->avg = (double)done * (double)size / sec / 1e6;
		res->mpps = (double)done / sec / 1e6;
		/* the peak over spans of bw_window() completions; the
		 * average when no span fits */
		res->peak = bw_peak(&b, bw_window(done, (uint64_t)o.tx_depth,
						  (uint64_t)o.nqp),
				    tstop, (double)hz, (double)size);
		if (res->peak < res->avg)
			res->peak = res->avg;
	}
	if (o.bidir)
		bw_both_end(res);
	else
		tcp_send("END\n");
	barrier("BWDONE");
	free(b.s);
	free(wrs);
	free(sges);
}

/* ---- options --------------------------------------------------------------- */

/* A raw stream's option (--raw-burst, --raw-pad), when given: only for a
 * bandwidth test that measures the raw port. */
static void raw_opt_check(const char *name, bool given)
{
	if (o.lat && given)
		die("%s is for the bandwidth tests", name);
	if (!o.raw && given)
		die("%s needs --raw or --raw-compare", name);
}

static void usage(void)
{
	printf(
"usage: pmr-perf TEST [options] [HOST] [-- EAL arguments]\n"
"  TEST: send_lat write_lat read_lat atomic_lat send_bw write_bw read_bw atomic_bw\n"
"  no HOST: server; HOST: client (the client's parameters are used)\n"
"  -s, --size N          message size (default 2, 65536 for *_bw)\n"
"  -a, --all             sizes 2 B .. 8 MiB, powers of two\n"
"  -n, --iters N         iterations (default 1000 lat, 5000 bw)\n"
"  -D, --duration S      bw tests: run for S seconds instead of -n\n"
"  -q, --qp N            number of QPs (default 1)\n"
"  -t, --tx-depth N      send queue depth (default 16 lat, 128 bw)\n"
"  -r, --rx-depth N      receive queue depth (default 16 lat, 512 bw)\n"
"  -m, --mtu N           path MTU 256..4096 (default: --dev mtu=, else 1024)\n"
"  -I, --inline_size N   inline up to N bytes (default 236 lat, 0 bw)\n"
"  -Q, --cq-mod N        one signaled WR every N (default 8 lat, 100 bw; <= tx depth)\n"
"  -l, --post_list N     bw tests: post N WRs per pmr_post_send call\n"
"                        (a linked list; default 1, at most 256)\n"
"  -c, --connection T    RC (default), UC (send/write) or UD (send)\n"
"  -b, --bidirectional   bw tests: both sides stream at once (each its\n"
"                        own messages, -n or -D each); the result is\n"
"                        the two ways summed, as perftest's\n"
"  -o, --outs N          read and atomic tests: READs or atomics in\n"
"                        flight on a QP at most (max_rd_atomic, and the\n"
"                        responder's max_dest_rd_atomic; 1..16, default 16)\n"
"  -A, --atomic_type T  atomic tests: FETCH_AND_ADD (default) or\n"
"                        CMP_AND_SWAP (0 for 1: the first swaps)\n"
"      --use-srq         send tests: each side receives through one SRQ\n"
"                        of -r WRs, shared by all its QPs\n"
"  -N, --noPeak          bw tests: BW peak not measured (printed 0)\n"
"  -C, --report-cycles   latency tests: the table (and --output) in TSC\n"
"                        cycles, not usec (--json stays in usec)\n"
"      --mr_per_qp       a memory region for each QP's buffers (else one\n"
"                        for all)\n"
"      --retry_count N   RC: the QPs' retry count, 0..7 (default 7); each\n"
"                        end its own, for the requests it sends\n"
"  -w, --limit_bw N      bw tests: exit 1 (after the run) if a BW average\n"
"                        is below N (MB/sec, or Gb/sec with --report_gbits)\n"
"  -y, --limit_msgrate N bw tests: exit 1 (after the run) if a message rate\n"
"                        is below N Mpps\n"
"  -p, --port N          TCP port (default 18515)\n"
"  -F                    accepted, ignored (perftest's CPU-frequency check)\n"
"      --dont_xchg_versions  accepted, ignored (the ends exchange none)\n"
"  -V, --version         pmr-perf's version\n"
"  -e, --events          wait for completion events, not polling the CQ\n"
"                        (each side its own; not write_lat, which watches\n"
"                        memory): with service progress the thread sleeps\n"
"                        in poll(), else it runs the engine meanwhile\n"
"      --report_gbits    bandwidth in Gb/sec (10^9 bits), not MB/sec\n"
"                        (2^20 bytes, as perftest's)\n"
"      --progress M      inline (default), service or manual\n"
"      --json            one JSON object per result (the client ends with\n"
"                        the memory its QPs hold, \"mode\":\"qp_mem\",\n"
"                        unless --raw left it without QPs)\n"
"      --output U        each result as one number on a line of its own,\n"
"                        nothing else on stdout: U bandwidth (BW average)\n"
"                        or message_rate (Mpps), bandwidth tests; latency\n"
"                        (t_avg) or latency_typical, latency tests\n"
"      --histogram FILE  latency histogram + CDF (PNG, gnuplot)\n"
"      --samples FILE    latency tests, client: every measured\n"
"                        iteration's latency, in the order run, as CSV\n"
"                        lines mode,bytes,iteration,usec (mode raw,\n"
"                        rdma or one_qp; iteration counted from the\n"
"                        warm-up's first); bench/samples.py reads it\n"
"      --raw             only the raw ethdev baseline (no RDMA)\n"
"      --raw-compare     raw baseline, then RDMA, then the ratios\n"
"      --raw-burst N     bw tests with --raw or --raw-compare: frames\n"
"                        per raw transmit burst (1..32, default 32;\n"
"                        the client's, for the server's stream of -b\n"
"                        too)\n"
"      --raw-pad N       bw tests with --raw or --raw-compare: N bytes\n"
"                        (0..128, default 0) after each raw frame's\n"
"                        payload, not counted as payload (44: frames as\n"
"                        long as pmrdma's over IPv4: IPv4, UDP, BTH, ICRC)\n"
"      --run_infinitely  bw tests: a result every -D seconds (default\n"
"                        5) until SIGINT or SIGTERM to the client, which\n"
"                        then ends the round under way and both stop\n"
"      --one-qp-compare  latency tests with -q N above 1: after the N QPs,\n"
"                        the same test on one of them alone, in the same\n"
"                        process pair, then the ratio\n"
"      --dev ARGS        RoCE device args (else PMR_DEVICES), e.g.\n"
"                        port=0,ipv4=10.0.0.1,mac=02:00:00:00:00:01\n"
"  -d, --ib-dev NAME     the device of PMR_DEVICES named NAME (pmr_roce0\n"
"                        for its first entry, pmr_roce1 for the second...;\n"
"                        default: its first roce entry); not with --dev\n"
"  -i, --ib-port 1       the device's port (it has one)\n"
"  -x, --gid-index N     the QPs' source GID: index N of the device's GID\n"
"                        table (default 0: its IPv4 address, or its IPv6\n"
"                        one if it has no IPv4; 1: the IPv6 one when it\n"
"                        has both); each end its own, of one family\n"
"  -T, --tclass N        traffic class 0..255 of the QPs' packets (IPv4\n"
"                        TOS: DSCP << 2 | ECN; IPv6 traffic class;\n"
"                        default 0); each end its own, for what it sends\n"
"  -u, --qp-timeout N    RC: the local ACK timeout, 4.096 usec x 2^N\n"
"                        (0..31, 0 none; default 14, 67 ms); each end\n"
"                        its own, for the requests it sends (a server's\n"
"                        applies when its client's run is RC)\n"
"  perftest's -R, -z (rdma_cm), -g, -M (multicast), -S (service level),\n"
"  -H and -U (--histogram, --samples) and its other options pmr-perf does\n"
"  not take are refused, each with its reason\n"
"  EAL arguments: after \"--\", else PMR_EAL_ARGS.\n");
}

static const struct {
	const char *name;
	enum op op;
	bool lat;
} tests[] = {
	{ "send_lat", OP_SEND, true }, { "write_lat", OP_WRITE, true },
	{ "read_lat", OP_READ, true }, { "atomic_lat", OP_ATOMIC, true },
	{ "send_bw", OP_SEND, false }, { "write_bw", OP_WRITE, false },
	{ "read_bw", OP_READ, false }, { "atomic_bw", OP_ATOMIC, false },
};

static bool set_test(const char *name)
{
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (strcmp(name, tests[i].name) == 0) {
			snprintf(o.test, sizeof(o.test), "%s", name);
			o.op = tests[i].op;
			o.lat = tests[i].lat;
			return true;
		}
	return false;
}

static bool size_set, rx_set, atomic_set;

/* --output's unit by its name. */
static int output_unit(const char *name)
{
	for (int u = OUT_BW; u <= OUT_LAT_TYP; u++)
		if (strcmp(name, output_names[u]) == 0)
			return u;
	die("bad --output %s: bandwidth or message_rate (bandwidth tests), "
	    "latency or latency_typical (latency tests)", name);
}

/*
 * perftest's options that pmr-perf does not take, each refused with its
 * reason (its short name, if it has one; whether it takes an argument).
 */
#define WHY_PORT "a pmrdma device has one port"
#define WHY_MEM "pmr-perf's buffers are the process's memory"
#define WHY_RATE "pmr-perf does not limit its rate"
#define WHY_JSON "--json prints the results as JSON"
#define WHY_RAW "raw Ethernet tests' (pmr-perf's is --raw)"
static const struct {
	const char *name;
	char short_name;
	int has_arg;
	const char *why;
} perftest_only[] = {
	{ "dualport", 'O', 0, WHY_PORT },
	{ "report-per-port", 'W', 0, WHY_PORT },
	{ "margin", 'f', 1, "pmr-perf's -D measures the whole duration, "
	  "after a warm-up of its own" },
	{ "odp", 0, 0, "a pmrdma memory region is pinned nowhere (the engine "
	  "reads and writes the process's memory): leave it out" },
	{ "use_cuda", 0, 0, WHY_MEM },
	{ "mmap", 0, 1, WHY_MEM },
	{ "mmap-offset", 0, 1, WHY_MEM },
	{ "reversed", 0, 0, "the client sends: start it on the other end" },
	{ "report-both", 0, 0, "the client prints the result (-b's JSON "
	  "carries each way's)" },
	{ "rate_limit", 0, 1, WHY_RATE },
	{ "burst_size", 0, 1, WHY_RATE },
	{ "rate_units", 0, 1, WHY_RATE },
	{ "latency_gap", 0, 1, "pmr-perf's latency loops run back to back" },
	{ "cpu_util", 0, 0, "not measured (a polling loop takes its CPU)" },
	{ "inline_recv", 0, 1, "receiving inline is some NICs' feature, not "
	  "RoCEv2's" },
	{ "ipv6", 0, 0, "-x chooses the device's IPv6 GID" },
	{ "pkey_index", 0, 1, "a pmrdma device has the default P_Key alone" },
	{ "use_old_post_send", 0, 0, "pmr_post_send is the one post call" },
	{ "force-link", 0, 1, "a pmrdma device's link is Ethernet (RoCEv2)" },
	{ "out_json", 0, 0, WHY_JSON },
	{ "out_json_file", 0, 1, WHY_JSON },
	/* raw_ethernet_*'s */
	{ "use_rss", 'G', 0, WHY_RAW },
	{ "source_mac", 'B', 1, WHY_RAW },
	{ "dest_mac", 'E', 1, WHY_RAW },
	{ "source_ip", 'j', 1, WHY_RAW },
	{ "dest_ip", 'J', 1, WHY_RAW },
	{ "source_port", 'k', 1, WHY_RAW },
	{ "dest_port", 'K', 1, WHY_RAW },
	{ "server", 'Z', 0, "raw Ethernet tests' (no HOST: a server)" },
	{ "client", 'P', 0, "raw Ethernet tests' (HOST: a client)" },
	{ "mac_fwd", 'v', 0, WHY_RAW },
	{ "tcp", 0, 0, WHY_RAW },
	{ "flows", 0, 1, WHY_RAW },
	{ "promiscuous", 0, 0, WHY_RAW },
	{ "raw_mcast", 0, 0, WHY_RAW },
};
#define NREFUSED (sizeof(perftest_only) / sizeof(perftest_only[0]))

static void version(void)
{
	printf("pmr-perf (pmrdma) %s\n", PMR_PERF_VERSION);
}

static int parse_opts(int argc, char **argv)
{
	enum { O_GBITS = 256, O_PROGRESS, O_JSON, O_HIST, O_RAW, O_RAWCMP,
	       O_DEV, O_RAWBURST, O_RAWPAD, O_ONEQP, O_SAMPLES, O_FOREVER,
	       O_OUTPUT, O_SRQ, O_MRQP, O_RETRY, O_NOXCHG, O_REFUSED };
	static const struct option lo[] = {
		{ "size", 1, NULL, 's' }, { "all", 0, NULL, 'a' },
		{ "iters", 1, NULL, 'n' }, { "duration", 1, NULL, 'D' },
		{ "qp", 1, NULL, 'q' }, { "tx-depth", 1, NULL, 't' },
		{ "rx-depth", 1, NULL, 'r' }, { "mtu", 1, NULL, 'm' },
		{ "inline_size", 1, NULL, 'I' }, { "cq-mod", 1, NULL, 'Q' },
		{ "connection", 1, NULL, 'c' }, { "port", 1, NULL, 'p' },
		{ "post_list", 1, NULL, 'l' }, { "events", 0, NULL, 'e' },
		{ "bidirectional", 0, NULL, 'b' }, { "outs", 1, NULL, 'o' },
		{ "help", 0, NULL, 'h' },
		{ "report_gbits", 0, NULL, O_GBITS },
		{ "progress", 1, NULL, O_PROGRESS }, { "json", 0, NULL, O_JSON },
		{ "histogram", 1, NULL, O_HIST },
		{ "samples", 1, NULL, O_SAMPLES }, { "raw", 0, NULL, O_RAW },
		{ "run_infinitely", 0, NULL, O_FOREVER },
		{ "raw-compare", 0, NULL, O_RAWCMP }, { "dev", 1, NULL, O_DEV },
		{ "ib-dev", 1, NULL, 'd' }, { "gid-index", 1, NULL, 'x' },
		{ "ib-port", 1, NULL, 'i' }, { "tclass", 1, NULL, 'T' },
		{ "qp-timeout", 1, NULL, 'u' },
		{ "raw-burst", 1, NULL, O_RAWBURST },
		{ "raw-pad", 1, NULL, O_RAWPAD },
		{ "one-qp-compare", 0, NULL, O_ONEQP },
		{ "output", 1, NULL, O_OUTPUT },
		{ "atomic_type", 1, NULL, 'A' }, { "use-srq", 0, NULL, O_SRQ },
		{ "noPeak", 0, NULL, 'N' },
		{ "limit_bw", 1, NULL, 'w' }, { "limit_msgrate", 1, NULL, 'y' },
		{ "report-cycles", 0, NULL, 'C' },
		{ "mr_per_qp", 0, NULL, O_MRQP },
		{ "retry_count", 1, NULL, O_RETRY },
		{ "report-histogrm", 0, NULL, 'H' },
		{ "report-unsorted", 0, NULL, 'U' },
		{ "version", 0, NULL, 'V' },
		{ "dont_xchg_versions", 0, NULL, O_NOXCHG },
	};
	static const char base[] =
		"s:an:D:q:t:r:m:I:Q:l:c:p:Fbo:ed:x:i:T:u:A:Nw:y:CHUVhRzgM:S:";
	/* lo, then perftest_only's, then the end */
	struct option all[sizeof(lo) / sizeof(lo[0]) + NREFUSED + 1];
	char shorts[sizeof(base) + 2 * NREFUSED];
	size_t nl = sizeof(lo) / sizeof(lo[0]), ns = sizeof(base) - 1;
	int c;

	memcpy(all, lo, sizeof(lo));
	memcpy(shorts, base, sizeof(base));
	for (size_t i = 0; i < NREFUSED; i++) {
		all[nl + i] = (struct option){ perftest_only[i].name,
			perftest_only[i].has_arg, NULL, O_REFUSED + (int)i };
		if (perftest_only[i].short_name != 0) {
			shorts[ns++] = perftest_only[i].short_name;
			if (perftest_only[i].has_arg)
				shorts[ns++] = ':';
		}
	}
	all[nl + NREFUSED] = (struct option){ NULL, 0, NULL, 0 };
	shorts[ns] = '\0';

	if (argc >= 2 && (strcmp(argv[1], "-V") == 0 ||
			  strcmp(argv[1], "--version") == 0)) {
		version();
		exit(0);
	}
	if (argc < 2 || !set_test(argv[1])) {
		usage();
		exit(argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
				   strcmp(argv[1], "--help") == 0) ? 0 : 1);
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, shorts, all, NULL)) != -1) {
		for (size_t i = 0; i < NREFUSED; i++) {
			char sn[8] = "";

			if (c != O_REFUSED + (int)i &&
			    (c >= 256 || c != perftest_only[i].short_name))
				continue;
			if (perftest_only[i].short_name != 0)
				snprintf(sn, sizeof(sn), " (-%c)",
					 perftest_only[i].short_name);
			die("--%s%s is perftest's, not pmr-perf's: %s",
			    perftest_only[i].name, sn, perftest_only[i].why);
		}
		switch (c) {
		case 's':
			o.size = (uint64_t)opt_int("-s", optarg, 0,
						   (long long)MAX_MSG);
			size_set = true;
			break;
		case 'a': o.all = true; break;
		case 'n':
			o.iters = (uint64_t)opt_int("-n", optarg, 1,
						    (long long)ITERS_MAX);
			break;
		case 'D':
			o.duration = opt_positive("-D", optarg, DURATION_MAX,
				"seconds, above 0 and at most a day (86400)");
			break;
		case 'q': o.nqp = (int)opt_int("-q", optarg, 1, QPS_MAX); break;
		case 't':
			o.tx_depth = (int)opt_int("-t", optarg, 1, DEPTH_MAX);
			break;
		case 'r':
			o.rx_depth = (int)opt_int("-r", optarg, 1, DEPTH_MAX);
			rx_set = true;
			break;
		case 'm': o.mtu = (int)opt_int("-m", optarg, 256, 4096); break;
		case 'I': o.inl = (int)opt_int("-I", optarg, 0, INLINE_MAX); break;
		case 'Q':
			o.cq_mod = (int)opt_int("-Q", optarg, 1, CQ_MOD_MAX);
			break;
		case 'l':
			o.post_list = (int)opt_int("-l", optarg, 1,
						   POST_LIST_MAX);
			break;
		case 'p': o.tcp_port = (int)opt_int("-p", optarg, 1, 65535); break;
		case 'F': break;
		case 'A':
			if (strcmp(optarg, "CMP_AND_SWAP") == 0) o.cas = true;
			else if (strcmp(optarg, "FETCH_AND_ADD") == 0) o.cas = false;
			else die("bad -A %s: CMP_AND_SWAP or FETCH_AND_ADD",
				 optarg);
			atomic_set = true;
			break;
		case 'N': o.nopeak = true; break;
		case 'w':
			o.limit_bw = opt_positive("-w", optarg, DBL_MAX,
						  "a number above 0");
			break;
		case 'y':
			o.limit_mr = opt_positive("-y", optarg, DBL_MAX,
						  "a number above 0");
			break;
		case 'C': o.cycles = true; break;
		case 'H':
			die("-H (a histogram on stdout) is perftest's, not "
			    "pmr-perf's: --histogram FILE draws one (PNG), "
			    "--samples FILE keeps every latency");
		case 'U':
			die("-U (every latency, unsorted) is perftest's, not "
			    "pmr-perf's: --samples FILE writes them, in the "
			    "order run");
		case O_SRQ: o.srq = true; break;
		case O_MRQP: o.mr_per_qp = true; break;
		case O_RETRY:
			o.retry_count = (int)opt_int("--retry_count", optarg,
						     0, 7);
			o.retry_count_set = true;
			break;
		case 'e': o.events = true; break;
		case 'b': o.bidir = true; break;
		case 'o': o.outs = (int)opt_int("-o", optarg, 1, OUTS_MAX); break;
		case 'x':
			o.gid_index = (int)opt_int("-x", optarg, 0, 255);
			break;
		case 'T': o.tclass = (int)opt_int("-T", optarg, 0, 255); break;
		case 'u':
			o.qp_timeout = (int)opt_int("-u", optarg, 0, 31);
			o.qp_timeout_set = true;
			break;
		case 'i':       /* perftest's: the only port there is */
			if (strcmp(optarg, "1") != 0)
				die("bad -i %s: a device has one port, 1",
				    optarg);
			break;
		case 'c':
			if (strcmp(optarg, "RC") == 0) o.qpt = PMR_QPT_RC;
			else if (strcmp(optarg, "UC") == 0) o.qpt = PMR_QPT_UC;
			else if (strcmp(optarg, "UD") == 0) o.qpt = PMR_QPT_UD;
			else die("bad connection type %s", optarg);
			break;
		case O_GBITS: o.gbits = true; break;
		case O_JSON: o.json = true; break;
		case O_HIST: o.hist = optarg; break;
		case O_SAMPLES: o.samples = optarg; break;
		case O_RAW: o.raw = 1; break;
		case O_RAWCMP: o.raw = 2; break;
		case O_DEV: o.devargs = optarg; break;
		case 'd': o.ibdev = optarg; break;
		case O_ONEQP: o.one_qp = true; break;
		case O_FOREVER: o.forever = true; break;
		case O_OUTPUT: o.output = output_unit(optarg); break;
		case O_RAWBURST:
			o.raw_burst = (int)opt_int("--raw-burst", optarg, 1,
						   RAW_BURST);
			o.raw_burst_set = true;
			break;
		case O_RAWPAD:
			o.raw_pad = (int)opt_int("--raw-pad", optarg, 0,
						 RAW_PAD_MAX);
			break;
		case O_PROGRESS:
			if (strcmp(optarg, "inline") == 0) o.progress = PMR_PROGRESS_INLINE;
			else if (strcmp(optarg, "service") == 0) o.progress = PMR_PROGRESS_SERVICE;
			else if (strcmp(optarg, "manual") == 0) o.progress = PMR_PROGRESS_MANUAL;
			else die("bad progress mode %s", optarg);
			break;
		case 'h': usage(); exit(0);
		case 'V': version(); exit(0);
		case O_NOXCHG: break;   /* (the ends exchange no versions) */
		case 'R': case 'z':
			die("-%c (rdma_cm) is perftest's, not pmr-perf's: "
			    "pmr-perf connects its QPs over its own TCP "
			    "exchange (leave -%c out)", c, c);
		case 'g': case 'M':
			die("-%c (multicast) is perftest's, not pmr-perf's: "
			    "pmrdma has no multicast", c);
		case 'S':
			die("-S (service level) is perftest's, not pmr-perf's: "
			    "pmrdma sends no VLAN tag, which would carry it "
			    "over RoCEv2 (-T sets the traffic class)");
		default: usage(); exit(1);
		}
	}
	if (optind < argc)
		o.host = argv[optind++];
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* --output: a unit of the test's kind, and one result a line (either
 * end: a server prints no result, but takes no option it would refuse
 * as a client). */
static void output_check(void)
{
	if (!o.output)
		return;
	if (o.lat != (o.output == OUT_LAT || o.output == OUT_LAT_TYP))
		die("--output %s is for the %s tests", output_names[o.output],
		    o.lat ? "bandwidth" : "latency");
	if (o.json)
		die("--output and --json: one or the other");
	if (o.raw == 2 || o.one_qp)
		die("--output prints one number a result: not with %s "
		    "(--json carries the ratios)",
		    o.raw == 2 ? "--raw-compare" : "--one-qp-compare");
}

static void defaults(void)
{
	if (!size_set && !o.lat)
		o.size = 65536;
	if (o.iters == 0)
		o.iters = o.lat ? 1000 : 5000;
	if (o.tx_depth == 0)
		o.tx_depth = o.lat ? 16 : 128;
	if (o.lat && o.rx_depth > 16 && !rx_set)
		o.rx_depth = 16;     /* one message in flight per QP */
	if (o.cq_mod == 0)
		o.cq_mod = o.lat ? 8 : 100;
	if (o.cq_mod > o.tx_depth)
		o.cq_mod = o.tx_depth;
	if (o.lat && o.post_list != 1)
		die("-l is for the bandwidth tests (one message a round trip)");
	if (o.lat && o.bidir)
		die("-b is for the bandwidth tests");
	if (o.ibdev != NULL && o.devargs != NULL)
		die("-d chooses a device of PMR_DEVICES: not with --dev");
	if (o.forever && (o.lat || o.all || o.raw == 1))
		die("--run_infinitely is for the bandwidth tests of one size, "
		    "and RDMA (not --raw)");
	if (o.forever && o.duration == 0)
		o.duration = 5;
	if (o.outs && o.op != OP_READ && o.op != OP_ATOMIC)
		die("-o is for the read and atomic tests");
	if (o.qp_timeout_set && o.qpt != PMR_QPT_RC)
		die("-u is for RC (the only type that retransmits)");
	if (o.retry_count_set && o.qpt != PMR_QPT_RC)
		die("--retry_count is for RC (the only type that retransmits)");
	if (o.outs == 0 && (o.op == OP_READ || o.op == OP_ATOMIC))
		o.outs = OUTS_MAX;
	if (atomic_set && o.op != OP_ATOMIC)
		die("-A is for the atomic tests");
	if (o.srq && (o.op != OP_SEND || o.raw == 1))
		die("--use-srq is for the send tests (the receives it "
		    "shares), and RDMA (not --raw)");
	if (o.nopeak && o.lat)
		die("-N is for the bandwidth tests (it leaves out BW peak)");
	if (o.cycles && !o.lat)
		die("-C is for the latency tests");
	if ((o.limit_bw > 0 || o.limit_mr > 0) && (o.lat || o.raw == 1))
		die("-w and -y are for the bandwidth tests, and RDMA (not "
		    "--raw)");
	raw_opt_check("--raw-burst", o.raw_burst_set);
	raw_opt_check("--raw-pad", o.raw_pad != 0);
	if (o.inl < 0)
		o.inl = o.lat ? 236 : 0;
	if (o.op == OP_ATOMIC)
		o.size = 8, o.all = false;
	if (o.qpt != PMR_QPT_RC && (o.op == OP_READ || o.op == OP_ATOMIC))
		die("%s needs RC", o.test);
	if (o.qpt == PMR_QPT_UD && o.op != OP_SEND)
		die("UD supports send only");
	if (o.one_qp && (!o.lat || o.nqp < 2 || o.raw == 1))
		die("--one-qp-compare is for the latency tests with -q 2 or "
		    "more, and RDMA (not --raw)");
	if (o.mtu != 0 && pmr_num_to_mtu(o.mtu) == 0)
		die("bad -m %d: 256, 512, 1024, 2048 or 4096", o.mtu);
	if (o.lat && o.op == OP_WRITE && o.size < 1)
		die("write_lat needs -s >= 1 (it watches the last byte)");
	if (o.lat && o.duration > 0)
		die("-D is for the bandwidth tests; give latency tests -n");
	if (o.samples != NULL && !o.lat)
		die("--samples is for the latency tests");
	if (o.events && o.lat && o.op == OP_WRITE)
		die("-e: write_lat sees the peer's data in memory, not in a "
		    "completion (as perftest's)");
	if (o.events && o.raw == 1)
		die("-e is for RDMA (not --raw)");
}

/* A UD message is one packet: -s at most the MTU (-a stops there). */
static bool ud_too_long(void)
{
	return o.qpt == PMR_QPT_UD && !o.all && o.size > (uint64_t)o.mtu;
}

/*
 * The run's parameters as the client sent them (sync_params()): NULL when
 * each is one the client's own options could have given, else the first
 * that is not.
 */
static const char *params_bad(void)
{
	if (o.size > MAX_MSG || ud_too_long())
		return "size";
	if (o.iters < 1 || o.iters > ITERS_MAX)
		return "iterations";
	if (!(o.duration >= 0 && o.duration <= DURATION_MAX))
		return "duration";
	if (o.nqp < 1 || o.nqp > QPS_MAX)
		return "QPs";
	if (o.tx_depth < 1 || o.tx_depth > DEPTH_MAX ||
	    o.rx_depth < 1 || o.rx_depth > DEPTH_MAX)
		return "queue depth";
	if (pmr_num_to_mtu(o.mtu) == 0)     /* (a client always sends one) */
		return "MTU";
	if (o.inl < 0 || o.inl > INLINE_MAX)
		return "inline size";
	if (o.cq_mod < 1 || o.cq_mod > o.tx_depth)
		return "CQ moderation";
	if (o.raw < 0 || o.raw > 2)
		return "raw mode";
	if (o.bidir && o.lat)
		return "bidirectional";
	if (o.forever && (o.lat || o.all || o.raw == 1 || o.duration == 0))
		return "run infinitely";
	if (o.op == OP_READ || o.op == OP_ATOMIC ?
	    o.outs < 1 || o.outs > OUTS_MAX : o.outs != 0)
		return "outstanding reads";
	if (o.post_list < 1 || o.post_list > POST_LIST_MAX ||
	    (o.lat && o.post_list != 1))
		return "post list";
	if (o.raw_burst < 1 || o.raw_burst > RAW_BURST ||
	    o.raw_pad < 0 || o.raw_pad > RAW_PAD_MAX)
		return "raw stream";
	if (o.qpt != PMR_QPT_RC && o.qpt != PMR_QPT_UC && o.qpt != PMR_QPT_UD)
		return "connection type";
	if (o.cas && o.op != OP_ATOMIC)
		return "atomic type";
	if (o.srq && (o.op != OP_SEND || o.raw == 1))
		return "SRQ";
	return NULL;
}

/* The client dictates the run's parameters. */
static void sync_params(void)
{
	char l[512], t[16];
	int all, raw, qpt, one_qp, bidir, forever, cas, use_srq, mr_per_qp;
	const char *what;

	if (!server) {
		tcp_send("CFG %s %lu %d %lu %.6f %d %d %d %d %d %d %d %d %d "
			 "%d %d %d %d %d %d %d %d %d\n",
			 o.test, o.size, o.all, o.iters, o.duration, o.nqp,
			 o.tx_depth, o.rx_depth, o.mtu, o.inl, o.cq_mod,
			 o.raw, o.qpt, o.one_qp, o.bidir, o.outs, o.post_list,
			 o.raw_burst, o.raw_pad, o.forever, o.cas, o.srq,
			 o.mr_per_qp);
		return;
	}
	tcp_line(l, sizeof(l));
	if (sscanf(l, "CFG %15s %lu %d %lu %lf %d %d %d %d %d %d %d %d %d "
		   "%d %d %d %d %d %d %d %d %d", t,
		   &o.size, &all, &o.iters, &o.duration, &o.nqp, &o.tx_depth,
		   &o.rx_depth, &o.mtu, &o.inl, &o.cq_mod, &raw, &qpt,
		   &one_qp, &bidir, &o.outs, &o.post_list, &o.raw_burst,
		   &o.raw_pad, &forever, &cas, &use_srq, &mr_per_qp) != 23 ||
	    !set_test(t))
		die("bad parameters from the client: '%s'", l);
	o.all = all;
	o.raw = raw;
	o.qpt = qpt;
	o.one_qp = one_qp;
	o.bidir = bidir;
	o.forever = forever;
	o.cas = cas;
	o.srq = use_srq;
	o.mr_per_qp = mr_per_qp;
	what = params_bad();
	if (what != NULL)
		die("bad parameters from the client (%s): '%s'", what, l);
}

/* --run_infinitely: SIGINT or SIGTERM asks the client to stop after the
 * round under way. */
static volatile sig_atomic_t stop_asked;

static void ask_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

static void forever_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ask_stop;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) != 0 ||
	    sigaction(SIGTERM, &sa, NULL) != 0)
		die("sigaction: %s", strerror(errno));
}

/* --run_infinitely, after a round: the client says whether another
 * follows (not once a signal asked it to stop), the server hears it. */
static bool another_round(void)
{
	char l[64];

	if (!server) {
		bool more = !stop_asked;

		tcp_send("%s\n", more ? "MORE" : "STOP");
		return more;
	}
	tcp_line(l, sizeof(l));
	if (strcmp(l, "MORE") != 0 && strcmp(l, "STOP") != 0)
		die("control: expected MORE or STOP, got '%s'", l);
	return strcmp(l, "MORE") == 0;
}

static int eal_init(int argc, char **argv)
{
	char *av[128];
	int ac = 0;
	int dd = -1;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			dd = i;
			break;
		}
	av[ac++] = argv[0];
	if (dd >= 0) {
		for (int i = dd + 1; i < argc && ac < 127; i++)
			av[ac++] = argv[i];
	} else {
		const char *env = getenv("PMR_EAL_ARGS");
		char *copy = strdup(env ? env : "--no-pci --in-memory"), *save;

		for (char *tok = strtok_r(copy, " \t", &save); tok && ac < 127;
		     tok = strtok_r(NULL, " \t", &save))
			av[ac++] = tok;
	}
	av[ac] = NULL;
	if (rte_eal_init(ac, av) < 0)
		die("rte_eal_init: %s", rte_strerror(rte_errno));
	return dd >= 0 ? dd : argc;
}

/* ---- main --------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	uint64_t sizes[32];
	int nsizes = 0;
	int app_argc;
	struct lat_res raw_lr[32];
	struct bw_res raw_br[32];
	double *raw_s[32] = { NULL };
	size_t raw_n[32] = { 0 };
	bool below = false;      /* a result below -w or -y */

	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		usage();
		return 0;
	}
	/* options end at "--"; EAL gets the rest */
	app_argc = argc;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			app_argc = i;
			break;
		}
	parse_opts(app_argc, argv);
	server = o.host == NULL;
	if (!server && o.forever)
		forever_signals();
	output_check();
	if (!server)
		defaults();       /* bad options fail before EAL and TCP */
	if (!server && o.samples != NULL)
		samples_open();
	parse_devargs();
	/* the client's MTU, -m's or the device's, goes to the server: every
	 * run has one from here on */
	if (!server && o.mtu == 0)
		o.mtu = dev_mtu;
	if (!server && pmr_num_to_mtu(o.mtu) == 0)
		die("bad mtu=%d in the device arguments: 256, 512, 1024, 2048 "
		    "or 4096", o.mtu);
	if (!server && ud_too_long())
		die("bad -s %lu: a UD message is one packet, at most the MTU "
		    "(%d)", o.size, o.mtu);
	srand48((long)getpid() ^ (long)time(NULL));
	setvbuf(stdout, NULL, _IOLBF, 0);
	eal_init(argc, argv);
	hz = rte_get_tsc_hz();
	if (!rte_eth_dev_is_valid_port(port_id))
		die("no ethdev port %u (EAL arguments: a --vdev?)", port_id);

	tcp_open();
	sync_params();
	if (o.all) {
		for (uint64_t s = 2; s <= max_size(); s *= 2)
			sizes[nsizes++] = s;
	} else {
		sizes[nsizes++] = o.size;
	}

	if (o.raw) {
		ordered_start(raw_setup, "PORTUP");
		for (int k = 0; k < nsizes; k++) {
			uint64_t it = o.iters;

			if (o.lat) {
				if (k == 0)
					lat_header(true);
				raw_lat(sizes[k], it, &raw_lr[k],
					&raw_s[k], &raw_n[k]);
				if (!server)
					lat_print(&raw_lr[k], true);
			} else {
				struct bw_res w;

				if (k == 0)
					bw_header(true);
				/* warm-up, as the RDMA test's (one stream:
				 * one QP's worth): the first frames, buffers
				 * and caches */
				raw_bw(sizes[k], (uint64_t)o.tx_depth, true, &w);
				raw_bw(sizes[k], it, false, &raw_br[k]);
				if (!server)
					bw_print(&raw_br[k], true);
			}
		}
		/* hand the port to the RoCE device, which reconfigures it */
		rte_eth_dev_stop(port_id);
		barrier("RAWSTOPPED");
	}
	if (o.raw == 1) {
		samples_close();
		for (int k = 0; k < nsizes; k++)
			free(raw_s[k]);
		close(sock);
		rte_eal_cleanup();
		return 0;
	}

	ordered_start(dev_create, "DEVUP");
	qps_create();
	qps_exchange();
	qps_connect();
	if (o.op == OP_SEND && srq != NULL)
		post_recv(&qps[0], 0, o.rx_depth);
	else if (o.op == OP_SEND)
		for (int i = 0; i < o.nqp; i++)
			post_recv(&qps[i], i, o.rx_depth);
	barrier("CONNECTED");

	for (int k = 0; k < nsizes; k++) {
		uint64_t s = sizes[k];
		uint64_t it = o.iters;

		if (o.lat) {
			struct lat_res r;
			double *smp;

			if (k == 0)
				lat_header(false);
			smp = rdma_lat(s, it, o.nqp, &r);
			if (!server) {
				lat_print(&r, false);
				histogram(smp, r.iters, raw_s[k], raw_n[k], s,
					  nsizes > 1);
				if (o.raw == 2)
					lat_ratio_print("ratio", "pmrdma/raw", s,
							&r, &raw_lr[k], true);
			}
			free(smp);
			if (o.one_qp)
				one_qp_compare(s, it, &r);
		} else {
			struct bw_res r, w;

			if (k == 0)
				bw_header(false);
			/* warm-up: ARP, the first WQEs, caches */
			rdma_bw(s, (uint64_t)o.tx_depth * (uint64_t)o.nqp, true, &w);
			do {
				rdma_bw(s, it, false, &r);
				r.warm_us = w.us;
				if (!server) {
					bw_print(&r, false);
					if (o.raw == 2)
						bw_ratio_print(&r, &raw_br[k], s);
					below |= below_limits(&r);
				}
			} while (o.forever && another_round());
		}
	}
	barrier("BYE");
	/* keep answering a little so the peer's last ACKs get through */
	for (int i = 0; i < 100000; i++)
		drive();
	if (!server && !o.output)
		qps_mem_print();
	if (!server && !o.json) {
		struct pmr_roce_port_stats st;

		if (pmr_roce_port_stats(dev, &st) == 0 &&
		    (st.retransmits || st.timeouts || st.nak_rnr_rx ||
		     st.tx_no_mbuf || st.tx_drops))
			fprintf(note_out(), " note: retransmits %lu timeouts "
				"%lu rnr_naks_rx %lu tx_no_mbuf %lu tx_drops "
				"%lu\n", st.retransmits, st.timeouts,
				st.nak_rnr_rx, st.tx_no_mbuf, st.tx_drops);
	}
	samples_close();
	for (int k = 0; k < nsizes; k++)
		free(raw_s[k]);
	/* Stop polling before either side goes: a memif peer that
	 * disconnects while we are inside rx_burst can crash this process. */
	engine_stop();
	barrier("EXIT");
	close(sock);
	return below ? 1 : 0;
}
