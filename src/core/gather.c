/*
 * gather.c
 *	  Gather by index map (out[i] = in[index[i]]): the argument check, the
 *	  dispatcher and the CPU face.
 *
 * The CPU face splits the index rows into nb blocks (taken by the threads as
 * they come); each block walks its index rows and the matching out rows with
 * cursors (index and out may be partitioned differently) and finds each
 * source row's chunk of in by a binary search over in's chunk starts (no
 * search when in has one chunk).  Values are copied as raw bits of the type's
 * width.
 */
#include <stdlib.h>

#include "gpo_histjoin_internal.h"

/* Everything a block needs. */
typedef struct gather_args
{
	const gpo_vector *in;
	const gpo_vector *index;
	gpo_vector *out;
	size_t		elem;
	int64_t		n_in;
	int64_t		n;				/* index rows */
	int			nb;
	int64_t    *in_starts;
	int64_t    *index_starts;
	int64_t    *out_starts;
	int64_t    *bad;			/* per block: first out-of-range index row, or -1 */
} gather_args;

/* Lays out (or only sizes) the scratch of a gather. */
static size_t
gather_layout(const gpo_ctx *ctx, const gpo_vector *in,
			  const gpo_vector *index, const gpo_vector *out, char *base,
			  gather_args *a)
{
	gpo_arena	arena = {base, 0};

	a->nb = gpo_pieces(ctx, gpo_vector_rows(index));
	a->in_starts = gpo_arena_take(&arena, sizeof(int64_t) * (in->nchunks + 1));
	a->index_starts = gpo_arena_take(&arena,
									 sizeof(int64_t) * (index->nchunks + 1));
	a->out_starts = gpo_arena_take(&arena, sizeof(int64_t) * (out->nchunks + 1));
	a->bad = gpo_arena_take(&arena, sizeof(int64_t) * a->nb);
	return arena.used;
}

/* Host scratch bytes gpo_gather_cpu needs for these arguments. */
size_t
gpo_gather_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *in,
						 const gpo_vector *index, const gpo_vector *out)
{
	gather_args a;

	return gather_layout(ctx, in, index, out, NULL, &a);
}

/* Checks a gather's arguments (shared by both faces). */
gpo_status
gpo_gather_check(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *index,
				 const gpo_vector *out)
{
	gpo_status	st;

	if ((st = gpo_check_vector(ctx, in, "gather input")) != GPO_OK)
		return st;
	if ((st = gpo_check_vector(ctx, index, "gather index")) != GPO_OK)
		return st;
	if ((st = gpo_check_vector(ctx, out, "gather output")) != GPO_OK)
		return st;
	if (index->type != GPO_INT64)
	{
		gpo_set_detail(ctx, "gather index must be int64, not %s",
					   gpo_type_name(index->type));
		return GPO_ERR_INVALID;
	}
	if (out->type != in->type)
	{
		gpo_set_detail(ctx, "gather output is %s but the input is %s",
					   gpo_type_name(out->type), gpo_type_name(in->type));
		return GPO_ERR_INVALID;
	}
	if (gpo_vector_rows(out) < gpo_vector_rows(index))
	{
		gpo_set_detail(ctx, "gather writes %lld rows but the output holds %lld",
					   (long long) gpo_vector_rows(index),
					   (long long) gpo_vector_rows(out));
		return GPO_ERR_CAPACITY;
	}
	return GPO_OK;
}

/* Copies one value of elem bytes. */
static inline void
gather_copy(void *dst, const void *src, size_t elem)
{
	switch (elem)
	{
		case 1:
			*(uint8_t *) dst = *(const uint8_t *) src;
			break;
		case 4:
			*(uint32_t *) dst = *(const uint32_t *) src;
			break;
		default:
			*(uint64_t *) dst = *(const uint64_t *) src;
			break;
	}
}

/*
 * The loop of gather_block for rows without a bitmap anywhere (index, the
 * one input chunk, the output chunk), the element size a constant: most of
 * a star join's gathers.  Returns the first row out of range, or -1.
 */
#define GATHER_PLAIN(T) \
	for (int64_t i = 0; i < len; i++) \
	{ \
		int64_t		src = idx[i]; \
		if ((uint64_t) src >= (uint64_t) n_in) \
		{ \
			if (bad < 0) \
				bad = i; \
			continue; \
		} \
		((T *) dst)[i] = ((const T *) in)[src]; \
	}

/* Gathers len rows at idx from in (n_in rows of elem bytes) into dst. */
static int64_t
gather_plain(const int64_t *idx, int64_t len, const void *in, int64_t n_in,
			 size_t elem, void *dst)
{
	int64_t		bad = -1;

	if (elem == 4)
		GATHER_PLAIN(uint32_t)
	else if (elem == 8)
		GATHER_PLAIN(uint64_t)
	else
		GATHER_PLAIN(uint8_t)
	return bad;
}

