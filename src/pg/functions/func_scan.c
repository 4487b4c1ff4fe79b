/*
 * func_scan.c
 *	  gpuops.prefix_sum(int8[] | float8[], inclusive bool) through gpo_scan.
 *
 * A NULL element yields NULL at its position and adds nothing.  The result
 * has the input's dimensions and lower bounds; the sums run over the
 * elements in storage order.  Every prefix sum, the sum of the whole array
 * included (also for an exclusive sum, which does not return it), must be in
 * range: int8 overflow raises "bigint out of range" (the engine checks every
 * prefix exactly); float8 follows float8pl: a sum of finite values that
 * becomes infinite raises "value out of range: overflow", while Inf and NaN
 * inputs propagate without error.
 */
#include "functions/gpuops_functions.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/float.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gpuops_prefix_sum_int8);
PG_FUNCTION_INFO_V1(gpuops_prefix_sum_float8);

/*
 * An array with arr's dimensions, lower bounds and null bitmap, with room for
 * num_data (8-byte) values of elemtype after the header.
 */
static ArrayType *
gpuops_array_like(ArrayType *arr, Oid elemtype, int64 num_rows, int64 num_data)
{
	int			ndim = ARR_NDIM(arr);
	bool		hasnulls = ARR_HASNULL(arr);
	Size		overhead = hasnulls ? ARR_OVERHEAD_WITHNULLS(ndim, num_rows) :
		ARR_OVERHEAD_NONULLS(ndim);
	Size		nbytes = overhead + num_data * sizeof(int64);
	ArrayType  *res;

	if (!AllocSizeIsValid(nbytes))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("array size exceeds the maximum allowed (%d)",
						(int) MaxAllocSize)));
	res = (ArrayType *) palloc0(nbytes);
	SET_VARSIZE(res, nbytes);
	res->ndim = ndim;
	res->dataoffset = hasnulls ? (int32) overhead : 0;
	res->elemtype = elemtype;
	memcpy(ARR_DIMS(res), ARR_DIMS(arr), ndim * sizeof(int));
	memcpy(ARR_LBOUND(res), ARR_LBOUND(arr), ndim * sizeof(int));
	if (hasnulls)
	{
		/* the bitmap follows the dimensions and lower bounds */
		Size		bitmap_off = sizeof(ArrayType) + 2 * sizeof(int) * ndim;

		memcpy((char *) res + bitmap_off, (char *) arr + bitmap_off,
			   (num_rows + 7) / 8);
	}
	return res;
}

/*
 * Finishes float8 sums as PostgreSQL would have them.  The engine's empty sum
 * is -0.0 (IEEE's additive identity, so that a sum of {-0} stays -0, as
 * sum() gives); an exclusive sum before any non-NULL element is 0 here.
 * float8pl raises on a finite + finite sum that overflows; the engine only
 * adds.  An infinite prefix while no input so far was Inf or NaN is that
 * overflow.  As the engine does for int8, an exclusive sum also checks the
 * sum of the whole array, which it does not return.
 */
static void
gpuops_finish_float8_sums(const GpuopsColumn *col, float8 *out,
						  bool inclusive)
{
	const float8 *in = (const float8 *) col->data;
	bool		nonfinite = false;
	int64		last = -1;
	int64		i;

	for (i = 0; i < col->num_rows; i++)
	{
		bool		valid = col->nulls == NULL ||
			((col->nulls[i >> 3] >> (i & 7)) & 1);

		if (!valid)
			continue;
		if (!inclusive && last < 0)
			out[i] = 0.0;
		if (inclusive && !isfinite(in[i]))
			nonfinite = true;
		if (isinf(out[i]) && !nonfinite)
			float_overflow_error();
		if (!isfinite(in[i]))
			nonfinite = true;
		last = i;
	}
	if (!inclusive && last >= 0 && !nonfinite && isinf(out[last] + in[last]))
		float_overflow_error();
}

/* Shared body of both prefix_sum variants. */
static Datum
gpuops_prefix_sum(FunctionCallInfo fcinfo, Oid elemtype)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	bool		inclusive = PG_GETARG_BOOL(1);
	GpuopsColumn col;
	gpo_vector	out;
	void	   *out_data;
	ArrayType  *res;
	gpo_ctx		ctx;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	int64		num_rows;

	if (ARR_ELEMTYPE(arr) != elemtype)
		elog(ERROR, "gpuops.prefix_sum: array element type %u, expected %u",
			 ARR_ELEMTYPE(arr), elemtype);

	gpuops_array_to_column(arr, &col);
	num_rows = col.num_rows;
	if (num_rows == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	if (col.nulls == NULL)
	{
		/* the engine writes straight into the result's data */
		res = gpuops_array_like(arr, elemtype, num_rows, num_rows);
		out_data = ARR_DATA_PTR(res);
	}
	else
	{
		res = NULL;
		out_data = palloc_extended(num_rows * sizeof(int64), MCXT_ALLOC_HUGE);
	}
	gpuops_make_vector(&out, col.type, out_data, NULL, num_rows, false);

	gpuops_ctx_init_budget(&ctx);
	st = gpo_scan(&ctx, &col.vec, NULL, inclusive, &out, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, "prefix_sum", elemtype);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	st = gpo_scan(&ctx, &col.vec, NULL, inclusive, &out, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, "prefix_sum", elemtype);
	CHECK_FOR_INTERRUPTS();

	if (elemtype == FLOAT8OID)
		gpuops_finish_float8_sums(&col, (float8 *) out_data, inclusive);

	if (res == NULL)
	{
		/* pack the non-NULL sums after a copy of the input's null bitmap */
		int64		num_data = 0;
		int64		i;
		char	   *dst;

		for (i = 0; i < num_rows; i++)
			if ((col.nulls[i >> 3] >> (i & 7)) & 1)
				num_data++;
		res = gpuops_array_like(arr, elemtype, num_rows, num_data);
		dst = ARR_DATA_PTR(res);
		for (i = 0; i < num_rows; i++)
		{
			if (!((col.nulls[i >> 3] >> (i & 7)) & 1))
				continue;
			memcpy(dst, (char *) out_data + i * sizeof(int64), sizeof(int64));
			dst += sizeof(int64);
		}
	}

	PG_RETURN_ARRAYTYPE_P(res);
}

/* gpuops.prefix_sum(int8[], inclusive): running sums in bigint. */
Datum
gpuops_prefix_sum_int8(PG_FUNCTION_ARGS)
{
	return gpuops_prefix_sum(fcinfo, INT8OID);
}

/* gpuops.prefix_sum(float8[], inclusive): running sums in double precision. */
Datum
gpuops_prefix_sum_float8(PG_FUNCTION_ARGS)
{
	return gpuops_prefix_sum(fcinfo, FLOAT8OID);
}
