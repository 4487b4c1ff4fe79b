/*
 * histogram.c
 *	  Even-bin histograms (PostgreSQL's width_bucket over a column): the
 *	  argument check, the dispatcher and the CPU face.
 *
 * The CPU face splits the rows into nb blocks of consecutive rows.  For an
 * automatic domain a first pass finds each block's minimum and maximum
 * finite value (as order keys, so -0.0 < +0.0 on every face) and merges
 * them.  The counting pass gives each block private bins, summed afterwards
 * in block order; with very many bins the blocks add into the caller's
 * counts with atomics instead.  Chunks are walked by global row ranges;
 * values and mask may be partitioned independently.
 */
#include <math.h>
#include <stdlib.h>

#include "gpo_histjoin_internal.h"

/* Most bins (bins + 2 buckets) for which each block gets private counts. */
#define HIST_PRIVATE_BUCKETS	(1 << 20)

/* One block's partial results. */
typedef struct hist_part
{
	bool		any;			/* saw a finite value */
	int64_t		kmin;			/* order keys of the min and max finite value */
	int64_t		kmax;
} hist_part;

/* Everything a block needs. */
typedef struct hist_args
{
	const gpo_vector *values;
	const gpo_vector *mask;
	int32_t		bins;
	bool		auto_domain;
	bool		private_bins;
	double		lo;
	double		hi;
	int64_t		n;
	int			nb;
	int64_t    *value_starts;
	int64_t    *mask_starts;
	hist_part  *parts;
	int64_t    *block_counts;	/* nb * (bins + 2), when private_bins */
	int64_t    *counts;			/* the caller's */
} hist_args;

/* Lays out (or only sizes) the scratch of a histogram. */
static size_t
hist_layout(const gpo_ctx *ctx, const gpo_vector *values,
			const gpo_vector *mask, const gpo_hist_spec *spec, char *base,
			hist_args *a)
{
	gpo_arena	arena = {base, 0};
	int64_t		buckets = (int64_t) spec->bins + 2;

	a->nb = gpo_blocks(ctx, gpo_vector_rows(values));
	a->private_bins = buckets <= HIST_PRIVATE_BUCKETS;
	a->value_starts = gpo_arena_take(&arena,
									 sizeof(int64_t) * (values->nchunks + 1));
	a->mask_starts = mask ?
		gpo_arena_take(&arena, sizeof(int64_t) * (mask->nchunks + 1)) : NULL;
	a->parts = gpo_arena_take(&arena, sizeof(hist_part) * a->nb);
	a->block_counts = a->private_bins ?
		gpo_arena_take(&arena, sizeof(int64_t) * buckets * a->nb) : NULL;
	return arena.used;
}

/* Host scratch bytes gpo_histogram_cpu needs for these arguments. */
size_t
gpo_histogram_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *values,
							const gpo_vector *mask,
							const gpo_hist_spec *spec)
{
	hist_args	a;

	return hist_layout(ctx, values, mask, spec, NULL, &a);
}

/* Checks a histogram's arguments (shared by both faces). */
gpo_status
gpo_histogram_check(gpo_ctx *ctx, const gpo_vector *values,
					const gpo_vector *mask, const gpo_hist_spec *spec,
					const int64_t *counts)
{
	gpo_status	st;

	if ((st = gpo_check_vector(ctx, values, "histogram values")) != GPO_OK)
		return st;
	if (values->type != GPO_INT32 && values->type != GPO_INT64 &&
		values->type != GPO_FLOAT32 && values->type != GPO_FLOAT64)
	{
		gpo_set_detail(ctx, "histogram values must be int32, int64, float32 or float64, not %s",
					   gpo_type_name(values->type));
		return GPO_ERR_INVALID;
	}
	if (mask != NULL)
	{
		if ((st = gpo_check_vector(ctx, mask, "histogram mask")) != GPO_OK)
			return st;
		if (mask->type != GPO_UINT8)
		{
			gpo_set_detail(ctx, "histogram mask must be uint8, not %s",
						   gpo_type_name(mask->type));
			return GPO_ERR_INVALID;
		}
		if (gpo_vector_rows(mask) != gpo_vector_rows(values))
		{
			gpo_set_detail(ctx, "histogram mask has %lld rows, values %lld",
						   (long long) gpo_vector_rows(mask),
						   (long long) gpo_vector_rows(values));
			return GPO_ERR_INVALID;
		}
	}
	if (spec == NULL || counts == NULL)
	{
		gpo_set_detail(ctx, "histogram spec or counts is NULL");
		return GPO_ERR_INVALID;
	}
	if (spec->bins < 1 || spec->bins == INT32_MAX)
	{
		gpo_set_detail(ctx, "count must be greater than zero (and below %d)",
					   INT32_MAX);
		return GPO_ERR_INVALID;
	}
	if (!spec->auto_domain)
	{
		if (isnan(spec->lo) || isnan(spec->hi) ||
			isinf(spec->lo) || isinf(spec->hi))
		{
			gpo_set_detail(ctx, "lower and upper bounds must be finite");
			return GPO_ERR_INVALID;
		}
		if (!(spec->lo < spec->hi))
		{
			gpo_set_detail(ctx, "lower bound must be below upper bound");
			return GPO_ERR_INVALID;
		}
	}
	return GPO_OK;
}

