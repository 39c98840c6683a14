/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Service progress and the lcore it runs on (EAL lcores 0 and 1, the
 * devices' service_lcore=1).  Device 0 (ring.sh's, on net_ring0) opens
 * inline and is switched with pmr_set_progress_mode(); device 1, on a
 * loopback port the program makes, opens in service mode.  Both ports
 * give their frames back to their device.
 *
 * - lcore 1 running a function of the application: pmr_open_device() and
 *   pmr_set_progress_mode(SERVICE) fail at once with EBUSY (they do not
 *   wait for the function to return), and change nothing: lcore 1 is no
 *   service lcore, no service is registered, the function runs on and
 *   returns its value;
 * - no room for another DPDK service (the table filled by the program):
 *   the service's registration error, nothing changed;
 * - the service lcore failing to start (rte_service_lcore_start, defined
 *   by this program and armed to fail once): its error, lcore 1 an EAL
 *   lcore again, no service left;
 * - rte_service_lcore_add (also the program's) leaving lcore 1 an EAL
 *   lcore: EINVAL at once, no mapping, start or removal of it tried, nothing
 *   changed;
 * - rte_service_lcore_del (the program's) refusing as the last device
 *   leaves: lcore 1 stays a service lcore, stopped; the next device
 *   served there runs, and gives it back when it leaves;
 * - both devices in service mode share lcore 1 (made a service lcore by
 *   pmrdma, also after its last function returned a value that is not
 *   0); a SEND passes on each; closing one leaves the other served;
 * - a service of the application's mapped to lcore 1 keeps it a service
 *   lcore when the last device leaves, and runs on; without one, the last
 *   device leaving service mode gives lcore 1 back: an EAL lcore the
 *   application launches a function on;
 * - a service lcore the application made itself is used, and left a
 *   service lcore when pmrdma leaves it.
 *
 *   service_lcore      run by ring.sh, RING_LCORES=0,1, "service_lcore=1"
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include <pmr_verbs.h>

#include "ringport.h"
#include "vt.h"

enum {
	LC = 1,                 /* the service lcore of both devices */
	FILLERS = 256,          /* more than DPDK has room for (64) */
};

/* ---- DPDK's service lcore calls, failing when armed -------------------- */

enum { F_START, F_ADD, F_DEL, F_KINDS };
static const char *const f_names[F_KINDS] = {
	"rte_service_lcore_start", "rte_service_lcore_add",
	"rte_service_lcore_del",
};
static int f_fails[F_KINDS];    /* calls left to fail */
static int f_err[F_KINDS];      /* the error they fail with */
static unsigned int f_calls[F_KINDS];

/* The call passed on to DPDK's function, or failed (doing nothing) while
 * armed. */
static int32_t f_call(int kind, uint32_t lcore)
{
	static int32_t (*fn[F_KINDS])(uint32_t);

	if (fn[kind] == NULL)
		fn[kind] = (int32_t (*)(uint32_t))dlsym(RTLD_NEXT,
							f_names[kind]);
	CHECK(fn[kind] != NULL);
	f_calls[kind]++;
	if (f_fails[kind] > 0) {
		f_fails[kind]--;
		return -f_err[kind];
	}
	return fn[kind](lcore);
}

static void f_arm(int kind, int err)
{
	f_fails[kind] = 1;
	f_err[kind] = err;
}

int32_t rte_service_lcore_start(uint32_t lcore)
{
	return f_call(F_START, lcore);
}

int32_t rte_service_lcore_add(uint32_t lcore)
{
	return f_call(F_ADD, lcore);
}

int32_t rte_service_lcore_del(uint32_t lcore)
{
	return f_call(F_DEL, lcore);
}

/* (only counted) */
static unsigned int maps_to_lc;

int32_t rte_service_map_lcore_set(uint32_t id, uint32_t lcore,
				  uint32_t enable)
{
	static int32_t (*fn)(uint32_t, uint32_t, uint32_t);

	if (fn == NULL)
		fn = (int32_t (*)(uint32_t, uint32_t, uint32_t))
		     dlsym(RTLD_NEXT, "rte_service_map_lcore_set");
	CHECK(fn != NULL);
	if (lcore == LC && enable)
		maps_to_lc++;
	return fn(id, lcore, enable);
}

/* ---- the application's functions on lcore 1 --------------------------- */

static volatile bool spin_stop;
static volatile uint64_t spins;

static int spinner(void *arg)
{
	(void)arg;
	while (!spin_stop)
		spins++;
	return 7;
}

static int returns_5(void *arg)
{
	(void)arg;
	return 5;
}

/* A call that waits for lcore 1's function would never return. */
static void on_alarm(int sig)
{
	static const char msg[] = "service_lcore: still running after 30 s "
				  "(a call waiting for lcore 1?)\n";

	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

/* ---- checks ----------------------------------------------------------- */

static bool service_exists(int dev)
{
	char name[RTE_SERVICE_NAME_MAX];
	uint32_t id;

	snprintf(name, sizeof(name), "pmr_roce_%d", dev);
	return rte_service_get_by_name(name, &id) == 0;
}

/* Nothing of service progress anywhere: lcore 1 an EAL lcore, neither
 * device's service registered. */
static void untouched(const char *when)
{
	EXPECT_EQ_MSG(rte_eal_lcore_role(LC), ROLE_RTE, "lcore 1's role %s",
		      when);
	EXPECT_EQ_MSG(rte_service_lcore_count(), 0, "service lcores %s",
		      when);
	EXPECT_MSG(!service_exists(0) && !service_exists(1),
		   "a service registered %s", when);
}

/* The application launches a function on lcore 1 and gets its value. */
static void lcore_free(const char *when)
{
	int r = rte_eal_remote_launch(returns_5, NULL, LC);

	EXPECT_EQ_MSG(r, 0, "launch on lcore 1 %s", when);
	if (r == 0)
		EXPECT_EQ_MSG(rte_eal_wait_lcore(LC), 5,
			      "lcore 1's function %s", when);
}

/* Whether *count moves within 2 s (lcore 1's thread may wait for its CPU). */
static bool advances(const volatile uint64_t *count)
{
	uint64_t c0 = *count, t0 = vt_now_ms();

	while (*count == c0)
		if (vt_now_ms() - t0 > 2000)
			return false;
	return true;
}

/* Whether lcore 1's function (the service loop) returns within 2 s. */
static bool stops(void)
{
	uint64_t t0 = vt_now_ms();

	while (rte_eal_get_lcore_state(LC) == RUNNING)
		if (vt_now_ms() - t0 > 2000)
			return false;
	return true;
}

/* ---- the cases -------------------------------------------------------- */

static void busy_lcore(struct vt *v, struct pmr_device *dev1)
{
	uint64_t t0;

	spin_stop = false;
	CHECK_EQ(rte_eal_remote_launch(spinner, NULL, LC), 0);
	t0 = vt_now_ms();
	EXPECT_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), EBUSY);
	errno = 0;
	EXPECT(pmr_open_device(dev1) == NULL);
	EXPECT_EQ(errno, EBUSY);
	EXPECT_MSG(vt_now_ms() - t0 < 1000, "refused after %llu ms",
		   (unsigned long long)(vt_now_ms() - t0));
	untouched("with lcore 1 busy");
	EXPECT_MSG(advances(&spins), "the application's function stopped");
	spin_stop = true;
	EXPECT_EQ(rte_eal_wait_lcore(LC), 7);
	vt_send_passes(v);      /* the context, inline, still works */
}

/* The application's own services: each call counted. */
static volatile uint64_t app_calls;

static int32_t app_service(void *arg)
{
	(void)arg;
	app_calls++;
	return -EAGAIN;
}

static uint32_t app_service_register(const char *name)
{
	struct rte_service_spec spec = { .callback = app_service };
	uint32_t id;

	snprintf(spec.name, sizeof(spec.name), "%s", name);
	CHECK_EQ(rte_service_component_register(&spec, &id), 0);
	return id;
}

static void no_service_room(struct vt *v)
{
	uint32_t ids[FILLERS];
	unsigned int n = 0;

	for (;;) {
		struct rte_service_spec spec = { .callback = app_service };

		snprintf(spec.name, sizeof(spec.name), "filler_%u", n);
		if (n == FILLERS ||
		    rte_service_component_register(&spec, &ids[n]) != 0)
			break;
		n++;
	}
	CHECK(n > 0 && n < FILLERS);
	EXPECT_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), ENOSPC);
	EXPECT_EQ(rte_eal_lcore_role(LC), ROLE_RTE);
	EXPECT_EQ(rte_service_lcore_count(), 0);
	while (n > 0)
		CHECK_EQ(rte_service_component_unregister(ids[--n]), 0);
	untouched("after a full service table");
}

