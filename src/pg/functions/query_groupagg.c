/*
 * query_groupagg.c
 *	  gpuops.group_agg(query text, key_type anyelement): GROUP BY over a
 *	  query's (key, value) rows, streamed in chunks.
 *
 * The query returns a key of key_type's type (a device type: int2, int4,
 * date, int8, timestamp, timestamptz, float4, float8, bool) and a float8
 * value.  Each chunk goes through gpo_groupagg (as the array version does
 * with the whole arrays); its groups, in key order with the NULL key last,
 * are merged into a running key-ordered group list: rows, count and sum add
 * up, min and max combine in PostgreSQL's float order (-0.0 below 0.0, NaN
 * above everything), exactly as the engine combines them.  The rows are then
 * emitted by the array version's code.  Memory: the chunk buffers, one
 * chunk's groups and the running list (one entry per distinct key).  Float
 * sums are added chunk by chunk, so, as between the engine's faces, their
 * last bits may depend on gpuops.chunk_size.
 */
#include "functions/gpuops_functions.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(gpuops_group_agg_query);

/* The running group list and where it lives. */
typedef struct GpuopsQueryAgg
{
	Oid			key_typid;
	gpo_type	key_type;		/* physical key type (bool widened to int32) */
	MemoryContext keep_cxt;
	GpuopsGroups acc;			/* groups so far, in key order */
} GpuopsQueryAgg;

/* Order of group i of a and group j of b: keys as PostgreSQL orders them, NULL last. */
static int
gpuops_qagg_cmp(gpo_type kt, const gpo_agg_out *a, int64 i,
				const gpo_agg_out *b, int64 j)
{
	size_t		w = gpo_type_size(kt);
	uint64		ca;
	uint64		cb;

	if (a->key_valid[i] == 0 || b->key_valid[j] == 0)
		return (int) (a->key_valid[i] == 0) - (int) (b->key_valid[j] == 0);
	ca = gpo_key_code(kt, (const char *) a->keys + i * w);
	cb = gpo_key_code(kt, (const char *) b->keys + j * w);
	return ca < cb ? -1 : ca > cb ? 1 : 0;
}

/* Copy group i of src to entry g of dst. */
static void
gpuops_qagg_copy(gpo_type kt, gpo_agg_out *dst, int64 g,
				 const gpo_agg_out *src, int64 i)
{
	size_t		w = gpo_type_size(kt);

	memcpy((char *) dst->keys + g * w, (const char *) src->keys + i * w, w);
	dst->key_valid[g] = src->key_valid[i];
	dst->rows[g] = src->rows[i];
	dst->count[g] = src->count[i];
	dst->fsum[g] = src->fsum[i];
	dst->fflags[g] = src->fflags[i];
	dst->m2[g] = src->m2[i];
	((float8 *) dst->min)[g] = ((const float8 *) src->min)[i];
	((float8 *) dst->max)[g] = ((const float8 *) src->max)[i];
}

/* Add group j of src into entry g of dst (the same key), as the engine combines. */
static void
gpuops_qagg_combine(gpo_agg_out *dst, int64 g, const gpo_agg_out *src,
					int64 j)
{
	float8	   *dmin = &((float8 *) dst->min)[g];
	float8	   *dmax = &((float8 *) dst->max)[g];
	const float8 *smin = &((const float8 *) src->min)[j];
	const float8 *smax = &((const float8 *) src->max)[j];

	if (src->count[j] > 0)
	{
		if (dst->count[g] == 0)
		{
			*dmin = *smin;
			*dmax = *smax;
		}
		else
		{
			if (gpo_value_code(GPO_FLOAT64, smin) < gpo_value_code(GPO_FLOAT64, dmin))
				*dmin = *smin;
			if (gpo_value_code(GPO_FLOAT64, smax) > gpo_value_code(GPO_FLOAT64, dmax))
				*dmax = *smax;
		}
		dst->m2[g] = gpo_m2_merged(dst->m2[g], dst->fsum[g], dst->count[g],
								   src->m2[j], src->fsum[j], src->count[j]);
		dst->fsum[g] += src->fsum[j];
		dst->fflags[g] |= src->fflags[j];
	}
	dst->rows[g] += src->rows[j];
	dst->count[g] += src->count[j];
}

