/*
 * func_groupagg.c
 *	  gpuops.group_agg(keys anyarray, vals float8[] | int8[]): GROUP BY
 *	  through gpo_groupagg.
 *
 * One result row per distinct key, in the key type's order, the NULL-key
 * group last: (key, rows, count, sum, min, max, avg), as
 *   SELECT k, count(*), count(v), sum(v), min(v), max(v), avg(v)
 *     FROM unnest(keys, vals) AS u(k, v) GROUP BY k ORDER BY k NULLS LAST
 * gives.  Keys of int2, int4, date, int8, timestamp, timestamptz, float4,
 * float8 and bool go to the engine (bool as int32 0/1); other key types are
 * rejected.  Both arrays are read in storage order and must have the same
 * number of elements.
 *
 * float8 values follow PostgreSQL's sum, min, max and avg: NaN and the
 * infinities propagate, finite values whose sum (or, for avg, sum of squared
 * deviations) overflows raise "value out of range: overflow" (see
 * gpuops_float_sum for the rule), and the sum of a group whose values are
 * all -0.0 is -0.0.  int8 values are summed exactly in 128 bits; sum and
 * avg are numeric, avg being numeric_div(sum, count) as avg(int8) computes.
 *
 * The number of groups is not known up front: the first call offers room
 * for min(n, GPUOPS_GROUPAGG_FIRST_CAPACITY) groups, and a call that finds
 * more is repeated with room for exactly the groups found.
 */
#include "functions/gpuops_functions.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "gpo_agg.h"

PG_FUNCTION_INFO_V1(gpuops_group_agg_float8);
PG_FUNCTION_INFO_V1(gpuops_group_agg_int8);

/* Groups the first engine call has room for (more: a second call). */
#define GPUOPS_GROUPAGG_FIRST_CAPACITY	65536

/* Result columns: key, rows, count, sum, min, max, avg. */
#define GPUOPS_GROUPAGG_NATTS	7

/* True for a key element type that group_agg hands to the engine. */
static bool
gpuops_groupagg_key_type_ok(Oid elemtype)
{
	gpo_type	type;

	return gpuops_device_type(elemtype, &type);
}

/*
 * The keys as an engine column of a key type the engine groups: bool
 * (physically uint8) is widened to int32 0/1, every other type is used as
 * gpuops_array_to_column describes it.
 */
static void
gpuops_groupagg_keys(ArrayType *arr, GpuopsColumn *col)
{
	gpuops_array_to_column(arr, col);
	if (col->type == GPO_UINT8)
	{
		const uint8 *src = (const uint8 *) col->data;
		int32	   *dst = palloc_extended(Max(col->num_rows, 1) * sizeof(int32),
										  MCXT_ALLOC_HUGE);
		int64		i;

		for (i = 0; i < col->num_rows; i++)
			dst[i] = src[i] != 0 ? 1 : 0;
		col->type = GPO_INT32;
		col->data = dst;
		gpuops_make_vector(&col->vec, GPO_INT32, dst, col->nulls,
						   col->num_rows, false);
	}
}

/* Result arrays with room for capacity groups (values of vtype). */
void
gpuops_groupagg_alloc(gpo_agg_out *out, int64 capacity, gpo_type ktype,
					  gpo_type vtype)
{
	int64		n = Max(capacity, 1);

	memset(out, 0, sizeof(*out));
	out->capacity = capacity;
	out->keys = palloc_extended(n * gpo_type_size(ktype), MCXT_ALLOC_HUGE);
	out->key_valid = palloc_extended(n, MCXT_ALLOC_HUGE);
	out->rows = palloc_extended(n * sizeof(int64), MCXT_ALLOC_HUGE);
	out->count = palloc_extended(n * sizeof(int64), MCXT_ALLOC_HUGE);
	if (vtype == GPO_INT64)
		out->isum = palloc_extended(n * sizeof(gpo_int128), MCXT_ALLOC_HUGE);
	else
	{
		/* float values: avg needs m2 (its overflow check) */
		out->fsum = palloc_extended(n * sizeof(double), MCXT_ALLOC_HUGE);
		out->fflags = palloc_extended(n, MCXT_ALLOC_HUGE);
		out->m2 = palloc_extended(n * sizeof(double), MCXT_ALLOC_HUGE);
	}
	out->min = palloc_extended(n * gpo_type_size(vtype), MCXT_ALLOC_HUGE);
	out->max = palloc_extended(n * gpo_type_size(vtype), MCXT_ALLOC_HUGE);
}

