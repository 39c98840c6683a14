/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCE device: arguments, ethdev port set-up, contexts, the progress
 * function (rx burst -> responder/completer, timers, requester, tx
 * burst), the service-core mode and the counters.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "roce.h"

RTE_LOG_REGISTER(roce_logtype, pmr.roce, NOTICE);

#define RX_DESC 1024
#define TX_DESC 1024
#define POOL_MBUFS 8191
#define START_RETRY_MS 5000
#define LINK_WAIT_MS 100        /* a memif client's first wait for its link */
#define LINK_WAIT_MAX_MS 1000

/* ---- arguments ---------------------------------------------------------- */

struct roce_args {
	struct roce_dev *d;
	int port;
	bool has_mac;
	uint8_t mac[6];
	int nneigh;
	uint8_t neigh_ip[ROCE_NEIGH_MAX][16];
	uint8_t neigh_mac[ROCE_NEIGH_MAX][6];
};

static bool parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	char extra;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &extra) != 6)
		return false;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return false;
		mac[i] = (uint8_t)b[i];
	}
	return true;
}

static bool parse_ipv4_gid(const char *s, uint8_t *gid)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return false;
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(&gid[12], &a, 4);
	return true;
}

/* The index of value in names[0..n), or -1. */
static int choice(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return (int)i;
	return -1;
}

static int roce_arg(const char *key, const char *value, void *opaque)
{
	struct roce_args *a = opaque;
	struct roce_dev *d = a->d;
	long v;

	if (strcmp(key, "port") == 0) {
		if (!pmr_kvarg_long(value, 0, RTE_MAX_ETHPORTS - 1, &v))
			goto bad;
		a->port = (int)v;
	} else if (strcmp(key, "ipv4") == 0) {
		if (!parse_ipv4_gid(value, d->gid4))
			goto bad;
		d->has_ipv4 = true;
	} else if (strcmp(key, "ipv6") == 0) {
		if (inet_pton(AF_INET6, value, d->gid6) != 1 ||
		    roce_gid_is_v4(d->gid6) || d->gid6[0] == 0xff)
			goto bad;
		d->has_ipv6 = true;
	} else if (strcmp(key, "mac") == 0) {
		if (!parse_mac(value, a->mac))
			goto bad;
		a->has_mac = true;
	} else if (strcmp(key, "mtu") == 0) {
		d->max_mtu = pmr_kvarg_mtu(value);
		if (d->max_mtu == 0)
			goto bad;
	} else if (strcmp(key, "neigh") == 0) {
		/* IP/MAC, e.g. neigh=10.0.0.2/02:00:00:00:00:02 */
		char ip[64];
		const char *slash = strchr(value, '/');

		if (slash == NULL || slash - value >= (long)sizeof(ip) ||
		    a->nneigh == ROCE_NEIGH_MAX)
			goto bad;
		memcpy(ip, value, (size_t)(slash - value));
		ip[slash - value] = '\0';
		if (!parse_ipv4_gid(ip, a->neigh_ip[a->nneigh]) ||
		    !parse_mac(slash + 1, a->neigh_mac[a->nneigh]))
			goto bad;
		a->nneigh++;
	} else if (strcmp(key, "progress") == 0) {
		/* indexed by enum pmr_progress_mode */
		static const char *const modes[] = { "inline", "service",
						     "manual" };
		_Static_assert(PMR_PROGRESS_INLINE == 0 &&
			       PMR_PROGRESS_SERVICE == 1 &&
			       PMR_PROGRESS_MANUAL == 2, "modes[] order");
		int i = choice(value, modes, RTE_DIM(modes));

		if (i < 0)
			goto bad;
		d->default_mode = (enum pmr_progress_mode)i;
	} else if (strcmp(key, "ack") == 0) {
		/* indexed by ROCE_ACK_* */
		static const char *const acks[] = { "auto", "separate",
						    "with_reply" };
		_Static_assert(ROCE_ACK_AUTO == 0 && ROCE_ACK_SEPARATE == 1 &&
			       ROCE_ACK_WITH_REPLY == 2, "acks[] order");
		int i = choice(value, acks, RTE_DIM(acks));

		if (i < 0)
			goto bad;
		d->ack_mode = (uint8_t)i;
	} else if (strcmp(key, "ackreq") == 0) {
		if (!pmr_kvarg_long(value, 1, ROCE_ACKREQ_EVERY, &v))
			goto bad;
		d->ackreq_every = (uint32_t)v;
	} else if (strcmp(key, "tx_batch") == 0) {
		if (!pmr_kvarg_long(value, 1, ROCE_TX_MAX, &v))
			goto bad;
		d->tx_batch = (uint32_t)v;
	} else if (strcmp(key, "tx_flush") == 0) {
		if (strcmp(value, "auto") == 0)
			v = -1;
		else if (!pmr_kvarg_long(value, 0, ROCE_TX_FLUSH_MAX, &v))
			goto bad;
		d->tx_flush_arg = (int32_t)v;
	} else if (strcmp(key, "service_lcore") == 0) {
		if (!pmr_kvarg_long(value, 0, RTE_MAX_LCORE - 1, &v))
			goto bad;
		d->service_lcore = (int)v;
	} else {
		ROCE_LOG(ERR, "unknown argument '%s'", key);
		return -EINVAL;
	}
	return 0;
bad:
	ROCE_LOG(ERR, "bad value '%s' for '%s'", value, key);
	return -EINVAL;
}

/* ---- the port ------------------------------------------------------------- */

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The value of key= among the device arguments of the port whose
 * information is *info, if its driver is `driver`, copied into val (n
 * bytes): false if there is none, or it does not fit.  DPDK's own parser
 * reads them, as the PMD did. */
static bool port_arg(const struct rte_eth_dev_info *info, const char *driver,
		     const char *key, char *val, size_t n)
{
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	const char *v;
	bool ok = false;

	if (info->driver_name == NULL ||
	    strcmp(info->driver_name, driver) != 0 || info->device == NULL)
		return false;
	da = rte_dev_devargs(info->device);
	if (da == NULL || da->args == NULL)
		return false;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL) {
		ROCE_LOG(WARNING, "%s: its arguments \"%s\" not parsed: no %s",
			 rte_dev_name(info->device), da->args, key);
		return false;
	}
	v = rte_kvargs_get(kv, key);
	if (v != NULL && strlen(v) < n) {
		memcpy(val, v, strlen(v) + 1);
		ok = true;
	}
	rte_kvargs_free(kv);
	return ok;
}

/* Whether the port is a memif client: memif's role= argument says
 * "client" (or the older "slave"); a memif port is a server without one. */
