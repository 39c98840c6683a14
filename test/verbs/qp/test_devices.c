/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices: the device list, names, GUID, contexts, queries, string
 * helpers, MTU helpers, and configuration (PMR_DEVICES, PMR_CONFIG,
 * pmr_device_create) in child processes started from this binary.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "vt.h"

static void list_and_names(void)
{
	struct pmr_device **l;
	int n = -1;

	l = pmr_get_device_list(&n);
	CHECK(l != NULL);
	CHECK_EQ(n, 1);
	CHECK(l[0] != NULL);
	CHECK(l[1] == NULL);
	CHECK(strcmp(l[0]->name, "pmr_loop0") == 0);
	CHECK(strcmp(pmr_get_device_name(l[0]), "pmr_loop0") == 0);
	CHECK(pmr_get_device_guid(l[0]) != 0);
	CHECK_EQ(l[0]->node_type, PMR_NODE_CA);
	CHECK_EQ(l[0]->transport_type, PMR_TRANSPORT_IB);
	pmr_free_device_list(l);
	/* again, without num_devices: same device */
	l = pmr_get_device_list(NULL);
	CHECK(l != NULL && l[0] != NULL && l[1] == NULL);
	CHECK(strcmp(l[0]->name, "pmr_loop0") == 0);
	pmr_free_device_list(l);
}