/* Merge one chunk's key-ordered groups into the running list. */
static void
gpuops_qagg_merge(GpuopsQueryAgg *q, const GpuopsGroups *chunk)
{
	GpuopsGroups merged;
	const gpo_agg_out *a = &q->acc.out;
	const gpo_agg_out *b = &chunk->out;
	int64		na = q->acc.ngroups;
	int64		nb = chunk->ngroups;
	int64		i = 0;
	int64		j = 0;
	int64		g = 0;
	MemoryContext old = MemoryContextSwitchTo(q->keep_cxt);

	gpuops_groupagg_alloc(&merged.out, na + nb, q->key_type, GPO_FLOAT64);
	MemoryContextSwitchTo(old);
	while (i < na || j < nb)
	{
		int			c = i >= na ? 1 : j >= nb ? -1 :
			gpuops_qagg_cmp(q->key_type, a, i, b, j);

		if (c < 0)
			gpuops_qagg_copy(q->key_type, &merged.out, g++, a, i++);
		else if (c > 0)
			gpuops_qagg_copy(q->key_type, &merged.out, g++, b, j++);
		else
		{
			gpuops_qagg_copy(q->key_type, &merged.out, g, a, i++);
			gpuops_qagg_combine(&merged.out, g++, b, j++);
		}
	}
	merged.ngroups = g;
	if (q->acc.out.keys != NULL)
	{
		pfree(q->acc.out.keys);
		pfree(q->acc.out.key_valid);
		pfree(q->acc.out.rows);
		pfree(q->acc.out.count);
		pfree(q->acc.out.fsum);
		pfree(q->acc.out.fflags);
		pfree(q->acc.out.m2);
		pfree(q->acc.out.min);
		pfree(q->acc.out.max);
	}
	q->acc = merged;
}

/* Chunk callback: group the chunk through the engine and merge its groups. */
static void
gpuops_qagg_chunk(GpuopsStream *s, void *arg)
{
	GpuopsQueryAgg *q = (GpuopsQueryAgg *) arg;
	const GpuopsStreamColumn *kcol = &s->cols[0];
	const GpuopsStreamColumn *vcol = &s->cols[1];
	GpuopsColumn keys;
	GpuopsColumn vals;
	GpuopsGroups groups;

	memset(&keys, 0, sizeof(keys));
	keys.elemtype = kcol->typid;
	keys.type = kcol->type;
	keys.num_rows = s->num_rows;
	keys.data = kcol->data;
	keys.nulls = kcol->chunk.validity;
	keys.vec = kcol->vec;
	if (kcol->type == GPO_UINT8)
	{
		/* bool keys group as int32 0/1, as the array version's */
		int32	   *dst = palloc_extended(s->num_rows * sizeof(int32),
										  MCXT_ALLOC_HUGE);
		int64		i;

		for (i = 0; i < s->num_rows; i++)
			dst[i] = ((const uint8 *) kcol->data)[i] != 0 ? 1 : 0;
		keys.type = GPO_INT32;
		keys.data = dst;
		gpuops_make_vector(&keys.vec, GPO_INT32, dst, keys.nulls,
						   s->num_rows, false);
	}

	memset(&vals, 0, sizeof(vals));
	vals.elemtype = FLOAT8OID;
	vals.type = GPO_FLOAT64;
	vals.num_rows = s->num_rows;
	vals.data = vcol->data;
	vals.nulls = vcol->chunk.validity;
	vals.vec = vcol->vec;

	gpuops_groupagg_run(&keys, &vals, &groups, FLOAT8OID);
	gpuops_qagg_merge(q, &groups);
}

/* gpuops.group_agg(query, key_type): per key rows, count, sum, min, max, avg of the query's values. */
Datum
gpuops_group_agg_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			key_typid = get_fn_expr_argtype(fcinfo->flinfo, 1);
	GpuopsQueryAgg q;
	GpuopsStream s;
	GpuopsColumn keys;
	char	   *query;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 7)
		elog(ERROR, "gpuops.group_agg: return type must have 7 columns");
	if (!OidIsValid(key_typid))
		elog(ERROR, "gpuops.group_agg: could not determine the type of key_type");
	memset(&q, 0, sizeof(q));
	q.key_typid = key_typid;
	if (!gpuops_device_type(key_typid, &q.key_type))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gpuops.group_agg does not support keys of type %s",
						format_type_be(key_typid)),
				 errhint("Use GROUP BY in the query, or keys of type smallint, integer, bigint, real, double precision, date, timestamp, timestamptz or boolean.")));
	if (q.key_type == GPO_UINT8)
		q.key_type = GPO_INT32;
	if (PG_ARGISNULL(0))
		return (Datum) 0;
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "gpuops.group_agg: SPI_connect failed");
	gpuops_stream_prepare(&s, "gpuops.group_agg", query, 2);
	gpuops_stream_expect_type(&s, 0, key_typid);
	gpuops_stream_expect_type(&s, 1, FLOAT8OID);

	q.keep_cxt = CurrentMemoryContext;
	gpuops_stream_begin(&s, gpuops_qagg_chunk, &q);
	gpuops_stream_run(&s);

	memset(&keys, 0, sizeof(keys));
	keys.elemtype = key_typid;
	keys.type = q.key_type;
	gpuops_groupagg_output(rsinfo, &keys, &q.acc, FLOAT8OID);
	SPI_finish();
	return (Datum) 0;
}