/*
 * Walks the rows [lo, hi) of a's values (and mask) chunk span by chunk span:
 * for each span, x points at the values, vc/mc are the chunks, vj/mj the
 * first rows within them and len the span's rows.  BODY runs once a span.
 */
#define HIST_WALK(a, lo, hi, BODY) \
	do { \
		gpo_cursor	cv_; \
		gpo_cursor	cm_; \
		int64_t		row_ = (lo); \
		gpo_cursor_seek(&cv_, (a)->values, (a)->value_starts, (lo)); \
		if ((a)->mask) \
			gpo_cursor_seek(&cm_, (a)->mask, (a)->mask_starts, (lo)); \
		while (row_ < (hi)) \
		{ \
			int64_t		len = gpo_cursor_avail(&cv_); \
			const gpo_chunk *vc = gpo_cursor_chunk(&cv_); \
			const gpo_chunk *mc = NULL; \
			int64_t		vj = cv_.off; \
			int64_t		mj = 0; \
			if ((a)->mask) \
			{ \
				int64_t		mlen = gpo_cursor_avail(&cm_); \
				mc = gpo_cursor_chunk(&cm_); \
				mj = cm_.off; \
				len = len < mlen ? len : mlen; \
			} \
			len = len < (hi) - row_ ? len : (hi) - row_; \
			BODY; \
			cv_.off += len; \
			if ((a)->mask) \
				cm_.off += len; \
			row_ += len; \
		} \
	} while (0)

/* Value j of chunk c as float8 (as v::float8 in SQL). */
static inline double
hist_value(gpo_type type, const gpo_chunk *c, int64_t j)
{
	switch (type)
	{
		case GPO_INT32:
			return (double) ((const int32_t *) c->data)[j];
		case GPO_INT64:
			return (double) ((const int64_t *) c->data)[j];
		case GPO_FLOAT32:
			return (double) ((const float *) c->data)[j];
		default:
			return ((const double *) c->data)[j];
	}
}

/* Pass 1 (automatic domain): block b's minimum and maximum finite value. */
static void
hist_minmax(hist_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	gpo_type	type = a->values->type;
	bool		any = false;
	int64_t		kmin = INT64_MAX;
	int64_t		kmax = INT64_MIN;

	HIST_WALK(a, lo, hi,
	{
		(void) mc;
		(void) mj;
		for (int64_t j = vj; j < vj + len; j++)
		{
			double		v;
			int64_t		k;

			if (!gpo_valid(vc, j))
				continue;
			v = hist_value(type, vc, j);
			if (!isfinite(v))
				continue;
			k = gpo_hist_order_key(v);
			any = true;
			kmin = k < kmin ? k : kmin;
			kmax = k > kmax ? k : kmax;
		}
	});
	a->parts[b].any = any;
	a->parts[b].kmin = kmin;
	a->parts[b].kmax = kmax;
}

/* Counts one value into bins (private, or the shared counts atomically). */
static inline void
hist_add(hist_args *a, int64_t *bins, double v)
{
	int32_t		bucket;

	if (isnan(v))
		return;
	bucket = a->auto_domain ?
		gpo_hist_auto_bucket(v, a->lo, a->hi, a->bins) :
		gpo_width_bucket(v, a->lo, a->hi, a->bins);
	if (a->private_bins)
		bins[bucket]++;
	else
		__atomic_fetch_add(&a->counts[bucket], 1, __ATOMIC_RELAXED);
}

