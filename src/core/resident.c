/*
 * resident.c
 *	  Column sets kept between calls (gpo_resident.h): the set itself, its
 *	  puts and views on the CPU face, and its accessors.  An aggregation's
 *	  checks and dispatch are resident_query.c's, the CPU face's
 *	  aggregation resident_cpu.c's.
 *
 * A set holds each column's rows in one piece and, only when some row is
 * NULL, their validity.  The CPU face keeps malloc'd host copies, with
 * validity as a bitmap, so that a kept column is a one-chunk gpo_vector as
 * it stands; the GPU face keeps device copies (kernels/resident.cu).  A set's
 * face decides which face aggregates it.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"
#include "gpo_resident_internal.h"

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
		gpo_resident_find_bounds(set, c);
	}
	return GPO_OK;
}

/*
 * Begins a put or a view: checks its arguments (*out cleared); *rows gets
 * the columns' row count.
 */
static gpo_status
put_check(gpo_ctx *ctx, int ncols, const gpo_vector *cols,
		  gpo_resident **out, int64_t *rows)
{
	gpo_status	st;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if (out != NULL)
		*out = NULL;
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

/* A new empty set of cols' ncols types and rows rows; NULL without memory. */
static gpo_resident *
set_new(gpo_ctx *ctx, int ncols, const gpo_vector *cols, int64_t rows)
{
	gpo_resident *set = calloc(1, sizeof(*set));

	if (set == NULL)
	{
		gpo_set_detail(ctx, "could not allocate a kept set");
		return NULL;
	}
	set->ncols = ncols;
	set->rows = rows;
	for (int c = 0; c < ncols; c++)
		set->cols[c].type = cols[c].type;
	return set;
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

	if ((st = put_check(ctx, ncols, cols, out, &rows)) != GPO_OK)
		return st;
	if (ctx->device == GPO_DEVICE_AUTO)
		face = gpo_gpu_available() ? GPO_DEVICE_GPU : GPO_DEVICE_CPU;
	else if ((st = gpo_pick_face(ctx, rows, &face)) != GPO_OK)
		return st;
	if ((set = set_new(ctx, ncols, cols, rows)) == NULL)
		return GPO_ERR_NOMEM;
	if (face == GPO_DEVICE_GPU)
	{
		set->face = GPO_DEVICE_GPU;
		st = gpo_resident_put_gpu(ctx, cols, set);
		if (st == GPO_OK)
		{
			ctx->used = GPO_DEVICE_GPU;
			gpo_resident_bounds_of(set, cols);
		}
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

	if ((st = put_check(ctx, ncols, cols, out, &rows)) != GPO_OK)
		return st;
	for (int c = 0; c < ncols; c++)
		if (cols[c].nchunks != 1)
		{
			gpo_set_detail(ctx, "a view's column %d has %d chunks, not one",
						   c, (int) cols[c].nchunks);
			return GPO_ERR_INVALID;
		}
	if ((set = set_new(ctx, ncols, cols, rows)) == NULL)
		return GPO_ERR_NOMEM;
	set->face = GPO_DEVICE_CPU;
	set->borrowed = true;
	for (int c = 0; c < ncols; c++)
	{
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
