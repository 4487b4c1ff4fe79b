/*
 * func_hashjoin.c
 *	  gpuops.hash_join(build_keys anyarray, probe_keys anyarray) through
 *	  gpo_hash_join.
 *
 * Returns every pair (build_pos, probe_pos) of 1-based positions (storage
 * order, as unnest() WITH ORDINALITY numbers them) whose keys are equal
 * under PostgreSQL's =, ordered by probe_pos, then build_pos.  NULL keys
 * never match.
 *
 * Keys of a device type go to the engine as they are (int2, int4, date:
 * int32; int8, timestamp, timestamptz: int64; float4; float8; bool widened
 * to int32).  The engine's float keys are canonical, so NaN = NaN and
 * -0.0 = 0.0, as PostgreSQL's float = has them.  text and varchar keys are
 * dictionary-encoded here on the CPU: each distinct build key gets a dense
 * int32 code, a probe key absent from the build side becomes NULL.  Keys are
 * compared by their bytes, which is text = under a deterministic collation;
 * a nondeterministic collation is refused.
 *
 * Size, then fill: a first engine call counts the pairs, the outputs are
 * allocated to exactly that size, and a second call fills them.
 */
#include "functions/gpuops_functions.h"

#include "gpo_join.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/arrayaccess.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"

PG_FUNCTION_INFO_V1(gpuops_hash_join);

/* Most pairs: each output column of int64 must fit one allocation (1 GB). */
#define GPUOPS_JOIN_MAX_PAIRS ((int64) (MaxAllocSize / sizeof(int64)))

/* A text key of the dictionary: its bytes, not owned. */
typedef struct GpuopsTextKey
{
	const char *data;
	Size		len;
} GpuopsTextKey;

/* A dictionary entry: the key and its dense code. */
typedef struct GpuopsTextEntry
{
	GpuopsTextKey key;
	int32		code;
} GpuopsTextEntry;

/* Hash of a text key's bytes (dynahash callback). */
static uint32
gpuops_text_key_hash(const void *key, Size keysize)
{
	const GpuopsTextKey *k = (const GpuopsTextKey *) key;

	return hash_bytes((const unsigned char *) k->data, (int) k->len);
}

/* 0 if two text keys have the same bytes (dynahash callback). */
static int
gpuops_text_key_match(const void *key1, const void *key2, Size keysize)
{
	const GpuopsTextKey *a = (const GpuopsTextKey *) key1;
	const GpuopsTextKey *b = (const GpuopsTextKey *) key2;

	if (a->len != b->len)
		return 1;
	return memcmp(a->data, b->data, a->len);
}

/* Refuse a collation under which text = is not byte equality, as texteq checks it. */
static void
gpuops_check_text_collation(Oid collid)
{
	pg_locale_t mylocale;

	if (!OidIsValid(collid))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_COLLATION),
				 errmsg("could not determine which collation to use for string comparison"),
				 errhint("Use the COLLATE clause to set the collation explicitly.")));
	if (lc_collate_is_c(collid))
		return;
	mylocale = pg_newlocale_from_collation(collid);
	if (mylocale && !mylocale->deterministic)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpuops.hash_join does not support nondeterministic collations"),
				 errhint("Use a deterministic collation, e.g. COLLATE \"C\".")));
}

/*
 * Encode a text array as int32 codes into col: with add, every new key gets
 * the next code; without, a key absent from dict becomes NULL.
 */