/* Frees the result arrays of gpuops_groupagg_alloc. */
static void
gpuops_groupagg_free(gpo_agg_out *out)
{
	pfree(out->keys);
	pfree(out->key_valid);
	pfree(out->rows);
	pfree(out->count);
	if (out->isum != NULL)
		pfree(out->isum);
	if (out->fsum != NULL)
		pfree(out->fsum);
	if (out->fflags != NULL)
		pfree(out->fflags);
	if (out->m2 != NULL)
		pfree(out->m2);
	pfree(out->min);
	pfree(out->max);
}

/*
 * One gpo_groupagg call (both phases) asking for strategy want (dense only
 * where it applies); returns its status, and the strategy used in *used.
 */
static gpo_status
gpuops_groupagg_call(gpo_ctx *ctx, const GpuopsColumn *keys,
					 const GpuopsColumn *vals, gpo_agg_strategy want,
					 gpo_agg_strategy *used, gpo_agg_out *out, int64 *ngroups,
					 Oid result_type)
{
	gpo_agg_strategy strategy;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;

	gpuops_ctx_init_budget(ctx);
	want = gpo_agg_strategy_fit(ctx, &keys->vec, want);
	strategy = want;
	st = gpo_groupagg(ctx, &keys->vec, &vals->vec, 0, &strategy, out,
					  ngroups, NULL, &scratch_bytes);
	gpuops_check_status(st, ctx, "group_agg", result_type);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	strategy = want;
	st = gpo_groupagg(ctx, &keys->vec, &vals->vec, 0, &strategy, out,
					  ngroups, scratch, &scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	*used = strategy;
	return st;
}

/* Groups of keys with aggregates of vals, checked for consistency. */
void
gpuops_groupagg_run(const GpuopsColumn *keys, const GpuopsColumn *vals,
					GpuopsGroups *groups, Oid result_type)
{
	gpo_agg_strategy want = (gpo_agg_strategy) gpuops_agg_strategy;
	gpo_agg_strategy used = GPO_AGG_AUTO;
	int64		num_rows = keys->num_rows;
	int64		capacity = Min(num_rows, GPUOPS_GROUPAGG_FIRST_CAPACITY);
	int64		ngroups = -1;
	int64		total = 0;
	gpo_ctx		ctx;
	gpo_status	st;
	int64		g;

	gpuops_groupagg_alloc(&groups->out, capacity, keys->type, vals->type);
	st = gpuops_groupagg_call(&ctx, keys, vals, want, &used, &groups->out,
							  &ngroups, result_type);
	if (st == GPO_ERR_CAPACITY && ngroups > capacity && ngroups <= num_rows)
	{
		/* more groups than the first guess: again, with room for all */
		gpuops_groupagg_free(&groups->out);
		capacity = ngroups;
		gpuops_groupagg_alloc(&groups->out, capacity, keys->type, vals->type);
		st = gpuops_groupagg_call(&ctx, keys, vals, want, &used,
								  &groups->out, &ngroups, result_type);
	}
	gpuops_check_status(st, &ctx, "group_agg", result_type);
	elog(DEBUG2, "gpuops group_agg: " INT64_FORMAT " rows, " INT64_FORMAT " groups, %s strategy",
		 num_rows, ngroups, gpo_agg_strategy_name(used));

	if (ngroups < 0 || ngroups > capacity || (num_rows > 0 && ngroups == 0))
		elog(ERROR, "gpuops: engine published " INT64_FORMAT " groups for " INT64_FORMAT " rows",
			 ngroups, num_rows);
	for (g = 0; g < ngroups; g++)
	{
		const gpo_agg_out *out = &groups->out;

		if (out->rows[g] <= 0 || out->count[g] < 0 ||
			out->count[g] > out->rows[g] ||
			(out->key_valid[g] == 0 && g != ngroups - 1))
			elog(ERROR, "gpuops: engine published a bad group " INT64_FORMAT, g);
		total += out->rows[g];
	}
	if (total != num_rows)
		elog(ERROR, "gpuops: engine grouped " INT64_FORMAT " of " INT64_FORMAT " rows",
			 total, num_rows);
	groups->ngroups = ngroups;
}

/* The key of group g as a Datum of the keys' element type. */
static Datum
gpuops_groupagg_key_datum(const GpuopsColumn *keys, const gpo_agg_out *out,
						  int64 g)
{
	if (keys->elemtype == BOOLOID)
		return BoolGetDatum(((const int32 *) out->keys)[g] != 0);
	return gpuops_value_to_datum(keys->elemtype, keys->type, out->keys, g);
}

/* Fills sum, min, max and avg of float8 group g (count > 0). */
static void
gpuops_groupagg_float8_row(const gpo_agg_out *out, int64 g, Datum *values)
{
	float8		mn = ((const float8 *) out->min)[g];
	float8		mx = ((const float8 *) out->max)[g];

	values[3] = Float8GetDatum(gpuops_float_sum(out->fsum[g], out->fflags[g],
												mx, false));
	values[4] = Float8GetDatum(mn);
	values[5] = Float8GetDatum(mx);
	values[6] = Float8GetDatum(gpuops_float_avg(out->fsum[g], out->fflags[g],
												out->m2[g], out->count[g]));
}

/* Fills sum, min, max and avg of int8 group g (count > 0). */
static void
gpuops_groupagg_int8_row(const gpo_agg_out *out, int64 g, Datum *values)
{
	Datum		sum = gpuops_int128_to_numeric(out->isum[g]);
	Datum		count = NumericGetDatum(int64_to_numeric(out->count[g]));

	values[3] = sum;
	values[4] = Int64GetDatum(((const int64 *) out->min)[g]);
	values[5] = Int64GetDatum(((const int64 *) out->max)[g]);
	values[6] = DirectFunctionCall2(numeric_div, sum, count);
}

/*
 * Emit one row per group (key, rows, count, sum, min, max, avg): shared by
 * the array and the query versions.  keys gives the key's SQL and physical
 * types.
 */
void
gpuops_groupagg_output(ReturnSetInfo *rsinfo, const GpuopsColumn *keys,
					   const GpuopsGroups *groups, Oid value_type)
{
	int64		g;

	for (g = 0; g < groups->ngroups; g++)
	{
		const gpo_agg_out *out = &groups->out;
		Datum		values[GPUOPS_GROUPAGG_NATTS];
		bool		nulls[GPUOPS_GROUPAGG_NATTS];
		int			i;

		for (i = 0; i < GPUOPS_GROUPAGG_NATTS; i++)
			nulls[i] = false;
		nulls[0] = out->key_valid[g] == 0;
		values[0] = nulls[0] ? (Datum) 0 :
			gpuops_groupagg_key_datum(keys, out, g);
		values[1] = Int64GetDatum(out->rows[g]);
		values[2] = Int64GetDatum(out->count[g]);
		if (out->count[g] == 0)
		{
			/* no non-NULL value: sum, min, max and avg are NULL */
			for (i = 3; i < GPUOPS_GROUPAGG_NATTS; i++)
			{
				values[i] = (Datum) 0;
				nulls[i] = true;
			}
		}
		else if (value_type == INT8OID)
			gpuops_groupagg_int8_row(out, g, values);
		else
			gpuops_groupagg_float8_row(out, g, values);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if ((g & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
}

/* Shared body of both group_agg variants; value_type is vals' element type. */
static void
gpuops_group_agg(FunctionCallInfo fcinfo, Oid value_type)
{
	ArrayType  *karr = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *varr = PG_GETARG_ARRAYTYPE_P(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			key_type = gpuops_array_elemtype(fcinfo, 0, karr);
	Oid			result_type = value_type == INT8OID ? NUMERICOID : FLOAT8OID;
	int64		num_keys = gpuops_array_nitems(karr);
	int64		num_vals = gpuops_array_nitems(varr);
	GpuopsColumn keys;
	GpuopsColumn vals;
	GpuopsGroups groups;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != GPUOPS_GROUPAGG_NATTS)
		elog(ERROR, "gpuops.group_agg: return type must have %d columns",
			 GPUOPS_GROUPAGG_NATTS);
	if (ARR_ELEMTYPE(varr) != value_type)
		elog(ERROR, "gpuops.group_agg: vals element type %u, expected %u",
			 ARR_ELEMTYPE(varr), value_type);

	if (!gpuops_groupagg_key_type_ok(key_type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpuops.group_agg does not support keys of type %s",
						format_type_be(key_type)),
				 errhint("Use GROUP BY over unnest(keys, vals), or keys of type smallint, integer, bigint, real, double precision, date, timestamp, timestamptz or boolean.")));
	if (num_keys != num_vals)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys has " INT64_FORMAT " elements but vals has " INT64_FORMAT,
						num_keys, num_vals),
				 errdetail("gpuops.group_agg needs one value per key.")));
	if (num_keys == 0)
		return;

	gpuops_groupagg_keys(karr, &keys);
	gpuops_array_to_column(varr, &vals);
	gpuops_groupagg_run(&keys, &vals, &groups, result_type);

	gpuops_groupagg_output(rsinfo, &keys, &groups, value_type);
}

/* gpuops.group_agg(anyarray, float8[]): per key rows, count, sum, min, max, avg. */
Datum
gpuops_group_agg_float8(PG_FUNCTION_ARGS)
{
	gpuops_group_agg(fcinfo, FLOAT8OID);
	return (Datum) 0;
}

/* gpuops.group_agg(anyarray, int8[]): per key rows, count, exact sum, min, max, avg. */
Datum
gpuops_group_agg_int8(PG_FUNCTION_ARGS)
{
	gpuops_group_agg(fcinfo, INT8OID);
	return (Datum) 0;
}
