/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr_device_create("roce", ...) on a port that fails its set-up: the
 * call returns NULL with the port's error in errno and leaves nothing
 * behind (no device in the list, its mbuf pool freed, the port able to
 * take a device afterwards).  One process on loopback net_ring ports it
 * makes itself (rte_eth_from_ring: what a port sends it receives), run
 * by ring.sh for the EAL arguments.
 *
 * This program defines the ethdev and mbuf pool functions the RoCE
 * driver sets a port up with; being the executable's, they are the ones
 * libpmrdma's calls reach.  Each passes the call on to DPDK's, unless
 * armed to fail it with a given error; they count the calls made while
 * the device is created.
 *
 * - each step failing in turn (device information, configure, receive
 *   queue, transmit queue, the mbuf pool): its error, at once, the step
 *   not tried again, the port never started;
 * - the start failing for good: its error once the 5 seconds of retries
 *   are over, each retry having set the port up again;
 * - the start failing three times, then not: the device is made (the
 *   port set up four times) and passes traffic;
 * - a port the application configured and started itself: EBUSY at once
 *   (real DPDK, nothing armed), the port left started; once stopped, a
 *   device is made on it;
 * - a pool of the device's name already there: EEXIST, that pool left as
 *   it was;
 * - no callback for the word of the port's removal: a device all the
 *   same (with a warning), which passes traffic;
 * - after all of these the first port takes a device, which passes
 *   traffic.
 *
 *   port_fail       run by ring.sh (EAL arguments, the configuration)
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"

/* ---- the failing functions ------------------------------------------- */

enum { F_INFO, F_CONFIGURE, F_RXQ, F_TXQ, F_START, F_POOL, F_CALLBACK,
       F_KINDS };
static const char *const f_names[F_KINDS] = {
	"rte_eth_dev_info_get", "rte_eth_dev_configure",
	"rte_eth_rx_queue_setup", "rte_eth_tx_queue_setup",
	"rte_eth_dev_start", "rte_pktmbuf_pool_create",
	"rte_eth_dev_callback_register",
};

static bool f_armed;            /* while pmr_device_create() runs */
static pthread_t f_thread;      /* the test's thread: the only one armed */
static int f_fails[F_KINDS];    /* calls left to fail, -1 every one */
static int f_err[F_KINDS];      /* the error they fail with */
static unsigned int f_calls[F_KINDS];

static void *f_next(int kind)
{
	static void *fn[F_KINDS];

	if (fn[kind] == NULL)
		fn[kind] = dlsym(RTLD_NEXT, f_names[kind]);
	if (fn[kind] == NULL) {
		fprintf(stderr, "no %s to pass calls on to\n", f_names[kind]);
		exit(1);
	}
	return fn[kind];
}

/* Counts the call; true when it is to fail. */
static bool f_fail(int kind)
{
	if (!f_armed || !pthread_equal(pthread_self(), f_thread))
		return false;
	f_calls[kind]++;
	if (f_fails[kind] == 0)
		return false;
	if (f_fails[kind] > 0)
		f_fails[kind]--;
	return true;
}

int rte_eth_dev_info_get(uint16_t port, struct rte_eth_dev_info *info)
{
	int (*fn)(uint16_t, struct rte_eth_dev_info *) = f_next(F_INFO);

	if (f_fail(F_INFO)) {
		memset(info, 0, sizeof(*info));
		return -f_err[F_INFO];
	}
	return fn(port, info);
}

int rte_eth_dev_configure(uint16_t port, uint16_t nrx, uint16_t ntx,
			  const struct rte_eth_conf *conf)
{
	int (*fn)(uint16_t, uint16_t, uint16_t, const struct rte_eth_conf *) =
		f_next(F_CONFIGURE);

	return f_fail(F_CONFIGURE) ? -f_err[F_CONFIGURE] :
	       fn(port, nrx, ntx, conf);
}

int rte_eth_rx_queue_setup(uint16_t port, uint16_t q, uint16_t n,
			   unsigned int socket,
			   const struct rte_eth_rxconf *conf,
			   struct rte_mempool *pool)
{
	int (*fn)(uint16_t, uint16_t, uint16_t, unsigned int,
		  const struct rte_eth_rxconf *, struct rte_mempool *) =
		f_next(F_RXQ);

	return f_fail(F_RXQ) ? -f_err[F_RXQ] :
	       fn(port, q, n, socket, conf, pool);
}

int rte_eth_tx_queue_setup(uint16_t port, uint16_t q, uint16_t n,
			   unsigned int socket,
			   const struct rte_eth_txconf *conf)
{
	int (*fn)(uint16_t, uint16_t, uint16_t, unsigned int,
		  const struct rte_eth_txconf *) = f_next(F_TXQ);

	return f_fail(F_TXQ) ? -f_err[F_TXQ] : fn(port, q, n, socket, conf);
}

