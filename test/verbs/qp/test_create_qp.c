/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmr_create_qp: granted capabilities, limits, CQ checks, types, QP
 * numbers, query_qp's init_attr, destroy, a full QP table.
 */
#include "vt.h"

static struct vt v;

static struct pmr_qp_init_attr base(struct pmr_cq *cq, enum pmr_qp_type t)
{
	struct pmr_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = t;
	ia.cap.max_send_wr = 10;
	ia.cap.max_recv_wr = 20;
	ia.cap.max_send_sge = 3;
	ia.cap.max_recv_sge = 2;
	ia.cap.max_inline_data = 100;
	ia.qp_context = (void *)0x1234;
	return ia;
}

static void expect_einval(struct pmr_qp_init_attr *ia, const char *what)
{
	struct pmr_qp *qp;

	errno = 0;
	qp = pmr_create_qp(v.pd, ia);
	if (qp != NULL || errno != EINVAL)
		fprintf(stderr, "create_qp with %s: qp %p errno %d\n", what,
			(void *)qp, errno);
	CHECK(qp == NULL);
	CHECK_EQ(errno, EINVAL);
}

/*
 * A device holds 16384 QPs (its max_qp): one more is ENOSPC and changes
 * nothing; once one goes, a QP can be made again.
 */
static void qp_table_full(void)
{
	static struct pmr_qp *qps[16384];
	struct pmr_device_attr da;
	struct pmr_cq *cq = vt_cq(&v, 4);
	struct pmr_qp_init_attr ia = vt_qp_attr(PMR_QPT_UD, cq, cq, 1, 0);
	int n = 0;

	CHECK_EQ(pmr_query_device(v.ctx, &da), 0);
	CHECK_EQ(da.max_qp, 16384);
	while (n < 16384 && (qps[n] = pmr_create_qp(v.pd, &ia)) != NULL)
		n++;
	CHECK_EQ(n, 16384);
	errno = 0;
	CHECK(pmr_create_qp(v.pd, &ia) == NULL);
	CHECK_EQ(errno, ENOSPC);
	CHECK_EQ(pmr_destroy_qp(qps[100]), 0);
	qps[100] = pmr_create_qp(v.pd, &ia);
	CHECK(qps[100] != NULL);
	errno = 0;
	CHECK(pmr_create_qp(v.pd, &ia) == NULL);
	CHECK_EQ(errno, ENOSPC);
	for (int i = 0; i < n; i++)
		CHECK_EQ(pmr_destroy_qp(qps[i]), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
}

int main(void)
{
	static const enum pmr_qp_type types[] = { PMR_QPT_RC, PMR_QPT_UC,
						  PMR_QPT_UD };
	struct pmr_context *c2;
	struct pmr_cq *cq, *cq2, *cq_other;
	struct pmr_qp *qps[12];
	struct pmr_qp_init_attr ia, qia;
	struct pmr_qp_attr a;
	int nq = 0;

	vt_open(&v);
	cq = vt_cq(&v, 64);
	cq2 = vt_cq(&v, 64);
	c2 = pmr_open_device(v.dev);
	CHECK(c2 != NULL);
	cq_other = pmr_create_cq(c2, 16, NULL, NULL, 0);
	CHECK(cq_other != NULL);

	/* granted >= requested, reported by query_qp too */
	for (int k = 0; k < 3; k++) {
		for (int s = 0; s < 3; s++) {
			struct pmr_qp *qp;

			ia = base(s == 1 ? cq2 : cq, types[k]);
			if (s == 1)
				ia.recv_cq = cq;
			if (s == 2) {
				ia.cap.max_send_wr = (uint32_t)v.dattr.max_qp_wr;
				ia.cap.max_recv_wr = 1;
				ia.cap.max_send_sge = (uint32_t)v.dattr.max_sge;
				ia.cap.max_recv_sge = (uint32_t)v.dattr.max_sge;
				ia.cap.max_inline_data = 0;
			}
			{
				struct pmr_qp_cap want = ia.cap;

				qp = pmr_create_qp(v.pd, &ia);
				CHECK(qp != NULL);
				CHECK(ia.cap.max_send_wr >= want.max_send_wr);
				CHECK(ia.cap.max_recv_wr >= want.max_recv_wr);
				CHECK(ia.cap.max_send_sge >= want.max_send_sge);
				CHECK(ia.cap.max_recv_sge >= want.max_recv_sge);
				CHECK(ia.cap.max_inline_data >= want.max_inline_data);
			}
			CHECK_EQ(qp->qp_type, types[k]);
			CHECK_EQ(qp->state, PMR_QPS_RESET);
			CHECK(qp->pd == v.pd);
			CHECK(qp->context == v.ctx);
			CHECK(qp->send_cq == ia.send_cq);
			CHECK(qp->recv_cq == ia.recv_cq);
			CHECK(qp->srq == NULL);
			CHECK(qp->qp_context == (void *)0x1234);
			CHECK(qp->qp_num != 0 && qp->qp_num <= 0xffffff);
			memset(&qia, 0, sizeof(qia));
			CHECK_EQ(pmr_query_qp(qp, &a, PMR_QP_CAP, &qia), 0);
			CHECK_EQ(a.qp_state, PMR_QPS_RESET);
			CHECK_EQ(qia.cap.max_send_wr, ia.cap.max_send_wr);
			CHECK_EQ(qia.cap.max_recv_wr, ia.cap.max_recv_wr);
			CHECK_EQ(qia.cap.max_send_sge, ia.cap.max_send_sge);
			CHECK_EQ(qia.cap.max_recv_sge, ia.cap.max_recv_sge);
			CHECK_EQ(qia.cap.max_inline_data, ia.cap.max_inline_data);
			CHECK_EQ(a.cap.max_send_wr, ia.cap.max_send_wr);
			CHECK_EQ(a.cap.max_inline_data, ia.cap.max_inline_data);
			CHECK_EQ(qia.qp_type, types[k]);
			CHECK(qia.send_cq == ia.send_cq);
			CHECK(qia.recv_cq == ia.recv_cq);
			CHECK_EQ(qia.sq_sig_all, 0);
			qps[nq++] = qp;
		}
	}
	/* QP numbers are distinct */
	for (int i = 0; i < nq; i++)
		for (int j = 0; j < i; j++)
			CHECK(qps[i]->qp_num != qps[j]->qp_num);

	/* limits */
	ia = base(cq, PMR_QPT_RC);
	ia.cap.max_send_wr = (uint32_t)v.dattr.max_qp_wr + 1;
	expect_einval(&ia, "max_send_wr > max_qp_wr");
	ia = base(cq, PMR_QPT_RC);
	ia.cap.max_recv_wr = (uint32_t)v.dattr.max_qp_wr + 1;
	expect_einval(&ia, "max_recv_wr > max_qp_wr");
	ia = base(cq, PMR_QPT_UD);
	ia.cap.max_send_sge = (uint32_t)v.dattr.max_sge + 1;
	expect_einval(&ia, "max_send_sge > max_sge");
	ia = base(cq, PMR_QPT_UC);
	ia.cap.max_recv_sge = (uint32_t)v.dattr.max_sge + 1;
	expect_einval(&ia, "max_recv_sge > max_sge");
	ia = base(cq, PMR_QPT_RC);
	ia.cap.max_inline_data = 1u << 20;
	expect_einval(&ia, "max_inline_data 1 MiB");
	/* CQs */
	ia = base(cq, PMR_QPT_RC);
	ia.send_cq = NULL;
	expect_einval(&ia, "no send_cq");
	ia = base(cq, PMR_QPT_RC);
	ia.recv_cq = NULL;
	expect_einval(&ia, "no recv_cq");
	ia = base(cq, PMR_QPT_RC);
	ia.send_cq = cq_other;
	expect_einval(&ia, "send_cq of another context");
	ia = base(cq, PMR_QPT_UD);
	ia.recv_cq = cq_other;
	expect_einval(&ia, "recv_cq of another context");
	/* types */
	{
		static const int bad_types[] = { PMR_QPT_RAW_PACKET,
			PMR_QPT_XRC_SEND, PMR_QPT_XRC_RECV, PMR_QPT_DRIVER, 0, 1,
			5 };

		for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]);
		     i++) {
			ia = base(cq, (enum pmr_qp_type)bad_types[i]);
			expect_einval(&ia, "unsupported qp_type");
		}
	}
	errno = 0;
	CHECK(pmr_create_qp(v.pd, NULL) == NULL);
	CHECK_EQ(errno, EINVAL);

	/* a CQ in use cannot go; destroy frees the QP */
	CHECK_EQ(pmr_destroy_cq(cq2), EBUSY);
	for (int i = 0; i < nq; i++)
		CHECK_EQ(pmr_destroy_qp(qps[i]), 0);
	CHECK_EQ(pmr_destroy_cq(cq2), 0);
	/* sq_sig_all is reported back */
	ia = base(cq, PMR_QPT_RC);
	ia.sq_sig_all = 1;
	qps[0] = pmr_create_qp(v.pd, &ia);
	CHECK(qps[0] != NULL);
	CHECK_EQ(pmr_query_qp(qps[0], &a, 0, &qia), 0);
	CHECK_EQ(qia.sq_sig_all, 1);
	CHECK_EQ(pmr_destroy_qp(qps[0]), 0);

	CHECK_EQ(pmr_destroy_cq(cq_other), 0);
	CHECK_EQ(pmr_close_device(c2), 0);
	CHECK_EQ(pmr_destroy_cq(cq), 0);
	qp_table_full();
	vt_close(&v);
	return vt_exit();
}
