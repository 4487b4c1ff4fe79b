/*
 * resident_cpu.c
 *	  The CPU face of gpo_resident_groupagg (gpo_resident.h): each column the
 *	  aggregation reads becomes one gpo_vector with a chunk per set.
 *
 * Without a program the chunks are the sets' columns themselves.  With
 * one, each set is filtered into a mask (gpo_filter_cpu), its passing rows'
 * numbers are selected (gpo_compact_cpu), and the passing rows of the
 * columns read are gathered into copies; a set whose rows all pass is used
 * as it stands.  Many sets (a cached table's ranges) are filtered one a
 * thread; a few, each by the whole team.  gpo_groupagg_many_cpu then
 * groups the chunks.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"
#include "gpo_resident_internal.h"

/* Rows of the shared zero chunk of an INT32 zero key. */
#define ZERO_ROWS	65536

/* The CPU face's aggregation inputs: the columns read, over the passing rows. */
typedef struct cpu_in
{
	int			nsets;
	int			nneed;
	gpo_vector	vecs[GPO_AGG_MAX_REQS + 1]; /* vecs[k]: plan column k */
	gpo_chunk  *chunks;			/* vecs[k]'s are chunks + k * nsets */
	void	  **owned;			/* gathered copies, freed at the end */
	int64_t		nowned;
	int64_t		rows;			/* passing rows of all sets */
	uint8_t    *mask;			/* a set's mask bytes */
	int64_t    *map;			/* a set's passing rows' numbers */
	int64_t		map_cap;
	gpo_vector	zero;			/* the INT32 zero key */
	gpo_chunk  *zchunks;
	int32_t    *zeros;
} cpu_in;
/* Frees what in holds. */
static void
cpu_in_free(cpu_in *in)
{
	for (int64_t i = 0; i < in->nowned; i++)
		free(in->owned[i]);
	free(in->owned);
	free(in->chunks);
	free(in->mask);
	free(in->map);
	free(in->zchunks);
	free(in->zeros);
}

/* Sets up in's vectors of the plan's columns, a chunk a set (empty for now). */
static gpo_status
cpu_in_make(gpo_ctx *ctx, cpu_in *in, int nsets, gpo_resident *const *sets,
			const gpo_resident_query *q, const gpo_resident_plan *plan)
{
	size_t		per = (size_t) nsets * (plan->nneed > 0 ? plan->nneed : 1);
	int64_t		most = 1;

	memset(in, 0, sizeof(*in));
	in->nsets = nsets;
	in->nneed = plan->nneed;
	for (int s = 0; s < nsets; s++)
		most = sets[s]->rows > most ? sets[s]->rows : most;
	in->chunks = calloc(per, sizeof(gpo_chunk));
	in->owned = calloc(2 * per, sizeof(void *));
	in->mask = q->nnodes > 0 ? malloc((size_t) most) : NULL;
	if (in->chunks == NULL || in->owned == NULL ||
		(q->nnodes > 0 && in->mask == NULL))
	{
		gpo_set_detail(ctx, "could not allocate the inputs of %d kept sets", nsets);
		return GPO_ERR_NOMEM;
	}
	for (int k = 0; k < plan->nneed; k++)
	{
		in->vecs[k].type = sets[0]->cols[plan->need[k]].type;
		in->vecs[k].nchunks = nsets;
		in->vecs[k].chunks = in->chunks + (size_t) k * nsets;
	}
	return GPO_OK;
}

/* Set s's chunks: its columns as they stand (every row passes). */
static void
cpu_in_whole(cpu_in *in, const gpo_resident *set, int s,
			 const gpo_resident_plan *plan)
{
	for (int k = 0; k < plan->nneed; k++)
	{
		const gpo_resident_col *rc = &set->cols[plan->need[k]];
		gpo_chunk  *ch = &in->vecs[k].chunks[s];

		ch->data = rc->data;
		ch->validity = rc->valid;
		ch->n = set->rows;
	}
	in->rows += set->rows;
}