static void
gpuops_text_to_codes(ArrayType *arr, HTAB *dict, bool add, int32 *next_code,
					 GpuopsColumn *col)
{
	int64		num_rows = gpuops_array_nitems(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	array_iter	iter;
	int32	   *codes;
	bits8	   *nulls;
	bool		anynull = false;
	int64		i;

	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &typlen, &typbyval, &typalign);
	codes = palloc_extended(Max(num_rows, 1) * sizeof(int32),
							MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	nulls = palloc_extended((num_rows + 7) / 8 + 1,
							MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	array_iter_setup(&iter, (AnyArrayType *) arr);
	for (i = 0; i < num_rows; i++)
	{
		bool		isnull;
		Datum		value = array_iter_next(&iter, &isnull, (int) i,
											typlen, typbyval, typalign);
		text	   *t;
		GpuopsTextKey key;
		GpuopsTextEntry *entry;
		bool		found;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (isnull)
		{
			anynull = true;
			continue;
		}
		t = (text *) PG_DETOAST_DATUM_PACKED(value);
		key.data = VARDATA_ANY(t);
		key.len = VARSIZE_ANY_EXHDR(t);
		entry = (GpuopsTextEntry *) hash_search(dict, &key,
												add ? HASH_ENTER : HASH_FIND,
												&found);
		if (entry == NULL)
		{
			anynull = true;		/* no build key has these bytes */
			continue;
		}
		if (!found)
		{
			if (*next_code == PG_INT32_MAX)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("too many distinct build keys")));
			entry->code = (*next_code)++;
		}
		codes[i] = entry->code;
		nulls[i >> 3] |= (bits8) (1 << (i & 7));
	}

	col->elemtype = INT4OID;
	col->type = GPO_INT32;
	col->num_rows = num_rows;
	col->data = codes;
	col->nulls = anynull ? nulls : NULL;
	gpuops_make_vector(&col->vec, GPO_INT32, codes, col->nulls, num_rows, false);
}

/* Describe an array of a device type as engine join keys (bool widened to int32). */
static void
gpuops_join_column(ArrayType *arr, GpuopsColumn *col)
{
	gpuops_array_to_column(arr, col);
	if (col->type == GPO_UINT8)
	{
		int32	   *wide = palloc_extended(Max(col->num_rows, 1) * sizeof(int32),
										   MCXT_ALLOC_HUGE);
		int64		i;

		for (i = 0; i < col->num_rows; i++)
			wide[i] = ((const uint8 *) col->data)[i] != 0;
		col->type = GPO_INT32;
		col->data = wide;
		gpuops_make_vector(&col->vec, GPO_INT32, wide, col->nulls,
						   col->num_rows, false);
	}
}

/* Check the pairs an engine call published: in range, by probe then build row. */
static void
gpuops_check_pairs(const int64 *build_rows, const int64 *probe_rows,
				   int64 count, int64 num_build, int64 num_probe)
{
	int64		k;

	for (k = 0; k < count; k++)
	{
		if (build_rows[k] < 0 || build_rows[k] >= num_build ||
			probe_rows[k] < 0 || probe_rows[k] >= num_probe ||
			(k > 0 && (probe_rows[k] < probe_rows[k - 1] ||
					   (probe_rows[k] == probe_rows[k - 1] &&
						build_rows[k] <= build_rows[k - 1]))))
			elog(ERROR, "gpuops: engine published a bad pair (" INT64_FORMAT ", " INT64_FORMAT ") at " INT64_FORMAT,
				 build_rows[k], probe_rows[k], k);
	}
}

