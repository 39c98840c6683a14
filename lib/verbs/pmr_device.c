/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices: driver registry, configuration, device list, contexts,
 * queries, progress.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "pmr_driver.h"
#include "pmr_verbs_priv.h"

RTE_LOG_REGISTER(pmr_logtype_verbs, pmr.verbs, NOTICE);

#define PMR_MAX_DRIVERS 8

static const struct pmr_driver *drivers[PMR_MAX_DRIVERS];
static int ndrivers;

static pthread_mutex_t devices_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct pmr_dev_obj *devices[PMR_MAX_DEVICES];
static int ndevices;
static bool config_loaded;

void pmr_driver_register(const struct pmr_driver *drv)
{
	if (ndrivers < PMR_MAX_DRIVERS)
		drivers[ndrivers++] = drv;
}

static const struct pmr_driver *driver_find(const char *name)
{
	for (int i = 0; i < ndrivers; i++)
		if (strcmp(drivers[i]->name, name) == 0)
			return drivers[i];
	return NULL;
}

bool pmr_kvarg_long(const char *value, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (end == value || *end != '\0' || errno != 0 || v < min || v > max)
		return false;
	*out = v;
	return true;
}

enum pmr_mtu pmr_kvarg_mtu(const char *value)
{
	long v;

	return pmr_kvarg_long(value, 256, 4096, &v) ? pmr_num_to_mtu((int)v) :
						       (enum pmr_mtu)0;
}

int pmr_kvargs_parse(const char *args,
		     int (*cb)(const char *key, const char *value, void *opaque),
		     void *opaque)
{
	char *copy, *save = NULL, *tok;
	int ret = 0;

	if (args == NULL || *args == '\0')
		return 0;
	copy = strdup(args);
	if (copy == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL || eq == tok) {
			PMR_LOG(ERR, "bad device argument '%s' (want key=value)",
				tok);
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		ret = cb(tok, eq + 1, opaque);
		if (ret != 0)
			break;
	}
	free(copy);
	return ret;
}

/* Called with devices_mutex held. */
static struct pmr_dev_obj *device_create_locked(const char *name,
						const char *args)
{
	const struct pmr_driver *drv = driver_find(name);
	struct pmr_dev_obj *dev;
	int ret;

	if (drv == NULL) {
		PMR_LOG(ERR, "no device driver named '%s'", name);
		errno = ENOENT;
		return NULL;
	}
	if (ndevices >= PMR_MAX_DEVICES) {
		errno = ENOSPC;
		return NULL;
	}
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dev->drv = drv;
	dev->index = ndevices;
	dev->pub.node_type = PMR_NODE_CA;
	dev->pub.transport_type = PMR_TRANSPORT_IB;
	snprintf(dev->pub.name, sizeof(dev->pub.name), "pmr_%s%d", name,
		 ndevices);
	snprintf(dev->pub.dev_name, sizeof(dev->pub.dev_name), "%s%d", name,
		 ndevices);
	pthread_mutex_init(&dev->mutex, NULL);
	pmr_list_init(&dev->contexts);
	dev->mr_next = 1;
	ret = drv->probe(dev, args);
	if (ret != 0) {
		pthread_mutex_destroy(&dev->mutex);
		free(dev);
		errno = -ret;
		return NULL;
	}
	devices[ndevices++] = dev;
	return dev;
}

PMR_EXPORT struct pmr_device *pmr_device_create(const char *driver,
						const char *args)
{
	struct pmr_dev_obj *dev;

	if (driver == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&devices_mutex);
	dev = device_create_locked(driver, args);
	if (dev != NULL)
		config_loaded = true;   /* the application configures itself */
	pthread_mutex_unlock(&devices_mutex);
	return dev ? &dev->pub : NULL;
}

void pmr_dev_attr_defaults(struct pmr_device_attr *a)
{
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 4096;
	a->max_qp = PMR_MAX_QP;
	a->max_qp_wr = PMR_MAX_QP_WR;
	a->device_cap_flags = PMR_DEVICE_RC_RNR_NAK_GEN;
	a->max_sge = PMR_MAX_SGE;
	a->max_sge_rd = PMR_MAX_SGE;
	a->max_cq = 65536;
	a->max_cqe = PMR_MAX_CQE;
	a->max_mr = PMR_MAX_MR - 1;
	a->max_pd = 65536;
	a->max_qp_rd_atom = PMR_MAX_RD_ATOMIC;
	a->max_res_rd_atom = PMR_MAX_RD_ATOMIC * PMR_MAX_QP;
	a->max_qp_init_rd_atom = PMR_MAX_RD_ATOMIC;
	a->atomic_cap = PMR_ATOMIC_HCA;
	a->max_ah = 65536;
	a->max_srq = 4096;
	a->max_srq_wr = PMR_MAX_SRQ_WR;
	a->max_srq_sge = PMR_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
}

