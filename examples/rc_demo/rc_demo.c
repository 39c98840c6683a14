/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc_demo: two processes, one RC connection, every RC operation once with
 * its result checked, then a SEND/RECV ping-pong timed.
 *
 *   rc_demo --server --ctl /tmp/rc_demo.sock
 *   rc_demo --ctl /tmp/rc_demo.sock
 *
 * --size N (both sides) sets the RDMA WRITE / READ-back size (default
 * 4096; messages up to 1 GiB and more are segmented at the path MTU).
 * A completion is waited for 10 s, and a second more per 16 MiB of it:
 * the server waits for the client's next SEND while the client fills
 * its buffer, WRITEs it and READs it back.
 *
 * With --passive (both sides) the server makes no pmrdma call after the
 * connection is set up: it blocks in read() on the socket, so only a
 * device running as a DPDK service (progress=service) can serve the
 * client, which does RDMA WRITE / READ / atomics and times READs.
 *
 * The device comes from the configuration (PMR_EAL_ARGS, PMR_DEVICES);
 * the two sides swap QP number, PSN, GID, buffer address and rkey over a
 * Unix socket, as applications do over TCP.  While waiting on the socket
 * the engine keeps running (pmr_progress) so ARP and ACKs are answered.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pmr_ibv_compat.h>
#include <pmr_roce.h>

#define BUF_BASE (1 << 20)       /* small buffers below, big ones after */
#define MSG 64

struct peer_info {
	uint32_t qpn, psn, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

static struct ibv_context *ctx;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t *buf;
static size_t buf_size;

static void print_counters(void);

/* A failure says what the port saw: its counters go with the message. */
#define DIE(...) do { fprintf(stderr, "rc_demo: " __VA_ARGS__); \
	fputc('\n', stderr); print_counters(); exit(1); } while (0)

/* "name value, name value, ..." on one line of stderr. */
struct counter {
	const char *name;
	uint64_t v;
};

static void print_line(const char *what, const struct counter *c, size_t n)
{
	fprintf(stderr, "rc_demo: %s:", what);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s %s %llu", i ? "," : "", c[i].name,
			(unsigned long long)c[i].v);
	fputc('\n', stderr);
}

static void print_counters(void)
{
	struct pmr_roce_port_stats s;
	struct pmr_roce_qp_stats q;
	char what[32];

	if (ctx == NULL || pmr_roce_port_stats(ctx->device, &s) != 0)
		return;
	const struct counter port[] = {
		{ "rx", s.rx_pkts }, { "tx", s.tx_pkts },
		{ "retransmits", s.retransmits }, { "timeouts", s.timeouts },
		{ "duplicates", s.dup_requests },
		{ "out of sequence", s.out_of_seq },
		{ "PSN NAKs rx", s.nak_seq_rx }, { "PSN NAKs tx", s.nak_seq_tx },
		{ "tx_full", s.tx_full }, { "tx_no_mbuf", s.tx_no_mbuf },
		{ "tx_drops", s.tx_drops }, { "rx drops icrc", s.rx_drop_icrc },
		{ "malformed", s.rx_drop_malformed },
		{ "unknown QP", s.rx_drop_unknown_qp },
		{ "QP state", s.rx_drop_state },
	};
	print_line("port", port, sizeof(port) / sizeof(port[0]));
	if (qp == NULL || pmr_roce_qp_stats(qp, &q) != 0)
		return;
	const struct counter qc[] = {
		{ "rx", q.rx_pkts }, { "tx", q.tx_pkts },
		{ "retransmits", q.retransmits }, { "duplicates", q.dup_rx },
		{ "NAKs rx", q.nak_rx }, { "NAKs tx", q.nak_tx },
	};
	snprintf(what, sizeof(what), "QP %u", qp->qp_num);
	print_line(what, qc, sizeof(qc) / sizeof(qc[0]));
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Wait for fd to be ready for `events`, keeping the engine running. */
static void wait_fd(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	double deadline = now_us() + 30e6;

	while (poll(&p, 1, 0) == 0) {
		pmr_progress(ctx, 32);
		if (now_us() > deadline)
			DIE("timed out waiting for the peer");
	}
}

static void xfer(int fd, void *p, size_t n, bool out)
{
	uint8_t *b = p;

	while (n > 0) {
		ssize_t r;

		wait_fd(fd, out ? POLLOUT : POLLIN);
		r = out ? write(fd, b, n) : read(fd, b, n);
		if (r <= 0)
			DIE("control socket: %s", r ? strerror(errno) : "closed");
		b += r;
		n -= (size_t)r;
	}
}

static int ctl_connect(const char *path, bool server)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (server) {
		unlink(path);
		if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1))
			DIE("cannot listen on %s: %s", path, strerror(errno));
		wait_fd(s, POLLIN);
		c = accept(s, NULL, NULL);
		close(s);
		return c;
	}
	for (int i = 0; i < 3000; i++) {
		if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
			return s;
		pmr_progress(ctx, 32);
		usleep(1000);
	}
	DIE("cannot connect to %s", path);
}

