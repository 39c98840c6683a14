/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The peer of memif_restart.sh and veth_away.sh: plain DPDK (no pmrdma),
 * port 0 (a memif server or client, an af_packet port) set up and
 * started, every frame it receives sent back until SIGTERM, then the
 * port stopped and closed (a memif peer told: memif's disconnect
 * message).  Its mbufs take 9 KiB frames (af_packet's frames of 8 KiB
 * must fit one).  The EAL arguments are its command line.  It ends itself
 * after 60 s (SIGALRM), so that a script that died cannot leave it
 * spinning.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct rte_eth_conf conf;
	struct rte_mempool *pool;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "port_echo: rte_eal_init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGTERM, on_term);
	alarm(60);
	pool = rte_pktmbuf_pool_create("echo", 2047, 0, 0,
				       RTE_PKTMBUF_HEADROOM + 9216,
				       (int)rte_socket_id());
	memset(&conf, 0, sizeof(conf));
	if (pool == NULL || rte_eth_dev_configure(0, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(0, 0, 256, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(0, 0, 256, 0, NULL) != 0 ||
	    rte_eth_dev_start(0) != 0) {
		fprintf(stderr, "port_echo: port 0 set-up failed\n");
		return 1;
	}
	printf("port_echo: serving\n");
	fflush(stdout);
	while (!stop) {
		struct rte_mbuf *m[32];
		uint16_t n = rte_eth_rx_burst(0, 0, m, 32), k;

		k = rte_eth_tx_burst(0, 0, m, n);
		for (; k < n; k++)
			rte_pktmbuf_free(m[k]);
	}
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	rte_eal_cleanup();
	return 0;
}
