/*
 * rle.c
 *	  Run-length encoding and adjacent-unique: the CPU face.
 *
 * Row i starts a run when i == 0 or it differs from row i - 1 (which may lie
 * in an earlier chunk, past empty chunks).  Two passes over nb blocks of
 * consecutive rows: count each block's run heads and note its last head;
 * take the exclusive prefix of the counts (each block's first run index);
 * check the capacities; then each block writes, for every head, the run's
 * value, start, and the length of the run before it (next start - start).
 * The last run's length (n - its start) is written at the end.  Input and
 * outputs may be partitioned independently.  Only values' validity bitmaps
 * are written; those of starts and lengths are left alone.
 *
 * Equality: two NULLs are equal, NULL never equals a value, every NaN equals
 * every NaN, -0.0 equals 0.0, other values compare by their bits.  Each row
 * is reduced to a 64-bit key in which equal values have equal keys.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"

/* One block's run heads, its last head and its first run index. */
typedef struct rle_part
{
	int64_t		heads;
	int64_t		last_head;		/* -1 if none */
	int64_t		base;
	int64_t		prev_head;		/* last head of the blocks before */
} rle_part;

/* Everything a block needs. */
typedef struct rle_args
{
	const gpo_vector *in;
	gpo_vector *values;
	gpo_vector *starts;
	gpo_vector *lengths;
	int64_t		n;
	int			nb;
	int64_t    *in_starts;
	int64_t    *values_starts;
	int64_t    *starts_starts;
	int64_t    *lengths_starts;
	rle_part   *parts;
} rle_args;

/* Lays out (or only sizes) the scratch of a run-length encoding. */
static size_t
rle_layout(const gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *values,
		   const gpo_vector *starts, const gpo_vector *lengths, char *base,
		   rle_args *a)
{
	gpo_arena	arena = {base, 0};
	int			nb = gpo_blocks(ctx, gpo_vector_rows(in));

	a->nb = nb;
	a->in_starts = gpo_arena_take(&arena, sizeof(int64_t) * (in->nchunks + 1));
	a->values_starts = values ?
		gpo_arena_take(&arena, sizeof(int64_t) * (values->nchunks + 1)) : NULL;
	a->starts_starts = starts ?
		gpo_arena_take(&arena, sizeof(int64_t) * (starts->nchunks + 1)) : NULL;
	a->lengths_starts = lengths ?
		gpo_arena_take(&arena, sizeof(int64_t) * (lengths->nchunks + 1)) : NULL;
	a->parts = gpo_arena_take(&arena, sizeof(rle_part) * nb);
	return arena.used;
}

/* Host scratch bytes gpo_rle_cpu needs for these arguments. */
size_t
gpo_rle_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *in,
					  const gpo_vector *values, const gpo_vector *starts,
					  const gpo_vector *lengths)
{
	rle_args	a;

	return rle_layout(ctx, in, values, starts, lengths, NULL, &a);
}