int rte_eth_dev_start(uint16_t port)
{
	int (*fn)(uint16_t) = f_next(F_START);

	return f_fail(F_START) ? -f_err[F_START] : fn(port);
}

struct rte_mempool *rte_pktmbuf_pool_create(const char *name, unsigned int n,
					    unsigned int cache,
					    uint16_t priv, uint16_t room,
					    int socket)
{
	struct rte_mempool *(*fn)(const char *, unsigned int, unsigned int,
				  uint16_t, uint16_t, int) = f_next(F_POOL);

	if (f_fail(F_POOL)) {
		rte_errno = f_err[F_POOL];
		return NULL;
	}
	return fn(name, n, cache, priv, room, socket);
}

int rte_eth_dev_callback_register(uint16_t port, enum rte_eth_event_type ev,
				  rte_eth_dev_cb_fn cb, void *arg)
{
	int (*fn)(uint16_t, enum rte_eth_event_type, rte_eth_dev_cb_fn,
		  void *) = f_next(F_CALLBACK);

	return f_fail(F_CALLBACK) ? -f_err[F_CALLBACK] :
	       fn(port, ev, cb, arg);
}

/* ---- the test ----------------------------------------------------------- */

/* The name of the pool the next device makes (pmr_roceN, N its place in
 * the device list: doc/guides/roce.rst), in name. */
static void next_pool_name(char name[RTE_MEMPOOL_NAMESIZE])
{
	snprintf(name, RTE_MEMPOOL_NAMESIZE, "pmr_roce%d", vt_ndevices());
}

/* pmr_device_create() on the port, the failing functions armed as set
 * (their counts cleared first); @return the device or NULL, with errno
 * as the call left it, *ms the time it took. */
static struct pmr_device *create(uint16_t port, uint8_t net, uint64_t *ms)
{
	char args[160];
	struct pmr_device *d;
	uint64_t t0;
	int err;

	snprintf(args, sizeof(args),
		 "port=%u,ipv4=10.%u.0.1,mac=02:00:00:00:%02x:01,"
		 "neigh=10.%u.0.1/02:00:00:00:%02x:01",
		 port, net, net, net, net);
	memset(f_calls, 0, sizeof(f_calls));
	f_thread = pthread_self();
	t0 = vt_now_ms();
	f_armed = true;
	errno = 0;
	d = pmr_device_create("roce", args);
	err = errno;
	f_armed = false;
	memset(f_fails, 0, sizeof(f_fails));
	if (ms != NULL)
		*ms = vt_now_ms() - t0;
	errno = err;
	return d;
}

/* A SEND between two RC QPs of the device, through its port. */
static void passes(struct pmr_device *dev)
{
	struct vt v;

	vt_open_dev(&v, dev);
	vt_send_passes(&v);
	vt_close(&v);
}

/* Nothing left of a creation that failed: no device, no pool. */
static void nothing_left(int before, const char *pool)
{
	EXPECT_EQ(vt_ndevices(), before);
	EXPECT_MSG(rte_mempool_lookup(pool) == NULL, "pool %s kept", pool);
}

/* Each set-up step failing once: its error at once, not tried again. */
static void each_step(uint16_t port)
{
	static const struct {
		int kind, err;
	} steps[] = {
		{ F_INFO, ENOTSUP },
		{ F_CONFIGURE, EINVAL },
		{ F_RXQ, EIO },
		{ F_TXQ, ENOBUFS },
		{ F_POOL, ENOMEM },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int k = steps[i].kind, before = vt_ndevices();
		char pool[RTE_MEMPOOL_NAMESIZE];
		struct pmr_device *d;
		uint64_t ms;

		next_pool_name(pool);
		f_fails[k] = -1;
		f_err[k] = steps[i].err;
		d = create(port, 21, &ms);
		EXPECT_MSG(d == NULL, "%s failing: a device", f_names[k]);
		EXPECT_EQ_MSG(errno, steps[i].err, "%s failing", f_names[k]);
		EXPECT_EQ_MSG(f_calls[k], 1, "%s failing: tried again",
			      f_names[k]);
		EXPECT_EQ_MSG(f_calls[F_START], 0, "%s failing: started",
			      f_names[k]);
		EXPECT_MSG(ms < 1000, "%s failing: %llu ms", f_names[k],
			   (unsigned long long)ms);
		nothing_left(before, pool);
	}
}

/* The start failing for good: its error after the 5 s of retries, the
 * port set up again for each. */
