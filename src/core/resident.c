/*
 * resident.c
 *	  Column sets kept between calls (gpo_resident.h): the set itself, the
 *	  argument checks and the dispatch both faces share, and the CPU face.
 *
 * A set holds each column's rows in one piece and, only when some row is
 * NULL, their validity.  The CPU face keeps malloc'd host copies, with
 * validity as a bitmap, so that a kept column is a one-chunk gpo_vector as
 * it stands; the GPU face keeps device copies (kernels/resident.cu).  A set's
 * face decides which face aggregates it.
 *
 * The CPU face's aggregation makes each column it reads one gpo_vector with
 * a chunk per set.  Without a program the chunks are the sets' columns
 * themselves.  With one, each set is filtered into a mask (gpo_filter_cpu),
 * its passing rows' numbers are selected (gpo_compact_cpu), and the passing
 * rows of the columns read are gathered into copies; a set whose rows all
 * pass is used as it stands.  gpo_groupagg_many_cpu then groups the chunks.
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

/* True if some row of v is NULL. */
bool
gpo_resident_has_null(const gpo_vector *v)
{
	for (int32_t c = 0; c < v->nchunks; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		full = ch->n / 8;
		unsigned	rem = (1u << (ch->n % 8)) - 1;

		if (ch->validity == NULL || ch->n == 0)
			continue;
		for (int64_t j = 0; j < full; j++)
			if (ch->validity[j] != 0xff)
				return true;
		if (rem != 0 && (ch->validity[full] & rem) != rem)
			return true;
	}
	return false;
}

/* dst[i] = 1 if row from + i of v is valid, else 0, for i < len. */
void
gpo_resident_valid_bytes(const gpo_vector *v, int64_t from, int64_t len,
						 uint8_t *dst)
{
	int64_t		start = 0;

	for (int32_t c = 0; c < v->nchunks && len > 0; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		off = from - start;
		int64_t		take;

		start += ch->n;
		if (off >= ch->n)
			continue;
		take = ch->n - off < len ? ch->n - off : len;
		if (ch->validity == NULL)
			memset(dst, 1, (size_t) take);
		else
			for (int64_t i = 0; i < take; i++)
				dst[i] = (ch->validity[(off + i) >> 3] >> ((off + i) & 7)) & 1;
		dst += take;
		from += take;
		len -= take;
	}
}

