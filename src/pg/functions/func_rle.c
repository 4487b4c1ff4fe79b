/*
 * func_rle.c
 *	  gpuops.rle(anyarray) and gpuops.unique(anyarray).
 *
 * Both share one code path and one definition of equality.  Elements of a
 * device type (int2, int4, date, int8, timestamp, timestamptz, float4,
 * float8, bool) go through gpo_rle / gpo_unique, which compare as PostgreSQL
 * does (every NaN equals every NaN, -0.0 equals 0.0).  Other element types
 * compare by binary equality (datum_image_eq): the boundary flags are
 * computed here on the CPU and the run heads come from gpo_compact over the
 * flags.  Two NULLs are equal; a NULL never equals a value.
 */
#include "functions/gpuops_functions.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/tupconvert.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/arrayaccess.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(gpuops_rle);
PG_FUNCTION_INFO_V1(gpuops_unique);

/*
 * Emit one row of a set of a row type: the row's columns, by position, or
 * all NULL for a NULL row (as PostgreSQL expands a NULL row returned by a
 * function in FROM).  A record's own descriptor must match the result's
 * (the column definition list), else 42804.
 */
static void
gpuops_rle_emit_row(ReturnSetInfo *rsinfo, Datum value, bool isnull)
{
	TupleDesc	out = rsinfo->setDesc;
	HeapTupleHeader td;
	TupleDesc	in;
	TupleConversionMap *map;
	HeapTupleData tup;

	if (isnull)
	{
		Datum	   *values = palloc0(Max(out->natts, 1) * sizeof(Datum));
		bool	   *nulls = palloc(Max(out->natts, 1) * sizeof(bool));

		memset(nulls, true, Max(out->natts, 1) * sizeof(bool));
		tuplestore_putvalues(rsinfo->setResult, out, values, nulls);
		pfree(values);
		pfree(nulls);
		return;
	}
	td = DatumGetHeapTupleHeader(value);
	in = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
								HeapTupleHeaderGetTypMod(td));
	tup.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	tup.t_data = td;
	map = convert_tuples_by_position(in, out,
									 gettext_noop("gpuops.unique: the row type does not match the result's"));
	if (map == NULL)
		tuplestore_puttuple(rsinfo->setResult, &tup);
	else
	{
		HeapTuple	conv = execute_attr_map_tuple(&tup, map);

		tuplestore_puttuple(rsinfo->setResult, conv);
		heap_freetuple(conv);
		free_conversion_map(map);
	}
	ReleaseTupleDesc(in);
	if ((Pointer) td != DatumGetPointer(value))
		pfree(td);
}

/*
 * Emit one result row: (value) for unique, (value, start_pos, run_length)
 * for rle; start is 0-based.  is_row: unique of a row type (composite, a
 * domain over one, record), whose set is one of rows, not of one column.
 * Shared with the query versions.
 */
void
gpuops_rle_emit(ReturnSetInfo *rsinfo, bool want_runs, bool is_row,
				Datum value, bool isnull, int64 start, int64 length)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (!want_runs && is_row)
	{
		gpuops_rle_emit_row(rsinfo, value, isnull);
		return;
	}
	values[0] = value;
	nulls[0] = isnull;
	values[1] = Int64GetDatum(start + 1);	/* 1-based, as WITH ORDINALITY */
	values[2] = Int64GetDatum(length);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Binary equality of two elements of a non-device type, two NULLs equal:
 * the rule for every type the engine does not compare.
 */
bool
gpuops_rle_datum_eq(Datum a, bool a_null, Datum b, bool b_null,
					bool typbyval, int16 typlen)
{
	if (a_null || b_null)
		return a_null == b_null;
	return datum_image_eq(a, b, typbyval, typlen);
}

/*
 * The engine's equality of two values of physical type (gpo.h, gpo_rle):
 * two NULLs equal, every NaN equals every NaN, -0.0 equals 0.0, other
 * values by their bits.  For joining runs across chunk seams.
 */
