/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port events: the engine raises PMR_EVENT_PORT_ERR when the link of its
 * port goes down and PMR_EVENT_PORT_ACTIVE when it comes up, once per
 * change, with port_num 1, and pmr_query_port agrees.  One process, a
 * RoCE device on a net_ring vdev that receives its own frames (ring.sh);
 * the program takes the link down and up with rte_eth_dev_set_link_down()
 * / _up(), as a cable pulled and put back.
 *
 * - the device says it raises them (PMR_DEVICE_PORT_ACTIVE_EVENT);
 * - none at the start, none while nothing changes;
 * - link down: one PORT_ERR within 100 ms of engine runs; pmr_query_port
 *   DOWN; then nothing more;
 * - link up: one PORT_ACTIVE; ACTIVE again; a SEND passes;
 * - with manual progress nothing runs the engine, so nothing is raised
 *   until pmr_progress runs.
 *
 *   port_events        run by ring.sh
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include <pmr_verbs.h>

#include "vt.h"

enum { PORT = 0 };      /* ring.sh's net_ring0 */

static enum pmr_port_state port_state(struct vt *v)
{
	struct pmr_port_attr pa;

	CHECK_EQ(pmr_query_port(v->ctx, 1, &pa), 0);
	return pa.state;
}

int main(void)
{
	struct pmr_async_event ev;
	struct pmr_device_attr da;
	struct vt v;

	vt_open(&v);
	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_MANUAL), 0);
	CHECK_EQ(pmr_query_device(v.ctx, &da), 0);
	EXPECT_MSG(da.device_cap_flags & PMR_DEVICE_PORT_ACTIVE_EVENT,
		   "device_cap_flags 0x%x", (unsigned)da.device_cap_flags);
	EXPECT_EQ(port_state(&v), PMR_PORT_ACTIVE);
	EXPECT_EQ_MSG(vt_events_after(&v, 100, &ev), 0, "events at the start");

	CHECK_EQ(rte_eth_dev_set_link_down(PORT), 0);
	vt_port_event(&v, PMR_EVENT_PORT_ERR, 100, "after the link went down");
	EXPECT_EQ(port_state(&v), PMR_PORT_DOWN);

	CHECK_EQ(rte_eth_dev_set_link_up(PORT), 0);
	vt_port_event(&v, PMR_EVENT_PORT_ACTIVE, 100, "after the link came up");
	EXPECT_EQ(port_state(&v), PMR_PORT_ACTIVE);

	/* nothing runs the engine: nothing is raised until it runs */
	CHECK_EQ(rte_eth_dev_set_link_down(PORT), 0);
	usleep(50000);
	EXPECT_MSG(vt_async(&v, &ev) != 0, "an event without an engine run");
	vt_port_event(&v, PMR_EVENT_PORT_ERR, 100, "once the engine ran");
	CHECK_EQ(rte_eth_dev_set_link_up(PORT), 0);
	vt_port_event(&v, PMR_EVENT_PORT_ACTIVE, 100, "up again");

	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_INLINE), 0);
	vt_send_passes(&v);
	vt_close(&v);
	return vt_exit();
}
