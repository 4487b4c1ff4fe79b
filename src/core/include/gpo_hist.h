/*
 * gpo_hist.h
 *	  Histograms with even bins: PostgreSQL's width_bucket() over a column,
 *	  with a given or an automatic domain and an optional selection mask.
 *
 * Plain C11 (the inline bucket functions also compile as CUDA device code);
 * never includes postgres.h.  Same conventions as gpo.h: gpo_histogram picks
 * the face, answers the two-phase scratch query (scratch == NULL: store the
 * host scratch bytes in *scratch_bytes and return GPO_OK), and both faces
 * produce identical counts.
 */
#ifndef GPO_HIST_H
#define GPO_HIST_H

#include <float.h>

#include "gpo.h"

#ifdef __cplusplus
extern "C"
{
#endif

#ifdef __CUDACC__
#define GPO_HD __host__ __device__
#else
#define GPO_HD
#endif

/*
 * Double arithmetic that the compiler may not contract into fused
 * multiply-adds (device code uses the round-to-nearest intrinsics), so that
 * both faces round exactly as PostgreSQL's C code does.
 */
#ifdef __CUDA_ARCH__
#define GPO_DADD(a, b) __dadd_rn((a), (b))
#define GPO_DSUB(a, b) __dsub_rn((a), (b))
#define GPO_DMUL(a, b) __dmul_rn((a), (b))
#define GPO_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define GPO_DADD(a, b) ((a) + (b))
#define GPO_DSUB(a, b) ((a) - (b))
#define GPO_DMUL(a, b) ((a) * (b))
#define GPO_DDIV(a, b) ((a) / (b))
#endif

/*
 * What to count.  bins >= 1 and bins < INT32_MAX (bins + 1 is a bucket
 * number).  With auto_domain false, [lo, hi) is the domain: lo and hi
 * finite, lo < hi (else GPO_ERR_INVALID; the SQL layer raises 2201G as
 * width_bucket does).  With auto_domain true, lo and hi are ignored.
 */
typedef struct gpo_hist_spec
{
	int32_t		bins;
	bool		auto_domain;
	double		lo;
	double		hi;
} gpo_hist_spec;

/*
 * The domain used (out).  valid is false only for an automatic domain over
 * no finite value (SQL NULL); lo and hi are then 0.
 */
typedef struct gpo_hist_domain
{
	bool		valid;
	double		lo;
	double		hi;
} gpo_hist_domain;

/*
 * The bucket of a non-NaN operand in [bound1, bound2) split into count
 * buckets (bound1 < bound2, both finite): PostgreSQL 15's
 * width_bucket_float8, ascending branch (src/backend/utils/adt/float.c,
 * REL_15_STABLE; checked against 15.20 in test_histjoin.c):
 *
 *	if (operand < bound1)
 *		result = 0;
 *	else if (operand >= bound2)
 *		result = count + 1;
 *	else
 *		result = ((float8) count * (operand - bound1) / (bound2 - bound1)) + 1;
 *
 * in that order of operations: the product, the quotient and the "+ 1" are
 * all double, and only then truncated to int32 (so a value just below an
 * edge may round into the next bucket, and one just below bound2 into
 * count + 1, exactly as PostgreSQL does).
 *
 * Where that arithmetic overflows (count * (bound2 - bound1) is not finite,
 * only for domains wider than DBL_MAX / count) PostgreSQL 15's result is
 * undefined (x86-64 gives INT_MIN); there the bucket is instead
 * trunc(count * q) + 1 with q = (operand/2 - bound1/2) / (bound2/2 - bound1/2),
 * clamped to 1..count.
 */
static inline GPO_HD int32_t
gpo_width_bucket(double operand, double bound1, double bound2, int32_t count)
{
	double		width = GPO_DSUB(bound2, bound1);
	int32_t		result;

	if (operand < bound1)
		return 0;
	if (operand >= bound2)
		return count + 1;
	if (GPO_DMUL((double) count, width) <= DBL_MAX)
		return (int32_t) GPO_DADD(GPO_DDIV(GPO_DMUL((double) count,
													GPO_DSUB(operand, bound1)),
										   width), 1.0);
	result = (int32_t) GPO_DMUL((double) count,
								GPO_DDIV(GPO_DSUB(GPO_DDIV(operand, 2.0),
												  GPO_DDIV(bound1, 2.0)),
										 GPO_DSUB(GPO_DDIV(bound2, 2.0),
												  GPO_DDIV(bound1, 2.0))));
	if (result >= count)
		result = count - 1;
	return result + 1;
}

/*
 * The bucket of a non-NaN value under the automatic domain [lo, hi] (lo and
 * hi the minimum and maximum finite values, lo <= hi):
 *	 -Inf -> 0;  +Inf -> bins + 1;
 *	 lo == hi: every finite value -> 1;
 *	 value == hi (the maximum) -> bins (the last bin, not bins + 1);
 *	 otherwise gpo_width_bucket(value, lo, hi, bins), clamped to at most
 *	 bins (so every finite value lands in 1..bins).
 */
static inline GPO_HD int32_t
gpo_hist_auto_bucket(double v, double lo, double hi, int32_t bins)
{
	int32_t		b;

	if (v < lo)
		return 0;
	if (v > hi)
		return bins + 1;
	if (lo == hi)
		return 1;
	if (v >= hi)
		return bins;
	b = gpo_width_bucket(v, lo, hi, bins);
	return b > bins ? bins : b;
}

/*
 * Order-preserving int64 image of a non-NaN double (for min/max with
 * integer atomics): -0.0 orders just below +0.0 on both faces, so the
 * published domain is the same whatever the partition or thread order.
 */
static inline GPO_HD int64_t
gpo_hist_order_key(double v)
{
	union
	{
		double		d;
		int64_t		i;
	}			u;

	u.d = v;
	return u.i >= 0 ? u.i : u.i ^ INT64_MAX;
}

/* Inverse of gpo_hist_order_key. */
static inline GPO_HD double
gpo_hist_order_value(int64_t k)
{
	union
	{
		double		d;
		int64_t		i;
	}			u;

	u.i = k >= 0 ? k : k ^ INT64_MAX;
	return u.d;
}

/* ---- histogram (histogram.c, kernels/histogram.cu) ----
 *
 * values: INT32, INT64, FLOAT32 or FLOAT64; every value is converted to
 * float8 first (as width_bucket(v::float8, ...)).  mask: NULL, or UINT8 of
 * the same logical length (any partition): a row is counted only when its
 * mask byte is valid and nonzero.  NULL and NaN values are never counted.
 *
 * counts: the caller's array of spec->bins + 2 int64; counts[b] receives
 * the rows in bucket b (overwritten, also for empty input):
 *	 given domain: b = gpo_width_bucket(v, lo, hi, bins), PostgreSQL 15's
 *		width_bucket(v, lo, hi, bins): 0 below lo, 1..bins inside (bins + 1
 *		where PostgreSQL's rounding puts it), bins + 1 at or above hi;
 *		-Inf -> 0, +Inf -> bins + 1.
 *	 automatic domain: lo/hi = min/max of the finite non-NULL values of ALL
 *		rows (the mask does not narrow the domain);
 *		b = gpo_hist_auto_bucket(v, lo, hi, bins).  No finite value at all:
 *		every count is 0 (infinities included) and domain->valid is false.
 * domain (may be NULL): the domain used.
 */
extern gpo_status gpo_histogram(gpo_ctx *ctx, const gpo_vector *values,
								const gpo_vector *mask,
								const gpo_hist_spec *spec, int64_t *counts,
								gpo_hist_domain *domain, void *scratch,
								size_t *scratch_bytes);
extern gpo_status gpo_histogram_cpu(gpo_ctx *ctx, const gpo_vector *values,
									const gpo_vector *mask,
									const gpo_hist_spec *spec,
									int64_t *counts, gpo_hist_domain *domain,
									void *scratch);
extern gpo_status gpo_histogram_gpu(gpo_ctx *ctx, const gpo_vector *values,
									const gpo_vector *mask,
									const gpo_hist_spec *spec,
									int64_t *counts,
									gpo_hist_domain *domain);

/* Checks a histogram's arguments (shared by both faces). */
extern gpo_status gpo_histogram_check(gpo_ctx *ctx, const gpo_vector *values,
									  const gpo_vector *mask,
									  const gpo_hist_spec *spec,
									  const int64_t *counts);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_HIST_H */
