/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RoCE device refuses bad arguments with EINVAL, a port that does not
 * exist with ENODEV, and leaves no device behind; its counters API refuses
 * devices and QPs of another driver.  No EAL is initialised: every case
 * fails before the port would be touched.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <pmr_roce.h>
#include <pmr_verbs.h>

#include "vt.h"

int main(void)
{
	static const struct {
		const char *args;
		int err;
	} cases[] = {
		{ "", EINVAL },                              /* no address */
		{ "port=0", EINVAL },
		{ "ipv4=10.0.0.1,bogus=1", EINVAL },         /* unknown key */
		{ "ipv4=10.0.0.300", EINVAL },
		{ "ipv4=10.0.0.1,port=-1", EINVAL },
		{ "ipv4=10.0.0.1,port=x", EINVAL },
		{ "ipv4=10.0.0.1,mtu=1000", EINVAL },
		{ "ipv4=10.0.0.1,mtu=1024abc", EINVAL },
		{ "ipv4=10.0.0.1,mtu=", EINVAL },
		{ "ipv4=10.0.0.1,port=", EINVAL },
		{ "ipv4=10.0.0.1,port=1x", EINVAL },
		{ "ipv4=10.0.0.1,service_lcore=", EINVAL },
		{ "ipv4=10.0.0.1,service_lcore=2x", EINVAL },
		{ "ipv4=10.0.0.1,mac=02:00:00:00:00", EINVAL },
		{ "ipv4=10.0.0.1,mac=02:00:00:00:00:zz", EINVAL },
		{ "ipv4=10.0.0.1,neigh=10.0.0.2", EINVAL },  /* no MAC */
		{ "ipv4=10.0.0.1,neigh=10.0.0.2/02:00", EINVAL },
		{ "ipv4=10.0.0.1,progress=fast", EINVAL },
		{ "ipv4=10.0.0.1,service_lcore=-1", EINVAL },
		{ "ipv4=10.0.0.1,ack=later", EINVAL },
		{ "ipv4=10.0.0.1,ack=", EINVAL },
		{ "ipv4=10.0.0.1,ackreq=0", EINVAL },
		{ "ipv4=10.0.0.1,ackreq=65", EINVAL },
		{ "ipv4=10.0.0.1,ackreq=8x", EINVAL },
		{ "ipv4=10.0.0.1,ackreq=", EINVAL },
		{ "ipv4=10.0.0.1,tx_batch=0", EINVAL },
		{ "ipv4=10.0.0.1,tx_batch=65", EINVAL },
		{ "ipv4=10.0.0.1,tx_batch=8x", EINVAL },
		{ "ipv4=10.0.0.1,tx_batch=", EINVAL },
		{ "ipv4=10.0.0.1,tx_flush=-1", EINVAL },
		{ "ipv4=10.0.0.1,tx_flush=1048577", EINVAL },
		{ "ipv4=10.0.0.1,tx_flush=8k", EINVAL },
		{ "ipv4=10.0.0.1,tx_flush=", EINVAL },
		{ "ipv4=10.0.0.1,tx_flush=Auto", EINVAL },
		{ "ipv6=::ffff:10.0.0.1", EINVAL },          /* IPv4-mapped */
		{ "ipv6=ff02::1", EINVAL },                  /* multicast */
		{ "ipv6=fd00::zz", EINVAL },
		{ "ipv4=10.0.0.1", ENODEV },                 /* no port 0 */
		{ "ipv6=fd00::1,port=3", ENODEV },
		/* valid values get as far as the missing port */
		{ "ipv4=10.0.0.1,ack=auto", ENODEV },
		{ "ipv4=10.0.0.1,ack=separate", ENODEV },
		{ "ipv4=10.0.0.1,ack=with_reply", ENODEV },
		{ "ipv4=10.0.0.1,ackreq=1", ENODEV },
		{ "ipv4=10.0.0.1,ackreq=64", ENODEV },
		{ "ipv4=10.0.0.1,tx_batch=1", ENODEV },
		{ "ipv4=10.0.0.1,tx_batch=64", ENODEV },
		{ "ipv4=10.0.0.1,tx_flush=auto", ENODEV },
		{ "ipv4=10.0.0.1,tx_flush=0", ENODEV },
		{ "ipv4=10.0.0.1,tx_flush=1048576", ENODEV },
		{ "ipv4=10.0.0.1,mtu=4096", ENODEV },
		{ "ipv4=10.0.0.1,service_lcore=1", ENODEV },
	};
	struct pmr_roce_port_stats ps;
	struct pmr_roce_qp_stats qs;
	struct vt v;
	struct vt_opts o = vt_opts_default();
	struct vt_pair p;
	int before = vt_ndevices();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmr_device *d;

		errno = 0;
		d = pmr_device_create("roce", cases[i].args);
		if (d != NULL || errno != cases[i].err)
			fprintf(stderr, "roce:%s -> %p errno %d (want %d)\n",
				cases[i].args, (void *)d, errno, cases[i].err);
		CHECK(d == NULL);
		CHECK_EQ(errno, cases[i].err);
	}
	CHECK_EQ(vt_ndevices(), before);

	/* the counters API takes RoCE devices and QPs only */
	vt_open(&v);
	CHECK_EQ(pmr_roce_port_stats(v.ctx->device, &ps), EINVAL);
	CHECK_EQ(pmr_roce_port_stats(NULL, &ps), EINVAL);
	CHECK_EQ(pmr_roce_port_stats(v.ctx->device, NULL), EINVAL);
	vt_pair(&v, PMR_QPT_RC, &o, 0, &p);
	CHECK_EQ(pmr_roce_qp_stats(p.qp[0], &qs), EINVAL);
	CHECK_EQ(pmr_roce_qp_stats(NULL, &qs), EINVAL);
	vt_pair_destroy(&p);
	vt_close(&v);
	return vt_exit();
}