#undef GATHER_PLAIN

/* Block b gathers its index rows. */
static void
gather_block(gather_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	int64_t		row = lo;
	size_t		elem = a->elem;
	bool		one_chunk = a->in->nchunks == 1;
	gpo_cursor	ci;
	gpo_cursor	co;

	a->bad[b] = -1;
	gpo_cursor_seek(&ci, a->index, a->index_starts, lo);
	gpo_cursor_seek(&co, a->out, a->out_starts, lo);
	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&ci);
		int64_t		olen = gpo_cursor_avail(&co);
		const gpo_chunk *ic = gpo_cursor_chunk(&ci);
		gpo_chunk  *oc = gpo_cursor_chunk(&co);
		const int64_t *idx = (const int64_t *) ic->data;
		char	   *dst = (char *) oc->data;

		len = len < olen ? len : olen;
		len = len < hi - row ? len : hi - row;
		if (one_chunk && ic->validity == NULL && oc->validity == NULL &&
			a->in->chunks[0].validity == NULL)
		{
			int64_t		bad = gather_plain(idx + ci.off, len, a->in->chunks[0].data,
										   a->n_in, elem, dst + elem * co.off);

			if (bad >= 0 && a->bad[b] < 0)
				a->bad[b] = row + bad;
			ci.off += len;
			co.off += len;
			row += len;
			continue;
		}
		for (int64_t i = 0; i < len; i++)
		{
			int64_t		oj = co.off + i;
			int64_t		src = idx[ci.off + i];
			bool		valid = false;

			if (!gpo_valid(ic, ci.off + i))
				memset(dst + elem * oj, 0, elem);
			else if (src < 0 || src >= a->n_in)
			{
				if (a->bad[b] < 0)
					a->bad[b] = row + i;
				continue;
			}
			else
			{
				int32_t		c = one_chunk ? 0 :
					gpo_find_chunk(a->in, a->in_starts, src);
				const gpo_chunk *sc = &a->in->chunks[c];
				int64_t		sj = src - a->in_starts[c];

				gather_copy(dst + elem * oj, (const char *) sc->data + elem * sj,
							elem);
				valid = gpo_valid(sc, sj);
			}
			if (oc->validity)
				gpo_bit_put(oc->validity, oj, valid,
							gpo_edge_row(row + i, lo, hi));
		}
		ci.off += len;
		co.off += len;
		row += len;
	}
}

/* Gather CPU face (see gpo_join.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_gather_cpu(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *index,
			   gpo_vector *out, void *scratch)
{
	gather_args a;
	gpo_status	st;
	void	   *own = NULL;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_gather_check(ctx, in, index, out)) != GPO_OK)
		return st;
	a.in = in;
	a.index = index;
	a.out = out;
	a.elem = gpo_type_size(in->type);
	a.n_in = gpo_vector_rows(in);
	a.n = gpo_vector_rows(index);
	if (a.n == 0)
		return GPO_OK;
	if (scratch == NULL)
	{
		own = scratch = malloc(gather_layout(ctx, in, index, out, NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate gather scratch");
			return GPO_ERR_NOMEM;
		}
	}
	gather_layout(ctx, in, index, out, scratch, &a);
	gpo_chunk_starts(in, a.in_starts);
	gpo_chunk_starts(index, a.index_starts);
	gpo_chunk_starts(out, a.out_starts);

	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(dynamic, 1) num_threads(gpo_team(ctx, a.nb))
	for (int b = 0; b < a.nb; b++)
		gather_block(&a, b);
	for (int b = 0; b < a.nb; b++)
	{
		if (a.bad[b] >= 0)
		{
			gpo_set_detail(ctx, "gather index row %lld is outside the input's %lld rows",
						   (long long) a.bad[b], (long long) a.n_in);
			free(own);
			return GPO_ERR_INVALID;
		}
	}
	free(own);
	return GPO_OK;
}

/* Gather dispatcher (see gpo_join.h). */
gpo_status
gpo_gather(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *index,
		   gpo_vector *out, void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_gather_check(ctx, in, index, out)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes,
							 gpo_gather_scratch_bytes(ctx, in, index, out),
							 &st))
		return st;
	if ((st = gpo_pick_face(ctx, gpo_vector_rows(index), &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_gather_gpu(ctx, in, index, out);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	ctx->used = GPO_DEVICE_CPU;
	return gpo_gather_cpu(ctx, in, index, out, scratch);
}