/* Pass 2: block b counts its rows. */
static void
hist_count(hist_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	gpo_type	type = a->values->type;
	int64_t    *bins = NULL;

	if (a->private_bins)
	{
		bins = a->block_counts + (int64_t) b * ((int64_t) a->bins + 2);
		memset(bins, 0, sizeof(int64_t) * ((size_t) a->bins + 2));
	}
	HIST_WALK(a, lo, hi,
	{
		const uint8_t *m = mc ? (const uint8_t *) mc->data : NULL;

		if (vc->validity == NULL && m == NULL && type == GPO_FLOAT64)
		{
			const double *x = (const double *) vc->data;

			for (int64_t j = vj; j < vj + len; j++)
				hist_add(a, bins, x[j]);
		}
		else
		{
			for (int64_t i = 0; i < len; i++)
			{
				if (!gpo_valid(vc, vj + i))
					continue;
				if (m != NULL && (m[mj + i] == 0 || !gpo_valid(mc, mj + i)))
					continue;
				hist_add(a, bins, hist_value(type, vc, vj + i));
			}
		}
	});
}

/* Histogram CPU face (see gpo_hist.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_histogram_cpu(gpo_ctx *ctx, const gpo_vector *values,
				  const gpo_vector *mask, const gpo_hist_spec *spec,
				  int64_t *counts, gpo_hist_domain *domain, void *scratch)
{
	hist_args	a;
	gpo_status	st;
	void	   *own = NULL;
	int64_t		buckets;
	bool		any = false;
	int64_t		kmin = INT64_MAX;
	int64_t		kmax = INT64_MIN;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_histogram_check(ctx, values, mask, spec, counts)) != GPO_OK)
		return st;
	buckets = (int64_t) spec->bins + 2;
	memset(counts, 0, sizeof(int64_t) * (size_t) buckets);
	if (domain != NULL)
	{
		domain->valid = !spec->auto_domain;
		domain->lo = spec->auto_domain ? 0.0 : spec->lo;
		domain->hi = spec->auto_domain ? 0.0 : spec->hi;
	}
	a.values = values;
	a.mask = mask;
	a.bins = spec->bins;
	a.auto_domain = spec->auto_domain;
	a.lo = spec->lo;
	a.hi = spec->hi;
	a.n = gpo_vector_rows(values);
	a.counts = counts;
	if (a.n == 0)
		return GPO_OK;
	if (scratch == NULL)
	{
		own = scratch = malloc(hist_layout(ctx, values, mask, spec, NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate histogram scratch");
			return GPO_ERR_NOMEM;
		}
	}
	hist_layout(ctx, values, mask, spec, scratch, &a);
	gpo_chunk_starts(values, a.value_starts);
	if (mask)
		gpo_chunk_starts(mask, a.mask_starts);

	gpo_omp_prepare(gpo_threads(ctx));
	if (a.auto_domain)
	{
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
		for (int b = 0; b < a.nb; b++)
			hist_minmax(&a, b);
		for (int b = 0; b < a.nb; b++)
		{
			if (!a.parts[b].any)
				continue;
			any = true;
			kmin = a.parts[b].kmin < kmin ? a.parts[b].kmin : kmin;
			kmax = a.parts[b].kmax > kmax ? a.parts[b].kmax : kmax;
		}
		if (!any)
		{
			free(own);
			return GPO_OK;		/* no finite value: all zero, domain NULL */
		}
		a.lo = gpo_hist_order_value(kmin);
		a.hi = gpo_hist_order_value(kmax);
		if (domain != NULL)
		{
			domain->valid = true;
			domain->lo = a.lo;
			domain->hi = a.hi;
		}
	}
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
	for (int b = 0; b < a.nb; b++)
		hist_count(&a, b);
	if (a.private_bins)
	{
		for (int b = 0; b < a.nb; b++)
		{
			const int64_t *bins = a.block_counts + (int64_t) b * buckets;

			for (int64_t k = 0; k < buckets; k++)
				counts[k] += bins[k];
		}
	}
	free(own);
	return GPO_OK;
}

/* Histogram dispatcher (see gpo_hist.h). */
gpo_status
gpo_histogram(gpo_ctx *ctx, const gpo_vector *values, const gpo_vector *mask,
			  const gpo_hist_spec *spec, int64_t *counts,
			  gpo_hist_domain *domain, void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_histogram_check(ctx, values, mask, spec, counts)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
							 gpo_histogram_scratch_bytes(ctx, values, mask, spec),
							 &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(values), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_histogram_gpu(ctx, values, mask, spec, counts, domain);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_histogram_cpu(ctx, values, mask, spec, counts, domain, scratch);
}