/* out[j] and bit j of bits (when not NULL) = value and validity of row map[j] of rc. */
static void
gather_rows(const gpo_ctx *ctx, const gpo_resident_col *rc, size_t w,
			const int64_t *map, int64_t kept, void *out, uint8_t *bits)
{
	int64_t		nbytes = (kept + 7) / 8;
	int			nb = gpo_pieces(ctx, kept);

	gpo_omp_prepare(gpo_threads(ctx));
	/* blocks of whole bitmap bytes, so that no two share one */
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, nb))
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(nbytes, b, nb) * 8;
		int64_t		hi = gpo_block_lo(nbytes, b + 1, nb) * 8;

		hi = hi < kept ? hi : kept;
		if (w == 8)
			for (int64_t j = lo; j < hi; j++)
				((uint64_t *) out)[j] = ((const uint64_t *) rc->data)[map[j]];
		else
			for (int64_t j = lo; j < hi; j++)
				((uint32_t *) out)[j] = ((const uint32_t *) rc->data)[map[j]];
		for (int64_t y = lo / 8; bits != NULL && y * 8 < hi; y++)
		{
			unsigned	v = 0;

			for (int k = 0; k < 8 && y * 8 + k < hi; k++)
			{
				int64_t		r = map[y * 8 + k];

				v |= ((rc->valid[r >> 3] >> (r & 7)) & 1u) << k;
			}
			bits[y] = (uint8_t) v;
		}
	}
}

/* Set s's chunks: copies of the plan's columns' rows in->map[0 .. kept). */
static gpo_status
cpu_in_gather(gpo_ctx *ctx, cpu_in *in, const gpo_resident *set, int s,
			  const gpo_resident_plan *plan, int64_t kept)
{
	for (int k = 0; k < plan->nneed; k++)
	{
		const gpo_resident_col *rc = &set->cols[plan->need[k]];
		size_t		w = gpo_type_size(rc->type);
		gpo_chunk  *ch = &in->vecs[k].chunks[s];
		void	   *data = malloc(w * (size_t) kept);
		uint8_t    *bits = rc->valid ? malloc((size_t) (kept + 7) / 8) : NULL;

		if (data != NULL)
			in->owned[in->nowned++] = data;
		if (bits != NULL)
			in->owned[in->nowned++] = bits;
		if (data == NULL || (rc->valid != NULL && bits == NULL))
		{
			gpo_set_detail(ctx, "could not allocate %lld passing rows", (long long) kept);
			return GPO_ERR_NOMEM;
		}
		gather_rows(ctx, rc, w, in->map, kept, data, bits);
		ch->data = data;
		ch->validity = bits;
		ch->n = kept;
	}
	in->rows += kept;
	return GPO_OK;
}