bool
gpuops_rle_value_eq(gpo_type type, const void *a, bool a_null,
					const void *b, bool b_null)
{
	if (a_null || b_null)
		return a_null == b_null;
	switch (type)
	{
		case GPO_FLOAT32:
			{
				float4		x = *(const float4 *) a;
				float4		y = *(const float4 *) b;

				return x == y || (isnan(x) && isnan(y));
			}
		case GPO_FLOAT64:
			{
				float8		x = *(const float8 *) a;
				float8		y = *(const float8 *) b;

				return x == y || (isnan(x) && isnan(y));
			}
		default:
			return memcmp(a, b, gpo_type_size(type)) == 0;
	}
}

/* Check the run heads an engine call published. */
static void
gpuops_check_heads(const int64 *heads, int64 count, int64 num_rows)
{
	int64		r;

	if (count < 0 || count > num_rows || (num_rows > 0 && count == 0))
		elog(ERROR, "gpuops: engine published " INT64_FORMAT " runs for " INT64_FORMAT " rows",
			 count, num_rows);
	for (r = 0; r < count; r++)
	{
		if (heads[r] < 0 || heads[r] >= num_rows ||
			(r == 0 && heads[r] != 0) ||
			(r > 0 && heads[r] <= heads[r - 1]))
			elog(ERROR, "gpuops: engine published a bad run start " INT64_FORMAT " at run " INT64_FORMAT,
				 heads[r], r);
	}
}

/* Runs of an array of a device type, through gpo_rle or gpo_unique. */
static void
gpuops_runs_device(ReturnSetInfo *rsinfo, ArrayType *arr, bool want_runs)
{
	GpuopsColumn col;
	gpo_ctx		ctx;
	gpo_vector	values;
	gpo_vector	starts;
	gpo_vector	lengths;
	void	   *values_data;
	int64	   *starts_data = NULL;
	int64	   *lengths_data = NULL;
	int64		num_rows;
	int64		count = -1;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	int64		r;

	gpuops_array_to_column(arr, &col);
	num_rows = col.num_rows;

	values_data = palloc_extended(Max(num_rows, 1) * gpo_type_size(col.type),
								  MCXT_ALLOC_HUGE);
	gpuops_make_vector(&values, col.type, values_data, NULL, num_rows,
					   col.nulls != NULL);
	if (want_runs)
	{
		starts_data = palloc_extended(Max(num_rows, 1) * sizeof(int64),
									  MCXT_ALLOC_HUGE);
		lengths_data = palloc_extended(Max(num_rows, 1) * sizeof(int64),
									   MCXT_ALLOC_HUGE);
		gpuops_make_vector(&starts, GPO_INT64, starts_data, NULL, num_rows, false);
		gpuops_make_vector(&lengths, GPO_INT64, lengths_data, NULL, num_rows, false);
	}

	gpuops_ctx_init_budget(&ctx);
	if (want_runs)
		st = gpo_rle(&ctx, &col.vec, &values, &starts, &lengths, &count,
					 NULL, &scratch_bytes);
	else
		st = gpo_unique(&ctx, &col.vec, &values, &count, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, want_runs ? "rle" : "unique", InvalidOid);

	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	if (want_runs)
		st = gpo_rle(&ctx, &col.vec, &values, &starts, &lengths, &count,
					 scratch, &scratch_bytes);
	else
		st = gpo_unique(&ctx, &col.vec, &values, &count, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, want_runs ? "rle" : "unique", InvalidOid);
	CHECK_FOR_INTERRUPTS();

	if (want_runs)
	{
		gpuops_check_heads(starts_data, count, num_rows);
		for (r = 0; r < count; r++)
		{
			int64		end = r + 1 < count ? starts_data[r + 1] : num_rows;

			if (lengths_data[r] != end - starts_data[r])
				elog(ERROR, "gpuops: engine published run length " INT64_FORMAT " for run " INT64_FORMAT " of " INT64_FORMAT " rows",
					 lengths_data[r], r, end - starts_data[r]);
		}
	}
	else if (count < 0 || count > num_rows || (num_rows > 0 && count == 0))
		elog(ERROR, "gpuops: engine published " INT64_FORMAT " values for " INT64_FORMAT " rows",
			 count, num_rows);

	for (r = 0; r < count; r++)
	{
		bool		isnull = !gpuops_vector_row_valid(&values, r);
		Datum		value = isnull ? (Datum) 0 :
			gpuops_value_to_datum(col.elemtype, col.type, values_data, r);

		gpuops_rle_emit(rsinfo, want_runs, false, value, isnull,
						want_runs ? starts_data[r] : 0,
						want_runs ? lengths_data[r] : 0);
	}
}

