/*
 * func_compact.c
 *	  gpuops.compact(anyarray, keep bool[]): stable selection by a mask.
 *
 * Element i of the array (storage order) is kept when element i of keep is
 * true; false or NULL drops it.  Both arrays must have the same number of
 * elements (their shapes may differ).  The result is one-dimensional with
 * lower bound 1, or an empty array when nothing is kept.  Any element type
 * works: only the mask goes through the engine (gpo_compact), the kept
 * elements are copied here.
 */
#include "functions/gpuops_functions.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/arrayaccess.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gpuops_compact);

/* gpuops.compact(anyarray, bool[]): the elements whose keep flag is true. */
Datum
gpuops_compact(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *keep = PG_GETARG_ARRAYTYPE_P(1);
	Oid			elemtype = gpuops_array_elemtype(fcinfo, 0, arr);
	int64		num_rows = gpuops_array_nitems(arr);
	int64		num_keep = gpuops_array_nitems(keep);
	GpuopsColumn mask;
	gpo_vector	index_map;
	int64	   *kept_rows;
	int64		count = -1;
	gpo_ctx		ctx;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	array_iter	iter;
	Datum	   *values;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1];
	int64		i;
	int64		k;

	if (num_rows != num_keep)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("array has " INT64_FORMAT " elements but keep has " INT64_FORMAT,
						num_rows, num_keep),
				 errdetail("gpuops.compact needs one keep flag per array element.")));

	gpuops_array_to_column(keep, &mask);
	kept_rows = palloc_extended(Max(num_rows, 1) * sizeof(int64), MCXT_ALLOC_HUGE);
	gpuops_make_vector(&index_map, GPO_INT64, kept_rows, NULL, num_rows, false);

	gpuops_ctx_init_budget(&ctx);
	st = gpo_compact(&ctx, &mask.vec, 0, &index_map, &count, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, "compact", InvalidOid);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	st = gpo_compact(&ctx, &mask.vec, 0, &index_map, &count, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, "compact", InvalidOid);
	CHECK_FOR_INTERRUPTS();

	if (count < 0 || count > num_rows)
		elog(ERROR, "gpuops: engine kept " INT64_FORMAT " of " INT64_FORMAT " rows",
			 count, num_rows);
	for (k = 0; k < count; k++)
	{
		if (kept_rows[k] < 0 || kept_rows[k] >= num_rows ||
			(k > 0 && kept_rows[k] <= kept_rows[k - 1]))
			elog(ERROR, "gpuops: engine kept a bad row " INT64_FORMAT " at " INT64_FORMAT,
				 kept_rows[k], k);
	}

	if (count == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(elemtype));

	/* one walk over the array, picking the kept rows in order */
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	values = palloc_extended(count * sizeof(Datum), MCXT_ALLOC_HUGE);
	nulls = palloc_extended(count * sizeof(bool), MCXT_ALLOC_HUGE);
	array_iter_setup(&iter, (AnyArrayType *) arr);
	k = 0;
	for (i = 0; i < num_rows && k < count; i++)
	{
		bool		isnull;
		Datum		value = array_iter_next(&iter, &isnull, (int) i,
											typlen, typbyval, typalign);

		if (i != kept_rows[k])
			continue;
		values[k] = value;
		nulls[k] = isnull;
		k++;
	}

	dims[0] = (int) count;
	lbs[0] = 1;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(values, nulls, 1, dims, lbs,
											 elemtype, typlen, typbyval,
											 typalign));
}