static void contexts(void)
{
	struct vt v;
	struct pmr_context *c2;
	struct pmr_pd *pd;
	struct pmr_cq *cq;
	struct pmr_comp_channel *ch;
	struct pmr_qp *qp;

	vt_open(&v);
	errno = 0;
	CHECK(pmr_open_device(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	c2 = pmr_open_device(v.dev);
	CHECK(c2 != NULL && c2 != v.ctx);
	CHECK(c2->device == v.dev);
	CHECK(c2->async_fd >= 0);
	pd = pmr_alloc_pd(c2);
	CHECK(pd != NULL);
	CHECK_EQ(pmr_close_device(c2), EBUSY);
	cq = pmr_create_cq(c2, 4, NULL, NULL, 0);
	CHECK(cq != NULL);
	qp = vt_qp(pd, PMR_QPT_UD, cq, cq, 4, 0);
	CHECK_EQ(pmr_dealloc_pd(pd), EBUSY);
	CHECK_EQ(pmr_close_device(c2), EBUSY);
	CHECK_EQ(pmr_destroy_qp(qp), 0);
	CHECK_EQ(pmr_dealloc_pd(pd), 0);
	CHECK_EQ(pmr_close_device(c2), EBUSY);     /* the CQ */
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	ch = pmr_create_comp_channel(c2);
	CHECK(ch != NULL);
	CHECK_EQ(pmr_close_device(c2), EBUSY);
	CHECK_EQ(pmr_destroy_comp_channel(ch), 0);
	CHECK_EQ(pmr_close_device(c2), 0);
	vt_close(&v);
}

static void queries(void)
{
	struct vt v;
	struct pmr_device_attr d;
	struct pmr_port_attr p;
	union pmr_gid g;
	pmr_be16 pkey = 0;
	static const uint8_t lo[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
					127, 0, 0, 1 };

	vt_open(&v);
	memset(&d, 0, sizeof(d));
	CHECK_EQ(pmr_query_device(v.ctx, &d), 0);
	CHECK(d.max_qp_wr >= 1024);
	CHECK(d.max_sge >= 4);
	CHECK(d.max_cqe >= 1024);
	CHECK(d.max_qp >= 1);
	CHECK(d.max_cq >= 1);
	CHECK(d.max_mr >= 1);
	CHECK(d.max_pd >= 1);
	CHECK(d.max_qp_rd_atom >= 1);
	CHECK(d.max_qp_init_rd_atom >= 1);
	CHECK_EQ(d.phys_port_cnt, 1);
	CHECK(d.atomic_cap == PMR_ATOMIC_HCA || d.atomic_cap == PMR_ATOMIC_GLOB);
	CHECK(d.node_guid != 0);
	CHECK(d.node_guid == pmr_get_device_guid(v.dev));
	CHECK(d.fw_ver[0] != '\0');
	CHECK(d.max_mr_size >= (1u << 30));

	memset(&p, 0xa5, sizeof(p));
	CHECK_EQ(pmr_query_port(v.ctx, 1, &p), 0);
	CHECK_EQ(p.state, PMR_PORT_ACTIVE);
	CHECK_EQ(p.link_layer, PMR_LINK_LAYER_ETHERNET);
	CHECK(p.max_mtu >= PMR_MTU_256 && p.max_mtu <= PMR_MTU_4096);
	CHECK(p.active_mtu >= PMR_MTU_256 && p.active_mtu <= p.max_mtu);
	CHECK_EQ(p.active_mtu, PMR_MTU_4096);    /* loop default */
	CHECK(p.gid_tbl_len >= 1);
	CHECK(p.pkey_tbl_len >= 1);
	CHECK(p.max_msg_sz >= 4096);
	CHECK_EQ(pmr_query_port(v.ctx, 0, &p), EINVAL);
	CHECK_EQ(pmr_query_port(v.ctx, 2, &p), EINVAL);

	memset(&g, 0x5a, sizeof(g));
	CHECK_EQ(pmr_query_gid(v.ctx, 1, 0, &g), 0);
	CHECK(memcmp(g.raw, lo, 16) == 0);
	CHECK_EQ(pmr_query_gid(v.ctx, 1, -1, &g), EINVAL);
	CHECK_EQ(pmr_query_gid(v.ctx, 1, p.gid_tbl_len, &g), EINVAL);
	CHECK_EQ(pmr_query_gid(v.ctx, 2, 0, &g), EINVAL);
	CHECK_EQ(pmr_query_gid(v.ctx, 0, 0, &g), EINVAL);
	if (p.gid_tbl_len > 1) {     /* unused entries read as zeroes */
		static const uint8_t zero[16];

		CHECK_EQ(pmr_query_gid(v.ctx, 1, p.gid_tbl_len - 1, &g), 0);
		CHECK(memcmp(g.raw, zero, 16) == 0);
	}

	CHECK_EQ(pmr_query_pkey(v.ctx, 1, 0, &pkey), 0);
	CHECK_EQ(pkey, 0xffff);
	CHECK_EQ(pmr_query_pkey(v.ctx, 1, 1, &pkey), EINVAL);
	CHECK_EQ(pmr_query_pkey(v.ctx, 2, 0, &pkey), EINVAL);
	vt_close(&v);
}

static void strings(void)
{
	const char *s[32];

	for (int i = 0; i <= PMR_WC_TM_RNDV_INCOMPLETE; i++) {
		s[i] = pmr_wc_status_str((enum pmr_wc_status)i);
		CHECK(s[i] != NULL && s[i][0] != '\0');
		for (int j = 0; j < i; j++)
			CHECK(strcmp(s[i], s[j]) != 0);
	}
	CHECK(strcmp(pmr_wc_status_str(PMR_WC_SUCCESS), "success") == 0);
	CHECK(strcmp(pmr_wc_status_str(PMR_WC_WR_FLUSH_ERR),
		     "Work Request Flushed Error") == 0);
	CHECK(strcmp(pmr_wc_status_str(PMR_WC_RETRY_EXC_ERR),
		     "transport retry counter exceeded") == 0);
	CHECK(pmr_wc_status_str((enum pmr_wc_status)99) != NULL);
	CHECK(pmr_wc_status_str((enum pmr_wc_status)-1) != NULL);

	for (int i = 0; i <= PMR_EVENT_WQ_FATAL; i++) {
		s[i] = pmr_event_type_str((enum pmr_event_type)i);
		CHECK(s[i] != NULL && s[i][0] != '\0');
		for (int j = 0; j < i; j++)
			CHECK(strcmp(s[i], s[j]) != 0);
	}
	CHECK(strcmp(pmr_event_type_str(PMR_EVENT_CQ_ERR), "CQ error") == 0);
	CHECK(pmr_event_type_str((enum pmr_event_type)99) != NULL);

	for (int i = PMR_NODE_CA; i <= PMR_NODE_UNSPECIFIED; i++) {
		s[i] = pmr_node_type_str((enum pmr_node_type)i);
		CHECK(s[i] != NULL && s[i][0] != '\0');
		for (int j = PMR_NODE_CA; j < i; j++)
			CHECK(strcmp(s[i], s[j]) != 0);
	}
	CHECK(strcmp(pmr_node_type_str(PMR_NODE_CA),
		     "InfiniBand channel adapter") == 0);
	CHECK(pmr_node_type_str(PMR_NODE_UNKNOWN) != NULL);
	CHECK(pmr_node_type_str((enum pmr_node_type)99) != NULL);

	for (int i = PMR_PORT_NOP; i <= PMR_PORT_ACTIVE_DEFER; i++) {
		s[i] = pmr_port_state_str((enum pmr_port_state)i);
		CHECK(s[i] != NULL && s[i][0] != '\0');
		for (int j = 0; j < i; j++)
			CHECK(strcmp(s[i], s[j]) != 0);
	}
	CHECK(strcmp(pmr_port_state_str(PMR_PORT_ACTIVE), "PORT_ACTIVE") == 0);
	CHECK(pmr_port_state_str((enum pmr_port_state)99) != NULL);
}

static void mtus(void)
{
	static const int nums[] = { 256, 512, 1024, 2048, 4096 };

	for (int i = 0; i < 5; i++) {
		CHECK_EQ(pmr_mtu_to_num((enum pmr_mtu)(i + 1)), nums[i]);
		CHECK_EQ(pmr_num_to_mtu(nums[i]), i + 1);
	}
	CHECK_EQ(pmr_mtu_to_num((enum pmr_mtu)0), -1);
	CHECK_EQ(pmr_mtu_to_num((enum pmr_mtu)6), -1);
	CHECK_EQ(pmr_mtu_to_num((enum pmr_mtu)40), -1);
	CHECK_EQ(pmr_mtu_to_num((enum pmr_mtu)-1), -1);
	CHECK_EQ(pmr_num_to_mtu(0), 0);
	CHECK_EQ(pmr_num_to_mtu(1000), 0);
	CHECK_EQ(pmr_num_to_mtu(8192), 0);
	CHECK_EQ(pmr_num_to_mtu(-1), 0);
}

/* ---- child processes: configuration ---------------------------------- */

static enum pmr_mtu dev_mtu(struct pmr_device *d)
{
	struct pmr_context *c = pmr_open_device(d);
	struct pmr_port_attr p;

	CHECK(c != NULL);
	CHECK_EQ(pmr_query_port(c, 1, &p), 0);
	CHECK_EQ(pmr_close_device(c), 0);
	return p.active_mtu;
}

/* The configuration refused: no list, errno err, no device. */
static void list_refused(int err)
{
	int n = -1;

	errno = 0;
	CHECK(pmr_get_device_list(&n) == NULL);
	CHECK_EQ(errno, err);
	CHECK_EQ(n, 0);
}

/* After a refused configuration, the API still creates a device, and it
 * is the process's only one, with the first name (nothing of the
 * configuration was left behind). */
static void then_one_device(void)
{
	struct pmr_device **l, *d = pmr_device_create("loop", NULL);
	int n = -1;

	CHECK(d != NULL);
	CHECK(strcmp(d->name, "pmr_loop0") == 0);
	l = pmr_get_device_list(&n);
	CHECK(l != NULL);
	CHECK_EQ(n, 1);
	CHECK(l[0] == d);
	pmr_free_device_list(l);
}

static int child(const char *mode)
{
	struct pmr_device **l;
	int n = -1;

	if (strcmp(mode, "two") == 0) {
		l = pmr_get_device_list(&n);
		CHECK(l != NULL);
		CHECK_EQ(n, 2);
		CHECK(l[2] == NULL);
		CHECK(strcmp(l[0]->name, "pmr_loop0") == 0);
		CHECK(strcmp(l[1]->name, "pmr_loop1") == 0);
		CHECK_EQ(dev_mtu(l[0]), PMR_MTU_1024);
		CHECK_EQ(dev_mtu(l[1]), PMR_MTU_4096);
		CHECK(pmr_get_device_guid(l[0]) != pmr_get_device_guid(l[1]));
		pmr_free_device_list(l);
	} else if (strcmp(mode, "bad") == 0) {
		list_refused(EINVAL);
	} else if (strcmp(mode, "noconfig") == 0) {
		list_refused(ENOENT);
	} else if (strcmp(mode, "undo") == 0) {
		/* a configuration whose third device fails: the two made
		 * before it are undone */
		list_refused(EINVAL);
		then_one_device();
	} else if (strcmp(mode, "one2048") == 0) {
		l = pmr_get_device_list(&n);
		CHECK(l != NULL);
		CHECK_EQ(n, 1);
		CHECK_EQ(dev_mtu(l[0]), PMR_MTU_2048);
		pmr_free_device_list(l);
	} else if (strcmp(mode, "create") == 0) {
		struct pmr_device *d;

		errno = 0;
		CHECK(pmr_device_create("nosuch", NULL) == NULL);
		CHECK_EQ(errno, ENOENT);
		errno = 0;
		CHECK(pmr_device_create("loop", "mtu=1000") == NULL);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK(pmr_device_create("loop", "bogus=1") == NULL);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK(pmr_device_create("loop", "mtu") == NULL);
		CHECK_EQ(errno, EINVAL);
		errno = 0;      /* the whole value, not a number in front */
		CHECK(pmr_device_create("loop", "mtu=1024abc") == NULL);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK(pmr_device_create("loop", "mtu=") == NULL);
		CHECK_EQ(errno, EINVAL);
		errno = 0;
		CHECK(pmr_device_create(NULL, NULL) == NULL);
		CHECK_EQ(errno, EINVAL);
		d = pmr_device_create("loop", NULL);
		CHECK(d != NULL);
		CHECK_EQ(dev_mtu(d), PMR_MTU_4096);
		d = pmr_device_create("loop", "mtu=512");
		CHECK(d != NULL);
		CHECK_EQ(dev_mtu(d), PMR_MTU_512);
		l = pmr_get_device_list(&n);
		CHECK(l != NULL);
		CHECK_EQ(n, 2);     /* no configured default device added */
		CHECK(l[1] == d);
		pmr_free_device_list(l);
	} else if (strcmp(mode, "full") == 0) {
		/* 16 devices at most: the 17th fails and changes nothing */
		struct pmr_device *d[17];
		struct pmr_context *ctx;
		int k;

		for (k = 0; k < 17; k++) {
			errno = 0;
			d[k] = pmr_device_create("loop", NULL);
			if (d[k] == NULL)
				break;
		}
		CHECK_EQ(k, 16);
		CHECK_EQ(errno, ENOSPC);
		errno = 0;
		CHECK(pmr_device_create("loop", "mtu=512") == NULL);
		CHECK_EQ(errno, ENOSPC);
		l = pmr_get_device_list(&n);
		CHECK(l != NULL);
		CHECK_EQ(n, 16);
		for (k = 0; k < 16; k++)
			CHECK(l[k] == d[k]);
		pmr_free_device_list(l);
		ctx = pmr_open_device(d[15]);
		CHECK(ctx != NULL);
		CHECK_EQ(pmr_close_device(ctx), 0);
	} else if (strcmp(mode, "over") == 0) {
		/* a configuration of 17: none of them */
		list_refused(ENOSPC);
		then_one_device();
	} else {
		fprintf(stderr, "unknown child mode %s\n", mode);
		return 2;
	}
	return 0;
}

static void run_child(const char *mode, const char *devices,
		      const char *config)
{
	pid_t pid = fork();
	int st = 0;

	CHECK(pid >= 0);
	if (pid == 0) {
		char *argv[] = { (char *)"test_devices", (char *)mode, NULL };

		unsetenv("PMR_DEVICES");
		unsetenv("PMR_CONFIG");
		unsetenv("PMR_EAL_ARGS");
		if (devices)
			setenv("PMR_DEVICES", devices, 1);
		if (config)
			setenv("PMR_CONFIG", config, 1);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "child '%s' (PMR_DEVICES=%s PMR_CONFIG=%s) "
			"failed: status %#x\n", mode, devices ? devices : "-",
			config ? config : "-", st);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
}

static char *temp_config(const char *text)
{
	static char paths[8][64];
	static int k;
	char *p = paths[k++ & 7];
	int fd;

	snprintf(p, 64, "/tmp/pmr_qp_cfg_XXXXXX");
	fd = mkstemp(p);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
	CHECK_EQ(close(fd), 0);
	return p;
}

static void config(void)
{
	char *good = temp_config("# comment\n\ndevice = loop:mtu=2048\n");
	char *bad = temp_config("device = loop\nthis line is bad\n");
	char *badkey = temp_config("nosuchkey = 1\n");
	/* the EAL arguments of a file: taken (used by a driver that needs
	 * EAL; the loopback device does not) */
	char *eal = temp_config("eal = --no-pci --no-huge -m 64\n"
				"device = loop:mtu=2048\n");

	run_child("two", "loop:mtu=1024;loop", NULL);
	run_child("bad", "nosuch", NULL);
	run_child("bad", "loop:mtu=1000", NULL);
	run_child("undo", "loop;loop:mtu=512;loop:mtu=1000", NULL);
	run_child("one2048", NULL, good);
	run_child("bad", NULL, bad);
	run_child("bad", NULL, badkey);
	run_child("one2048", NULL, eal);
	run_child("noconfig", NULL, "/nonexistent/pmrdma.conf");
	run_child("create", NULL, NULL);
	run_child("full", NULL, NULL);
	run_child("over", "loop;loop;loop;loop;loop;loop;loop;loop;loop;loop;"
		  "loop;loop;loop;loop;loop;loop;loop", NULL);
	unlink(good);
	unlink(bad);
	unlink(badkey);
	unlink(eal);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return child(argv[1]);
	unsetenv("PMR_DEVICES");
	unsetenv("PMR_CONFIG");
	unsetenv("PMR_EAL_ARGS");
	list_and_names();
	contexts();
	queries();
	strings();
	mtus();
	config();
	return vt_exit();
}