/* Set s's passing rows into in: filtered, selected and gathered. */
static gpo_status
cpu_in_filter(gpo_ctx *ctx, cpu_in *in, const gpo_resident *set, int s,
			  const gpo_resident_query *q, const gpo_resident_plan *plan)
{
	gpo_vector	cols[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	chs[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	mch = {in->mask, NULL, set->rows};
	gpo_vector	mask = {GPO_UINT8, 1, &mch};
	gpo_chunk	ich;
	gpo_vector	imap = {GPO_INT64, 1, &ich};
	int64_t		kept = 0;
	gpo_status	st;

	if (set->rows == 0)
		return GPO_OK;			/* its chunks stay empty */
	for (int c = 0; c < set->ncols; c++)
	{
		chs[c].data = set->cols[c].data;
		chs[c].validity = set->cols[c].valid;
		chs[c].n = set->rows;
		cols[c].type = set->cols[c].type;
		cols[c].nchunks = 1;
		cols[c].chunks = &chs[c];
	}
	st = gpo_filter_cpu(ctx, set->ncols, cols, q->prog, q->nnodes, &mask,
						&kept, NULL);
	if (st != GPO_OK || kept == 0)
		return st;
	if (kept == set->rows)
	{
		cpu_in_whole(in, set, s, plan);
		return GPO_OK;
	}
	if (kept > in->map_cap)
	{
		free(in->map);
		in->map_cap = 0;
		if ((in->map = malloc(sizeof(int64_t) * (size_t) kept)) == NULL)
		{
			gpo_set_detail(ctx, "could not allocate %lld row numbers", (long long) kept);
			return GPO_ERR_NOMEM;
		}
		in->map_cap = kept;
	}
	ich.data = in->map;
	ich.validity = NULL;
	ich.n = kept;
	if ((st = gpo_compact_cpu(ctx, &mask, 0, &imap, &kept, NULL)) != GPO_OK)
		return st;
	return cpu_in_gather(ctx, in, set, s, plan, kept);
}

/*
 * Set s's passing rows into in when sets run one a thread (ctx1: one
 * thread): its own mask and map buffers (*mask of the largest set's rows,
 * *map grown as needed), the gathered copies in s's own slots of
 * in->owned, the rows into *rows.
 */
static gpo_status
filter_set_alone(gpo_ctx *ctx1, cpu_in *in, const gpo_resident *set, int s,
				 const gpo_resident_query *q, const gpo_resident_plan *plan,
				 uint8_t *mask, int64_t **map, int64_t *map_cap, int64_t *rows)
{
	gpo_vector	cols[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	chs[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	mch = {mask, NULL, set->rows};
	gpo_vector	mv = {GPO_UINT8, 1, &mch};
	gpo_chunk	ich;
	gpo_vector	imap = {GPO_INT64, 1, &ich};
	int64_t		kept = 0;
	gpo_status	st;

	*rows = 0;
	if (set->rows == 0)
		return GPO_OK;
	for (int c = 0; c < set->ncols; c++)
	{
		chs[c].data = set->cols[c].data;
		chs[c].validity = set->cols[c].valid;
		chs[c].n = set->rows;
		cols[c].type = set->cols[c].type;
		cols[c].nchunks = 1;
		cols[c].chunks = &chs[c];
	}
	st = gpo_filter_cpu(ctx1, set->ncols, cols, q->prog, q->nnodes, &mv, &kept,
						NULL);
	if (st != GPO_OK || kept == 0)
		return st;
	if (kept == set->rows)
	{
		for (int k = 0; k < plan->nneed; k++)
		{
			const gpo_resident_col *rc = &set->cols[plan->need[k]];
			gpo_chunk  *ch = &in->vecs[k].chunks[s];

			ch->data = rc->data;
			ch->validity = rc->valid;
			ch->n = set->rows;
		}
		*rows = kept;
		return GPO_OK;
	}
	if (kept > *map_cap)
	{
		free(*map);
		*map_cap = 0;
		if ((*map = malloc(sizeof(int64_t) * (size_t) kept)) == NULL)
			return GPO_ERR_NOMEM;
		*map_cap = kept;
	}
	ich.data = *map;
	ich.validity = NULL;
	ich.n = kept;
	if ((st = gpo_compact_cpu(ctx1, &mv, 0, &imap, &kept, NULL)) != GPO_OK)
		return st;
	for (int k = 0; k < plan->nneed; k++)
	{
		const gpo_resident_col *rc = &set->cols[plan->need[k]];
		size_t		w = gpo_type_size(rc->type);
		size_t		slot = ((size_t) s * plan->nneed + k) * 2;
		gpo_chunk  *ch = &in->vecs[k].chunks[s];

		in->owned[slot] = malloc(w * (size_t) kept);
		in->owned[slot + 1] = rc->valid ? malloc((size_t) (kept + 7) / 8) : NULL;
		if (in->owned[slot] == NULL ||
			(rc->valid != NULL && in->owned[slot + 1] == NULL))
			return GPO_ERR_NOMEM;
		gather_rows(ctx1, rc, w, *map, kept, in->owned[slot], in->owned[slot + 1]);
		ch->data = in->owned[slot];
		ch->validity = in->owned[slot + 1];
		ch->n = kept;
	}
	*rows = kept;
	return GPO_OK;
}

/*
 * Every set's passing rows into in, one set a thread: for many small sets
 * (a cached table's ranges), where a team per set would start 3 parallel
 * regions for a few thousand rows each.
 */
static gpo_status
filter_sets(gpo_ctx *ctx, cpu_in *in, int nsets, gpo_resident *const *sets,
			const gpo_resident_query *q, const gpo_resident_plan *plan)
{
	int			team = gpo_threads(ctx);
	int64_t		most = 1;
	gpo_status	st = GPO_OK;

	for (int s = 0; s < nsets; s++)
		most = sets[s]->rows > most ? sets[s]->rows : most;
	in->nowned = (int64_t) nsets * (plan->nneed > 0 ? plan->nneed : 1) * 2;
	gpo_omp_prepare(team);
#pragma omp parallel num_threads(team)
	{
		gpo_ctx		ctx1 = *ctx;
		uint8_t    *mask = malloc((size_t) most);
		int64_t    *map = NULL;
		int64_t		map_cap = 0;
		int64_t		mine = 0;
		gpo_status	my_st = mask == NULL ? GPO_ERR_NOMEM : GPO_OK;

		ctx1.threads = 1;
#pragma omp for schedule(dynamic, 1)
		for (int s = 0; s < nsets; s++)
		{
			int64_t		rows = 0;

			if (my_st == GPO_OK)
				my_st = filter_set_alone(&ctx1, in, sets[s], s, q, plan, mask,
										 &map, &map_cap, &rows);
			mine += rows;
		}
#pragma omp critical(gpo_resident_sets)
		{
			in->rows += mine;
			if (my_st != GPO_OK && st == GPO_OK)
			{
				st = my_st;
				if (ctx1.detail[0])
					memcpy(ctx->detail, ctx1.detail, sizeof(ctx->detail));
			}
		}
		free(mask);
		free(map);
	}
	if (st == GPO_ERR_NOMEM && !ctx->detail[0])
		gpo_set_detail(ctx, "could not allocate the passing rows of %d kept sets", nsets);
	return st;
}

/* in->zero: an INT32 key of in->rows zeros (in->rows > 0), chunks of one zero array. */
static gpo_status
cpu_in_zero_key(gpo_ctx *ctx, cpu_in *in)
{
	int64_t		per = in->rows < ZERO_ROWS ? in->rows : ZERO_ROWS;
	int64_t		n = (in->rows + per - 1) / per;

	in->zeros = calloc((size_t) per, sizeof(int32_t));
	in->zchunks = malloc(sizeof(gpo_chunk) * (size_t) n);
	if (in->zeros == NULL || in->zchunks == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a zero key");
		return GPO_ERR_NOMEM;
	}
	for (int64_t i = 0; i < n; i++)
	{
		in->zchunks[i].data = in->zeros;
		in->zchunks[i].validity = NULL;
		in->zchunks[i].n = in->rows - i * per < per ? in->rows - i * per : per;
	}
	in->zero.type = GPO_INT32;
	in->zero.nchunks = (int32_t) n;
	in->zero.chunks = in->zchunks;
	return GPO_OK;
}

/* The CPU face of gpo_resident_groupagg (see gpo_resident_internal.h). */
gpo_status
gpo_resident_groupagg_cpu(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
			 const gpo_resident_query *q, gpo_agg_strategy *strategy,
			 gpo_agg_out *outs, int64_t *ngroups)
{
	gpo_resident_plan plan;
	gpo_agg_req reqs[GPO_AGG_MAX_REQS];
	cpu_in		in;
	gpo_status	st;

	gpo_resident_plan_of(q, &plan);
	if ((st = cpu_in_make(ctx, &in, nsets, sets, q, &plan)) != GPO_OK)
		goto done;
	if (q->nnodes > 0 && nsets >= 2 * gpo_threads(ctx) && gpo_threads(ctx) > 1)
		st = filter_sets(ctx, &in, nsets, sets, q, &plan);
	else
		for (int s = 0; s < nsets && st == GPO_OK; s++)
		{
			if (q->nnodes == 0)
				cpu_in_whole(&in, sets[s], s, &plan);
			else
				st = cpu_in_filter(ctx, &in, sets[s], s, q, &plan);
		}
	if (st != GPO_OK)
		goto done;
	if (in.rows == 0)
	{
		gpo_resident_no_rows(gpo_resident_key_type(sets[0], q), strategy,
							 ngroups);
		goto done;
	}
	if (plan.key < 0 && (st = cpu_in_zero_key(ctx, &in)) != GPO_OK)
		goto done;
	for (int r = 0; r < q->nreqs; r++)
	{
		reqs[r].values = plan.req[r] >= 0 ? &in.vecs[plan.req[r]] : NULL;
		reqs[r].aggs = q->aggs[r];
	}
	st = gpo_groupagg_many_cpu(ctx, plan.key >= 0 ? &in.vecs[plan.key] : &in.zero,
							   q->nreqs, reqs, q->est_groups, strategy, outs,
							   ngroups);
done:
	cpu_in_free(&in);
	ctx->used = GPO_DEVICE_CPU;
	return st;
}
