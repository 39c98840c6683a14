/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "ringport.h"
#include "vt.h"

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

struct pmr_device *ringport_device_args(struct ringport *rp,
					const char *name, unsigned int size,
					uint8_t net, const char *extra)
{
	char rname[64], mac[18], args[256];
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
	snprintf(mac, sizeof(mac), "02:00:00:00:%02x:01", net);
	snprintf(args, sizeof(args),
		 "port=%u,ipv4=10.%u.0.1,mac=%s,neigh=10.%u.0.1/%s%s",
		 rp->port, net, mac, net, mac, extra);
	return pmr_device_create("roce", args);
}

uint64_t ringport_sent(const struct ringport *rp)
{
	struct rte_eth_stats s;

	CHECK_EQ(rte_eth_stats_get(rp->port, &s), 0);
	return s.opackets;
}