static void start_fails(uint16_t port)
{
	char pool[RTE_MEMPOOL_NAMESIZE];
	int before = vt_ndevices();
	struct pmr_device *d;
	uint64_t ms;

	next_pool_name(pool);
	f_fails[F_START] = -1;
	f_err[F_START] = ECONNREFUSED;
	d = create(port, 21, &ms);
	EXPECT(d == NULL);
	EXPECT_EQ(errno, ECONNREFUSED);
	EXPECT_MSG(ms >= 4900 && ms < 30000, "gave up after %llu ms",
		   (unsigned long long)ms);
	EXPECT_MSG(f_calls[F_START] >= 50, "started %u times",
		   f_calls[F_START]);
	EXPECT_EQ(f_calls[F_CONFIGURE], f_calls[F_START]);
	EXPECT_EQ(f_calls[F_RXQ], f_calls[F_START]);
	EXPECT_EQ(f_calls[F_TXQ], f_calls[F_START]);
	nothing_left(before, pool);
}

/* The start failing three times, then not: a device, set up four times,
 * that passes traffic. */
static void start_late(void)
{
	uint16_t port = ringport_loop("late");
	struct pmr_device *d;
	int before = vt_ndevices();

	f_fails[F_START] = 3;
	f_err[F_START] = ECONNREFUSED;
	d = create(port, 22, NULL);
	CHECK(d != NULL);
	EXPECT_EQ(f_calls[F_START], 4);
	EXPECT_EQ(f_calls[F_CONFIGURE], 4);
	EXPECT_EQ(f_calls[F_RXQ], 4);
	EXPECT_EQ(f_calls[F_TXQ], 4);
	EXPECT_EQ(vt_ndevices(), before + 1);
	passes(d);
}

/* No callback for the word of the port's removal (a warning): a device
 * all the same, which passes traffic. */
static void no_removal_word(void)
{
	uint16_t port = ringport_loop("norm");
	struct pmr_device *d;

	f_fails[F_CALLBACK] = 1;
	f_err[F_CALLBACK] = ENOMEM;
	d = create(port, 24, NULL);
	CHECK(d != NULL);
	EXPECT_EQ(f_calls[F_CALLBACK], 1);
	passes(d);
}

/* A port the application started itself: EBUSY at once, the port still
 * started (configure refused); stopped, it takes a device. */
static void started_by_app(void)
{
	uint16_t port = ringport_loop("app");
	struct rte_mempool *own = rte_pktmbuf_pool_create("app_own", 1023, 0,
		0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	struct rte_eth_conf conf;
	char pool[RTE_MEMPOOL_NAMESIZE];
	int before = vt_ndevices();
	struct pmr_device *d;
	uint64_t ms;

	CHECK(own != NULL);
	memset(&conf, 0, sizeof(conf));
	CHECK_EQ(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	CHECK_EQ(rte_eth_rx_queue_setup(port, 0, 256, rte_socket_id(), NULL,
					own), 0);
	CHECK_EQ(rte_eth_tx_queue_setup(port, 0, 256, rte_socket_id(), NULL),
		 0);
	CHECK_EQ(rte_eth_dev_start(port), 0);

	next_pool_name(pool);
	d = create(port, 23, &ms);
	EXPECT(d == NULL);
	EXPECT_EQ(errno, EBUSY);
	EXPECT_EQ(f_calls[F_CONFIGURE], 1);
	EXPECT_EQ(f_calls[F_START], 0);
	EXPECT_MSG(ms < 1000, "EBUSY after %llu ms", (unsigned long long)ms);
	nothing_left(before, pool);
	EXPECT_EQ_MSG(rte_eth_dev_configure(port, 1, 1, &conf), -EBUSY,
		      "the application's port was stopped");

	CHECK_EQ(rte_eth_dev_stop(port), 0);
	d = create(port, 23, NULL);
	CHECK(d != NULL);
	passes(d);
}

/* The application has a pool of the name the device's would take. */
static void pool_name_taken(uint16_t port)
{
	char pool[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *theirs;
	int before = vt_ndevices();
	struct pmr_device *d;

	next_pool_name(pool);
	theirs = rte_pktmbuf_pool_create(pool, 63, 0, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE,
					 (int)rte_socket_id());
	CHECK(theirs != NULL);
	d = create(port, 21, NULL);
	EXPECT(d == NULL);
	EXPECT_EQ(errno, EEXIST);
	EXPECT_EQ(f_calls[F_CONFIGURE], 0);
	EXPECT_EQ(vt_ndevices(), before);
	EXPECT(rte_mempool_lookup(pool) == theirs);
	EXPECT_EQ(rte_mempool_avail_count(theirs), 63);
	rte_mempool_free(theirs);
}

int main(void)
{
	uint16_t port;
	struct pmr_device *d;

	ringport_eal_init();
	port = ringport_loop("fail");
	each_step(port);
	start_fails(port);
	pool_name_taken(port);
	start_late();
	started_by_app();
	no_removal_word();
	/* the port every failure above was on */
	d = create(port, 21, NULL);
	CHECK(d != NULL);
	passes(d);
	return vt_exit();
}
