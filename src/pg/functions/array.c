/*
 * array.c
 *	  PostgreSQL arrays <-> engine column vectors, and chunking.
 *
 * Arrays of any dimensionality are flattened in storage order (the order
 * unnest() returns them); a row number is the 0-based ordinal in that order,
 * whatever the array's lower bounds (SQL functions report it 1-based, as
 * unnest() WITH ORDINALITY does).
 *
 * A NULL-free array of a type whose physical layout matches the engine's
 * (int4, date, int8, timestamp, timestamptz, float4, float8, bool) is handed
 * over zero-copy: the chunks point into the array's data.  Otherwise (int2,
 * or NULLs present: PostgreSQL packs only the non-NULL elements) the values
 * are expanded into one full-length buffer where NULL rows hold zero, and the
 * array's null bitmap, whose layout is the engine's validity layout, serves
 * as validity.  Every chunk's validity starts at bit 0 of its own first row,
 * so a chunk that starts at a row that is not a multiple of 8 gets a shifted
 * copy of its part of the bitmap.
 */
#include "functions/gpuops_functions.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* Stand-in data pointer for empty chunks, so that no chunk has NULL data. */
static int64 gpuops_empty_data;

/* Number of elements of an array, all dimensions. */
int64
gpuops_array_nitems(ArrayType *arr)
{
	return (int64) ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
}

/*
 * Element type of argument argno, checked against the array's own.  An
 * argument of the pseudo-type anyarray itself (a pg_statistic column) has
 * no element type of its own: the array's is taken, as PostgreSQL's array
 * functions do.
 */
Oid
gpuops_array_elemtype(FunctionCallInfo fcinfo, int argno, ArrayType *arr)
{
	Oid			argtype = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Oid			elemtype;

	if (argtype == ANYARRAYOID)
		return ARR_ELEMTYPE(arr);
	if (!OidIsValid(argtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("could not determine the type of argument %d", argno + 1)));
	elemtype = get_base_element_type(argtype);
	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("argument %d of type %s is not an array", argno + 1,
						format_type_be(argtype))));
	if (ARR_ELEMTYPE(arr) != elemtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("argument %d has elements of type %s, not of the declared %s",
						argno + 1, format_type_be(ARR_ELEMTYPE(arr)),
						format_type_be(elemtype))));
	return elemtype;
}

/* Rows per chunk for a physical type under gpuops.chunk_size. */
int64
gpuops_rows_per_chunk(gpo_type type)
{
	int64		rows = (int64) gpuops_chunk_size / (int64) gpo_type_size(type);

	return Max(rows, 1);
}

/* Copy n bits of src starting at bit first into a new bitmap at bit 0. */
static bits8 *
gpuops_shift_bitmap(const bits8 *src, int64 first, int64 n)
{
	bits8	   *dst = (bits8 *) palloc0((n + 7) / 8 + 1);
	int64		i;

	for (i = 0; i < n; i++)
	{
		int64		b = first + i;

		if ((src[b >> 3] >> (b & 7)) & 1)
			dst[i >> 3] |= (bits8) (1 << (i & 7));
	}
	return dst;
}

/*
 * Describe a contiguous buffer of num_rows values as a vector of chunks of at
 * most gpuops.chunk_size bytes each (one empty chunk for no rows).  nulls, if
 * given, is the full-length validity of an input; out_validity asks for fresh
 * zeroed validity bitmaps on an output instead.  Output chunks cut from one
 * buffer are contiguous, so the published prefix can be read back flat.
 */
void
gpuops_make_vector(gpo_vector *vec, gpo_type type, void *data,
				   const bits8 *nulls, int64 num_rows, bool out_validity)
{
	size_t		width = gpo_type_size(type);
	int64		rpc = gpuops_rows_per_chunk(type);
	int64		nchunks = num_rows == 0 ? 1 : (num_rows + rpc - 1) / rpc;
	int64		c;

	if (nchunks > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("array of " INT64_FORMAT " elements needs too many chunks",
						num_rows),
				 errhint("Raise gpuops.chunk_size.")));

	vec->type = type;
	vec->nchunks = (int32) nchunks;
	vec->chunks = palloc_extended(sizeof(gpo_chunk) * nchunks,
								  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	if (num_rows == 0)
	{
		vec->chunks[0].data = data != NULL ? data : &gpuops_empty_data;
		vec->chunks[0].validity = NULL;
		vec->chunks[0].n = 0;
		return;
	}

	for (c = 0; c < nchunks; c++)
	{
		gpo_chunk  *chunk = &vec->chunks[c];
		int64		first = c * rpc;
		int64		n = Min(rpc, num_rows - first);

		chunk->data = (char *) data + first * width;
		chunk->n = n;
		if (nulls != NULL)
		{
			if ((first & 7) == 0)
				chunk->validity = (uint8_t *) nulls + (first >> 3);
			else
				chunk->validity = gpuops_shift_bitmap(nulls, first, n);
		}
		else if (out_validity)
			chunk->validity = (uint8_t *) palloc0((n + 7) / 8);
		else
			chunk->validity = NULL;
	}
}

/* True if a logical row of a vector made by gpuops_make_vector is valid. */
bool
gpuops_vector_row_valid(const gpo_vector *vec, int64 row)
{
	int64		rpc = vec->chunks[0].n;

	if (rpc == 0)
		return true;
	return gpo_valid(&vec->chunks[row / rpc], row % rpc);
}

/* Describe an array of a device type as a chunked engine column. */
void
gpuops_array_to_column(ArrayType *arr, GpuopsColumn *col)
{
	int64		num_rows = gpuops_array_nitems(arr);
	bits8	   *nulls = ARR_NULLBITMAP(arr);
	const char *src = ARR_DATA_PTR(arr);
	size_t		width;
	int16		typlen;
	int64		i;

	col->elemtype = ARR_ELEMTYPE(arr);
	if (!gpuops_device_type(col->elemtype, &col->type))
		elog(ERROR, "type %u is not a gpuops device type", col->elemtype);
	col->num_rows = num_rows;
	col->nulls = nulls;
	width = gpo_type_size(col->type);
	typlen = col->elemtype == INT2OID ? sizeof(int16) : (int16) width;

	if (nulls == NULL && typlen == (int16) width)
	{
		/* zero copy: the array's data already is the engine's layout */
		col->data = (void *) src;
	}
	else
	{
		/*
		 * Expand.  Every device type's length equals its alignment, so the
		 * non-NULL elements lie packed one after the other.
		 */
		col->data = palloc_extended(Max(num_rows, 1) * width,
									MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		for (i = 0; i < num_rows; i++)
		{
			if (nulls != NULL && !((nulls[i >> 3] >> (i & 7)) & 1))
				continue;
			if (col->elemtype == INT2OID)
				((int32 *) col->data)[i] = *(const int16 *) src;
			else
				memcpy((char *) col->data + i * width, src, width);
			src += typlen;
		}
	}

	gpuops_make_vector(&col->vec, col->type, col->data, nulls, num_rows, false);
}