static bool is_memif_client(const struct rte_eth_dev_info *info)
{
	char role[8];

	return port_arg(info, "net_memif", "role", role, sizeof(role)) &&
	       (strcmp(role, "client") == 0 || strcmp(role, "slave") == 0);
}

/* An af_packet port reports its link up from its start on, whatever the
 * kernel interface does: the device looks at that interface's flags
 * itself (roce_link_up()), through a socket kept for it.  Without one
 * (not af_packet, its interface's name not read, or no socket) the
 * port's own report stands. */
static void kernel_link_open(struct roce_dev *d)
{
	if (!d->afpacket)
		return;
	if (d->ifname[0] == '\0') {
		ROCE_LOG(WARNING, "port %u: af_packet's iface= not read: "
			 "the port's report of its link stands", d->port_id);
		return;
	}
	d->kernel_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (d->kernel_fd < 0)
		ROCE_LOG(WARNING, "port %u: no socket to watch %s's link (%s): "
			 "the port's report stands", d->port_id, d->ifname,
			 strerror(errno));
}

/* The PMD's word that the port's device is removed (a NIC unplugged or
 * failed): taken in its interrupt thread, acted on by the engine
 * (link_watch()). */
static int removal_event(uint16_t port_id, enum rte_eth_event_type event,
			 void *arg, void *ret_param)
{
	struct roce_dev *d = arg;

	(void)port_id;
	(void)event;
	(void)ret_param;
	atomic_store_explicit(&d->removed, true, memory_order_release);
	return 0;
}