static void start_failing(struct vt *v)
{
	f_arm(F_START, EIO);
	EXPECT_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), EIO);
	EXPECT_EQ(f_fails[F_START], 0);
	untouched("after the lcore's start failed");
	lcore_free("after the lcore's start failed");
}

/* rte_service_lcore_add() leaving lcore 1 an EAL lcore: EINVAL at once
 * (no start tried), nothing changed. */
static void add_failing(struct vt *v)
{
	unsigned int starts = f_calls[F_START], dels = f_calls[F_DEL];
	unsigned int maps = maps_to_lc;

	f_arm(F_ADD, EINVAL);
	EXPECT_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), EINVAL);
	EXPECT_EQ(f_fails[F_ADD], 0);
	EXPECT_EQ_MSG(maps_to_lc - maps, 0u,
		      "a service mapped to lcore 1, not a service lcore");
	EXPECT_EQ_MSG(f_calls[F_START] - starts, 0u,
		      "lcore 1 started, not being a service lcore");
	EXPECT_EQ_MSG(f_calls[F_DEL] - dels, 0u,
		      "lcore 1 removed, not being a service lcore");
	untouched("after lcore 1 was not made a service lcore");
	lcore_free("after lcore 1 was not made a service lcore");
	vt_send_passes(v);
}

