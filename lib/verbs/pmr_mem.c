/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains, memory regions, address handles.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "pmr_driver.h"
#include "pmr_verbs_priv.h"

/* ---- PDs ------------------------------------------------------------- */

PMR_EXPORT struct pmr_pd *pmr_alloc_pd(struct pmr_context *context)
{
	struct pmr_pd_obj *pd;
	struct pmr_dev_obj *dev;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	dev = pmr_ctx_obj(context)->dev;
	pd->pub.context = context;
	pthread_mutex_lock(&dev->mutex);
	pd->pub.handle = ++dev->handle_next;
	pthread_mutex_unlock(&dev->mutex);
	atomic_fetch_add(&pmr_ctx_obj(context)->nobjs, 1);
	return &pd->pub;
}

PMR_EXPORT int pmr_dealloc_pd(struct pmr_pd *pd)
{
	struct pmr_pd_obj *p;

	if (pd == NULL)
		return EINVAL;
	p = pmr_pd_obj(pd);
	if (atomic_load(&p->refs) != 0)
		return EBUSY;
	atomic_fetch_sub(&pmr_ctx_obj(pd->context)->nobjs, 1);
	free(p);
	return 0;
}

/* ---- MRs ------------------------------------------------------------- */

#define MR_ACCESS_SUPPORTED (PMR_ACCESS_LOCAL_WRITE | \
	PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_READ | \
	PMR_ACCESS_REMOTE_ATOMIC | PMR_ACCESS_MW_BIND | \
	PMR_ACCESS_ON_DEMAND | PMR_ACCESS_HUGETLB | \
	PMR_ACCESS_RELAXED_ORDERING)

/*
 * Random key bits for an MR slot, different from both keys the slot's
 * previous MR had (so a stale lkey or rkey stays stale) and from `also`.
 */
static uint8_t key_bits_next(const uint8_t prev[2], int also)
{
	uint8_t r[16];

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		memset(r, 0x5a, sizeof(r));
	for (unsigned int i = 0;; i++) {
		uint8_t k = i < sizeof(r) ? r[i] : (uint8_t)(r[0] + i);

		if (k != prev[0] && k != prev[1] && k != also)
			return k;
	}
}

