/*
 * query_histogram.c
 *	  gpuops.histogram(query text, bins, lo, hi): the histogram of a query's
 *	  one numeric column, streamed in chunks.
 *
 * Given domain: one pass; each chunk goes through gpo_histogram with the
 * same spec and its counts are added up.
 *
 * Automatic domain: two passes over the same snapshot.  The first reads the
 * chunks in the backend for the minimum and maximum finite value (ordered
 * with -0.0 below 0.0, as the engine orders them) and counts the finite
 * values and the infinities.  If there is no finite value nothing is counted
 * (as the array version); if min = max every finite value is in bucket 1.
 * Otherwise the second pass counts each chunk with the domain [min, max)
 * given, which is width_bucket's rule; the automatic rule differs only in
 * that a finite value never goes above bucket bins (the maximum itself, or
 * a value that rounding puts in bins + 1, lands in bins), so the second
 * pass's bucket bins + 1 minus the +Infinity count moves to bucket bins.
 * The result then equals gpo_histogram's automatic domain over all rows.
 * The counting pass also recomputes the first pass's row count, minimum,
 * maximum and counts of finite and infinite values; a query whose values
 * differ between the passes (random(), nextval(), a LIMIT without ORDER BY)
 * raises 22000 instead of giving a wrong histogram.
 */
#include "gpuops.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gpuops_histogram_query);

/* What a pass of the automatic domain finds in the values. */
typedef struct GpuopsHistStats
{
	int64		num_values;		/* rows seen (NULLs included) */
	bool		any_finite;
	int64		min_key;		/* gpo_hist_order_key of the minimum */
	int64		max_key;
	int64		num_finite;
	int64		num_neg_inf;
	int64		num_pos_inf;
} GpuopsHistStats;

/* What the passes accumulate. */
typedef struct GpuopsQueryHist
{
	gpo_hist_spec spec;			/* the spec each chunk is counted with */
	int64	   *counts;			/* bins + 2 totals */
	int64	   *chunk_counts;	/* one chunk's counts */
	int64		num_values;		/* rows counted (NULLs included) */
	bool		check_pass;		/* the counting pass also fills second */
	GpuopsHistStats first;		/* the automatic domain's first pass */
	GpuopsHistStats second;		/* its counting pass, for comparison */
} GpuopsQueryHist;

/* Value row of a chunk of a numeric column as float8 (as v::float8). */
static inline double
gpuops_qhist_value(const gpo_chunk *c, gpo_type type, int64 row)
{
	switch (type)
	{
		case GPO_INT32:
			return (double) ((const int32 *) c->data)[row];
		case GPO_INT64:
			return (double) ((const int64 *) c->data)[row];
		case GPO_FLOAT32:
			return (double) ((const float4 *) c->data)[row];
		default:
			return ((const double *) c->data)[row];
	}
}

/* Min, max and counts of the values of one chunk, added to st. */
static void
gpuops_qhist_stats(GpuopsStream *s, GpuopsHistStats *h)
{
	GpuopsStreamColumn *col = &s->cols[0];
	int64		i;

	h->num_values += s->num_rows;
	for (i = 0; i < s->num_rows; i++)
	{
		double		v;
		int64		k;

		if (!gpo_valid(&col->chunk, i))
			continue;
		v = gpuops_qhist_value(&col->chunk, col->type, i);
		if (isnan(v))
			continue;
		if (isinf(v))
		{
			if (v < 0)
				h->num_neg_inf++;
			else
				h->num_pos_inf++;
			continue;
		}
		k = gpo_hist_order_key(v);
		if (!h->any_finite)
			h->min_key = h->max_key = k;
		h->min_key = Min(h->min_key, k);
		h->max_key = Max(h->max_key, k);
		h->any_finite = true;
		h->num_finite++;
	}
}

/* First pass of the automatic domain. */
static void
gpuops_qhist_scan_chunk(GpuopsStream *s, void *arg)
{
	gpuops_qhist_stats(s, &((GpuopsQueryHist *) arg)->first);
}

/* Counting pass: one chunk through gpo_histogram, added to the totals. */
static void
gpuops_qhist_count_chunk(GpuopsStream *s, void *arg)
{
	GpuopsQueryHist *h = (GpuopsQueryHist *) arg;
	gpo_hist_domain domain;
	gpo_ctx		ctx;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	int32		b;

	h->num_values += s->num_rows;
	if (h->check_pass)
		gpuops_qhist_stats(s, &h->second);
	gpuops_ctx_init(&ctx);
	st = gpo_histogram(&ctx, &s->cols[0].vec, NULL, &h->spec,
					   h->chunk_counts, &domain, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, "histogram", INT8OID);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	st = gpo_histogram(&ctx, &s->cols[0].vec, NULL, &h->spec,
					   h->chunk_counts, &domain, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, "histogram", INT8OID);
	for (b = 0; b <= h->spec.bins + 1; b++)
	{
		if (h->chunk_counts[b] < 0)
			elog(ERROR, "gpuops: engine published a negative count for bucket %d", b);
		h->counts[b] += h->chunk_counts[b];
	}
}