/* ORs n bits of src (all ones when NULL) into the zeroed bitmap dst from bit at on. */
static void
bits_put(uint8_t *dst, int64_t at, const uint8_t *src, int64_t n)
{
	if ((at & 7) == 0 && src != NULL)
	{
		memcpy(dst + (at >> 3), src, (size_t) (n / 8));
		if (n % 8 != 0)
			dst[(at >> 3) + n / 8] |= src[n / 8] & ((1u << (n % 8)) - 1);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		if (src == NULL || (src[i >> 3] >> (i & 7)) & 1)
			dst[(at + i) >> 3] |= (uint8_t) (1u << ((at + i) & 7));
}

/* The CPU face of a put: host copies of the rows of cols into set. */
static gpo_status
put_cpu(gpo_ctx *ctx, const gpo_vector *cols, gpo_resident *set)
{
	int64_t		n = set->rows;

	for (int c = 0; c < set->ncols && n > 0; c++)
	{
		const gpo_vector *v = &cols[c];
		gpo_resident_col *rc = &set->cols[c];
		size_t		w = gpo_type_size(v->type);
		bool		nulls = gpo_resident_has_null(v);
		int64_t		off = 0;

		rc->data = malloc(w * (size_t) n);
		rc->valid = nulls ? calloc((size_t) (n + 7) / 8, 1) : NULL;
		if (rc->data == NULL || (nulls && rc->valid == NULL))
		{
			gpo_set_detail(ctx, "could not allocate %lld rows of kept column %d",
						   (long long) n, c);
			return GPO_ERR_NOMEM;
		}
		for (int32_t k = 0; k < v->nchunks; k++)
		{
			const gpo_chunk *ch = &v->chunks[k];

			if (ch->n == 0)
				continue;
			memcpy((char *) rc->data + off * w, ch->data, w * (size_t) ch->n);
			if (nulls)
				bits_put(rc->valid, off, ch->validity, ch->n);
			off += ch->n;
		}
		set->bytes += w * (size_t) n + (nulls ? (size_t) (n + 7) / 8 : 0);
	}
	return GPO_OK;
}

/* Checks a put's arguments; *rows gets the columns' row count. */
static gpo_status
put_check(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
		  gpo_resident **out, int64_t *rows)
{
	gpo_status	st;

	if (out == NULL || cols == NULL || ncols < 1 ||
		ncols > GPO_RESIDENT_MAX_COLS)
	{
		gpo_set_detail(ctx, "a kept set needs 1 .. %d columns (%d given) and an output",
					   GPO_RESIDENT_MAX_COLS, ncols);
		return GPO_ERR_INVALID;
	}
	for (int c = 0; c < ncols; c++)
	{
		if ((st = gpo_check_vector(ctx, &cols[c], "kept column")) != GPO_OK)
			return st;
		if (gpo_vector_rows(&cols[c]) != gpo_vector_rows(&cols[0]))
		{
			gpo_set_detail(ctx, "kept column %d has %lld rows, column 0 has %lld",
						   c, (long long) gpo_vector_rows(&cols[c]),
						   (long long) gpo_vector_rows(&cols[0]));
			return GPO_ERR_INVALID;
		}
	}
	*rows = gpo_vector_rows(&cols[0]);
	return GPO_OK;
}

/* Keeps a column set (see gpo_resident.h). */
gpo_status
gpo_resident_put(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
				 gpo_resident **out)
{
	gpo_resident *set;
	gpo_device	face = GPO_DEVICE_CPU;
	gpo_status	st;
	int64_t		rows = 0;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if (out != NULL)
		*out = NULL;
	if ((st = put_check(ctx, ncols, cols, out, &rows)) != GPO_OK)
		return st;
	if (ctx->device == GPO_DEVICE_AUTO)
		face = gpo_gpu_available() ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	else if ((st = gpo_pick_face(ctx, rows, &face)) != GPO_OK)
		return st;
	if ((set = calloc(1, sizeof(*set))) == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a kept set");
		return GPO_ERR_NOMEM;
	}
	set->ncols = ncols;
	set->rows = rows;
	for (int c = 0; c < ncols; c++)
		set->cols[c].type = cols[c].type;
	if (face == GPO_DEVICE_GPU)
	{
		set->face = GPO_DEVICE_GPU;
		st = gpo_resident_put_gpu(ctx, cols, set);
		if (st == GPO_OK)
			ctx->used = GPO_DEVICE_GPU;
		if (!gpo_gpu_fell_back(ctx, st))
			goto done;
		set->bytes = 0;			/* the GPU face kept nothing */
	}
	set->face = GPO_DEVICE_CPU;
	ctx->used = GPO_DEVICE_CPU;
	st = put_cpu(ctx, cols, set);
done:
	if (st != GPO_OK)
		gpo_resident_free(set);
	else
		*out = set;
	return st;
}

/* A CPU-face set over the caller's columns (see gpo_resident.h). */
gpo_status
gpo_resident_view(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
				  gpo_resident **out)
{
	gpo_resident *set;
	gpo_status	st;
	int64_t		rows = 0;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if (out != NULL)
		*out = NULL;
	if ((st = put_check(ctx, ncols, cols, out, &rows)) != GPO_OK)
		return st;
	for (int c = 0; c < ncols; c++)
		if (cols[c].nchunks != 1)
		{
			gpo_set_detail(ctx, "a view's column %d has %d chunks, not one",
						   c, (int) cols[c].nchunks);
			return GPO_ERR_INVALID;
		}
	if ((set = calloc(1, sizeof(*set))) == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a kept set");
		return GPO_ERR_NOMEM;
	}
	set->face = GPO_DEVICE_CPU;
	set->borrowed = true;
	set->ncols = ncols;
	set->rows = rows;
	for (int c = 0; c < ncols; c++)
	{
		set->cols[c].type = cols[c].type;
		set->cols[c].data = rows > 0 ? cols[c].chunks[0].data : NULL;
		set->cols[c].valid = rows > 0 ? cols[c].chunks[0].validity : NULL;
	}
	ctx->used = GPO_DEVICE_CPU;
	*out = set;
	return GPO_OK;
}

/* Frees a set (see gpo_resident.h). */
void
gpo_resident_free(gpo_resident *set)
{
	if (set == NULL)
		return;
	if (set->borrowed)
		;						/* the caller's columns */
	else if (set->face == GPO_DEVICE_GPU)
		gpo_resident_free_gpu(set);
	else
		for (int c = 0; c < set->ncols; c++)
		{
			free(set->cols[c].data);
			free(set->cols[c].valid);
		}
	free(set);
}

/* Rows of a set. */
int64_t
gpo_resident_rows(const gpo_resident *set)
{
	return set != NULL ? set->rows : 0;
}

/* Bytes a set holds. */
size_t
gpo_resident_bytes(const gpo_resident *set)
{
	return set != NULL ? set->bytes : 0;
}

/* The face that keeps a set. */
gpo_device
gpo_resident_face(const gpo_resident *set)
{
	return set != NULL ? set->face : GPO_DEVICE_AUTO;
}

/* Columns of a set. */
int
gpo_resident_ncols(const gpo_resident *set)
{
	return set != NULL ? set->ncols : 0;
}

/* The type of column c of a set; (gpo_type) -1 for no such column. */
gpo_type
gpo_resident_type(const gpo_resident *set, int c)
{
	if (set == NULL || c < 0 || c >= set->ncols)
		return (gpo_type) -1;
	return set->cols[c].type;
}

/* The plan of a (checked) query (see gpo_resident_internal.h). */
void
gpo_resident_plan_of(const gpo_resident_query *q, gpo_resident_plan *plan)
{
	plan->nneed = 0;
	plan->key = -1;
	if (q->key_col >= 0)
	{
		plan->key = 0;
		plan->need[plan->nneed++] = q->key_col;
	}
	for (int r = 0; r < q->nreqs; r++)
	{
		int			c = q->val_cols[r];
		int			k = 0;

		plan->req[r] = -1;
		if (c < 0)
			continue;
		while (k < plan->nneed && plan->need[k] != c)
			k++;
		if (k == plan->nneed)
			plan->need[plan->nneed++] = c;
		plan->req[r] = k;
	}
}

/* The key type of a (checked) query over sets of set's columns. */
gpo_type
gpo_resident_key_type(const gpo_resident *set, const gpo_resident_query *q)
{
	return q->key_col >= 0 ? set->cols[q->key_col].type : GPO_INT32;
}

/* The answer when no row passes (see gpo_resident_internal.h). */
void
gpo_resident_no_rows(gpo_type key_type, gpo_agg_strategy *strategy,
					 int64_t *ngroups)
{
	if (*strategy == GPO_AGG_AUTO)
		*strategy = gpo_agg_choose(key_type, 0, UINT64_MAX, 0, 0);
	*ngroups = 0;
}

/* Checks the sets of an aggregation: given, of one face, of the same columns. */
static gpo_status
check_sets(gpo_ctx *ctx, int nsets, gpo_resident *const *sets)
{
	if (nsets < 0 || (nsets > 0 && sets == NULL))
	{
		gpo_set_detail(ctx, "%d sets at %p", nsets, (const void *) sets);
		return GPO_ERR_INVALID;
	}
	for (int s = 0; s < nsets; s++)
	{
		if (sets[s] == NULL)
		{
			gpo_set_detail(ctx, "set %d is NULL", s);
			return GPO_ERR_INVALID;
		}
		if (sets[s]->face != sets[0]->face)
		{
			gpo_set_detail(ctx, "set %d is kept by another face than set 0", s);
			return GPO_ERR_INVALID;
		}
		if (sets[s]->ncols != sets[0]->ncols)
		{
			gpo_set_detail(ctx, "set %d has %d columns, set 0 has %d", s,
						   sets[s]->ncols, sets[0]->ncols);
			return GPO_ERR_INVALID;
		}
		for (int c = 0; c < sets[0]->ncols; c++)
			if (sets[s]->cols[c].type != sets[0]->cols[c].type)
			{
				gpo_set_detail(ctx, "column %d of set %d is %s, of set 0 %s",
							   c, s, gpo_type_name(sets[s]->cols[c].type),
							   gpo_type_name(sets[0]->cols[c].type));
				return GPO_ERR_INVALID;
			}
	}
	return GPO_OK;
}

/* Checks the aggregation requests of q against ncols columns of set0 (NULL: none). */
static gpo_status
check_reqs(gpo_ctx *ctx, const gpo_resident *set0, int ncols,
		   const gpo_resident_query *q)
{
	if (q->nreqs < 0 || q->nreqs > GPO_AGG_MAX_REQS ||
		(q->nreqs > 0 && (q->val_cols == NULL || q->aggs == NULL)))
	{
		gpo_set_detail(ctx, "nreqs must be 0 .. %d (%d given), with val_cols and aggs",
					   GPO_AGG_MAX_REQS, q->nreqs);
		return GPO_ERR_INVALID;
	}
	for (int r = 0; r < q->nreqs; r++)
	{
		int			c = q->val_cols[r];

		if (c < -1 || c >= ncols)
		{
			gpo_set_detail(ctx, "request %d reads column %d of %d", r, c, ncols);
			return GPO_ERR_INVALID;
		}
		if (set0 != NULL && c >= 0 && !gpo_agg_value_type_ok(set0->cols[c].type))
		{
			gpo_set_detail(ctx, "values of type %s are not supported",
						   gpo_type_name(set0->cols[c].type));
			return GPO_ERR_INVALID;
		}
	}
	return GPO_OK;
}

/* Checks q, the outputs and the strategy against sets of set0's columns (NULL: no set). */
static gpo_status
check_query(gpo_ctx *ctx, const gpo_resident *set0, const gpo_resident_query *q,
			const gpo_agg_strategy *strategy, const gpo_agg_out *outs,
			const int64_t *ngroups)
{
	int			ncols = set0 != NULL ? set0->ncols : GPO_RESIDENT_MAX_COLS;
	gpo_status	st;

	if (q == NULL || strategy == NULL || outs == NULL || ngroups == NULL ||
		*strategy < GPO_AGG_AUTO || *strategy > GPO_AGG_SORT)
	{
		gpo_set_detail(ctx, "query, strategy, outs and ngroups must be given");
		return GPO_ERR_INVALID;
	}
	if (q->nnodes < 0 ||
		(q->nnodes > 0 &&
		 gpo_filter_check_program(ctx, ncols, q->prog, q->nnodes, NULL) != GPO_OK))
	{
		if (q->nnodes < 0)
			gpo_set_detail(ctx, "filter program of %d nodes", q->nnodes);
		return GPO_ERR_INVALID;
	}
	if (q->key_col < -1 || q->key_col >= ncols)
	{
		gpo_set_detail(ctx, "key column %d of %d", q->key_col, ncols);
		return GPO_ERR_INVALID;
	}
	if (set0 != NULL && q->key_col >= 0 &&
		!gpo_agg_key_type_ok(set0->cols[q->key_col].type))
	{
		gpo_set_detail(ctx, "group keys of type %s are not supported",
					   gpo_type_name(set0->cols[q->key_col].type));
		return GPO_ERR_INVALID;
	}
	if ((st = check_reqs(ctx, set0, ncols, q)) != GPO_OK)
		return st;
	for (int r = 0; r < (q->nreqs > 0 ? q->nreqs : 1); r++)
		if (outs[r].capacity < 0)
		{
			gpo_set_detail(ctx, "output capacity must be >= 0");
			return GPO_ERR_INVALID;
		}
	if (*strategy == GPO_AGG_DENSE && set0 != NULL &&
		!gpo_type_is_int(gpo_resident_key_type(set0, q)))
	{
		gpo_set_detail(ctx, "dense aggregation needs integer keys whose range is at most %lld",
					   (long long) GPO_AGG_DENSE_MAX_RANGE);
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

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

/* The CPU face of gpo_resident_groupagg (arguments checked, nsets > 0). */
static gpo_status
groupagg_cpu(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
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

/* Filtered group aggregation over kept sets (see gpo_resident.h). */
gpo_status
gpo_resident_groupagg(gpo_ctx *ctx, int nsets, gpo_resident *const *sets,
					  const gpo_resident_query *q, gpo_agg_strategy *strategy,
					  gpo_agg_out *outs, int64_t *ngroups)
{
	gpo_status	st;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = check_sets(ctx, nsets, sets)) != GPO_OK ||
		(st = check_query(ctx, nsets > 0 ? sets[0] : NULL, q, strategy, outs,
						  ngroups)) != GPO_OK)
		return st;
	if (nsets == 0)
	{
		/* no set, no face: the host answers */
		ctx->used = GPO_DEVICE_CPU;
		gpo_resident_no_rows(GPO_INT32, strategy, ngroups);
		return GPO_OK;
	}
	if (sets[0]->face == GPO_DEVICE_GPU)
	{
		ctx->used = GPO_DEVICE_GPU;
		return gpo_resident_groupagg_gpu(ctx, nsets, sets, q, strategy, outs,
										 ngroups);
	}
	return groupagg_cpu(ctx, nsets, sets, q, strategy, outs, ngroups);
}
