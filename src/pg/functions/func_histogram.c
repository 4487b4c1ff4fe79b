/*
 * func_histogram.c
 *	  gpuops.histogram(anyarray, bins, lo, hi) through gpo_histogram.
 *
 * Counts the elements of an int2, int4, int8, float4 or float8 array into
 * width_bucket() buckets: every element is converted to float8 first (as
 * v::float8), bucket b of 1..bins covers [lo + (b-1)*(hi-lo)/bins,
 * lo + b*(hi-lo)/bins), bucket 0 holds what lies below lo and bucket
 * bins + 1 what lies at or above hi, exactly as PostgreSQL 15's
 * width_bucket(v::float8, lo, hi, bins) assigns them.  NULL and NaN
 * elements are not counted.
 *
 * With lo and hi both NULL the domain is automatic: the minimum and maximum
 * finite element, the maximum counted in the last bin; -Infinity is then in
 * bucket 0 and Infinity in bucket bins + 1.  An array without a finite
 * element counts nothing and reports NULL bounds.
 *
 * One row per bucket 1..bins (empty ones included), plus bucket 0 and
 * bucket bins + 1 when they are not empty, ordered by bucket.
 *
 * Bad arguments raise what width_bucket raises (2201G: bins < 1, a NaN or
 * infinite bound, lo = hi), and also for lo > hi (descending domains are
 * not supported); only one of lo and hi is 22023; more bins than one 1 GB
 * allocation of counts holds is 54000.
 */
#include "functions/gpuops_functions.h"

#include <math.h>

#include "gpo_hist.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gpuops_histogram);

/* Most bins: the bins + 2 counts must fit one ordinary allocation (1 GB). */
#define GPUOPS_HIST_MAX_BINS ((int32) (MaxAllocSize / sizeof(int64)) - 2)

/*
 * Edge e (0..bins) of the domain [lo, hi] cut into bins even bins: lo for
 * e = 0, hi for e = bins, else lo + e * (hi - lo) / bins in that order of
 * operations; where bins * (hi - lo) overflows, 2 * (lo/2 + e * ((hi/2 -
 * lo/2) / bins)), whose every step is finite.
 */
static float8
gpuops_hist_edge(float8 lo, float8 hi, int32 bins, int32 e)
{
	float8		width = hi - lo;
	float8		edge;

	if (e <= 0)
		return lo;
	if (e >= bins)
		return hi;
	if (isfinite((float8) bins * width))
		edge = lo + ((float8) e * width) / (float8) bins;
	else
		edge = 2.0 * (lo / 2.0 + (float8) e * ((hi / 2.0 - lo / 2.0) / (float8) bins));
	/* rounding never takes an inner edge out of the domain */
	return Min(Max(edge, lo), hi);
}

/* Check the bucket count and a given domain, in width_bucket's order. */
static void
gpuops_hist_check_args(int32 bins, bool auto_domain, float8 lo, float8 hi)
{
	if (bins <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
				 errmsg("count must be greater than zero")));
	if (bins > GPUOPS_HIST_MAX_BINS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("histogram of %d bins exceeds the limit of %d bins",
						bins, GPUOPS_HIST_MAX_BINS)));
	if (auto_domain)
		return;
	if (isnan(lo) || isnan(hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
				 errmsg("lower bound and upper bound cannot be NaN")));
	if (isinf(lo) || isinf(hi))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
				 errmsg("lower and upper bounds must be finite")));
	if (lo == hi)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
				 errmsg("lower bound cannot equal upper bound")));
	if (lo > hi)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION),
				 errmsg("lower bound must be less than upper bound"),
				 errhint("gpuops.histogram counts ascending ranges only.")));
}