/* rte_service_lcore_del() refusing once as the last device leaves: lcore
 * 1 stays a service lcore, stopped; the next device served there runs,
 * and gives it back when it leaves. */
static void del_failing(struct vt *v)
{
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), 0);
	vt_send_passes(v);
	f_arm(F_DEL, EBUSY);
	EXPECT_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_INLINE), 0);
	EXPECT_EQ(f_fails[F_DEL], 0);
	EXPECT(!service_exists(0));
	EXPECT_EQ_MSG(rte_eal_lcore_role(LC), ROLE_SERVICE,
		      "lcore 1's role after its removal failed");
	EXPECT_MSG(stops(), "lcore 1's service loop still running after "
		   "its removal failed");
	vt_send_passes(v);      /* inline progress, as before */

	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), 0);
	vt_send_passes(v);      /* the service runs there again */
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_INLINE), 0);
	untouched("once the next device left");
	lcore_free("once the next device left");
}

static void shared_lcore(struct vt *v, struct pmr_device *dev1)
{
	uint32_t app;
	struct vt v1;

	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), 0);
	EXPECT_EQ(rte_eal_lcore_role(LC), ROLE_SERVICE);
	EXPECT(service_exists(0));
	vt_open_dev(&v1, dev1);
	EXPECT(service_exists(1));
	EXPECT_EQ(rte_service_lcore_count(), 1);
	vt_send_passes(v);
	vt_send_passes(&v1);
	vt_close(&v1);
	EXPECT(!service_exists(1));
	EXPECT_EQ_MSG(rte_eal_lcore_role(LC), ROLE_SERVICE,
		      "lcore 1 given back while device 0 is served");
	vt_send_passes(v);

	/* a service of the application's mapped there keeps it */
	app = app_service_register("app");
	CHECK_EQ(rte_service_component_runstate_set(app, 1), 0);
	CHECK_EQ(rte_service_runstate_set(app, 1), 0);
	CHECK_EQ(rte_service_map_lcore_set(app, LC, 1), 0);
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_MANUAL), 0);
	EXPECT(!service_exists(0));
	EXPECT_EQ_MSG(rte_eal_lcore_role(LC), ROLE_SERVICE,
		      "lcore 1 given back under the application's service");
	EXPECT_MSG(advances(&app_calls), "the application's service stopped");
	CHECK_EQ(rte_service_runstate_set(app, 0), 0);
	CHECK_EQ(rte_service_map_lcore_set(app, LC, 0), 0);
	CHECK_EQ(rte_service_component_unregister(app), 0);

	/* the next device to leave gives it back */
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), 0);
	vt_send_passes(v);
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_MANUAL), 0);
	untouched("once no device is served");
	lcore_free("once no device is served");
}

static void application_lcore(struct vt *v)
{
	/* (its value is what lcore 1's last function returned: 5) */
	(void)rte_service_lcore_add(LC);
	CHECK_EQ(rte_eal_lcore_role(LC), ROLE_SERVICE);
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_SERVICE), 0);
	vt_send_passes(v);
	CHECK_EQ(pmr_set_progress_mode(v->ctx, PMR_PROGRESS_MANUAL), 0);
	EXPECT_EQ_MSG(rte_eal_lcore_role(LC), ROLE_SERVICE,
		      "the application's service lcore taken away");
	EXPECT(!service_exists(0));
	CHECK_EQ(rte_service_lcore_stop(LC), 0);
	CHECK_EQ(rte_service_lcore_del(LC), 0);
	(void)rte_eal_wait_lcore(LC);
	untouched("at the end");
	lcore_free("at the end");
}

int main(void)
{
	struct pmr_device *dev1;
	struct vt v;

	signal(SIGALRM, on_alarm);
	alarm(30);
	ringport_eal_init();
	if (!rte_lcore_is_enabled(LC)) {
		printf("SKIP: no lcore 1\n");
		return 77;
	}
	vt_open(&v);
	dev1 = ringport_loop_device("svc1", 31,
				    ",progress=service,service_lcore=1");
	CHECK(dev1 != NULL);
	untouched("at the start");

	busy_lcore(&v, dev1);
	no_service_room(&v);
	start_failing(&v);
	add_failing(&v);
	del_failing(&v);
	shared_lcore(&v, dev1);
	application_lcore(&v);

	vt_close(&v);
	return vt_exit();
}
