/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ringport.h"
#include "vt.h"
#include "wire.h"

void ringport_eal_init(void)
{
	struct pmr_device **list = pmr_get_device_list(NULL);

	CHECK(list != NULL);
	pmr_free_device_list(list);
}

struct pmr_device *ringport_device(struct ringport *rp, const char *name,
				   unsigned int size, uint8_t net)
{
	return ringport_device_args(rp, name, size, net, "");
}

/* The RoCE device with address 10.NET.0.1, its own neighbour, on port. */
static struct pmr_device *device_on(uint16_t port, uint8_t net,
				    const char *extra)
{
	char mac[18], args[256];

	snprintf(mac, sizeof(mac), "02:00:00:00:%02x:01", net);
	snprintf(args, sizeof(args),
		 "port=%u,ipv4=10.%u.0.1,mac=%s,neigh=10.%u.0.1/%s%s",
		 port, net, mac, net, mac, extra);
	return pmr_device_create("roce", args);
}

struct pmr_device *ringport_device_args(struct ringport *rp,
					const char *name, unsigned int size,
					uint8_t net, const char *extra)
{
	char rname[64];
	int id;

	snprintf(rname, sizeof(rname), "%s_rx", name);
	rp->rx = rte_ring_create(rname, size, (int)rte_socket_id(),
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(rname, sizeof(rname), "%s_tx", name);
	rp->tx = rte_ring_create(rname, size, (int)rte_socket_id(),
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	CHECK(rp->rx != NULL && rp->tx != NULL);
	snprintf(rname, sizeof(rname), "net_%s", name);
	id = rte_eth_from_rings(rname, &rp->rx, 1, &rp->tx, 1,
				(unsigned int)rte_socket_id());
	CHECK(id >= 0);
	rp->port = (uint16_t)id;
	rp->mac[0] = 0x02;
	rp->mac[1] = rp->mac[2] = rp->mac[3] = 0;
	rp->mac[4] = net;
	rp->mac[5] = 0x01;
	return device_on(rp->port, net, extra);
}

uint16_t ringport_loop(const char *name)
{
	struct rte_ring *r = rte_ring_create(name, 1024, (int)rte_socket_id(),
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
	int id;

	CHECK(r != NULL);
	id = rte_eth_from_ring(r);
	CHECK(id >= 0);
	return (uint16_t)id;
}

struct pmr_device *ringport_loop_device(const char *name, uint8_t net,
					const char *extra)
{
	return device_on(ringport_loop(name), net, extra);
}

struct rte_mempool *ringport_open(struct ringport *rp, struct vt *v,
				  const char *name, unsigned int size,
				  uint8_t net, unsigned int own)
{
	char pname[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *pool;
	struct pmr_device *dev;

	ringport_eal_init();
	snprintf(pname, sizeof(pname), "%s_own", name);
	pool = rte_pktmbuf_pool_create(pname, own, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	CHECK(pool != NULL);
	dev = ringport_device(rp, name, size, net);
	CHECK(dev != NULL);
	vt_open_dev(v, dev);
	return pool;
}

unsigned int ringport_take(struct ringport *rp,
			   void (*fn)(const struct wire_pkt *p, void *arg),
			   void *arg)
{
	unsigned int n = 0;
	void *o = NULL;

	for (; rte_ring_dequeue(rp->tx, &o) == 0; n++) {
		struct rte_mbuf *m = o;
		struct wire_pkt p;

		if (fn != NULL)
			fn(wire_parse(rte_pktmbuf_mtod(m, const uint8_t *),
				      m->data_len, 0, &p) == 0 ? &p : NULL,
			   arg);
		rte_pktmbuf_free(m);
	}
	return n;
}

uint64_t ringport_sent(const struct ringport *rp)
{
	struct rte_eth_stats s;

	CHECK_EQ(rte_eth_stats_get(rp->port, &s), 0);
	return s.opackets;
}

void ringport_ack(struct ringport *rp, struct rte_mempool *pool,
		  uint32_t qpn, uint32_t psn, uint32_t msn)
{
	const uint8_t gid[16] = { [10] = 0xff, [11] = 0xff,
				  10, rp->mac[4], 0, 1 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct wire_build b;
	uint8_t *f;
	int hl, len;

	CHECK(m != NULL);
	wire_build_init(&b);
	memcpy(b.dmac, rp->mac, 6);
	memcpy(b.smac, rp->mac, 6);
	memcpy(b.sgid, gid, 16);
	memcpy(b.dgid, gid, 16);
	b.sport = 0xC000;
	b.opcode = WIRE_OP_RC_ACKNOWLEDGE;
	b.dqpn = qpn;
	b.psn = psn;
	b.syndrome = wire_syn_ack(WIRE_AETH_CREDIT_INVALID);
	b.msn = msn;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	hl = wire_build_hdrs(f, rte_pktmbuf_tailroom(m), &b);
	CHECK(hl > 0);
	len = wire_build_finish(f, rte_pktmbuf_tailroom(m), (size_t)hl);
	CHECK(len > 0);
	m->data_len = (uint16_t)len;
	m->pkt_len = (uint32_t)len;
	CHECK_EQ(rte_ring_enqueue(rp->rx, m), 0);
}
