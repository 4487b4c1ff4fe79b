/*
 * resident_cpu.c
 *	  The CPU face of gpo_resident_groupagg (gpo_resident.h).  Where the keys
 *	  span a small range, resident_dense.c adds the passing rows into dense
 *	  slots in one pass.  Otherwise (here) each column the aggregation reads
 *	  becomes one gpo_vector with a chunk per set.
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
	int			nper;			/* set and dimension columns: a set's chunks */
	gpo_vector	vecs[GPO_RESIDENT_MAX_INPUTS];	/* vecs[k]: plan input k */
	gpo_chunk	xchunks[GPO_RESIDENT_MAX_EXPRS];	/* the computed ones' */
	void	   *xmem[2 * GPO_RESIDENT_MAX_EXPRS];	/* their values, validity */
	gpo_chunk  *chunks;			/* vecs[k]'s are chunks + k * nsets */
	void	  **owned;			/* gathered copies, two slots (values,
								 * validity) a chunk; freed at the end */
	int64_t		nowned;
	int64_t		rows;			/* passing rows of all sets */
	gpo_vector	zero;			/* the INT32 zero key */
	gpo_chunk  *zchunks;
	int32_t    *zeros;
} cpu_in;

/* One filtering thread's buffers: a set's mask and its passing rows' numbers. */
typedef struct cpu_scratch
{
	uint8_t    *mask;			/* room for the largest set's rows */
	int64_t    *map;
	int64_t		map_cap;
} cpu_scratch;
/* Frees what in holds. */
static void
cpu_in_free(cpu_in *in)
{
	for (int64_t i = 0; i < in->nowned; i++)
		free(in->owned[i]);
	for (int i = 0; i < 2 * GPO_RESIDENT_MAX_EXPRS; i++)
		free(in->xmem[i]);
	free(in->owned);
	free(in->chunks);
	free(in->zchunks);
	free(in->zeros);
}

/* The largest set's rows (at least 1). */
static int64_t
most_rows(int nsets, gpo_resident *const *sets)
{
	int64_t		most = 1;

	for (int s = 0; s < nsets; s++)
		most = sets[s]->rows > most ? sets[s]->rows : most;
	return most;
}

/* Sets up in's vectors of the plan's columns, a chunk a set (empty for now). */
static gpo_status
cpu_in_make(gpo_ctx *ctx, cpu_in *in, int nsets, gpo_resident *const *sets,
			const gpo_resident_query *q, const gpo_resident_plan *plan)
{
	int			nper = plan->nneed + plan->ndimcols;
	size_t		per = (size_t) nsets * (nper > 0 ? nper : 1);

	memset(in, 0, sizeof(*in));
	in->nsets = nsets;
	in->nneed = plan->nneed;
	in->nper = nper;
	in->chunks = calloc(per, sizeof(gpo_chunk));
	in->owned = calloc(2 * per, sizeof(void *));
	in->nowned = in->owned != NULL ? (int64_t) (2 * per) : 0;
	if (in->chunks == NULL || in->owned == NULL)
	{
		gpo_set_detail(ctx, "could not allocate the inputs of %d kept sets", nsets);
		return GPO_ERR_NOMEM;
	}
	for (int k = 0; k < nper; k++)
	{
		in->vecs[k].type = k < plan->nneed ? sets[0]->cols[plan->need[k]].type :
			q->dimcols[k - plan->nneed].type;
		in->vecs[k].nchunks = nsets;
		in->vecs[k].chunks = in->chunks + (size_t) k * nsets;
	}
	return GPO_OK;
}

/* Chunk of rows [lo, lo + n) of a kept column (see gpo_resident_internal.h). */
gpo_chunk
gpo_resident_chunk(const gpo_resident_col *rc, int64_t lo, int64_t n)
{
	gpo_chunk	ch;

	ch.data = n > 0 ? (char *) rc->data + (size_t) lo * gpo_type_size(rc->type) : rc->data;
	ch.validity = rc->valid != NULL ? rc->valid + lo / 8 : NULL;
	ch.n = n;
	return ch;
}