PMR_EXPORT struct pmr_mr *pmr_reg_mr(struct pmr_pd *pd, void *addr,
				     size_t length, int access)
{
	static uint8_t last_key[PMR_MAX_MR][2];   /* lkey, rkey bits */
	struct pmr_dev_obj *dev;
	struct pmr_mr_obj *mr;
	uint32_t idx = 0;

	if (pd == NULL || (addr == NULL && length != 0) ||
	    (uintptr_t)addr + length < (uintptr_t)addr ||
	    (access & ~MR_ACCESS_SUPPORTED) != 0 ||
	    ((access & (PMR_ACCESS_REMOTE_WRITE | PMR_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & PMR_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	dev = pmr_ctx_obj(pd->context)->dev;
	if (length > dev->attr.max_mr_size) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&dev->mutex);
	for (uint32_t n = 0; n < PMR_MAX_MR - 1; n++) {
		uint32_t i = 1 + (dev->mr_next - 1 + n) % (PMR_MAX_MR - 1);

		if (atomic_load_explicit(&dev->mr_table[i],
					 memory_order_relaxed) == NULL) {
			idx = i;
			break;
		}
	}
	if (idx == 0) {
		pthread_mutex_unlock(&dev->mutex);
		free(mr);
		errno = ENOSPC;
		return NULL;
	}
	dev->mr_next = idx + 1;
	mr->index = idx;
	mr->access = access;
	mr->pub.context = pd->context;
	mr->pub.pd = pd;
	mr->pub.addr = addr;
	mr->pub.length = length;
	mr->pub.handle = ++dev->handle_next;
	{
		uint8_t l = key_bits_next(last_key[idx], -1);
		uint8_t r = key_bits_next(last_key[idx], l);

		last_key[idx][0] = l;
		last_key[idx][1] = r;
		mr->pub.lkey = idx << 8 | l;
		mr->pub.rkey = idx << 8 | r;
	}
	atomic_fetch_add(&pmr_pd_obj(pd)->refs, 1);
	atomic_store_explicit(&dev->mr_table[idx], mr, memory_order_release);
	pthread_mutex_unlock(&dev->mutex);
	return &mr->pub;
}

PMR_EXPORT int pmr_dereg_mr(struct pmr_mr *pmr)
{
	struct pmr_quiesce q;
	struct pmr_dev_obj *dev;
	struct pmr_mr_obj *mr;
	struct pmr_list *pos;
	bool busy = false;

	if (pmr == NULL)
		return EINVAL;
	mr = pmr_mr_obj(pmr);
	dev = pmr_ctx_obj(pmr->context)->dev;
	pmr_dev_quiesce(dev, &q);
	PMR_LIST_FOREACH(pos, &dev->contexts) {
		struct pmr_ctx_obj *ctx = PMR_CONTAINER_OF(pos,
			struct pmr_ctx_obj, link);

		busy |= pmr_ctx_mr_referenced(ctx, mr);
		if (dev->drv->mr_busy != NULL)
			busy |= dev->drv->mr_busy(ctx, mr);
	}
	if (!busy)
		atomic_store_explicit(&dev->mr_table[mr->index], NULL,
				      memory_order_release);
	pmr_dev_resume(dev, &q);
	if (busy)
		return EBUSY;
	atomic_fetch_sub(&pmr_pd_obj(pmr->pd)->refs, 1);
	free(mr);
	return 0;
}

void *pmr_mr_check(struct pmr_dev_obj *dev, struct pmr_pd *pd, uint32_t key,
		   uint64_t addr, uint64_t len, int access, bool remote)
{
	struct pmr_mr_obj *mr = pmr_dev_mr(dev, key);
	uint64_t start, off;

	if (mr == NULL || (remote ? mr->pub.rkey : mr->pub.lkey) != key ||
	    mr->pub.pd != pd || (mr->access & access) != access)
		return NULL;
	start = (uint64_t)(uintptr_t)mr->pub.addr;
	if (len == 0)
		return mr->pub.addr ? mr->pub.addr : (void *)mr;
	if (addr < start)
		return NULL;
	off = addr - start;
	if (off > mr->pub.length || len > mr->pub.length - off)
		return NULL;
	return (uint8_t *)mr->pub.addr + off;
}

/* ---- AHs ------------------------------------------------------------- */

PMR_EXPORT struct pmr_ah *pmr_create_ah(struct pmr_pd *pd,
					struct pmr_ah_attr *attr)
{
	struct pmr_quiesce q;
	struct pmr_dev_obj *dev;
	struct pmr_ah_obj *ah;
	int ret;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = pmr_ctx_obj(pd->context)->dev;
	if (!attr->is_global || attr->port_num < 1 ||
	    attr->port_num > dev->attr.phys_port_cnt ||
	    attr->grh.sgid_index >= dev->gid_count) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (ah == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->pub.context = pd->context;
	ah->pub.pd = pd;
	ah->attr = *attr;
	/* the driver may touch device-wide state the engines use (roce:
	 * its neighbour table and transmit queue): engines stopped */
	pmr_dev_quiesce(dev, &q);
	ret = dev->drv->ah_create != NULL ? dev->drv->ah_create(ah) : 0;
	if (ret == 0)
		ah->pub.handle = ++dev->handle_next;
	pmr_dev_resume(dev, &q);
	if (ret != 0) {
		free(ah);
		errno = -ret;
		return NULL;
	}
	atomic_fetch_add(&pmr_pd_obj(pd)->refs, 1);
	return &ah->pub;
}

PMR_EXPORT int pmr_destroy_ah(struct pmr_ah *pah)
{
	struct pmr_ah_obj *ah;
	struct pmr_dev_obj *dev;

	if (pah == NULL)
		return EINVAL;
	ah = pmr_ah_obj(pah);
	dev = pmr_ctx_obj(pah->context)->dev;
	pmr_lock(pmr_ctx_obj(pah->context)->engine_lock);
	if (pmr_ctx_ah_referenced(pmr_ctx_obj(pah->context), ah)) {
		pmr_unlock(pmr_ctx_obj(pah->context)->engine_lock);
		return EBUSY;
	}
	pmr_unlock(pmr_ctx_obj(pah->context)->engine_lock);
	if (dev->drv->ah_destroy != NULL)
		dev->drv->ah_destroy(ah);
	atomic_fetch_sub(&pmr_pd_obj(pah->pd)->refs, 1);
	free(ah);
	return 0;
}