/* True if two passes found the same values. */
static bool
gpuops_qhist_same(const GpuopsHistStats *a, const GpuopsHistStats *b)
{
	return a->num_values == b->num_values &&
		a->any_finite == b->any_finite &&
		a->min_key == b->min_key &&
		a->max_key == b->max_key &&
		a->num_finite == b->num_finite &&
		a->num_neg_inf == b->num_neg_inf &&
		a->num_pos_inf == b->num_pos_inf;
}

/* Raise 22000: the second pass did not see the first pass's values. */
static void
gpuops_qhist_changed(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("gpuops.histogram: the query returned different values in its second pass"),
			 errhint("The automatic domain runs the query twice: make it deterministic, or give lo and hi.")));
}

/* gpuops.histogram(query text, bins, lo, hi): width_bucket counts of a query's column. */
Datum
gpuops_histogram_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GpuopsQueryHist h;
	GpuopsStream s;
	gpo_hist_domain domain;
	Oid			typid;
	char	   *query;
	int32		bins;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 4)
		elog(ERROR, "gpuops.histogram: return type must have 4 columns");

	/* not STRICT (lo and hi default to NULL); a NULL query or bins: no rows */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	memset(&h, 0, sizeof(h));
	gpuops_hist_spec_from_args(fcinfo, &h.spec);
	bins = h.spec.bins;
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "gpuops.histogram: SPI_connect failed");
	gpuops_stream_prepare(&s, "gpuops.histogram", query, 1);
	typid = TupleDescAttr(s.desc, 0)->atttypid;
	if (typid != INT2OID && typid != INT4OID && typid != INT8OID &&
		typid != FLOAT4OID && typid != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("gpuops.histogram: column 1 of the query has type %s, expected smallint, integer, bigint, real or double precision",
						format_type_be(typid)),
				 errhint("Cast the column, e.g. to double precision.")));

	h.counts = palloc0(((Size) bins + 2) * sizeof(int64));
	h.chunk_counts = palloc0(((Size) bins + 2) * sizeof(int64));

	if (!h.spec.auto_domain)
	{
		gpuops_stream_begin(&s, gpuops_qhist_count_chunk, &h);
		gpuops_stream_run(&s);
		domain.valid = true;
		domain.lo = h.spec.lo;
		domain.hi = h.spec.hi;
	}
	else
	{
		GpuopsHistStats *f = &h.first;

		gpuops_stream_begin(&s, gpuops_qhist_scan_chunk, &h);
		gpuops_stream_run(&s);
		h.num_values = f->num_values;
		domain.valid = f->any_finite;
		domain.lo = f->any_finite ? gpo_hist_order_value(f->min_key) : 0.0;
		domain.hi = f->any_finite ? gpo_hist_order_value(f->max_key) : 0.0;
		if (!f->any_finite)
		{
			/* no finite value: nothing is counted, infinities included */
		}
		else if (domain.lo == domain.hi)
		{
			/* one finite value (or -0.0 and 0.0): all of them in bucket 1 */
			h.counts[0] = f->num_neg_inf;
			h.counts[1] = f->num_finite;
			h.counts[bins + 1] = f->num_pos_inf;
		}
		else
		{
			/* count with the domain given; check the rows are the same */
			h.num_values = 0;
			h.check_pass = true;
			h.spec.auto_domain = false;
			h.spec.lo = domain.lo;
			h.spec.hi = domain.hi;
			s.callback = gpuops_qhist_count_chunk;
			gpuops_stream_run(&s);
			h.spec.auto_domain = true;
			h.second.num_values = h.num_values;
			if (!gpuops_qhist_same(&h.first, &h.second) ||
				h.counts[0] != f->num_neg_inf ||
				h.counts[bins + 1] < f->num_pos_inf)
				gpuops_qhist_changed();
			h.counts[bins] += h.counts[bins + 1] - f->num_pos_inf;
			h.counts[bins + 1] = f->num_pos_inf;
		}
	}

	gpuops_hist_output(rsinfo, &h.spec, h.counts, &domain, h.num_values);
	SPI_finish();
	return (Datum) 0;
}
