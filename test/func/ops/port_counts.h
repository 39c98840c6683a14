/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters the one-process tests on a net_ring port read (tx_batch.c,
 * tx_flush.c): what ethdev port 0 took for transmission, and the RoCE
 * device's own counters.  Include after vt.h (CHECK_EQ).
 */
#ifndef PMR_TEST_PORT_COUNTS_H
#define PMR_TEST_PORT_COUNTS_H

#include <stdint.h>

#include <rte_ethdev.h>

#include <pmr_roce.h>

/* Frames port 0 took for transmission so far. */
static inline uint64_t port_sent(void)
{
	struct rte_eth_stats s;

	CHECK_EQ(rte_eth_stats_get(0, &s), 0);
	return s.opackets;
}

/* The counters of RoCE device dev. */
static inline struct pmr_roce_port_stats roce_counts(struct pmr_device *dev)
{
	struct pmr_roce_port_stats ps;

	CHECK_EQ(pmr_roce_port_stats(dev, &ps), 0);
	return ps;
}

#endif