/* ---- configuration ------------------------------------------------ */

struct config {
	char eal[1024];
	char devices[PMR_MAX_DEVICES][512];
	int ndevices;
};

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int config_add_devices(struct config *cfg, const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (copy == NULL)
		return -ENOMEM;
	for (tok = strtok_r(copy, ";", &save); tok != NULL;
	     tok = strtok_r(NULL, ";", &save)) {
		tok = trim(tok);
		if (*tok == '\0')
			continue;
		if (cfg->ndevices >= PMR_MAX_DEVICES) {
			free(copy);
			return -ENOSPC;
		}
		snprintf(cfg->devices[cfg->ndevices++],
			 sizeof(cfg->devices[0]), "%s", tok);
	}
	free(copy);
	return 0;
}

static int config_read_file(struct config *cfg, const char *path)
{
	char line[1024];
	int lineno = 0, ret = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		PMR_LOG(ERR, "cannot open configuration file %s: %s", path,
			strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *s = trim(line), *eq, *key, *val;

		lineno++;
		if (*s == '\0' || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (eq == NULL) {
			PMR_LOG(ERR, "%s:%d: expected 'key = value'", path,
				lineno);
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (strcmp(key, "eal") == 0) {
			snprintf(cfg->eal, sizeof(cfg->eal), "%s", val);
		} else if (strcmp(key, "device") == 0) {
			ret = config_add_devices(cfg, val);
			if (ret != 0)
				break;
		} else {
			PMR_LOG(ERR, "%s:%d: unknown key '%s'", path, lineno,
				key);
			ret = -EINVAL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* The EAL argument strings: rte_eal_init() may keep pointers into them
 * for the life of the process, so they stay (reachable) here. */
static char *eal_args;

static int eal_init_from(const char *eal)
{
	char *copy, *argv[64], *save = NULL, *tok;
	int argc = 0, ret;

	copy = strdup(eal);
	if (copy == NULL)
		return -ENOMEM;
	argv[argc++] = (char *)"pmrdma";
	for (tok = strtok_r(copy, " \t", &save); tok != NULL && argc < 63;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	ret = rte_eal_init(argc, argv);
	if (ret < 0 && rte_errno != EALREADY) {
		PMR_LOG(ERR, "EAL initialisation failed: %s",
			rte_strerror(rte_errno));
		free(copy);
		return -(rte_errno ? rte_errno : EINVAL);
	}
	if (ret < 0)            /* EAL was initialised before: unused */
		free(copy);
	else
		eal_args = copy;
	return 0;
}

/* Called with devices_mutex held. */
static int config_load_locked(void)
{
	struct config *cfg = calloc(1, sizeof(*cfg));
	int first = ndevices;
	const char *path = getenv("PMR_CONFIG");
	const char *env_dev = getenv("PMR_DEVICES");
	const char *env_eal = getenv("PMR_EAL_ARGS");
	bool eal_done = false;
	int ret = 0;

	if (cfg == NULL)
		return -ENOMEM;
	if (path != NULL && *path != '\0')
		ret = config_read_file(cfg, path);
	if (ret == 0 && env_eal != NULL)
		snprintf(cfg->eal, sizeof(cfg->eal), "%s", env_eal);
	if (ret == 0 && env_dev != NULL) {
		cfg->ndevices = 0;
		ret = config_add_devices(cfg, env_dev);
	}
	if (ret == 0 && cfg->ndevices == 0)
		ret = config_add_devices(cfg, "loop");
	for (int i = 0; ret == 0 && i < cfg->ndevices; i++) {
		char *spec = cfg->devices[i];
		char *colon = strchr(spec, ':');
		const char *args = NULL;
		const struct pmr_driver *drv;

		if (colon != NULL) {
			*colon = '\0';
			args = colon + 1;
		}
		spec = trim(spec);
		drv = driver_find(spec);
		if (drv == NULL) {
			PMR_LOG(ERR, "configuration names unknown driver '%s'",
				spec);
			ret = -EINVAL;
			break;
		}
		if (drv->needs_eal && !eal_done) {
			ret = eal_init_from(cfg->eal[0] ? cfg->eal :
					    "--no-pci --in-memory");
			if (ret != 0)
				break;
			eal_done = true;
		}
		if (device_create_locked(spec, args) == NULL)
			ret = -errno;
	}
	/* all or nothing: undo the devices this configuration made */
	while (ret != 0 && ndevices > first) {
		struct pmr_dev_obj *dev = devices[--ndevices];

		if (dev->drv->remove != NULL)
			dev->drv->remove(dev);
		pthread_mutex_destroy(&dev->mutex);
		free(dev);
	}
	free(cfg);
	return ret;
}

PMR_EXPORT struct pmr_device **pmr_get_device_list(int *num_devices)
{
	struct pmr_device **list;
	int ret = 0;

	pthread_mutex_lock(&devices_mutex);
	if (!config_loaded) {
		ret = config_load_locked();
		config_loaded = (ret == 0);
	}
	if (ret != 0) {
		pthread_mutex_unlock(&devices_mutex);
		if (num_devices)
			*num_devices = 0;
		errno = -ret;
		return NULL;
	}
	list = calloc(ndevices + 1, sizeof(*list));
	if (list == NULL) {
		pthread_mutex_unlock(&devices_mutex);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < ndevices; i++)
		list[i] = &devices[i]->pub;
	if (num_devices)
		*num_devices = ndevices;
	pthread_mutex_unlock(&devices_mutex);
	return list;
}

PMR_EXPORT void pmr_free_device_list(struct pmr_device **list)
{
	free(list);
}

PMR_EXPORT const char *pmr_get_device_name(struct pmr_device *device)
{
	return device ? device->name : NULL;
}

PMR_EXPORT pmr_be64 pmr_get_device_guid(struct pmr_device *device)
{
	return device ? pmr_dev_obj(device)->attr.node_guid : 0;
}

/* ---- contexts ------------------------------------------------------ */

PMR_EXPORT struct pmr_context *pmr_open_device(struct pmr_device *device)
{
	struct pmr_quiesce q;
	struct pmr_dev_obj *dev;
	struct pmr_ctx_obj *ctx;
	int ret;

	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = pmr_dev_obj(device);
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->dev = dev;
	ctx->pub.device = device;
	ctx->pub.cmd_fd = -1;
	ctx->pub.num_comp_vectors = 1;
	ctx->engine_lock = &ctx->own_lock;
	atomic_flag_clear(&ctx->own_lock.flag);
	ctx->mode = PMR_PROGRESS_INLINE;
	ctx->doorbells = dev->drv->doorbells;
	pmr_list_init(&ctx->qps);
	pmr_list_init(&ctx->srqs);
	ret = pmr_equeue_init(&ctx->async, PMR_MAX_ASYNC_EVENTS,
			      sizeof(struct pmr_async_event));
	if (ret != 0) {
		free(ctx);
		errno = -ret;
		return NULL;
	}
	ctx->pub.async_fd = ctx->async.fd;
	if (dev->drv->ctx_open != NULL) {
		ret = dev->drv->ctx_open(ctx);
		if (ret != 0) {
			pmr_equeue_fini(&ctx->async);
			free(ctx);
			errno = -ret;
			return NULL;
		}
	}
	pmr_dev_quiesce(dev, &q);
	pmr_list_add_tail(&dev->contexts, &ctx->link);
	pmr_dev_resume(dev, &q);
	return &ctx->pub;
}

PMR_EXPORT int pmr_close_device(struct pmr_context *context)
{
	struct pmr_quiesce q;
	struct pmr_ctx_obj *ctx;
	struct pmr_dev_obj *dev;

	if (context == NULL)
		return EINVAL;
	ctx = pmr_ctx_obj(context);
	dev = ctx->dev;
	if (atomic_load(&ctx->nobjs) != 0 || !pmr_list_empty(&ctx->qps) ||
	    !pmr_list_empty(&ctx->srqs))
		return EBUSY;
	pmr_dev_quiesce(dev, &q);
	pmr_list_del(&ctx->link);
	pmr_dev_resume(dev, &q);
	/* its engine lock is no longer reachable from the device: take it
	 * so a progress call still running on it finishes first */
	pmr_lock(ctx->engine_lock);
	if (dev->drv->ctx_close != NULL)
		dev->drv->ctx_close(ctx);
	pmr_unlock(ctx->engine_lock);
	pmr_equeue_fini(&ctx->async);
	free(ctx);
	return 0;
}

PMR_EXPORT int pmr_query_device(struct pmr_context *context,
				struct pmr_device_attr *attr)
{
	if (context == NULL || attr == NULL)
		return EINVAL;
	*attr = pmr_ctx_obj(context)->dev->attr;
	return 0;
}

PMR_EXPORT int pmr_query_port(struct pmr_context *context, uint8_t port_num,
			      struct pmr_port_attr *attr)
{
	struct pmr_dev_obj *dev;

	if (context == NULL || attr == NULL)
		return EINVAL;
	dev = pmr_ctx_obj(context)->dev;
	if (port_num < 1 || port_num > dev->attr.phys_port_cnt)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	return -dev->drv->query_port(dev, port_num, attr);
}

PMR_EXPORT int pmr_query_gid(struct pmr_context *context, uint8_t port_num,
			     int index, union pmr_gid *gid)
{
	struct pmr_dev_obj *dev;

	if (context == NULL || gid == NULL)
		return EINVAL;
	dev = pmr_ctx_obj(context)->dev;
	if (port_num < 1 || port_num > dev->attr.phys_port_cnt || index < 0 ||
	    index >= (int)(sizeof(dev->gid) / sizeof(dev->gid[0])))
		return EINVAL;
	*gid = dev->gid[index];
	return 0;
}

PMR_EXPORT int pmr_query_pkey(struct pmr_context *context, uint8_t port_num,
			      int index, pmr_be16 *pkey)
{
	struct pmr_dev_obj *dev;

	if (context == NULL || pkey == NULL)
		return EINVAL;
	dev = pmr_ctx_obj(context)->dev;
	if (port_num < 1 || port_num > dev->attr.phys_port_cnt || index != 0)
		return EINVAL;
	*pkey = 0xffff;    /* the default P_Key, same in either byte order */
	return 0;
}

static int dev_engine_locks(struct pmr_dev_obj *dev, pmr_lock_t **locks)
{
	struct pmr_list *pos;
	int n = 0;

	PMR_LIST_FOREACH(pos, &dev->contexts) {
		struct pmr_ctx_obj *ctx = PMR_CONTAINER_OF(pos,
			struct pmr_ctx_obj, link);
		bool seen = false;

		for (int i = 0; i < n; i++)
			seen |= (locks[i] == ctx->engine_lock);
		if (!seen && n < PMR_MAX_LOCKS)
			locks[n++] = ctx->engine_lock;
	}
	return n;
}

void pmr_dev_quiesce(struct pmr_dev_obj *dev, struct pmr_quiesce *q)
{
	pthread_mutex_lock(&dev->mutex);
	q->n = dev_engine_locks(dev, q->locks);
	for (int i = 0; i < q->n; i++)
		pmr_lock(q->locks[i]);
}

void pmr_dev_resume(struct pmr_dev_obj *dev, struct pmr_quiesce *q)
{
	for (int i = q->n - 1; i >= 0; i--)
		pmr_unlock(q->locks[i]);
	pthread_mutex_unlock(&dev->mutex);
}

/* ---- progress ------------------------------------------------------ */

PMR_EXPORT int pmr_set_progress_mode(struct pmr_context *context,
				     enum pmr_progress_mode mode)
{
	struct pmr_ctx_obj *ctx;
	int ret = 0;

	if (context == NULL)
		return EINVAL;
	ctx = pmr_ctx_obj(context);
	if (mode != PMR_PROGRESS_INLINE && mode != PMR_PROGRESS_SERVICE &&
	    mode != PMR_PROGRESS_MANUAL)
		return EINVAL;
	/* to manual at any time: that stops progress; to another mode only
	 * before there are QPs */
	if (mode != PMR_PROGRESS_MANUAL && !pmr_list_empty(&ctx->qps))
		return EBUSY;
	pmr_lock(ctx->engine_lock);
	if (ctx->dev->drv->set_progress_mode != NULL)
		ret = -ctx->dev->drv->set_progress_mode(ctx, mode);
	else if (mode == PMR_PROGRESS_SERVICE)
		ret = ENOTSUP;
	if (ret == 0)
		ctx->mode = mode;
	pmr_unlock(ctx->engine_lock);
	return ret;
}

int pmr_ctx_progress(struct pmr_ctx_obj *ctx, unsigned int budget)
{
	int done;

	if (!pmr_trylock(ctx->engine_lock))
		return 0;
	done = ctx->dev->drv->progress(ctx, budget);
	pmr_unlock(ctx->engine_lock);
	return done;
}

PMR_EXPORT int pmr_progress(struct pmr_context *context, unsigned int budget)
{
	if (context == NULL)
		return -EINVAL;
	return pmr_ctx_progress(pmr_ctx_obj(context), budget);
}

/* ---- strings ------------------------------------------------------- */

PMR_EXPORT const char *pmr_wc_status_str(enum pmr_wc_status status)
{
	static const char *const str[] = {
		[PMR_WC_SUCCESS] = "success",
		[PMR_WC_LOC_LEN_ERR] = "local length error",
		[PMR_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[PMR_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[PMR_WC_LOC_PROT_ERR] = "local protection error",
		[PMR_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[PMR_WC_MW_BIND_ERR] = "memory management operation error",
		[PMR_WC_BAD_RESP_ERR] = "bad response error",
		[PMR_WC_LOC_ACCESS_ERR] = "local access error",
		[PMR_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[PMR_WC_REM_ACCESS_ERR] = "remote access error",
		[PMR_WC_REM_OP_ERR] = "remote operation error",
		[PMR_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[PMR_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[PMR_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[PMR_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[PMR_WC_REM_ABORT_ERR] = "aborted error",
		[PMR_WC_INV_EECN_ERR] = "invalid EE context number",
		[PMR_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[PMR_WC_FATAL_ERR] = "fatal error",
		[PMR_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[PMR_WC_GENERAL_ERR] = "general error",
		[PMR_WC_TM_ERR] = "TM error",
		[PMR_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	if ((unsigned int)status >= sizeof(str) / sizeof(str[0]))
		return "unknown";
	return str[status];
}

PMR_EXPORT const char *pmr_event_type_str(enum pmr_event_type event)
{
	static const char *const str[] = {
		[PMR_EVENT_CQ_ERR] = "CQ error",
		[PMR_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[PMR_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[PMR_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[PMR_EVENT_COMM_EST] = "communication established",
		[PMR_EVENT_SQ_DRAINED] = "send queue drained",
		[PMR_EVENT_PATH_MIG] = "path migrated",
		[PMR_EVENT_PATH_MIG_ERR] = "path migration request error",
		[PMR_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[PMR_EVENT_PORT_ACTIVE] = "port active",
		[PMR_EVENT_PORT_ERR] = "port error",
		[PMR_EVENT_LID_CHANGE] = "LID change",
		[PMR_EVENT_PKEY_CHANGE] = "P_Key change",
		[PMR_EVENT_SM_CHANGE] = "SM change",
		[PMR_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[PMR_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[PMR_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[PMR_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[PMR_EVENT_GID_CHANGE] = "GID table change",
		[PMR_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if ((unsigned int)event >= sizeof(str) / sizeof(str[0]))
		return "unknown";
	return str[event];
}

PMR_EXPORT const char *pmr_node_type_str(enum pmr_node_type node_type)
{
	static const char *const str[] = {
		[PMR_NODE_CA] = "InfiniBand channel adapter",
		[PMR_NODE_SWITCH] = "InfiniBand switch",
		[PMR_NODE_ROUTER] = "InfiniBand router",
		[PMR_NODE_RNIC] = "iWARP NIC",
		[PMR_NODE_USNIC] = "usNIC",
		[PMR_NODE_USNIC_UDP] = "usNIC UDP",
		[PMR_NODE_UNSPECIFIED] = "unspecified",
	};

	if (node_type < PMR_NODE_CA || node_type > PMR_NODE_UNSPECIFIED)
		return "unknown";
	return str[node_type];
}

PMR_EXPORT const char *pmr_port_state_str(enum pmr_port_state port_state)
{
	static const char *const str[] = {
		[PMR_PORT_NOP] = "PORT_NOP",
		[PMR_PORT_DOWN] = "PORT_DOWN",
		[PMR_PORT_INIT] = "PORT_INIT",
		[PMR_PORT_ARMED] = "PORT_ARMED",
		[PMR_PORT_ACTIVE] = "PORT_ACTIVE",
		[PMR_PORT_ACTIVE_DEFER] = "PORT_ACTIVE_DEFER",
	};

	if ((unsigned int)port_state > PMR_PORT_ACTIVE_DEFER)
		return "invalid state";
	return str[port_state];
}
