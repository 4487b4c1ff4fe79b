/*
 * agg_kept_star.c
 *	  A star join over a cached fact table's kept ranges (agg_kept.c): the
 *	  dimensions' rows, which the child plans gave (agg_join.c), become the
 *	  engine's row maps and dimension columns (gpo_resident.h), so that the
 *	  engine joins, filters and groups the ranges where they lie.
 *
 * A row map is a direct-indexed array over a dimension's key range, so it
 * is taken where that range is not much larger than the dimension, or than
 * an eighth of the fact rows it spares reading (a dimension filtered to a
 * few keys spread over a large range: SSB's parts of one category), and
 * where the row maps of all dimensions stay within gpuops.max_join_memory.  An
 * inner or left join needs unique keys (a row map holds one row a key);
 * a semi or anti join only asks whether a key is there.  Anything else
 * (composite keys, a dimension column that is only counted) leaves the
 * table to the batches.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

#include "cache/gpuops_cache.h"

/* Most keys a row map covers (256 MB of row numbers). */
#define GPUOPS_KEPT_STAR_MAX_SPAN	((int64) 1 << 26)

/* Whether a dimension column of type t can be read by the engine. */
static bool
gpuops_agg_star_type(gpo_type t)
{
	return t == GPO_INT32 || t == GPO_INT64 || t == GPO_FLOAT32 ||
		t == GPO_FLOAT64;
}

/* The star join's virtual column of batch column c of te, or -1. */
int
gpuops_agg_kept_star_col(GpuopsAggScanState *s, GpuopsAggTableExec *te, int c)
{
	int			g;

	if (s->join == NULL || c < te->nread || c >= te->ncols)
		return -1;
	for (g = 0; g < s->join->ngather; g++)
		if (s->join->gathers[g].col == c)
			return g;
	return -1;
}

/* Whether te's star join has a shape the engine joins over kept ranges. */
bool
gpuops_agg_kept_star_shape(GpuopsAggScanState *s, GpuopsAggTableExec *te)
{
	GpuopsAggJoin *j = s->join;
	int			d;
	int			g;

	if (j->ndims > GPO_RESIDENT_MAX_DIMS || j->ngather > GPO_RESIDENT_MAX_DIM_COLS ||
		te->ncols != te->nread + j->ngather)
		return false;
	for (d = 0; d < j->ndims; d++)
	{
		GpuopsAggDim *dim = &j->dims[d];

		if (dim->key_resno2 > 0 || dim->fk_col < 0 || dim->fk_col >= te->nread ||
			(te->cols[dim->fk_col].type != GPO_INT32 &&
			 te->cols[dim->fk_col].type != GPO_INT64))
			return false;
	}
	for (g = 0; g < j->ngather; g++)
		if (te->cols[j->gathers[g].col].presence ||
			!gpuops_agg_star_type(j->gathers[g].type))
			return false;
	return true;
}

/* The engine's kind of a star join's dimension join. */
static gpo_resident_join
gpuops_agg_star_kind(gpo_join_kind kind)
{
	switch (kind)
	{
		case GPO_JOIN_ANTI:
			return GPO_RESIDENT_ANTI;
		case GPO_JOIN_LEFT:
			return GPO_RESIDENT_LEFT;
		default:
			return GPO_RESIDENT_MATCH;
	}
}

/*
 * Dimension dim's row map into *out (in the current context), for fact
 * rows of which facts are kept, of at most room keys; false where its keys
 * span too far or repeat in a join that reads its rows.
 */
static bool
gpuops_agg_star_map(GpuopsAggDim *dim, int64 facts, int64 room,
					gpo_resident_dim *out)
{
	int64		lo = PG_INT64_MAX;
	int64		hi = PG_INT64_MIN;
	int64		most = Min(Min(Max(4 * dim->nrows + 131072, facts / 8),
							   GPUOPS_KEPT_STAR_MAX_SPAN),
						   room);
	bool		unique = out->kind != GPO_RESIDENT_ANTI &&
		dim->kind != GPO_JOIN_SEMI;
	int32	   *row_of;
	int64		r;

	for (r = 0; r < dim->nrows; r++)
	{
		lo = Min(lo, dim->keys[r]);
		hi = Max(hi, dim->keys[r]);
	}
	if (dim->nrows == 0)
		lo = hi = 0;
	else if (most <= 0 || (uint64) hi - (uint64) lo >= (uint64) most)
		return false;
	out->lo = lo;
	out->span = dim->nrows > 0 ? hi - lo + 1 : 0;
	out->rows = dim->nrows;
	row_of = palloc_extended(sizeof(int32) * Max(out->span, 1), MCXT_ALLOC_HUGE);
	memset(row_of, 0xff, sizeof(int32) * Max(out->span, 1));	/* -1 */
	for (r = 0; r < dim->nrows; r++)
	{
		int32	   *at = &row_of[dim->keys[r] - lo];

		if (*at >= 0 && unique)
			return false;		/* a key twice: counts would multiply */
		*at = (int32) r;
	}
	out->row_of = row_of;
	return true;
}

/* Gathered column g as dimension column *out (validity as bytes, bounds). */
static void
gpuops_agg_star_dimcol(GpuopsAggGather *ga, int64 rows, gpo_resident_dimcol *out)
{
	const gpo_chunk *ch = &ga->v.chunks[0];
	uint8	   *valid = NULL;
	int64		r;

	out->dim = ga->dim;
	out->type = ga->type;
	out->data = ch->data;
	if (ch->validity != NULL)
	{
		valid = palloc_extended(Max(rows, 1), MCXT_ALLOC_HUGE);
		for (r = 0; r < rows; r++)
			valid[r] = (ch->validity[r >> 3] >> (r & 7)) & 1;
	}
	out->valid = valid;
	out->bounded = ga->type == GPO_INT32 || ga->type == GPO_INT64;
	out->lo = PG_INT64_MAX;
	out->hi = PG_INT64_MIN;
	for (r = 0; out->bounded && r < rows; r++)
	{
		int64		v = ga->type == GPO_INT32 ? ((const int32 *) ch->data)[r] :
			((const int64 *) ch->data)[r];

		if (valid != NULL && !valid[r])
			continue;
		out->lo = Min(out->lo, v);
		out->hi = Max(out->hi, v);
	}
}

/*
 * The built star join of s as the engine's dimensions over kept's columns
 * into *star (in the current context); false where a dimension has no row
 * map (see the file header).
 */
bool
gpuops_agg_kept_star_build(GpuopsAggScanState *s, GpuopsAggTableExec *te,
						   const GpuopsCacheKept *kept, GpuopsServiceStar *star)
{
	GpuopsAggJoin *j = s->join;
	/* row numbers (4 bytes a key) within gpuops.max_join_memory, in all */
	int64		room = (int64) gpuops_max_join_memory * 1024 / sizeof(int32);
	int			d;
	int			g;

	memset(star, 0, sizeof(*star));
	star->ndims = j->ndims;
	for (d = 0; d < j->ndims; d++)
	{
		gpo_resident_dim *rd = &star->dims[d];

		rd->key_col = kept->cidx[j->dims[d].fk_col];
		rd->kind = gpuops_agg_star_kind(j->dims[d].kind);
		if (!gpuops_agg_star_map(&j->dims[d], kept->rows, room, rd))
			return false;
		room -= rd->span;
	}
	star->ndimcols = j->ngather;
	for (g = 0; g < j->ngather; g++)
		gpuops_agg_star_dimcol(&j->gathers[g], j->dims[j->gathers[g].dim].nrows,
							   &star->dimcols[g]);
	return true;
}
