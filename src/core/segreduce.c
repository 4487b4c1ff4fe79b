/*
 * segreduce.c
 *	  Segment offsets from run lengths, and segmented reduction: the
 *	  dispatchers and the CPU face.
 *
 * The reduction is row-parallel: the rows are cut into one block per
 * thread whatever the segments are; a segment that lies inside one block is
 * reduced and stored by that block, and the (at most two) segments a block
 * shares with its neighbours are left as partials that are merged in block
 * order afterwards.  A few huge segments thus cost what many small ones do.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"

/* The GPU face's row limit (its row numbers are 32-bit). */
#define GPU_MAX_ROWS	((int64_t) INT32_MAX)

/* A partial segment left by one block. */
typedef struct seg_part
{
	int64_t		seg;			/* -1: none */
	gpo_acc		acc;
} seg_part;

/* Largest s in [0, nsegs] with off[s] <= row. */
static int64_t
seg_of_row(const int64_t *off, int64_t nsegs, int64_t row)
{
	int64_t		lo = 0,
				hi = nsegs;

	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo + 1) / 2;

		if (off[mid] <= row)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Rows r0 .. r1 - 1 into acc: values of type vt from the one chunk ch when
 * it is given, else from the flat raw/valid arrays (raw NULL: no values).
 * Always inlined with constant types by seg_add_rows_typed.
 */
static inline __attribute__((always_inline)) void
seg_add_rows(gpo_acc *acc, gpo_type vt, const uint64_t *raw,
			 const uint8_t *valid, const gpo_chunk *ch, int64_t r0, int64_t r1,
			 bool m2)
{
	if (ch != NULL)
	{
		for (int64_t r = r0; r < r1; r++)
		{
			bool		v = gpo_valid(ch, r);

			gpo_acc_add(acc, vt, true, v, v ? gpo_raw_at(vt, ch->data, r) : 0, m2);
		}
		return;
	}
	for (int64_t r = r0; r < r1; r++)
		gpo_acc_add(acc, vt, raw != NULL, valid == NULL || valid[r] != 0,
					raw != NULL ? raw[r] : 0, m2);
}

/* seg_add_rows with the common value types as constants. */
static void
seg_add_rows_typed(gpo_acc *acc, gpo_type vt, const uint64_t *raw,
				   const uint8_t *valid, const gpo_chunk *ch, int64_t r0,
				   int64_t r1, bool m2)
{
	if (vt == GPO_FLOAT64 && m2)
		seg_add_rows(acc, GPO_FLOAT64, raw, valid, ch, r0, r1, true);
	else if (vt == GPO_FLOAT64)
		seg_add_rows(acc, GPO_FLOAT64, raw, valid, ch, r0, r1, false);
	else if (vt == GPO_INT64)
		seg_add_rows(acc, GPO_INT64, raw, valid, ch, r0, r1, false);
	else if (vt == GPO_INT32)
		seg_add_rows(acc, GPO_INT32, raw, valid, ch, r0, r1, false);
	else
		seg_add_rows(acc, vt, raw, valid, ch, r0, r1, m2);
}

/*
 * Reduces contiguous rows into segments (see gpo_agg_internal.h):
 * values from the one chunk ch, or else raw/valid, the values' bits and
 * validity (valid NULL = all valid; raw NULL = no values); off the
 * nsegs + 1 offsets.
 */
gpo_status
gpo_segreduce_rows(gpo_type vt, const uint64_t *raw, const uint8_t *valid,
				   const gpo_chunk *ch, const int64_t *off, int64_t nsegs,
				   gpo_agg_out *out, int nthreads)
{
	int64_t		total = off[nsegs] - off[0];
	int64_t		base = off[0];
	bool		has_values = raw != NULL || ch != NULL;
	bool		m2 = out->m2 != NULL && !gpo_type_is_int(vt);
	int			nb = nthreads;
	seg_part   *parts;
	gpo_acc		empty;
	int64_t		cur_seg = -1;
	gpo_acc		cur;

	if (nb > total / 4096 + 1)
		nb = (int) (total / 4096 + 1);
	parts = malloc(sizeof(seg_part) * 2 * nb);
	if (parts == NULL)
		return GPO_ERR_NOMEM;
	gpo_acc_init(&empty);

	/* empty segments */
#pragma omp parallel for num_threads(nthreads) schedule(static)
	for (int64_t s = 0; s < nsegs; s++)
		if (off[s] == off[s + 1])
			gpo_acc_store(out, s, &empty, vt, has_values);

#pragma omp parallel for num_threads(nb) schedule(static, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = base + gpo_block_lo(total, b, nb);
		int64_t		hi = base + gpo_block_lo(total, b + 1, nb);
		seg_part   *head = &parts[2 * b];
		seg_part   *tail = &parts[2 * b + 1];
		int64_t		s;

		head->seg = -1;
		tail->seg = -1;
		if (lo >= hi)
			continue;
		for (s = seg_of_row(off, nsegs, lo); s < nsegs && off[s] < hi; s++)
		{
			int64_t		r0 = off[s] > lo ? off[s] : lo;
			int64_t		r1 = off[s + 1] < hi ? off[s + 1] : hi;
			gpo_acc		acc;

			if (off[s] == off[s + 1])
				continue;
			gpo_acc_init(&acc);
			seg_add_rows_typed(&acc, vt, raw, valid, ch, r0, r1, m2);
			if (off[s] >= lo && off[s + 1] <= hi)
				gpo_acc_store(out, s, &acc, vt, has_values);
			else if (off[s] < lo)
			{
				head->seg = s;
				head->acc = acc;
			}
			else
			{
				tail->seg = s;
				tail->acc = acc;
			}
		}
	}

	/* partials, in row order */
	for (int i = 0; i < 2 * nb; i++)
	{
		if (parts[i].seg < 0)
			continue;
		if (parts[i].seg != cur_seg)
		{
			if (cur_seg >= 0)
				gpo_acc_store(out, cur_seg, &cur, vt, has_values);
			cur_seg = parts[i].seg;
			cur = parts[i].acc;
		}
		else
			gpo_acc_merge(&cur, &parts[i].acc);
	}
	if (cur_seg >= 0)
		gpo_acc_store(out, cur_seg, &cur, vt, has_values);
	free(parts);
	return GPO_OK;
}