/* gpuops.hash_join(anyarray, anyarray): every (build_pos, probe_pos) with equal keys. */
Datum
gpuops_hash_join(PG_FUNCTION_ARGS)
{
	ArrayType  *build_arr = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *probe_arr = PG_GETARG_ARRAYTYPE_P(1);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			elemtype = gpuops_array_elemtype(fcinfo, 0, build_arr);
	gpo_type	type;
	GpuopsColumn build;
	GpuopsColumn probe;
	gpo_vector	out_build;
	gpo_vector	out_probe;
	int64	   *build_rows;
	int64	   *probe_rows;
	int64		count = -1;
	int64		filled = -1;
	gpo_ctx		ctx;
	size_t		scratch_bytes = 0;
	void	   *scratch;
	gpo_status	st;
	int64		k;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 2)
		elog(ERROR, "gpuops.hash_join: return type must have 2 columns");
	if (gpuops_array_elemtype(fcinfo, 1, probe_arr) != elemtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("gpuops.hash_join: build keys of type %s, probe keys of type %s",
						format_type_be(elemtype),
						format_type_be(ARR_ELEMTYPE(probe_arr)))));

	if (elemtype == TEXTOID || elemtype == VARCHAROID)
	{
		HASHCTL		hctl;
		HTAB	   *dict;
		int32		next_code = 0;

		gpuops_check_text_collation(PG_GET_COLLATION());
		hctl.keysize = sizeof(GpuopsTextKey);
		hctl.entrysize = sizeof(GpuopsTextEntry);
		hctl.hash = gpuops_text_key_hash;
		hctl.match = gpuops_text_key_match;
		hctl.hcxt = CurrentMemoryContext;
		dict = hash_create("gpuops hash_join dictionary",
						   Max(Min(gpuops_array_nitems(build_arr), 1 << 20), 16),
						   &hctl,
						   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
		gpuops_text_to_codes(build_arr, dict, true, &next_code, &build);
		gpuops_text_to_codes(probe_arr, dict, false, &next_code, &probe);
		hash_destroy(dict);
	}
	else if (gpuops_device_type(elemtype, &type))
	{
		gpuops_join_column(build_arr, &build);
		gpuops_join_column(probe_arr, &probe);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpuops.hash_join does not support keys of type %s",
						format_type_be(elemtype)),
				 errhint("Keys may be smallint, integer, bigint, real, double precision, date, timestamp, timestamptz, boolean, text or varchar.")));

	/* size: count the pairs */
	gpuops_ctx_init_budget(&ctx);
	st = gpo_hash_join(&ctx, &build.vec, &probe.vec, NULL, NULL, &count,
					   NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, "hash_join", InvalidOid);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	st = gpo_hash_join(&ctx, &build.vec, &probe.vec, NULL, NULL, &count,
					   scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, "hash_join", InvalidOid);
	CHECK_FOR_INTERRUPTS();

	if (count < 0 ||
		(count > 0 && (build.num_rows == 0 || probe.num_rows == 0)))
		elog(ERROR, "gpuops: engine counted " INT64_FORMAT " join pairs",
			 count);
	if (count > GPUOPS_JOIN_MAX_PAIRS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("hash join result of " INT64_FORMAT " pairs exceeds the limit of " INT64_FORMAT " pairs",
						count, GPUOPS_JOIN_MAX_PAIRS),
				 errhint("Join smaller pieces of the key arrays.")));
	if (count == 0)
		return (Datum) 0;

	/* fill: outputs of exactly count rows */
	build_rows = palloc(count * sizeof(int64));
	probe_rows = palloc(count * sizeof(int64));
	gpuops_make_vector(&out_build, GPO_INT64, build_rows, NULL, count, false);
	gpuops_make_vector(&out_probe, GPO_INT64, probe_rows, NULL, count, false);
	scratch_bytes = 0;
	st = gpo_hash_join(&ctx, &build.vec, &probe.vec, &out_build, &out_probe,
					   &filled, NULL, &scratch_bytes);
	gpuops_check_status(st, &ctx, "hash_join", InvalidOid);
	scratch = gpuops_alloc_scratch(scratch_bytes);
	CHECK_FOR_INTERRUPTS();
	st = gpo_hash_join(&ctx, &build.vec, &probe.vec, &out_build, &out_probe,
					   &filled, scratch, &scratch_bytes);
	gpuops_check_status(st, &ctx, "hash_join", InvalidOid);
	CHECK_FOR_INTERRUPTS();
	if (filled != count)
		elog(ERROR, "gpuops: engine counted " INT64_FORMAT " join pairs, then filled " INT64_FORMAT,
			 count, filled);
	gpuops_check_pairs(build_rows, probe_rows, count, build.num_rows,
					   probe.num_rows);

	for (k = 0; k < count; k++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if ((k & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		values[0] = Int64GetDatum(build_rows[k] + 1);	/* 1-based */
		values[1] = Int64GetDatum(probe_rows[k] + 1);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}

	return (Datum) 0;
}