/* Checks one optional output vector of type want. */
static gpo_status
check_output(gpo_ctx *ctx, const gpo_vector *v, gpo_type want, const char *what)
{
	gpo_status	st;

	if (v == NULL)
		return GPO_OK;
	if ((st = gpo_check_vector(ctx, v, what)) != GPO_OK)
		return st;
	if (v->type != want)
	{
		gpo_set_detail(ctx, "%s must be %s, not %s", what,
					   gpo_type_name(want), gpo_type_name(v->type));
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Checks a run-length encoding's arguments (shared by both faces). */
gpo_status
gpo_rle_check(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *values,
			  const gpo_vector *starts, const gpo_vector *lengths,
			  const int64_t *count)
{
	gpo_status	st;

	if ((st = gpo_check_vector(ctx, in, "run-length input")) != GPO_OK)
		return st;
	if ((st = check_output(ctx, values, in->type, "run values")) != GPO_OK ||
		(st = check_output(ctx, starts, GPO_INT64, "run starts")) != GPO_OK ||
		(st = check_output(ctx, lengths, GPO_INT64, "run lengths")) != GPO_OK)
		return st;
	if (count == NULL)
	{
		gpo_set_detail(ctx, "run count is NULL");
		return GPO_ERR_INVALID;
	}
	return GPO_OK;
}

/* Equality key of value j of data: equal values (NaNs, zeros) get equal keys. */
static inline __attribute__((always_inline)) uint64_t
key_at(gpo_type type, const void *data, int64_t j)
{
	switch (type)
	{
		case GPO_INT32:
		case GPO_UINT32:
			return ((const uint32_t *) data)[j];
		case GPO_INT64:
			return ((const uint64_t *) data)[j];
		case GPO_UINT8:
			return ((const uint8_t *) data)[j];
		case GPO_FLOAT32:
			{
				float		f = ((const float *) data)[j];
				uint32_t	bits;

				if (isnan(f))
					return 0x7fc00000u;
				if (f == 0.0f)
					return 0;
				memcpy(&bits, &f, sizeof(bits));
				return bits;
			}
		case GPO_FLOAT64:
			{
				double		d = ((const double *) data)[j];
				uint64_t	bits;

				if (isnan(d))
					return UINT64_C(0x7ff8000000000000);
				if (d == 0.0)
					return 0;
				memcpy(&bits, &d, sizeof(bits));
				return bits;
			}
	}
	return 0;
}

/* Output cursor: next row, after stepping over full and empty chunks. */
static inline gpo_chunk *
out_next(gpo_cursor *cur)
{
	gpo_cursor_avail(cur);
	return gpo_cursor_chunk(cur);
}

/* Writes an int64 at cur and advances it (validity bitmaps are left alone). */
static inline void
put_int64(gpo_cursor *cur, int64_t value)
{
	gpo_chunk  *oc = out_next(cur);

	((int64_t *) oc->data)[cur->off] = value;
	cur->off++;
}

/*
 * One pass over block b for one type.  Without write: counts the block's
 * heads and notes its last one.  With write: emits each head's outputs.
 */
static inline __attribute__((always_inline)) void
rle_block(const rle_args *a, int b, gpo_type type, bool write)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	rle_part   *p = &a->parts[b];
	size_t		width = gpo_type_size(type);
	int64_t		row = lo;
	int64_t		heads = 0;
	int64_t		last = -1;
	int64_t		r = p->base;
	int64_t		prev_head = p->prev_head;
	bool		pvalid = false;
	uint64_t	pkey = 0;
	gpo_cursor	ci, cv, cs, cl;

	if (lo > 0)
	{
		gpo_cursor_seek(&ci, a->in, a->in_starts, lo - 1);
		gpo_cursor_avail(&ci);
		pvalid = gpo_valid(gpo_cursor_chunk(&ci), ci.off);
		pkey = key_at(type, gpo_cursor_chunk(&ci)->data, ci.off);
	}
	gpo_cursor_seek(&ci, a->in, a->in_starts, lo);
	if (write && a->values)
		gpo_cursor_seek(&cv, a->values, a->values_starts, r);
	if (write && a->starts)
		gpo_cursor_seek(&cs, a->starts, a->starts_starts, r);
	if (write && a->lengths)
		gpo_cursor_seek(&cl, a->lengths, a->lengths_starts, r > 0 ? r - 1 : 0);

	while (row < hi)
	{
		int64_t		len = gpo_cursor_avail(&ci);
		const gpo_chunk *c = gpo_cursor_chunk(&ci);

		len = len < hi - row ? len : hi - row;
		for (int64_t j = ci.off; j < ci.off + len; j++)
		{
			bool		valid = gpo_valid(c, j);
			uint64_t	key = key_at(type, c->data, j);
			int64_t		i = row + (j - ci.off);
			bool		head = i == 0 || valid != pvalid ||
				(valid && key != pkey);

			pvalid = valid;
			pkey = key;
			if (!head)
				continue;
			heads++;
			last = i;
			if (!write)
				continue;
			if (a->values)
			{
				gpo_chunk  *oc = out_next(&cv);

				memcpy((char *) oc->data + cv.off * width,
					   (const char *) c->data + j * width, width);
				if (oc->validity)
					gpo_bit_put(oc->validity, cv.off, valid,
								gpo_edge_row(r, p->base, p->base + p->heads));
				cv.off++;
			}
			if (a->starts)
				put_int64(&cs, i);
			if (a->lengths && r > 0)
				put_int64(&cl, i - prev_head);
			prev_head = i;
			r++;
		}
		ci.off += len;
		row += len;
	}
	if (!write)
	{
		p->heads = heads;
		p->last_head = last;
	}
}

/* One pass over block b, specialised by type. */
static void
rle_pass(const rle_args *a, int b, bool write)
{
	switch (a->in->type)
	{
		case GPO_INT32:
		case GPO_UINT32:
			rle_block(a, b, GPO_UINT32, write);
			break;
		case GPO_INT64:
			rle_block(a, b, GPO_INT64, write);
			break;
		case GPO_FLOAT32:
			rle_block(a, b, GPO_FLOAT32, write);
			break;
		case GPO_FLOAT64:
			rle_block(a, b, GPO_FLOAT64, write);
			break;
		case GPO_UINT8:
			rle_block(a, b, GPO_UINT8, write);
			break;
	}
}

/* The output whose capacity is below count, or NULL. */
static const char *
short_output(const rle_args *a, int64_t count)
{
	if (a->values && gpo_vector_rows(a->values) < count)
		return "values";
	if (a->starts && gpo_vector_rows(a->starts) < count)
		return "starts";
	if (a->lengths && gpo_vector_rows(a->lengths) < count)
		return "lengths";
	return NULL;
}

/* Run-length encoding CPU face (see gpo.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_rle_cpu(gpo_ctx *ctx, const gpo_vector *in, gpo_vector *values,
			gpo_vector *starts, gpo_vector *lengths, int64_t *count,
			void *scratch)
{
	rle_args	a;
	gpo_status	st;
	void	   *own = NULL;
	int64_t		total = 0;
	int64_t		last = -1;
	const char *shortv;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_rle_check(ctx, in, values, starts, lengths, count)) != GPO_OK)
		return st;
	a.in = in;
	a.values = values;
	a.starts = starts;
	a.lengths = lengths;
	a.n = gpo_vector_rows(in);
	if (a.n == 0)
	{
		*count = 0;
		return GPO_OK;
	}
	if (scratch == NULL)
	{
		own = scratch = malloc(rle_layout(ctx, in, values, starts, lengths,
										  NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate run-length scratch");
			return GPO_ERR_NOMEM;
		}
	}
	rle_layout(ctx, in, values, starts, lengths, scratch, &a);
	gpo_chunk_starts(in, a.in_starts);
	if (values)
		gpo_chunk_starts(values, a.values_starts);
	if (starts)
		gpo_chunk_starts(starts, a.starts_starts);
	if (lengths)
		gpo_chunk_starts(lengths, a.lengths_starts);
	for (int b = 0; b < a.nb; b++)
	{
		a.parts[b].base = 0;
		a.parts[b].prev_head = -1;
	}

	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
	for (int b = 0; b < a.nb; b++)
		rle_pass(&a, b, false);
	for (int b = 0; b < a.nb; b++)
	{
		a.parts[b].base = total;
		a.parts[b].prev_head = last;
		total += a.parts[b].heads;
		if (a.parts[b].last_head >= 0)
			last = a.parts[b].last_head;
	}
	*count = total;
	if ((shortv = short_output(&a, total)) != NULL)
	{
		gpo_set_detail(ctx, "input has %lld runs but run %s hold fewer",
					   (long long) total, shortv);
		free(own);
		return GPO_ERR_CAPACITY;
	}
	if (values || starts || lengths)
	{
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
		for (int b = 0; b < a.nb; b++)
			rle_pass(&a, b, true);
	}
	if (lengths)
	{
		gpo_cursor	cl;

		gpo_cursor_seek(&cl, lengths, a.lengths_starts, total - 1);
		put_int64(&cl, a.n - last);
	}
	free(own);
	return GPO_OK;
}