/* Emit one result row (bucket, lower_bound, upper_bound, count). */
static void
gpuops_hist_emit(ReturnSetInfo *rsinfo, int32 bucket, float8 lower,
				 bool lower_null, float8 upper, bool upper_null, int64 count)
{
	Datum		values[4];
	bool		nulls[4] = {false, lower_null, upper_null, false};

	values[0] = Int32GetDatum(bucket);
	values[1] = Float8GetDatum(lower);
	values[2] = Float8GetDatum(upper);
	values[3] = Int64GetDatum(count);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * The spec from arguments 1..3 (bins, lo, hi; bins not NULL), checked:
 * shared by the array and the query versions.
 */
void
gpuops_hist_spec_from_args(FunctionCallInfo fcinfo, gpo_hist_spec *spec)
{
	if (PG_ARGISNULL(2) != PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("lower and upper bounds must both be given or both be NULL"),
				 errhint("Give neither for an automatic domain from the minimum and maximum finite values.")));

	spec->bins = PG_GETARG_INT32(1);
	spec->auto_domain = PG_ARGISNULL(2);
	spec->lo = spec->auto_domain ? 0.0 : PG_GETARG_FLOAT8(2);
	spec->hi = spec->auto_domain ? 0.0 : PG_GETARG_FLOAT8(3);
	gpuops_hist_check_args(spec->bins, spec->auto_domain, spec->lo, spec->hi);
}

/*
 * Check the counts of num_values values against spec and domain, and emit
 * the result rows: shared by the array and the query versions.
 */
void
gpuops_hist_output(ReturnSetInfo *rsinfo, const gpo_hist_spec *spec,
				   const int64 *counts, const gpo_hist_domain *domain,
				   int64 num_values)
{
	int32		bins = spec->bins;
	int64		total = 0;
	int32		b;

	/* every counted element is a non-NULL element */
	for (b = 0; b <= bins + 1; b++)
	{
		if (counts[b] < 0)
			elog(ERROR, "gpuops: engine published a negative count for bucket %d", b);
		total += counts[b];
	}
	if (total > num_values)
		elog(ERROR, "gpuops: engine counted " INT64_FORMAT " of " INT64_FORMAT " elements",
			 total, num_values);
	if (!domain->valid && (!spec->auto_domain || total != 0))
		elog(ERROR, "gpuops: engine published no domain for a histogram of " INT64_FORMAT " values",
			 total);

	if (counts[0] > 0)
		gpuops_hist_emit(rsinfo, 0, -get_float8_infinity(), false,
						 domain->lo, false, counts[0]);
	for (b = 1; b <= bins; b++)
	{
		if ((b & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		gpuops_hist_emit(rsinfo, b,
						 gpuops_hist_edge(domain->lo, domain->hi, bins, b - 1),
						 !domain->valid,
						 gpuops_hist_edge(domain->lo, domain->hi, bins, b),
						 !domain->valid,
						 counts[b]);
	}
	if (counts[bins + 1] > 0)
		gpuops_hist_emit(rsinfo, bins + 1, domain->hi, false,
						 get_float8_infinity(), false, counts[bins + 1]);
}

/* gpuops.histogram(anyarray, bins, lo, hi): width_bucket counts per bucket. */
Datum
gpuops_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArrayType  *arr;
	Oid			elemtype;
	int32		bins;
	gpo_hist_spec spec;
	gpo_hist_domain domain;
	GpuopsColumn col;
	int64	   *counts;
	gpo_ctx		ctx;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 4)
		elog(ERROR, "gpuops.histogram: return type must have 4 columns");

	/* not STRICT (lo and hi default to NULL); a NULL array or bins: no rows */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;

	arr = PG_GETARG_ARRAYTYPE_P(0);
	elemtype = gpuops_array_elemtype(fcinfo, 0, arr);
	if (elemtype != INT2OID && elemtype != INT4OID && elemtype != INT8OID &&
		elemtype != FLOAT4OID && elemtype != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpuops.histogram does not support arrays of type %s",
						format_type_be(elemtype)),
				 errhint("Use an array of smallint, integer, bigint, real or double precision, e.g. cast it to double precision[].")));

	gpuops_hist_spec_from_args(fcinfo, &spec);
	bins = spec.bins;

	counts = palloc0(((Size) bins + 2) * sizeof(int64));
	gpuops_array_to_column(arr, &col);

	gpuops_ctx_init_budget(&ctx);
	st = gpo_histogram(&ctx, &col.vec, NULL, &spec, counts, &domain, NULL,
					   &scratch_bytes);
	gpuops_check_status(st, &ctx, "histogram", INT8OID);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	st = gpo_histogram(&ctx, &col.vec, NULL, &spec, counts, &domain, scratch,
					   &scratch_bytes);
	gpuops_check_status(st, &ctx, "histogram", INT8OID);
	CHECK_FOR_INTERRUPTS();

	gpuops_hist_output(rsinfo, &spec, counts, &domain, col.num_rows);
	return (Datum) 0;
}