/* Copies the rows of a chunked vector into flat raw bits and valid bytes. */
static void
flatten(const gpo_vector *v, uint64_t *raw, uint8_t *valid, int nthreads)
{
	int64_t		at = 0;

	for (int32_t c = 0; c < v->nchunks; c++)
	{
		const gpo_chunk *ch = &v->chunks[c];
		int64_t		n = ch->n;

#pragma omp parallel for num_threads(nthreads) schedule(static) if (n > 65536)
		for (int64_t i = 0; i < n; i++)
		{
			raw[at + i] = gpo_raw_at(v->type, ch->data, i);
			valid[at + i] = gpo_valid(ch, i) ? 1 : 0;
		}
		at += n;
	}
}

/* Copies an INT64 vector into a flat array. */
static void
flatten_i64(const gpo_vector *v, int64_t *dst)
{
	int64_t		at = 0;

	for (int32_t c = 0; c < v->nchunks; c++)
	{
		if (v->chunks[c].n > 0)
			memcpy(dst + at, v->chunks[c].data, sizeof(int64_t) * v->chunks[c].n);
		at += v->chunks[c].n;
	}
}

/*
 * Places the CPU face's scratch pieces (or only sizes them): the offsets,
 * and flat copies of the values unless they are one chunk, which the
 * reduction reads in place.
 */
static void
segreduce_layout(gpo_arena *a, const gpo_vector *values, int64_t nsegs,
				 int64_t **off, uint64_t **raw, uint8_t **valid)
{
	int64_t		nflat = values != NULL && values->nchunks != 1 ?
		gpo_vector_rows(values) : 0;

	*off = gpo_arena_take(a, sizeof(int64_t) * (size_t) (nsegs + 1));
	*raw = gpo_arena_take(a, sizeof(uint64_t) * (size_t) nflat);
	*valid = gpo_arena_take(a, (size_t) nflat);
}

/* Segmented reduction CPU face (see gpo_agg.h). */
gpo_status
gpo_segreduce_cpu(gpo_ctx *ctx, const gpo_vector *values,
				  const gpo_vector *offsets, int64_t nsegs, gpo_agg_out *out,
				  void *scratch)
{
	gpo_arena	a = {scratch, 0};
	bool		one_chunk = values != NULL && values->nchunks == 1;
	int			nt = gpo_threads(ctx);
	int64_t    *off;
	uint64_t   *raw;
	uint8_t    *valid;

	gpo_omp_prepare(nt);
	segreduce_layout(&a, values, nsegs, &off, &raw, &valid);
	flatten_i64(offsets, off);
	if (values != NULL && !one_chunk)
		flatten(values, raw, valid, nt);
	ctx->used = GPO_DEVICE_CPU;
	return gpo_segreduce_rows(values ? values->type : GPO_INT64,
							  values && !one_chunk ? raw : NULL,
							  values && !one_chunk ? valid : NULL,
							  one_chunk ? &values->chunks[0] : NULL,
							  off, nsegs, out, nt);
}