/* Whether the port's link is up within ms milliseconds. */
static bool link_up_within(const struct roce_dev *d, uint64_t ms)
{
	uint64_t end = mono_ms() + ms;

	for (;;) {
		if (roce_link_up(d))
			return true;
		if (mono_ms() >= end)
			return false;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
}

static int port_setup(struct roce_dev *d)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nrx = RX_DESC, ntx = TX_DESC;
	int socket = rte_eth_dev_socket_id(d->port_id);
	bool cheap_burst;
	int ret;

	if (socket < 0)
		socket = 0;
	ret = rte_eth_dev_info_get(d->port_id, &info);
	if (ret != 0) {
		ROCE_LOG(ERR, "port %u: no device information: %s",
			 d->port_id, strerror(-ret));
		return ret;
	}
	/* the "auto" arguments turn on what needs a cheap transmit burst
	 * only on memif (a ring in shared memory, its peer polling another
	 * core); elsewhere a burst is a system call (af_packet, tap) or a
	 * doorbell write to a NIC.  auto: a separate burst for an ACK, and
	 * frames leaving as a pass builds them, ROCE_TX_FLUSH_AUTO bytes at
	 * a time (tx_flush 0: at the end of the pass) */
	cheap_burst = info.driver_name != NULL &&
		      strcmp(info.driver_name, "net_memif") == 0;
	d->memif_client = is_memif_client(&info);
	d->afpacket = info.driver_name != NULL &&
		      strcmp(info.driver_name, "net_af_packet") == 0;
	if (d->afpacket && !port_arg(&info, "net_af_packet", "iface",
				     d->ifname, sizeof(d->ifname)))
		d->ifname[0] = '\0';
	d->ack_with_reply = d->ack_mode == ROCE_ACK_WITH_REPLY ||
			    (d->ack_mode == ROCE_ACK_AUTO && !cheap_burst);
	d->tx_flush = d->tx_flush_arg >= 0 ? (uint32_t)d->tx_flush_arg :
		      cheap_burst ? ROCE_TX_FLUSH_AUTO : 0;
	if (d->tx_flush == 0)
		d->tx_flush = UINT32_MAX;
	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(d->port_id, 1, 1, &conf);
	if (ret != 0) {
		ROCE_LOG(ERR, "port %u: configure failed: %s%s", d->port_id,
			 strerror(-ret), ret == -EBUSY ? " (started already? "
			 "the device configures and starts the port itself)" :
			 "");
		return ret;
	}
	rte_eth_dev_adjust_nb_rx_tx_desc(d->port_id, &nrx, &ntx);
	ret = rte_eth_rx_queue_setup(d->port_id, 0, nrx, (unsigned)socket,
				     NULL, d->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(d->port_id, 0, ntx,
					     (unsigned)socket, NULL);
	if (ret != 0) {
		ROCE_LOG(ERR, "port %u: queue set-up failed: %s", d->port_id,
			 strerror(-ret));
		return ret;
	}
	rte_eth_promiscuous_enable(d->port_id);
	return 0;
}

/*
 * Configure and start the port.  A memif client cannot start before its
 * server exists, and a port whose start failed does not pass traffic
 * once a later start succeeds: each retry sets the port up again.  Only
 * the start is retried: a port that refuses its configuration or queues
 * (one the application started itself, say) would refuse them again.
 *
 * A memif client that started may still not be connected: a server
 * whose own port is not started yet refuses the handshake ("ID not
 * found"), and memif does not try again.  So a memif client's start
 * counts once its link is up: if it is not within a wait (100 ms,
 * doubling to 1 s), the port is stopped and started again.  No retry of
 * either kind begins later than 5 s after the first start.
 */
static int port_start(struct roce_dev *d)
{
	uint64_t t0 = mono_ms(), wait = LINK_WAIT_MS;
	int ret;

	for (;;) {
		ret = port_setup(d);
		if (ret != 0)
			return ret;
		ret = rte_eth_dev_start(d->port_id);
		if (ret == 0 && d->memif_client &&
		    !link_up_within(d, wait)) {
			rte_eth_dev_stop(d->port_id);
			ret = -ENOTCONN;
			wait = RTE_MIN(wait * 2, (uint64_t)LINK_WAIT_MAX_MS);
		}
		if (ret == 0 || mono_ms() - t0 >= START_RETRY_MS)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	if (ret == -ENOTCONN) {
		ROCE_LOG(ERR, "port %u: memif client: no link within %u s (is "
			 "the server's port started?)", d->port_id,
			 START_RETRY_MS / 1000);
		return ret;
	}
	if (ret != 0) {
		ROCE_LOG(ERR, "port %u: start failed: %s", d->port_id,
			 strerror(-ret));
		return ret;
	}
	d->port_started = true;
	return 0;
}

static int roce_probe(struct pmr_dev_obj *dev, const char *args)
{
	struct roce_args a;
	struct pmr_device_attr *at = &dev->attr;
	struct rte_ether_addr ea;
	struct roce_dev *d;
	char name[RTE_MEMPOOL_NAMESIZE];
	int ret;

	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->kernel_fd = -1;
	memset(&a, 0, sizeof(a));
	a.d = d;
	d->max_mtu = PMR_MTU_1024;
	d->service_lcore = -1;
	d->ackreq_every = ROCE_ACKREQ_DEFAULT;
	d->tx_batch = 1;
	d->tx_flush_arg = -1;
	d->tx_flush = UINT32_MAX;
	pmr_list_init(&d->active);
	d->next_deadline = UINT64_MAX;
	ret = pmr_kvargs_parse(args, roce_arg, &a);
	if (ret == 0 && !d->has_ipv4 && !d->has_ipv6) {
		ROCE_LOG(ERR, "an ipv4= or ipv6= address is required");
		ret = -EINVAL;
	}
	if (ret == 0 && !rte_eth_dev_is_valid_port((uint16_t)a.port)) {
		ROCE_LOG(ERR, "no ethdev port %d (is EAL initialised, the "
			 "vdev created?)", a.port);
		ret = -ENODEV;
	}
	if (ret != 0) {
		free(d);
		return ret;
	}
	d->port_id = (uint16_t)a.port;
	d->tsc_hz = rte_get_tsc_hz();
	d->link_check_tsc = d->tsc_hz / 1000 * ROCE_LINK_CHECK_MS;
	while ((1ull << d->wheel_shift) <
	       roce_ns_to_tsc(d, ROCE_WHEEL_SLOT_NS))
		d->wheel_shift++;
	d->wheel_tick = rte_rdtsc() >> d->wheel_shift;
	snprintf(name, sizeof(name), "pmr_roce%d", dev->index);
	d->pool = rte_pktmbuf_pool_create(name, POOL_MBUFS, 256, 0,
					  RTE_PKTMBUF_HEADROOM + ROCE_MBUF_DATA,
					  rte_socket_id());
	if (d->pool == NULL) {
		/* EEXIST: the application has a pool of that name */
		ret = rte_errno == EEXIST ? -EEXIST : -ENOMEM;
		ROCE_LOG(ERR, "cannot create the mbuf pool %s: %s", name,
			 rte_strerror(rte_errno));
		free(d);
		return ret;
	}
	ret = port_start(d);
	if (ret != 0) {
		rte_mempool_free(d->pool);
		free(d);
		return ret < 0 ? ret : -EIO;
	}
	kernel_link_open(d);
	ret = rte_eth_dev_callback_register(d->port_id, RTE_ETH_EVENT_INTR_RMV,
					    removal_event, d);
	if (ret != 0)
		ROCE_LOG(WARNING, "port %u: no word of its removal (%s)",
			 d->port_id, strerror(-ret));
	if (a.has_mac) {
		memcpy(d->mac, a.mac, 6);
	} else {
		rte_eth_macaddr_get(d->port_id, &ea);
		memcpy(d->mac, ea.addr_bytes, 6);
	}
	for (int i = 0; i < a.nneigh; i++)
		roce_neigh_add(d, a.neigh_ip[i], a.neigh_mac[i], true);
	dev->priv = d;

	snprintf(dev->pub.dev_path, sizeof(dev->pub.dev_path),
		 "ethdev:%u", d->port_id);
	rte_eth_dev_get_name_by_port(d->port_id, dev->pub.dev_name);
	snprintf(at->fw_ver, sizeof(at->fw_ver), "pmrdma-roce 0.1");
	/* node GUID: EUI-64 of the MAC */
	{
		uint64_t g = (uint64_t)(d->mac[0] ^ 2) << 56 |
			     (uint64_t)d->mac[1] << 48 |
			     (uint64_t)d->mac[2] << 40 | 0xfffeull << 24 |
			     (uint64_t)d->mac[3] << 16 |
			     (uint64_t)d->mac[4] << 8 | d->mac[5];

		at->node_guid = (pmr_be64)__builtin_bswap64(g);
	}
	pmr_dev_attr_defaults(at);
	at->device_cap_flags |= PMR_DEVICE_PORT_ACTIVE_EVENT;
	/* GID table: the IPv4-mapped GID first, then the IPv6 one */
	if (d->has_ipv4)
		memcpy(dev->gid[dev->gid_count++].raw, d->gid4, 16);
	if (d->has_ipv6)
		memcpy(dev->gid[dev->gid_count++].raw, d->gid6, 16);
	ROCE_LOG(INFO, "%s on port %u (%s), %d GIDs", dev->pub.name,
		 d->port_id, dev->pub.dev_name, dev->gid_count);
	return 0;
}

static void roce_remove(struct pmr_dev_obj *dev)
{
	struct roce_dev *d = dev->priv;

	rte_eth_dev_callback_unregister(d->port_id, RTE_ETH_EVENT_INTR_RMV,
					removal_event, d);
	if (d->port_started && !d->port_stopped)
		rte_eth_dev_stop(d->port_id);
	if (d->kernel_fd >= 0)
		close(d->kernel_fd);
	roce_held_free(d);
	rte_mempool_free(d->pool);
	free(d);
}

static int roce_query_port(struct pmr_dev_obj *dev, uint8_t port,
			   struct pmr_port_attr *a)
{
	struct roce_dev *d = dev->priv;
	bool up = roce_link_up(d);

	(void)port;
	a->state = up ? PMR_PORT_ACTIVE : PMR_PORT_DOWN;
	a->phys_state = up ? 5 : 3;   /* LinkUp / Disabled */
	a->max_mtu = d->max_mtu;
	a->active_mtu = d->max_mtu;
	a->gid_tbl_len = (int)(sizeof(dev->gid) / sizeof(dev->gid[0]));
	a->port_cap_flags = PMR_PORT_CM_SUP | PMR_PORT_IP_BASED_GIDS;
	a->max_msg_sz = 1u << 31;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	a->active_width = 1;
	a->active_speed = 32;
	a->link_layer = PMR_LINK_LAYER_ETHERNET;
	return 0;
}

/* ---- progress ------------------------------------------------------------- */

static void qp_apply_resets(struct roce_qp *rq)
{
	if (rq->need_resp_reset) {
		rq->need_resp_reset = false;
		roce_resp_reset(rq);
	}
	if (rq->need_req_reset) {
		rq->need_req_reset = false;
		roce_req_reset(rq);
	}
}

static void doorbell(struct pmr_qp_obj *qp, void *arg)
{
	struct roce_dev *d = arg;

	d->st.doorbells++;
	roce_qp_activate(d, roce_qp_of(qp));
}

/* The earliest local ACK or solicit deadline of an RC QP in RTS or SQD
 * (the states whose timers run); 0 when none. */
static uint64_t qp_deadline(struct roce_qp *rq)
{
	struct pmr_qp_obj *qp = rq->qp;
	enum pmr_qp_state st = pmr_qp_state(qp);
	uint64_t a = rq->ack_deadline, s = rq->solicit_deadline;

	if (qp->pub.qp_type != PMR_QPT_RC ||
	    (st != PMR_QPS_RTS && st != PMR_QPS_SQD))
		return 0;
	if (a == 0 || (s != 0 && s < a))
		return s;
	return a;
}

/*
 * QPs with packets in flight but nothing to do wait on the timer wheel, so
 * the per-run walk stays as short as the work (with ACK coalescing most
 * QPs of a many-QP application have unacknowledged packets).  A QP waits
 * in the slot of its earliest deadline (one already passed: the slot
 * checked last); every ROCE_TIMER_EVERY runs, once the wheel is due, the
 * slots whose time has come are checked, and the QPs whose deadline
 * passed go back to the active list, where their timers run.  So a check
 * visits the QPs due about then, not every QP waiting: with deadlines
 * spread over time (one QP's every few microseconds with 1024 QPs) a walk
 * of them all came that often, and cost more the more QPs there were.
 *
 * A slot is a list linked through the QPs (one pointer each, in a hole of
 * their state: it does not grow), a QP put in at its head.  A QP made
 * active stays in its slot, and one that goes idle again is not moved
 * while its slot comes due no later than its new deadline (an unasked-
 * for tail's deadline holds for several messages, and later ones only
 * move later); nor is one whose timers stopped.  When its slot comes due,
 * a QP still active leaves the wheel (its timers run as it runs), one
 * without a timer leaves it, one whose deadline moved on goes to that
 * slot, one due goes back to the active list.  So a message writes no
 * other QP's lines on the wheel.  Only a deadline earlier than its slot's
 * turn (a shorter timeout set meanwhile) takes the QP out at once, a walk
 * of its slot, as destroying it does.  next_deadline may be early, never
 * late.
 */
static uint16_t wheel_pos(uint64_t tick)
{
	return (uint16_t)(tick & (ROCE_WHEEL_SLOTS - 1));
}

/* The slot time at which slot pos is next checked. */
static uint64_t wheel_due(const struct roce_dev *d, uint16_t pos)
{
	return d->wheel_tick +
	       ((pos - d->wheel_tick) & (ROCE_WHEEL_SLOTS - 1));
}

static void wheel_push(struct roce_dev *d, struct roce_qp *rq, uint16_t pos)
{
	rq->wheel_next = d->wheel[pos];
	d->wheel[pos] = rq;
	rq->wheel_pos = pos;
	rq->timed = true;
	d->ntimed++;
}

/* rq off its slot, found by a walk of it. */
static void wheel_unlink(struct roce_dev *d, struct roce_qp *rq)
{
	struct roce_qp **pp = &d->wheel[rq->wheel_pos];

	while (*pp != rq)
		pp = &(*pp)->wheel_next;
	*pp = rq->wheel_next;
	rq->timed = false;
	d->ntimed--;
}

/* rq goes idle: on the wheel at its earliest deadline, if it has one */
static void timed_add(struct roce_dev *d, struct roce_qp *rq)
{
	uint64_t dl = qp_deadline(rq), tick;

	if (dl == 0)
		return;         /* (still on the wheel: off when checked) */
	tick = RTE_MAX(dl >> d->wheel_shift, d->wheel_tick);
	if (rq->timed) {
		if (wheel_due(d, rq->wheel_pos) <= tick)
			goto due;       /* checked in time: moved then */
		wheel_unlink(d, rq);
	}
	wheel_push(d, rq, wheel_pos(tick));
due:
	if (dl < d->next_deadline)
		d->next_deadline = dl;
}

static void timed_expire(struct roce_dev *d, uint64_t now)
{
	uint64_t end = now >> d->wheel_shift;
	uint64_t t = d->wheel_tick, earliest = UINT64_MAX;

	/* each slot once at most, however long since the last check (and a
	 * clock read on another lcore a little behind the last one checks
	 * its own slot) */
	if (end < t)
		t = end;
	else if (end - t >= ROCE_WHEEL_SLOTS)
		t = end - (ROCE_WHEEL_SLOTS - 1);
	for (; t <= end; t++) {
		uint16_t pos = wheel_pos(t);
		struct roce_qp **pp = &d->wheel[pos], *rq;

		while ((rq = *pp) != NULL) {
			uint64_t dl = qp_deadline(rq);

			if (!rq->active && dl > now &&
			    wheel_pos(dl >> d->wheel_shift) == pos) {
				/* not due: a later turn, or later in this
				 * slot's time */
				if ((dl >> d->wheel_shift) == end &&
				    dl < earliest)
					earliest = dl;
				pp = &rq->wheel_next;
				continue;
			}
			*pp = rq->wheel_next;
			rq->timed = false;
			d->ntimed--;
			if (rq->active || dl == 0)
				continue;       /* its timers run as it runs;
						 * none runs */
			if (dl <= now)
				roce_qp_activate(d, rq);
			else    /* its deadline moved on: to its slot */
				wheel_push(d, rq, wheel_pos(dl >> d->wheel_shift));
		}
	}
	d->wheel_tick = end;
	/* the slot of now again at its earliest deadline, the next one
	 * when its time starts */
	d->next_deadline = d->ntimed == 0 ? UINT64_MAX :
			   RTE_MIN(earliest, (end + 1) << d->wheel_shift);
}

/* Nothing to send, no reply owed, no RNR wait: off the active list (onto
 * the timer wheel when a local ACK or solicit timer runs). */
static bool qp_idle(struct roce_qp *rq)
{
	struct pmr_qp_obj *qp = rq->qp;
	enum pmr_qp_state st = pmr_qp_state(qp);

	if (rq->need_req_reset || rq->need_resp_reset || rq->ack_pending ||
	    rq->nak_owed || (rq->sqd_notify && st == PMR_QPS_SQD) ||
	    rq->res_mask != 0)
		return false;
	if (st != PMR_QPS_RTS && st != PMR_QPS_SQD)
		return true;
	/* RTS: nothing left to send; SQD: no message left to finish */
	return !rq->resolving && rq->rnr_deadline == 0 &&
	       (st == PMR_QPS_RTS ?
		rq->req_idx == atomic_load_explicit(&qp->sq.prod,
						    memory_order_acquire) :
		!roce_sqd_may_send(rq));
}

/* One pass over the QPs with work: resets, timers (when `timers`: every
 * ROCE_TIMER_EVERY calls, the shortest, local ACK timeout 8 us and RNR
 * 10 us, being far longer than a call), responder, requester. */
static unsigned int run_qps(struct roce_dev *d, struct pmr_ctx_obj *ctx,
			    unsigned int budget, bool timers, uint64_t *now)
{
	struct pmr_list *pos, *next;
	unsigned int done = 0;

	for (pos = d->active.next; pos != &d->active; pos = next) {
		struct roce_qp *rq = PMR_CONTAINER_OF(pos, struct roce_qp,
						      active_link);
		struct pmr_qp_obj *qp = rq->qp;
		unsigned int left = budget > done ? budget - done : 1;

		next = pos->next;
		qp_apply_resets(rq);
		/* timers post_send's pass left unstarted, its frames held
		 * (tx_batch): they leave with this run */
		if (unlikely(rq->arm_ack || rq->arm_solicit))
			roce_req_arm(rq, roce_now(now));
		if (timers && qp->pub.qp_type == PMR_QPT_RC &&
		    (pmr_qp_state(qp) == PMR_QPS_RTS ||
		     pmr_qp_state(qp) == PMR_QPS_SQD))
			roce_req_timers(d, rq, now);
		done += roce_resp_run(d, rq, left, false);
		left = budget > done ? budget - done : 1;
		done += roce_req_run(d, rq, left, now);
		if (rq->sqd_notify && pmr_qp_state(qp) == PMR_QPS_SQD &&
		    !roce_sqd_may_send(rq) &&
		    (qp->pub.qp_type != PMR_QPT_RC ||
		     rq->una_psn == rq->req_psn)) {
			/* every WQE begun is sent, and for RC acknowledged
			 * (after a rewind, e.g. by an RNR NAK, nothing is in
			 * flight but WQEs begun wait to be sent again): the
			 * SQ is drained */
			rq->sqd_notify = false;
			pmr_async_raise(ctx, PMR_EVENT_SQ_DRAINED, &qp->pub, 0);
		}
		if (qp_idle(rq)) {
			pmr_list_del(&rq->active_link);
			rq->active = false;
			d->st.qps_active--;
			timed_add(d, rq);
		}
	}
	/* a full transmit queue: the next run starts one QP further on, so
	 * that no QP waits for ever behind the same busy ones */
	if (unlikely(d->ntx == ROCE_TX_MAX) && d->active.next != d->active.prev) {
		pos = d->active.next;
		pmr_list_del(pos);
		pmr_list_add_tail(&d->active, pos);
	}
	return done;
}

/* A memif client whose link went down (its server left or restarted its
 * port) is not connected again by memif: the port is set up and started
 * again now and then (waits of 100 ms doubling to 1 s) until a server
 * takes it. */
static void memif_reconnect(struct roce_dev *d, uint64_t now)
{
	int ret;

	if (d->reconnect_ms != 0 && now < d->reconnect_tsc)
		return;
	d->reconnect_ms = d->reconnect_ms == 0 ? LINK_WAIT_MS :
			  RTE_MIN(d->reconnect_ms * 2, (uint32_t)LINK_WAIT_MAX_MS);
	d->reconnect_tsc = now + d->tsc_hz / 1000 * d->reconnect_ms;
	if (!d->port_stopped)
		(void)rte_eth_dev_stop(d->port_id);
	ret = port_setup(d);
	if (ret == 0)
		ret = rte_eth_dev_start(d->port_id);
	d->port_stopped = ret != 0;
	ROCE_LOG(DEBUG, "port %u: memif client started again: %s",
		 d->port_id, ret == 0 ? "ok" : strerror(-ret));
}

/* The port's device removed: DEVICE_FATAL on the context, and every QP
 * of it in ERR, its WRs flushed (and those posted later), as after an
 * RNIC's catastrophic error; no burst touches the port again (nothing
 * sets port_down back: roce_link_up() says down from now on). */
static void device_fatal(struct roce_dev *d, struct pmr_ctx_obj *ctx)
{
	struct pmr_list *pos;

	d->port_down = true;
	d->link_up = false;
	d->fatal = true;
	ROCE_LOG(ERR, "port %u: its device is removed: DEVICE_FATAL, the "
		 "QPs in error", d->port_id);
	pmr_async_raise(ctx, PMR_EVENT_DEVICE_FATAL, NULL, 1);
	PMR_LIST_FOREACH(pos, &ctx->qps)
		pmr_qp_set_error(PMR_CONTAINER_OF(pos, struct pmr_qp_obj,
						  link), -1);
}

/* Port events: the link looked at every ROCE_LINK_CHECK_MS (with the
 * timers), a change raising PORT_ERR (down) or PORT_ACTIVE (up) on the
 * context, as an RNIC's driver does.  A memif client's link that is
 * down is brought back (memif_reconnect()).  A port whose device is
 * removed is not looked at again (device_fatal()). */
static void link_watch(struct roce_dev *d, struct pmr_ctx_obj *ctx,
		       uint64_t now)
{
	bool up;

	if (now - d->link_checked < d->link_check_tsc)
		return;
	d->link_checked = now;
	if (unlikely(atomic_load_explicit(&d->removed,
					  memory_order_acquire))) {
		if (!d->fatal)      /* once a context */
			device_fatal(d, ctx);
		return;
	}
	up = roce_link_up(d);
	if (up)
		d->reconnect_ms = 0;
	else if (d->memif_client)
		memif_reconnect(d, now);
	/* no burst while the link is down (nor to a stopped port: DPDK
	 * would log each one): frames wait, and are dropped after a second
	 * as on a ring that takes none (tx_keep()), none sent late */
	d->port_down = !up || d->port_stopped;
	if (up == d->link_up)
		return;
	d->link_up = up;
	ROCE_LOG(INFO, "port %u: link %s", d->port_id, up ? "up" : "down");
	pmr_async_raise(ctx, up ? PMR_EVENT_PORT_ACTIVE : PMR_EVENT_PORT_ERR,
			NULL, 1);
}

/*
 * One engine run: first what is owed (posted WRs, ACKs from earlier runs,
 * retransmissions, READ responses under way), then the receive burst.  What
 * the burst makes owed waits for the next run (an ACK would anyway, so the
 * completion it goes with reaches the application first), except replies
 * the responder sends as it takes a request in (READ responses, atomic
 * ACKs, NAKs).  So a
 * received SEND or WRITE returns to the application straight after its
 * completion or its data, without a pass over the QPs behind it.
 */
static int roce_progress(struct pmr_ctx_obj *ctx, unsigned int budget)
{
	struct roce_dev *d = ctx->dev->priv;
	unsigned int done;
	uint16_t n;
	bool timers;

	/* the frames the last run took in are let go now, not on the way
	 * from a receive to the application */
	if (d->nrx > 0)
		roce_rx_release(d);
	d->gen++;
	d->now = 0;
	timers = (d->gen & (ROCE_TIMER_EVERY - 1)) == 0;
	pmr_ctx_doorbells(ctx, doorbell, d);
	if (timers && d->next_deadline != UINT64_MAX &&
	    roce_now(&d->now) >= d->next_deadline)
		timed_expire(d, d->now);
	if (timers)
		link_watch(d, ctx, roce_now(&d->now));
	done = run_qps(d, ctx, budget, timers, &d->now);
	d->held_posts = 0;      /* (tx_batch) built, or waiting for the peer */
	roce_tx_flush(d);
	n = likely(!d->port_down) ?
	    rte_eth_rx_burst(d->port_id, d->queue, d->rx,
			     budget < ROCE_RX_BURST ? (uint16_t)budget :
			     ROCE_RX_BURST) : 0;
	d->nrx = n;
	for (uint16_t i = 0; i < n; i++)
		roce_rx(d, ctx, d->rx[i]);
	done += n;
	roce_tx_flush(d);
	return (int)done;
}

/*
 * What post_send's pass does for one QP: its WQEs, and with ack_with_reply
 * an ACK it owes behind them in the same burst.  (An ACK owed here always
 * comes from the last progress call's receive burst: the calls after it
 * send older ones first.)  A QP with a reset pending waits for progress,
 * which applies it first.
 */
static unsigned int kick_qp(struct roce_dev *d, struct roce_qp *rq,
			    unsigned int budget)
{
	unsigned int done;

	if (rq->need_req_reset || rq->need_resp_reset)
		return 0;
	done = roce_req_run(d, rq, budget, NULL);
	if (d->ack_with_reply && rq->ack_pending)
		done += roce_resp_run(d, rq, budget, true);
	return done;
}

/* tx_batch above 1: every QP with work visited as post_kick() visits its
 * own, each its share the batch at least (a QP that posted it all sends
 * it).  Out of line: the default path stays as small as it was. */
static __rte_noinline unsigned int kick_all(struct roce_dev *d,
					    unsigned int budget)
{
	unsigned int done = 0;

	d->held_posts = 0;
	budget = RTE_MAX(budget, d->tx_batch);
	for (struct pmr_list *pos = d->active.next; pos != &d->active;
	     pos = pos->next)
		done += kick_qp(d, PMR_CONTAINER_OF(pos, struct roce_qp,
						    active_link), budget);
	return done;
}

/*
 * post_send's doorbell in inline mode: send what was just posted to qp,
 * without a receive burst (poll_cq does that) and without visiting other
 * QPs or doorbells (the next progress call does).  The QP stays on the
 * active list for progress to finish with.  No gen++: an ACK owed waits
 * for the next progress call, so the frame just posted leaves alone, ahead
 * of it (in a ping-pong the peer takes in the reply without the ACK in
 * front of it, and this side builds the ACK while the peer works on the
 * reply).  Where a transmit burst costs a system call or a doorbell
 * (ack_with_reply), the ACK follows the reply in the same burst instead.
 *
 * With tx_batch=N above 1 a post only counts.  Once N wait (posts since
 * the last pass that built, on any QP, with the frames queued; or WRs not
 * yet built on the posting QP), every QP with work is visited as this one
 * would be (kick_all()), and all of it leaves in one burst, as a post of
 * a list would; fewer wait for the next engine run or the post that
 * makes N.  A QP
 * other than the one posting arms its timers at the next engine run
 * (roce_req_arm(): later rather than earlier).
 */
static int roce_post_kick(struct pmr_ctx_obj *ctx, struct pmr_qp_obj *qp,
			  unsigned int budget)
{
	struct roce_dev *d = ctx->dev->priv;
	struct roce_qp *rq = roce_qp_of(qp);
	unsigned int done;

	roce_qp_activate(d, rq);
	if (d->tx_batch == 1) {
		done = kick_qp(d, rq, budget);
	} else if (++d->held_posts + d->ntx < d->tx_batch &&
		   atomic_load_explicit(&qp->sq.prod, memory_order_relaxed) -
		   rq->req_idx < d->tx_batch) {
		return 0;
	} else {
		done = kick_all(d, budget);
	}
	/* (frames may have left already, tx_flush: the timers below start
	 * all the same) */
	if (d->ntx > 0)
		roce_tx_flush(d);
	/* the timers start once the frames are on their way (the TSC read
	 * costs as much as a few header fields) */
	if (rq->arm_ack || rq->arm_solicit)
		roce_req_arm(rq, rte_rdtsc());
	return (int)done;
}

/* ---- contexts and the service core ----------------------------------------- */

static int32_t service_run(void *arg)
{
	struct pmr_ctx_obj *ctx = arg;

	return pmr_progress(&ctx->pub, 64) > 0 ? 0 : -EAGAIN;
}

/* The lcores pmrdma made service lcores: each goes back to the
 * application when the last service running there leaves it (one the
 * application made stays as it is). */
static struct {
	pthread_mutex_t lock;
	bool made[RTE_MAX_LCORE];
} svc_lcores = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Makes lc a service lcore, unless it is one: not one that runs a
 * function of the application (rte_service_lcore_add() would wait for it
 * to return).  Called with the lock held. */
static int lcore_make(uint32_t lc)
{
	if (rte_eal_lcore_role(lc) == ROLE_SERVICE)
		return 0;
	if (rte_eal_get_lcore_state(lc) == RUNNING) {
		ROCE_LOG(ERR, "service_lcore=%u runs a function of the "
			 "application (rte_eal_remote_launch)", lc);
		return -EBUSY;
	}
	/* (its value is what the lcore's last function returned) */
	(void)rte_service_lcore_add(lc);
	if (rte_eal_lcore_role(lc) != ROLE_SERVICE) {
		ROCE_LOG(ERR, "lcore %u cannot be a service lcore", lc);
		return -EINVAL;
	}
	svc_lcores.made[lc] = true;
	return 0;
}

/* Gives lc back to the application if pmrdma made it a service lcore and
 * no service is mapped there (another device's, or one the application
 * mapped): stopped, an EAL lcore again, its service loop returned (so
 * rte_eal_remote_launch() takes it).  (rte_service_lcore_stop() would
 * refuse with a running service mapped, but on its way clears the marks
 * rte_service_may_be_active() reads, which service_stop() of the other
 * device relies on.)  Called with the lock held. */
static void lcore_give_back(uint32_t lc)
{
	int ret;

	if (!svc_lcores.made[lc] || rte_service_lcore_count_services(lc) != 0)
		return;
	/* (with no service mapped, neither refuses; were one to, the wait
	 * would never end) */
	(void)rte_service_lcore_stop(lc);
	ret = rte_service_lcore_del(lc);
	if (ret != 0) {
		/* still marked made: the next device to leave it tries again */
		ROCE_LOG(WARNING, "lcore %u stays a service lcore, stopped: %s",
			 lc, strerror(-ret));
		return;
	}
	(void)rte_eal_wait_lcore(lc);
	svc_lcores.made[lc] = false;
}

/* The engine's service mapped to service_lcore, which runs. */
static int service_map(struct roce_dev *d)
{
	uint32_t lc = (uint32_t)d->service_lcore;
	int ret;

	pthread_mutex_lock(&svc_lcores.lock);
	ret = lcore_make(lc);
	if (ret == 0)
		ret = rte_service_map_lcore_set(d->service_id, lc, 1);
	if (ret == 0) {
		ret = rte_service_lcore_start(lc);
		if (ret == -EALREADY)
			ret = 0;
		if (ret != 0)
			ROCE_LOG(ERR, "service lcore %u does not start: %s",
				 lc, strerror(-ret));
	}
	pthread_mutex_unlock(&svc_lcores.lock);
	return ret;
}

static void service_unmap(struct roce_dev *d)
{
	uint32_t lc = (uint32_t)d->service_lcore;

	pthread_mutex_lock(&svc_lcores.lock);
	rte_service_map_lcore_set(d->service_id, lc, 0);
	lcore_give_back(lc);
	pthread_mutex_unlock(&svc_lcores.lock);
}

/* The engine as a service on service_lcore; what it leaves behind when it
 * fails, service_stop() undoes. */
static int service_start(struct pmr_ctx_obj *ctx)
{
	struct roce_dev *d = ctx->dev->priv;
	struct rte_service_spec spec;
	enum rte_lcore_role_t role;
	int ret;

	if (d->service_lcore < 0) {
		ROCE_LOG(ERR, "service progress needs service_lcore=N");
		return -ENOTSUP;
	}
	/* (an EAL lcore, or one a service lcore already: of another device,
	 * or the application's) */
	role = rte_eal_lcore_role((unsigned int)d->service_lcore);
	if ((role != ROLE_RTE && role != ROLE_SERVICE) ||
	    (unsigned int)d->service_lcore == rte_get_main_lcore()) {
		ROCE_LOG(ERR, "service_lcore=%d must be an EAL lcore (-l) "
			 "other than the main lcore", d->service_lcore);
		return -EINVAL;
	}
	memset(&spec, 0, sizeof(spec));
	snprintf(spec.name, sizeof(spec.name), "pmr_roce_%d", ctx->dev->index);
	spec.callback = service_run;
	spec.callback_userdata = ctx;
	ret = rte_service_component_register(&spec, &d->service_id);
	if (ret != 0) {
		ROCE_LOG(ERR, "DPDK service %s not registered: %s", spec.name,
			 strerror(-ret));
		return ret;
	}
	d->service_registered = true;
	rte_service_component_runstate_set(d->service_id, 1);
	rte_service_runstate_set(d->service_id, 1);
	return service_map(d);
}

static void service_stop(struct roce_dev *d)
{
	if (!d->service_registered)
		return;
	rte_service_runstate_set(d->service_id, 0);
	rte_service_component_runstate_set(d->service_id, 0);
	while (rte_service_may_be_active(d->service_id) == 1)
		rte_pause();
	service_unmap(d);
	rte_service_component_unregister(d->service_id);
	d->service_registered = false;
}

static int roce_ctx_open(struct pmr_ctx_obj *ctx)
{
	struct roce_dev *d = ctx->dev->priv;
	int ret;

	if (d->ctx != NULL)
		return -EBUSY;      /* first version: one context per device */
	d->ctx = ctx;
	d->fatal = false;       /* (a removal is told to each context) */
	/* port events tell changes from the link's state now; no burst
	 * while it is down (link_watch()) */
	d->link_up = roce_link_up(d);
	d->port_down = !d->link_up || d->port_stopped;
	d->link_checked = rte_rdtsc();
	ctx->mode = d->default_mode;
	if (ctx->mode == PMR_PROGRESS_SERVICE) {
		ret = service_start(ctx);
		if (ret != 0) {
			service_stop(d);
			d->ctx = NULL;
			return ret;
		}
	}
	return 0;
}

static void roce_ctx_close(struct pmr_ctx_obj *ctx)
{
	struct roce_dev *d = ctx->dev->priv;

	service_stop(d);
	d->ctx = NULL;
}

static int roce_set_progress_mode(struct pmr_ctx_obj *ctx,
				  enum pmr_progress_mode mode)
{
	struct roce_dev *d = ctx->dev->priv;
	int ret;

	if (mode == ctx->mode)
		return 0;
	if (ctx->mode == PMR_PROGRESS_SERVICE)
		service_stop(d);
	if (mode != PMR_PROGRESS_SERVICE)
		return 0;
	ret = service_start(ctx);
	if (ret != 0)
		service_stop(d);      /* leave nothing registered behind */
	return ret;
}

/* ---- QPs, AHs, MRs ---------------------------------------------------------- */

/* The verbs layer allocates the RoCE state right after the QP object
 * (roce_ops.qp_priv_size): aligned, zeroed, and found from the object
 * without a load (roce_qp_of()). */
static int roce_qp_create(struct pmr_qp_obj *qp)
{
	struct roce_qp *rq = roce_qp_of(qp);

	rq->wst = calloc(qp->sq.size, sizeof(*rq->wst));
	if (rq->wst == NULL)
		return -ENOMEM;
	rq->qp = qp;
	rq->sport = wire_udp_sport(qp->pub.qp_num);
	roce_qp_set_timeout(qp->ctx->dev->priv, rq, 0);
	pmr_list_init(&rq->active_link);
	return 0;
}

static size_t roce_qp_mem(const struct pmr_qp_obj *qp)
{
	return sizeof(struct roce_qp) +
	       (size_t)qp->sq.size * sizeof(struct roce_swqe_st);
}

static void roce_qp_destroy(struct pmr_qp_obj *qp)
{
	struct roce_qp *rq = roce_qp_of(qp);
	struct roce_dev *d = qp->ctx->dev->priv;

	roce_resp_send_owed(d, rq);
	/* frames built and not yet sent go too: a UC or UD send completed
	 * when they were built.  (A context closes only once its QPs are
	 * destroyed, so none are left then.)  WRs posted and not yet built
	 * (tx_batch) go with the QP, unsent, as those the window held back
	 * do. */
	roce_tx_flush(d);
	/* it may still be on the doorbell stack or the active list */
	pmr_ctx_doorbells(qp->ctx, doorbell, d);
	if (rq->active) {
		pmr_list_del(&rq->active_link);
		d->st.qps_active--;
	}
	if (rq->timed)
		wheel_unlink(d, rq);
	free(rq->wst);          /* (the state itself goes with the object) */
}

static int roce_qp_modify(struct pmr_qp_obj *qp, const struct pmr_qp_attr *a,
			  int mask)
{
	struct roce_qp *rq = roce_qp_of(qp);
	struct roce_dev *d = qp->ctx->dev->priv;
	enum pmr_qp_state cur = pmr_qp_state(qp);
	enum pmr_qp_state next = (mask & PMR_QP_STATE) ? a->qp_state : cur;

	/* once the port's device is removed, a QP goes nowhere but to
	 * RESET or ERR */
	if (atomic_load_explicit(&d->removed, memory_order_acquire) &&
	    next != PMR_QPS_RESET && next != PMR_QPS_ERR)
		return -EIO;

	if (next == PMR_QPS_RESET)
		roce_resp_send_owed(d, rq);
	/* whatever changes, the next packet's headers are made anew */
	rq->tmpl_valid = false;
	if (mask & PMR_QP_AV) {
		const struct pmr_ah_attr *ah = &a->ah_attr;

		/* source and destination GIDs of one family */
		if (roce_gid_is_v4(qp->ctx->dev->gid[ah->grh.sgid_index].raw) !=
		    roce_gid_is_v4(ah->grh.dgid.raw))
			return -EINVAL;
		rq->dmac_valid = false;
	}
	if (next == PMR_QPS_RESET || (next == PMR_QPS_RTR && cur == PMR_QPS_INIT))
		rq->need_resp_reset = true;
	if (next == PMR_QPS_RESET || (next == PMR_QPS_RTS && cur == PMR_QPS_RTR))
		rq->need_req_reset = true;
	if ((mask & PMR_QP_DEST_QPN) && qp->pub.qp_type != PMR_QPT_UD)
		rq->sport = wire_udp_sport_flow(qp->pub.qp_num, a->dest_qp_num);
	if (mask & PMR_QP_TIMEOUT)
		roce_qp_set_timeout(qp->ctx->dev->priv, rq, a->timeout);
	if (next == PMR_QPS_RTS && cur == PMR_QPS_SQE) {
		/* SQE flushed every WR posted: the requester starts at the
		 * first one posted from now on, not at a flushed one */
		roce_req_restart(rq);
	}
	if (next == PMR_QPS_SQD && cur == PMR_QPS_RTS)
		rq->sqd_notify = (mask & PMR_QP_EN_SQD_ASYNC_NOTIFY) &&
				 a->en_sqd_async_notify;
	else if (next != PMR_QPS_SQD)
		rq->sqd_notify = false;
	/* the engine looks at the QP next run: into SQD (to drain and tell),
	 * back from it (WRs queued meanwhile go out), or to reset it */
	if ((next == PMR_QPS_SQD && cur == PMR_QPS_RTS) ||
	    (next == PMR_QPS_RTS && cur == PMR_QPS_SQD) ||
	    rq->need_req_reset || rq->need_resp_reset)
		roce_qp_activate(qp->ctx->dev->priv, rq);
	return 0;
}

static int roce_ah_create(struct pmr_ah_obj *ah)
{
	struct pmr_dev_obj *dev = pmr_ctx_obj(ah->pub.context)->dev;
	struct roce_dev *d = dev->priv;
	uint8_t mac[6];

	if (roce_gid_is_v4(dev->gid[ah->attr.grh.sgid_index].raw) !=
	    roce_gid_is_v4(ah->attr.grh.dgid.raw))
		return -EINVAL;
	/* start resolving now (sends look the neighbour up each time and
	 * wait for the answer) */
	roce_resolve(d, ah->attr.grh.dgid.raw, mac);
	return 0;
}

static bool roce_mr_busy(struct pmr_ctx_obj *ctx, struct pmr_mr_obj *mr)
{
	struct pmr_list *pos;

	PMR_LIST_FOREACH(pos, &ctx->qps) {
		struct pmr_qp_obj *qp = PMR_CONTAINER_OF(pos,
			struct pmr_qp_obj, link);

		if (roce_resp_mr_busy(roce_qp_of(qp), mr))
			return true;
	}
	return false;
}

static const struct pmr_driver roce_driver = {
	.name = "roce",
	.needs_eal = true,
	.probe = roce_probe,
	.remove = roce_remove,
	.query_port = roce_query_port,
	.ctx_open = roce_ctx_open,
	.ctx_close = roce_ctx_close,
	.set_progress_mode = roce_set_progress_mode,
	.qp_priv_size = sizeof(struct roce_qp),
	.qp_create = roce_qp_create,
	.qp_modify = roce_qp_modify,
	.qp_destroy = roce_qp_destroy,
	.qp_mem = roce_qp_mem,
	.ah_create = roce_ah_create,
	.progress = roce_progress,
	.post_kick = roce_post_kick,
	.mr_busy = roce_mr_busy,
	.doorbells = true,
	.sq_drained_async = true,
};

PMR_DRIVER_REGISTER(roce_driver)

/* ---- counters ------------------------------------------------------------------ */

PMR_EXPORT int pmr_roce_port_stats(struct pmr_device *device,
				   struct pmr_roce_port_stats *stats)
{
	struct pmr_dev_obj *dev;

	if (device == NULL || stats == NULL)
		return EINVAL;
	dev = pmr_dev_obj(device);
	if (dev->drv != &roce_driver)
		return EINVAL;
	*stats = ((struct roce_dev *)dev->priv)->st;
	return 0;
}

PMR_EXPORT int pmr_roce_qp_stats(struct pmr_qp *qp,
				 struct pmr_roce_qp_stats *stats)
{
	struct pmr_qp_obj *q;

	if (qp == NULL || stats == NULL)
		return EINVAL;
	q = pmr_qp_obj(qp);
	if (q->ctx->dev->drv != &roce_driver)
		return EINVAL;
	*stats = roce_qp_of(q)->st;
	return 0;
}