static double wait_s = 10;      /* for a completion (--size adds) */

static struct ibv_wc poll_one(void)
{
	struct ibv_wc wc;
	double deadline = now_us() + wait_s * 1e6;

	while (ibv_poll_cq(cq, 1, &wc) == 0)
		if (now_us() > deadline)
			DIE("no completion within %.0f s", wait_s);
	if (wc.status != IBV_WC_SUCCESS)
		DIE("wr %llu failed: %s", (unsigned long long)wc.wr_id,
		    ibv_wc_status_str(wc.status));
	return wc;
}

static void post(enum ibv_wr_opcode op, uint64_t off, uint32_t len,
		 const struct peer_info *r, uint64_t roff, uint64_t cmp_add,
		 uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)(buf + off), len, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = r->addr + roff;
		wr.wr.atomic.rkey = r->rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = r->addr + roff;
		wr.wr.rdma.rkey = r->rkey;
	}
	if (ibv_post_send(qp, &wr, &bad))
		DIE("post_send failed");
}

static void post_recv(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		DIE("post_recv failed");
}

static void connect_qp(const struct peer_info *me, const struct peer_info *r)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	memcpy(a.ah_attr.grh.dgid.raw, r->gid, 16);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		DIE("modify to RTR failed");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me->psn;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		DIE("modify to RTS failed");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", no_argument, NULL, 's' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "iters", required_argument, NULL, 'n' },
		{ "passive", no_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ctl = "/tmp/pmr-rc-demo.sock";
	struct peer_info me, r;
	struct ibv_device **list;
	char devname[64];
	struct ibv_pd *pd;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	union ibv_gid gid;
	bool server = false, passive = false;
	int iters = 10000, fd, o, ok = 1;
	uint64_t size = 4096;

	while ((o = getopt_long(argc, argv, "sc:n:pS:", opts, NULL)) != -1) {
		if (o == 'S')
			size = strtoull(optarg, NULL, 0);
		else if (o == 's')
			server = true;
		else if (o == 'p')
			passive = true;
		else if (o == 'c')
			ctl = optarg;
		else if (o == 'n')
			iters = atoi(optarg);
		else
			DIE("usage: rc_demo [--server] [--ctl PATH] [--iters N] "
			    "[--passive] [--size BYTES]");
	}
	list = ibv_get_device_list(NULL);
	if (list == NULL || list[0] == NULL)
		DIE("no device (set PMR_EAL_ARGS and PMR_DEVICES)");
	ctx = ibv_open_device(list[0]);
	if (ctx == NULL || ibv_query_gid(ctx, 1, 0, &gid))
		DIE("cannot open %s", ibv_get_device_name(list[0]));
	snprintf(devname, sizeof(devname), "%s", ibv_get_device_name(list[0]));
	ibv_free_device_list(list);
	pd = ibv_alloc_pd(ctx);
	if (size > (1ull << 31))
		DIE("--size: at most 2^31 bytes (the RDMA message limit)");
	/* (a sanitizer build took 10 s for a 1 GiB --size between the
	 * server's last completion and its next, which ended the server,
	 * and the client's READ with it, mid-stream) */
	wait_s += (double)(size >> 24);
	buf_size = BUF_BASE + 2 * size;
	buf = aligned_alloc(4096, buf_size);
	if (buf == NULL)
		DIE("cannot allocate %zu bytes", buf_size);
	memset(buf, 0, buf_size);
	mr = ibv_reg_mr(pd, buf, buf_size, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 64;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &ia);
	if (mr == NULL || cq == NULL || qp == NULL)
		DIE("cannot create the verbs objects");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		DIE("modify to INIT failed");

	srand48(getpid());
	me = (struct peer_info){ .qpn = qp->qp_num, .psn = lrand48() & 0xffffff,
				 .rkey = mr->rkey, .addr = (uintptr_t)buf };
	memcpy(me.gid, gid.raw, 16);
	fd = ctl_connect(ctl, server);
	xfer(fd, &me, sizeof(me), true);
	xfer(fd, &r, sizeof(r), false);
	connect_qp(&me, &r);
	post_recv();
	xfer(fd, &o, sizeof(o), true);          /* ready */
	xfer(fd, &o, sizeof(o), false);

	if (server && passive) {
		uint64_t served;

		/* no pmrdma call from here on: a plain blocking read */
		if (read(fd, &o, sizeof(o)) != sizeof(o))
			DIE("control socket closed");
		served = *(volatile uint64_t *)(buf + 131072);
		printf("server: passive, made no pmrdma call while the client "
		       "worked; counter at %llu\n", (unsigned long long)served);
		return 0;
	}
	if (server) {
		/* answer each SEND with a SEND; one-sided operations need
		 * nothing from us but a running engine */
		for (int i = 0; i < iters + 1; i++) {
			struct ibv_wc wc = poll_one();

			if (wc.opcode != IBV_WC_RECV) {
				i--;
				continue;
			}
			post_recv();
			post(IBV_WR_SEND, 4096, MSG, &r, 0, 0, 0);
		}
		xfer(fd, &o, sizeof(o), false);     /* client done */
		printf("server: served %d round trips and the client's "
		       "RDMA WRITE, READ and atomics\n", iters + 1);
		return 0;
	}

	printf("rc_demo: %s, local QPN 0x%06x, peer QPN 0x%06x\n",
	       devname, me.qpn, r.qpn);
	/* RDMA WRITE into the server's buffer, READ it back: the source at
	 * BUF_BASE, the copy read back after it, the server's at BUF_BASE */
	for (uint64_t i = 0; i < size; i++)
		buf[BUF_BASE + i] = (uint8_t)(i * 7 + 1 + (i >> 12));
	{
		double t0 = now_us(), t1;

		post(IBV_WR_RDMA_WRITE, BUF_BASE, (uint32_t)size, &r, BUF_BASE,
		     0, 0);
		poll_one();
		post(IBV_WR_RDMA_READ, BUF_BASE + size, (uint32_t)size, &r,
		     BUF_BASE, 0, 0);
		poll_one();
		t1 = now_us();
		ok &= memcmp(buf + BUF_BASE, buf + BUF_BASE + size, size) == 0;
		printf("  RDMA WRITE %llu B + READ back ......... %s (%.1f ms)\n",
		       (unsigned long long)size, ok ? "ok" : "MISMATCH",
		       (t1 - t0) / 1000);
	}
	/* the small buffers used below */
	for (int i = 0; i < 4096; i++)
		buf[8192 + i] = (uint8_t)(i * 7 + 1);
	post(IBV_WR_RDMA_WRITE, 8192, 4096, &r, 65536, 0, 0);
	poll_one();
	/* atomics on a zeroed counter in the server's buffer */
	post(IBV_WR_ATOMIC_FETCH_AND_ADD, 24576, 8, &r, 131072, 5, 0);
	poll_one();
	ok &= *(uint64_t *)(buf + 24576) == 0;
	post(IBV_WR_ATOMIC_CMP_AND_SWP, 24576, 8, &r, 131072, 5, 42);
	poll_one();
	ok &= *(uint64_t *)(buf + 24576) == 5;
	post(IBV_WR_RDMA_READ, 24576, 8, &r, 131072, 0, 0);
	poll_one();
	ok &= *(uint64_t *)(buf + 24576) == 42;
	printf("  FETCH_AND_ADD 5, CMP_AND_SWP 5->42 .... %s\n",
	       ok ? "ok" : "WRONG VALUE");
	if (passive) {
		/* READ latency against a peer that is not polling */
		double *lat = malloc(sizeof(double) * (size_t)iters);

		for (int i = 0; i < iters; i++) {
			double t0 = now_us();

			post(IBV_WR_RDMA_READ, 32768, MSG, &r, 65536, 0, 0);
			poll_one();
			lat[i] = now_us() - t0;
		}
		ok &= memcmp(buf + 32768, buf + 8192, MSG) == 0;
		qsort(lat, (size_t)iters, sizeof(double), cmp_double);
		printf("  RDMA READ %d B from a passive peer, %d iters: round "
		       "trip median %.2f us ... %s\n", MSG, iters,
		       lat[iters / 2], ok ? "ok" : "MISMATCH");
		free(lat);
		xfer(fd, &o, sizeof(o), true);
		printf("rc_demo: %s\n", ok ? "all results checked" : "FAILED");
		if (!ok)
			print_counters();
		return ok ? 0 : 1;
	}
	/* SEND / RECV ping-pong */
	{
		double *lat = malloc(sizeof(double) * (size_t)iters);
		int done = 0;

		for (int i = 0; i < iters + 1; i++) {
			double t0 = now_us();
			int got = 0;

			post(IBV_WR_SEND, 4096, MSG, &r, 0, 0, 0);
			while (got < 2) {
				struct ibv_wc wc = poll_one();

				got++;
				if (wc.opcode == IBV_WC_RECV)
					post_recv();
			}
			if (i > 0)    /* the first one warms up */
				lat[done++] = (now_us() - t0) / 2;
		}
		qsort(lat, (size_t)done, sizeof(double), cmp_double);
		printf("  SEND/RECV %d B ping-pong, %d iters: half round "
		       "trip median %.2f us, 99%% %.2f us\n", MSG, done,
		       lat[done / 2], lat[(size_t)(done * 0.99)]);
		free(lat);
	}
	xfer(fd, &o, sizeof(o), true);
	printf("rc_demo: %s\n", ok ? "all results checked" : "FAILED");
	if (!ok)
		print_counters();
	return ok ? 0 : 1;
}