/* Checks the segmented reduction's arguments, offsets included. */
static gpo_status
segreduce_check(gpo_ctx *ctx, const gpo_vector *values,
				const gpo_vector *offsets, int64_t nsegs,
				const gpo_agg_out *out)
{
	gpo_status	st;
	int64_t		prev = 0;
	int64_t		s = 0;

	if (values != NULL)
	{
		if ((st = gpo_check_vector(ctx, values, "values")) != GPO_OK)
			return st;
		if (!gpo_agg_value_type_ok(values->type))
		{
			gpo_set_detail(ctx, "values of type %s are not supported",
						   gpo_type_name(values->type));
			return GPO_ERR_INVALID;
		}
	}
	if ((st = gpo_check_vector(ctx, offsets, "offsets")) != GPO_OK)
		return st;
	if (offsets->type != GPO_INT64 || nsegs < 0 || out == NULL ||
		gpo_vector_rows(offsets) < nsegs + 1)
	{
		gpo_set_detail(ctx, "offsets must be INT64 with nsegs + 1 rows, and out given");
		return GPO_ERR_INVALID;
	}
	for (int32_t c = 0; c < offsets->nchunks && s <= nsegs; c++)
	{
		const gpo_chunk *ch = &offsets->chunks[c];

		for (int64_t i = 0; i < ch->n && s <= nsegs; i++, s++)
		{
			int64_t		o = ((const int64_t *) ch->data)[i];

			if (!gpo_valid(ch, i) || (s == 0 && o != 0) || o < prev)
			{
				gpo_set_detail(ctx, "offsets must rise from 0 (entry %lld)",
							   (long long) s);
				return GPO_ERR_INVALID;
			}
			prev = o;
		}
	}
	if (values != NULL && prev != gpo_vector_rows(values))
	{
		gpo_set_detail(ctx, "offsets end at %lld, values have %lld rows",
					   (long long) prev, (long long) gpo_vector_rows(values));
		return GPO_ERR_INVALID;
	}
	if (out->capacity < nsegs)
	{
		gpo_set_detail(ctx, "output holds %lld segments, %lld needed",
					   (long long) out->capacity, (long long) nsegs);
		return GPO_ERR_CAPACITY;
	}
	return GPO_OK;
}

/* Segmented reduction dispatcher (see gpo_agg.h). */
gpo_status
gpo_segreduce(gpo_ctx *ctx, const gpo_vector *values,
			  const gpo_vector *offsets, int64_t nsegs, gpo_agg_out *out,
			  void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;
	gpo_arena	a = {NULL, 0};
	int64_t    *p1;
	uint64_t   *p2;
	uint8_t    *p3;
	int64_t		nrows;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = segreduce_check(ctx, values, offsets, nsegs, out)) != GPO_OK)
		return st;
	nrows = values ? gpo_vector_rows(values) : 0;
	segreduce_layout(&a, values, nsegs, &p1, &p2, &p3);
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes, a.used, &st))
		return st;
	if ((st = gpo_pick_face(ctx, nrows, &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU && ctx->device == GPO_DEVICE_AUTO &&
		(nrows > GPU_MAX_ROWS || nsegs > GPU_MAX_ROWS || values == NULL))
		face = GPO_DEVICE_CPU;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_segreduce_gpu(ctx, values, offsets, nsegs, out);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	st = gpo_segreduce_cpu(ctx, values, offsets, nsegs, out, scratch);
	ctx->used = GPO_DEVICE_CPU;
	return st;
}

/* Segment offsets dispatcher (see gpo_agg.h). */
gpo_status
gpo_segment_offsets(gpo_ctx *ctx, const gpo_vector *lengths,
					gpo_vector *offsets, int64_t *total, void *scratch,
					size_t *scratch_bytes)
{
	gpo_status	st;
	int64_t		n,
				row = 0,
				sum = 0;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = gpo_check_vector(ctx, lengths, "lengths")) != GPO_OK ||
		(st = gpo_check_vector(ctx, offsets, "offsets")) != GPO_OK)
		return st;
	if (lengths->type != GPO_INT64 || offsets->type != GPO_INT64 || total == NULL)
	{
		gpo_set_detail(ctx, "lengths and offsets must be INT64, total given");
		return GPO_ERR_INVALID;
	}
	n = gpo_vector_rows(lengths);
	if (gpo_vector_rows(offsets) < n + 1)
	{
		gpo_set_detail(ctx, "offsets hold fewer than %lld rows", (long long) n + 1);
		return GPO_ERR_CAPACITY;
	}
	if (scratch == NULL)
		return gpo_scan(ctx, lengths, NULL, false, offsets, NULL, scratch_bytes);
	for (int32_t c = 0; c < lengths->nchunks; c++)
	{
		const gpo_chunk *ch = &lengths->chunks[c];

		for (int64_t i = 0; i < ch->n; i++)
		{
			int64_t		len = ((const int64_t *) ch->data)[i];

			if (!gpo_valid(ch, i) || len < 0)
			{
				gpo_set_detail(ctx, "lengths must be non-NULL and >= 0");
				return GPO_ERR_INVALID;
			}
			if (__builtin_add_overflow(sum, len, &sum))
			{
				gpo_set_detail(ctx, "total length overflows int64");
				return GPO_ERR_OVERFLOW;
			}
		}
	}
	if ((st = gpo_scan(ctx, lengths, NULL, false, offsets, scratch,
					   scratch_bytes)) != GPO_OK)
		return st;
	/* the terminal offset */
	for (int32_t c = 0; c < offsets->nchunks; c++)
	{
		gpo_chunk  *ch = &offsets->chunks[c];

		if (n - row < ch->n)
		{
			((int64_t *) ch->data)[n - row] = sum;
			if (ch->validity)
				gpo_bit_put(ch->validity, n - row, true, false);
			break;
		}
		row += ch->n;
	}
	*total = sum;
	return GPO_OK;
}