/* A program over rows of a set, into a mask (see gpo_resident_internal.h). */
gpo_status
gpo_resident_filter_cpu(gpo_ctx *ctx, const gpo_resident *set, int64_t lo,
						int64_t n, const gpo_resident_query *q, uint8_t *mask,
						int64_t *kept)
{
	gpo_vector	cols[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	chs[GPO_RESIDENT_MAX_COLS];
	gpo_chunk	mch = {mask, NULL, n};
	gpo_vector	mv = {GPO_UINT8, 1, &mch};

	for (int c = 0; c < set->ncols; c++)
	{
		chs[c] = gpo_resident_chunk(&set->cols[c], lo, n);
		cols[c].type = set->cols[c].type;
		cols[c].nchunks = 1;
		cols[c].chunks = &chs[c];
	}
	return gpo_filter_cpu(ctx, set->ncols, cols, q->prog, q->nnodes, &mv, kept,
						  NULL);
}

/* Set s's chunks: its columns as they stand (every row passes); its rows. */
static int64_t
cpu_in_whole(cpu_in *in, const gpo_resident *set, int s,
			 const gpo_resident_plan *plan)
{
	for (int k = 0; k < plan->nneed; k++)
		in->vecs[k].chunks[s] = gpo_resident_chunk(&set->cols[plan->need[k]], 0,
												   set->rows);
	return set->rows;
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

/*
 * Set s's chunks: copies of the plan's columns' rows map[0 .. kept), in
 * s's own slots of in->owned.
 */
static gpo_status
cpu_in_gather(gpo_ctx *ctx, cpu_in *in, const gpo_resident *set, int s,
			  const gpo_resident_plan *plan, const int64_t *map, int64_t kept)
{
	for (int k = 0; k < plan->nneed; k++)
	{
		const gpo_resident_col *rc = &set->cols[plan->need[k]];
		size_t		w = gpo_type_size(rc->type);
		void	  **slot = &in->owned[((size_t) s * in->nper + k) * 2];
		gpo_chunk  *ch = &in->vecs[k].chunks[s];

		slot[0] = malloc(w * (size_t) kept);
		slot[1] = rc->valid ? malloc((size_t) (kept + 7) / 8) : NULL;
		if (slot[0] == NULL || (rc->valid != NULL && slot[1] == NULL))
		{
			gpo_set_detail(ctx, "could not allocate %lld passing rows", (long long) kept);
			return GPO_ERR_NOMEM;
		}
		gather_rows(ctx, rc, w, map, kept, slot[0], slot[1]);
		ch->data = slot[0];
		ch->validity = slot[1];
		ch->n = kept;
	}
	return GPO_OK;
}

/*
 * Set s's dimension columns' chunks over its rows map[0 .. kept) (map NULL:
 * all its rows), in s's own slots of in->owned: each dimension's rows found
 * once, then each of its columns read at them.
 */
static gpo_status
cpu_in_dims(gpo_ctx *ctx, cpu_in *in, const gpo_resident *set, int s,
			const gpo_resident_query *q, const gpo_resident_plan *plan,
			const int64_t *map, int64_t kept)
{
	int32_t    *rows;
	gpo_status	st = GPO_OK;

	if (q->ndimcols == 0)
		return GPO_OK;
	if ((rows = malloc(sizeof(int32_t) * (size_t) (kept > 0 ? kept : 1))) == NULL)
	{
		gpo_set_detail(ctx, "could not allocate %lld joined rows", (long long) kept);
		return GPO_ERR_NOMEM;
	}
	for (int d = 0; d < q->ndims && st == GPO_OK; d++)
	{
		bool		found = false;

		for (int c = 0; c < q->ndimcols && st == GPO_OK; c++)
		{
			int			k = plan->nneed + c;
			void	  **slot = &in->owned[((size_t) s * in->nper + k) * 2];
			gpo_chunk  *ch = &in->vecs[k].chunks[s];

			if (q->dimcols[c].dim != d)
				continue;
			if (!found)
				gpo_resident_dims_rows(ctx, set, &q->dims[d], map, kept, rows);
			found = true;
			slot[0] = malloc(gpo_type_size(q->dimcols[c].type) * (size_t) (kept > 0 ? kept : 1));
			slot[1] = malloc((size_t) (kept + 7) / 8 + 1);
			if (slot[0] == NULL || slot[1] == NULL)
			{
				gpo_set_detail(ctx, "could not allocate %lld joined rows", (long long) kept);
				st = GPO_ERR_NOMEM;
				break;
			}
			gpo_resident_dims_gather(ctx, &q->dimcols[c], rows, kept, slot[0], slot[1]);
			ch->data = slot[0];
			ch->validity = slot[1];
			ch->n = kept;
		}
	}
	free(rows);
	return st;
}

/*
 * Set s's passing rows into in: filtered, selected and gathered with the
 * buffers of sc, by ctx's threads; *rows gets how many.  Chunks and owned
 * slots are s's alone, so that sets may run at once on threads of their own.
 */
static gpo_status
cpu_in_filter(gpo_ctx *ctx, cpu_in *in, cpu_scratch *sc,
			  const gpo_resident *set, int s, const gpo_resident_query *q,
			  const gpo_resident_plan *plan, int64_t *rows)
{
	gpo_chunk	mch = {sc->mask, NULL, set->rows};
	gpo_vector	mask = {GPO_UINT8, 1, &mch};
	gpo_chunk	ich;
	gpo_vector	imap = {GPO_INT64, 1, &ich};
	int64_t		kept = 0;
	gpo_status	st;

	*rows = 0;
	if (set->rows == 0)
		return GPO_OK;			/* its chunks stay empty */
	if (q->nnodes > 0)
		st = gpo_resident_filter_cpu(ctx, set, 0, set->rows, q, sc->mask, &kept);
	else
	{
		memset(sc->mask, 1, (size_t) set->rows);
		kept = set->rows;
		st = GPO_OK;
	}
	if (st == GPO_OK && q->ndims > 0 && kept > 0)
		kept = gpo_resident_dims_mask(ctx, set, q, 0, set->rows, sc->mask);
	if (st != GPO_OK || kept == 0)
		return st;
	if (kept == set->rows)
	{
		*rows = cpu_in_whole(in, set, s, plan);
		return cpu_in_dims(ctx, in, set, s, q, plan, NULL, kept);
	}
	if (kept > sc->map_cap)
	{
		free(sc->map);
		sc->map_cap = 0;
		if ((sc->map = malloc(sizeof(int64_t) * (size_t) kept)) == NULL)
		{
			gpo_set_detail(ctx, "could not allocate %lld row numbers", (long long) kept);
			return GPO_ERR_NOMEM;
		}
		sc->map_cap = kept;
	}
	ich.data = sc->map;
	ich.validity = NULL;
	ich.n = kept;
	if ((st = gpo_compact_cpu(ctx, &mask, 0, &imap, &kept, NULL)) != GPO_OK ||
		(st = cpu_in_gather(ctx, in, set, s, plan, sc->map, kept)) != GPO_OK ||
		(st = cpu_in_dims(ctx, in, set, s, q, plan, sc->map, kept)) != GPO_OK)
		return st;
	*rows = kept;
	return GPO_OK;
}

/*
 * Every set's passing rows into in: one set a thread when there are many
 * (a cached table's ranges), where a team per set would start 3 parallel
 * regions for a few thousand rows each; else each set by the whole team.
 */
static gpo_status
cpu_in_filter_all(gpo_ctx *ctx, cpu_in *in, int nsets, gpo_resident *const *sets,
				  const gpo_resident_query *q, const gpo_resident_plan *plan)
{
	int			team = gpo_threads(ctx);
	bool		alone = nsets >= 2 * team && team > 1;
	size_t		most = (size_t) most_rows(nsets, sets);
	gpo_status	st = GPO_OK;

	gpo_omp_prepare(team);
#pragma omp parallel num_threads(team) if (alone)
	{
		gpo_ctx		mine_ctx = *ctx;
		cpu_scratch sc = {malloc(most), NULL, 0};
		int64_t		mine = 0;
		gpo_status	my_st = GPO_OK;

		if (alone)
			mine_ctx.threads = 1;
		if (sc.mask == NULL)
		{
			my_st = GPO_ERR_NOMEM;
			gpo_set_detail(&mine_ctx, "could not allocate the masks of %d kept sets", nsets);
		}
#pragma omp for schedule(dynamic, 1)
		for (int s = 0; s < nsets; s++)
		{
			int64_t		rows = 0;

			if (my_st == GPO_OK)
				my_st = cpu_in_filter(&mine_ctx, in, &sc, sets[s], s, q, plan,
									  &rows);
			mine += rows;
		}
#pragma omp critical(gpo_resident_sets)
		{
			in->rows += mine;
			if (my_st != GPO_OK && st == GPO_OK)
			{
				st = my_st;
				memcpy(ctx->detail, mine_ctx.detail, sizeof(ctx->detail));
			}
		}
		free(sc.mask);
		free(sc.map);
	}
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

/*
 * The computed columns over in's passing rows: input nneed + ndimcols + e, one chunk
 * each.  The lowest erring row's error (an earlier column's on a tie) goes
 * into *q->xerr.
 */
static gpo_status
cpu_in_exprs(gpo_ctx *ctx, cpu_in *in, const gpo_resident_query *q,
			 const gpo_resident_plan *plan)
{
	gpo_xnode  *prog = malloc(sizeof(gpo_xnode) * GPO_EXPR_MAX_NODES);
	gpo_status	st = GPO_OK;

	if (prog == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a program");
		return GPO_ERR_NOMEM;
	}
	for (int e = 0; e < q->nexprs && st == GPO_OK; e++)
	{
		const gpo_resident_expr *x = &q->exprs[e];
		int			at = plan->nneed + plan->ndimcols + e;
		gpo_vector *out = &in->vecs[at];
		gpo_expr_error err;
		gpo_chunk  *ch = &in->xchunks[e];

		ch->data = in->xmem[2 * e] = malloc(gpo_type_size(x->type) * (size_t) in->rows);
		ch->validity = in->xmem[2 * e + 1] = malloc((size_t) (in->rows + 7) / 8);
		ch->n = in->rows;
		if (ch->data == NULL || ch->validity == NULL)
		{
			gpo_set_detail(ctx, "could not allocate %lld computed rows",
						   (long long) in->rows);
			st = GPO_ERR_NOMEM;
			break;
		}
		out->type = x->type;
		out->nchunks = 1;
		out->chunks = ch;
		gpo_resident_expr_prog(q, plan, e, prog);
		st = gpo_expr_eval_cpu(ctx, at, in->vecs, prog, x->nnodes,
							   x->out_double, NULL, out, &err);
		/* the lowest row's; a later column errs only past it if at all */
		gpo_resident_lower_error(q->xerr, &err);
	}
	free(prog);
	return st;
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
	bool		taken;

	/* one pass without copies where the keys' range is small */
	st = gpo_resident_dense_cpu(ctx, nsets, sets, q, strategy, outs, ngroups,
								&taken);
	if (taken)
	{
		ctx->used = GPO_DEVICE_CPU;
		return st;
	}
	gpo_resident_plan_of(q, &plan);
	if ((st = cpu_in_make(ctx, &in, nsets, sets, q, &plan)) != GPO_OK)
		goto done;
	if (q->nnodes > 0 || q->ndims > 0)
		st = cpu_in_filter_all(ctx, &in, nsets, sets, q, &plan);
	else
		for (int s = 0; s < nsets; s++)
			in.rows += cpu_in_whole(&in, sets[s], s, &plan);
	if (st != GPO_OK)
		goto done;
	if (in.rows == 0)
	{
		gpo_resident_no_rows(gpo_resident_key_type(sets[0], q), strategy,
							 ngroups);
		goto done;
	}
	if (q->nexprs > 0 && ((st = cpu_in_exprs(ctx, &in, q, &plan)) != GPO_OK ||
						  q->xerr->code != GPO_XERR_NONE))
		goto done;
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
