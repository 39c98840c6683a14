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

/* Runs the engine for ms milliseconds, then takes every async event:
 * @return how many there were, the last in *last. */
static int events_after(struct vt *v, int ms, struct pmr_async_event *last)
{
	uint64_t t0 = vt_now_ms();
	struct pmr_async_event ev;
	int n = 0;

	while (vt_now_ms() - t0 < (uint64_t)ms)
		CHECK(pmr_progress(v->ctx, 32) >= 0);
	while (vt_async(v, &ev) == 0) {
		*last = ev;
		n++;
	}
	return n;
}

static enum pmr_port_state port_state(struct vt *v)
{
	struct pmr_port_attr pa;

	CHECK_EQ(pmr_query_port(v->ctx, 1, &pa), 0);
	return pa.state;
}

/* One event of type t with port 1 within 100 ms, then none for 100 ms. */
static void one_event(struct vt *v, enum pmr_event_type t, const char *when)
{
	struct pmr_async_event ev;
	int n;

	memset(&ev, 0, sizeof(ev));
	n = events_after(v, 100, &ev);
	EXPECT_EQ_MSG(n, 1, "events %s", when);
	if (n > 0) {
		EXPECT_EQ_MSG(ev.event_type, t, "the event %s (%s)", when,
			      pmr_event_type_str(ev.event_type));
		EXPECT_EQ_MSG(ev.element.port_num, 1, "its port %s", when);
	}
	EXPECT_EQ_MSG(events_after(v, 100, &ev), 0, "events later %s", when);
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
	EXPECT_EQ_MSG(events_after(&v, 100, &ev), 0, "events at the start");

	CHECK_EQ(rte_eth_dev_set_link_down(PORT), 0);
	one_event(&v, PMR_EVENT_PORT_ERR, "after the link went down");
	EXPECT_EQ(port_state(&v), PMR_PORT_DOWN);

	CHECK_EQ(rte_eth_dev_set_link_up(PORT), 0);
	one_event(&v, PMR_EVENT_PORT_ACTIVE, "after the link came up");
	EXPECT_EQ(port_state(&v), PMR_PORT_ACTIVE);

	/* nothing runs the engine: nothing is raised until it runs */
	CHECK_EQ(rte_eth_dev_set_link_down(PORT), 0);
	usleep(50000);
	EXPECT_MSG(vt_async(&v, &ev) != 0, "an event without an engine run");
	one_event(&v, PMR_EVENT_PORT_ERR, "once the engine ran");
	CHECK_EQ(rte_eth_dev_set_link_up(PORT), 0);
	one_event(&v, PMR_EVENT_PORT_ACTIVE, "up again");

	CHECK_EQ(pmr_set_progress_mode(v.ctx, PMR_PROGRESS_INLINE), 0);
	vt_send_passes(&v);
	vt_close(&v);
	return vt_exit();
}