/*
 * Runs of an array of any other type: boundary flags by binary equality
 * here, run heads through gpo_compact, then one walk to emit the values.
 */
static void
gpuops_runs_generic(ReturnSetInfo *rsinfo, ArrayType *arr, Oid elemtype,
					bool want_runs)
{
	int64		num_rows = gpuops_array_nitems(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	array_iter	iter;
	uint8	   *flags;
	int64	   *heads;
	gpo_vector	mask;
	gpo_vector	index_map;
	gpo_ctx		ctx;
	int64		count = -1;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	Datum		prev = (Datum) 0;
	bool		prev_null = false;
	bool		is_row = type_is_rowtype(elemtype);
	int64		i;
	int64		r;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);

	/* boundary flags: row 0, and every row that differs from its predecessor */
	flags = palloc_extended(Max(num_rows, 1), MCXT_ALLOC_HUGE);
	array_iter_setup(&iter, (AnyArrayType *) arr);
	for (i = 0; i < num_rows; i++)
	{
		bool		isnull;
		Datum		value = array_iter_next(&iter, &isnull, (int) i,
											typlen, typbyval, typalign);

		if (i == 0)
			flags[i] = 1;
		else
			flags[i] = !gpuops_rle_datum_eq(prev, prev_null, value, isnull,
											typbyval, typlen);
		prev = value;
		prev_null = isnull;
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}

	heads = palloc_extended(Max(num_rows, 1) * sizeof(int64), MCXT_ALLOC_HUGE);
	gpuops_make_vector(&mask, GPO_UINT8, flags, NULL, num_rows, false);
	gpuops_make_vector(&index_map, GPO_INT64, heads, NULL, num_rows, false);

	gpuops_ctx_init_budget(&ctx);
	st = gpo_compact(&ctx, &mask, 0, &index_map, &count, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, want_runs ? "rle" : "unique", InvalidOid);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	st = gpo_compact(&ctx, &mask, 0, &index_map, &count, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, want_runs ? "rle" : "unique", InvalidOid);
	CHECK_FOR_INTERRUPTS();

	gpuops_check_heads(heads, count, num_rows);

	/* one walk to emit each run's first value */
	array_iter_setup(&iter, (AnyArrayType *) arr);
	r = 0;
	for (i = 0; i < num_rows && r < count; i++)
	{
		bool		isnull;
		Datum		value = array_iter_next(&iter, &isnull, (int) i,
											typlen, typbyval, typalign);

		if (i != heads[r])
			continue;
		gpuops_rle_emit(rsinfo, want_runs, is_row, value, isnull, heads[r],
						(r + 1 < count ? heads[r + 1] : num_rows) - heads[r]);
		r++;
	}
}

/* Shared body of gpuops.rle and gpuops.unique. */
static void
gpuops_runs(FunctionCallInfo fcinfo, bool want_runs)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			elemtype = gpuops_array_elemtype(fcinfo, 0, arr);
	gpo_type	type;

	/* unique returns a scalar set: its descriptor is the expected one */
	InitMaterializedSRF(fcinfo, want_runs ? 0 : MAT_SRF_USE_EXPECTED_DESC);
	if (want_runs && rsinfo->setDesc->natts != 3)
		elog(ERROR, "gpuops.rle: return type must have 3 columns");

	if (gpuops_device_type(elemtype, &type))
		gpuops_runs_device(rsinfo, arr, want_runs);
	else
		gpuops_runs_generic(rsinfo, arr, elemtype, want_runs);
}

/* gpuops.rle(anyarray): one row (value, start_pos, run_length) per run. */
Datum
gpuops_rle(PG_FUNCTION_ARGS)
{
	gpuops_runs(fcinfo, true);
	return (Datum) 0;
}

/* gpuops.unique(anyarray): the first value of each run of equal values. */
Datum
gpuops_unique(PG_FUNCTION_ARGS)
{
	gpuops_runs(fcinfo, false);
	return (Datum) 0;
}
