/*
 * scan.c
 *	  Prefix sums (inclusive or exclusive, optionally segmented): the CPU
 *	  face.
 *
 * Two passes over nb blocks of consecutive rows.  Pass 1: each block's sum
 * since its last segment head (the whole block if it has none), in a type
 * wide enough to be exact.  Then the carry into each block is combined
 * sequentially (a carry flows only up to a block's first head).  Pass 2:
 * each block writes its prefixes from its carry and, for int32 and int64,
 * checks every running sum against the type's range, so overflow is reported
 * exactly when some true prefix leaves the range.  For an exclusive scan the
 * running sums checked are the inclusive ones, so a segment whose total
 * leaves the range overflows even though that total is never written.
 *
 * Sums start from -0.0, IEEE's additive identity (0 for the integer types),
 * so a float64 sum of {-0.0} is -0.0 as PostgreSQL's sum() gives, and the
 * sum of no values (an exclusive scan's first row, NULL-only prefixes) is
 * -0.0 too.
 *
 * A heads row starts a segment when its byte is nonzero (a heads bitmap is
 * not consulted, as on the GPU face).  The input, heads and output vectors
 * may be partitioned differently: a block walks spans that lie inside one
 * chunk of each.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"

/* One block's pass-1 result and the carry into it. */
typedef struct scan_part
{
	__int128	isum;			/* int32, int64: sum since the last head */
	__int128	icarry;
	double		dsum;			/* float64 */
	double		dcarry;
	uint32_t	usum;			/* uint32 (wraps) */
	uint32_t	ucarry;
	bool		has_head;
	bool		overflow;
} scan_part;

/* Everything a block needs. */
typedef struct scan_args
{
	const gpo_vector *in;
	const gpo_vector *heads;
	gpo_vector *out;
	bool		inclusive;
	int64_t		n;
	int			nb;
	int64_t    *in_starts;
	int64_t    *heads_starts;
	int64_t    *out_starts;
	scan_part  *parts;
} scan_args;

/* Lays out (or only sizes) the scratch of a scan. */
static size_t
scan_layout(const gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *heads,
			const gpo_vector *out, char *base, scan_args *a)
{
	gpo_arena	arena = {base, 0};
	int			nb = gpo_blocks(ctx, gpo_vector_rows(in));

	a->nb = nb;
	a->in_starts = gpo_arena_take(&arena, sizeof(int64_t) * (in->nchunks + 1));
	a->heads_starts = heads ?
		gpo_arena_take(&arena, sizeof(int64_t) * (heads->nchunks + 1)) : NULL;
	a->out_starts = gpo_arena_take(&arena, sizeof(int64_t) * (out->nchunks + 1));
	a->parts = gpo_arena_take(&arena, sizeof(scan_part) * nb);
	return arena.used;
}

/* Host scratch bytes gpo_scan_cpu needs for these arguments. */
size_t
gpo_scan_scratch_bytes(const gpo_ctx *ctx, const gpo_vector *in,
					   const gpo_vector *heads, const gpo_vector *out)
{
	scan_args	a;

	return scan_layout(ctx, in, heads, out, NULL, &a);
}

/* Checks a scan's arguments (shared by both faces). */
gpo_status
gpo_scan_check(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *heads,
			   const gpo_vector *out)
{
	gpo_status	st;

	if ((st = gpo_check_vector(ctx, in, "scan input")) != GPO_OK ||
		(st = gpo_check_vector(ctx, out, "scan output")) != GPO_OK)
		return st;
	if (in->type != GPO_INT32 && in->type != GPO_UINT32 &&
		in->type != GPO_INT64 && in->type != GPO_FLOAT64)
	{
		gpo_set_detail(ctx, "scan does not support type %s",
					   gpo_type_name(in->type));
		return GPO_ERR_INVALID;
	}
	if (out->type != in->type)
	{
		gpo_set_detail(ctx, "scan output is %s but the input is %s",
					   gpo_type_name(out->type), gpo_type_name(in->type));
		return GPO_ERR_INVALID;
	}
	if (heads != NULL)
	{
		if ((st = gpo_check_vector(ctx, heads, "scan heads")) != GPO_OK)
			return st;
		if (heads->type != GPO_UINT8)
		{
			gpo_set_detail(ctx, "scan heads must be uint8, not %s",
						   gpo_type_name(heads->type));
			return GPO_ERR_INVALID;
		}
		if (gpo_vector_rows(heads) != gpo_vector_rows(in))
		{
			gpo_set_detail(ctx, "scan heads have %lld rows but the input has %lld",
						   (long long) gpo_vector_rows(heads),
						   (long long) gpo_vector_rows(in));
			return GPO_ERR_INVALID;
		}
	}
	if (gpo_vector_rows(out) < gpo_vector_rows(in))
	{
		gpo_set_detail(ctx, "scan output holds %lld rows but the input has %lld",
					   (long long) gpo_vector_rows(out),
					   (long long) gpo_vector_rows(in));
		return GPO_ERR_CAPACITY;
	}
	return GPO_OK;
}

/*
 * Pass 1 for one type: the sum of rows [lo, hi) since the block's last head
 * into p->FIELD, and whether the block holds a head.  Row 0 needs no head
 * flag: the carry into block 0 is zero.
 */
#define SCAN_PASS1(NAME, CTYPE, ACC, FIELD) \
static void \
NAME(const scan_args *a, int64_t lo, int64_t hi, scan_part *p) \
{ \
	gpo_cursor	ci, ch; \
	ACC			acc = (ACC) -0.0; \
	bool		has_head = false; \
	int64_t		row = lo; \
\
	gpo_cursor_seek(&ci, a->in, a->in_starts, lo); \
	if (a->heads) \
		gpo_cursor_seek(&ch, a->heads, a->heads_starts, lo); \
	while (row < hi) \
	{ \
		int64_t		len = hi - row; \
		int64_t		k = gpo_cursor_avail(&ci); \
		const gpo_chunk *c = gpo_cursor_chunk(&ci); \
		const CTYPE *src = (const CTYPE *) c->data + ci.off; \
		const uint8_t *hd = NULL; \
\
		len = k < len ? k : len; \
		if (a->heads) \
		{ \
			k = gpo_cursor_avail(&ch); \
			len = k < len ? k : len; \
			hd = (const uint8_t *) gpo_cursor_chunk(&ch)->data + ch.off; \
		} \
		for (int64_t j = 0; j < len; j++) \
		{ \
			if (hd && hd[j]) \
			{ \
				acc = (ACC) -0.0; \
				has_head = true; \
			} \
			if (gpo_valid(c, ci.off + j)) \
				acc += (ACC) src[j]; \
		} \
		ci.off += len; \
		if (a->heads) \
			ch.off += len; \
		row += len; \
	} \
	p->FIELD = acc; \
	p->has_head = has_head; \
}

/*
 * Pass 2 for one type: writes the prefixes of rows [lo, hi) starting from
 * the block's carry; returns true if OUTSIDE(a running sum) held.
 */
#define SCAN_PASS2(NAME, CTYPE, RUN, CARRY, OUTSIDE) \
static bool \
NAME(const scan_args *a, int64_t lo, int64_t hi, const scan_part *p) \
{ \
	gpo_cursor	ci, ch, co; \
	RUN			run; \
	int64_t		row = lo; \
\
	if (OUTSIDE(p->CARRY)) \
		return true; \
	run = (RUN) p->CARRY; \
	gpo_cursor_seek(&ci, a->in, a->in_starts, lo); \
	gpo_cursor_seek(&co, a->out, a->out_starts, lo); \
	if (a->heads) \
		gpo_cursor_seek(&ch, a->heads, a->heads_starts, lo); \
	while (row < hi) \
	{ \
		int64_t		len = hi - row; \
		int64_t		k = gpo_cursor_avail(&ci); \
		const gpo_chunk *c = gpo_cursor_chunk(&ci); \
		const CTYPE *src = (const CTYPE *) c->data + ci.off; \
		const uint8_t *hd = NULL; \
		gpo_chunk  *oc; \
		CTYPE	   *dst; \
\
		len = k < len ? k : len; \
		k = gpo_cursor_avail(&co); \
		len = k < len ? k : len; \
		oc = gpo_cursor_chunk(&co); \
		dst = (CTYPE *) oc->data + co.off; \
		if (a->heads) \
		{ \
			k = gpo_cursor_avail(&ch); \
			len = k < len ? k : len; \
			hd = (const uint8_t *) gpo_cursor_chunk(&ch)->data + ch.off; \
		} \
		for (int64_t j = 0; j < len; j++) \
		{ \
			bool		valid = gpo_valid(c, ci.off + j); \
\
			bool		first = (hd && hd[j]) || row + j == 0; \
\
			if (first) \
				run = (RUN) -0.0; \
			if (a->inclusive) \
			{ \
				if (valid) \
					run += (RUN) src[j]; \
				dst[j] = (CTYPE) run; \
			} \
			else \
			{ \
				dst[j] = (CTYPE) run; \
				if (valid) \
					run += (RUN) src[j]; \
			} \
			if (OUTSIDE(run)) \
				return true; \
			if (oc->validity) \
				gpo_bit_put(oc->validity, co.off + j, valid, \
							gpo_edge_row(row + j, lo, hi)); \
		} \
		ci.off += len; \
		co.off += len; \
		if (a->heads) \
			ch.off += len; \
		row += len; \
	} \
	return false; \
}

SCAN_PASS1(pass1_int32, int32_t, __int128, isum)
SCAN_PASS1(pass1_int64, int64_t, __int128, isum)
SCAN_PASS1(pass1_uint32, uint32_t, uint32_t, usum)
SCAN_PASS1(pass1_float64, double, double, dsum)
/* Range tests of a running sum, per type. */
#define OUTSIDE_INT32(x) ((x) < INT32_MIN || (x) > INT32_MAX)
#define OUTSIDE_INT64(x) ((x) < INT64_MIN || (x) > INT64_MAX)
#define OUTSIDE_NEVER(x) ((void) (x), false)

SCAN_PASS2(pass2_int32, int32_t, int64_t, icarry, OUTSIDE_INT32)
SCAN_PASS2(pass2_int64, int64_t, __int128, icarry, OUTSIDE_INT64)
SCAN_PASS2(pass2_uint32, uint32_t, uint32_t, ucarry, OUTSIDE_NEVER)
SCAN_PASS2(pass2_float64, double, double, dcarry, OUTSIDE_NEVER)

/* Pass 1 of block b, by type. */
static void
scan_pass1(const scan_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	scan_part  *p = &a->parts[b];

	memset(p, 0, sizeof(*p));
	switch (a->in->type)
	{
		case GPO_INT32:
			pass1_int32(a, lo, hi, p);
			break;
		case GPO_INT64:
			pass1_int64(a, lo, hi, p);
			break;
		case GPO_UINT32:
			pass1_uint32(a, lo, hi, p);
			break;
		default:
			pass1_float64(a, lo, hi, p);
			break;
	}
}

/* Pass 2 of block b, by type; records overflow in its part. */
static void
scan_pass2(const scan_args *a, int b)
{
	int64_t		lo = gpo_block_lo(a->n, b, a->nb);
	int64_t		hi = gpo_block_lo(a->n, b + 1, a->nb);
	scan_part  *p = &a->parts[b];

	switch (a->in->type)
	{
		case GPO_INT32:
			p->overflow = pass2_int32(a, lo, hi, p);
			break;
		case GPO_INT64:
			p->overflow = pass2_int64(a, lo, hi, p);
			break;
		case GPO_UINT32:
			p->overflow = pass2_uint32(a, lo, hi, p);
			break;
		default:
			p->overflow = pass2_float64(a, lo, hi, p);
			break;
	}
}

/* Combines the blocks' sums into the carry into each block. */
static void
scan_carries(scan_args *a)
{
	__int128	ic = 0;
	double		dc = -0.0;		/* IEEE's additive identity: sum({-0}) = -0 */
	uint32_t	uc = 0;

	for (int b = 0; b < a->nb; b++)
	{
		scan_part  *p = &a->parts[b];

		p->icarry = ic;
		p->dcarry = dc;
		p->ucarry = uc;
		ic = p->has_head ? p->isum : ic + p->isum;
		dc = p->has_head ? p->dsum : dc + p->dsum;
		uc = p->has_head ? p->usum : uc + p->usum;
	}
}

/* Scan CPU face (see gpo.h); scratch may be NULL (then it is allocated). */
gpo_status
gpo_scan_cpu(gpo_ctx *ctx, const gpo_vector *in, const gpo_vector *heads,
			 bool inclusive, gpo_vector *out, void *scratch)
{
	scan_args	a;
	gpo_status	st;
	void	   *own = NULL;
	bool		overflow = false;

	if (ctx == NULL)
		return GPO_ERR_INVALID;
	if ((st = gpo_scan_check(ctx, in, heads, out)) != GPO_OK)
		return st;
	a.in = in;
	a.heads = heads;
	a.out = out;
	a.inclusive = inclusive;
	a.n = gpo_vector_rows(in);
	if (a.n == 0)
		return GPO_OK;
	if (scratch == NULL)
	{
		own = scratch = malloc(scan_layout(ctx, in, heads, out, NULL, &a));
		if (scratch == NULL)
		{
			gpo_set_detail(ctx, "could not allocate scan scratch");
			return GPO_ERR_NOMEM;
		}
	}
	scan_layout(ctx, in, heads, out, scratch, &a);
	gpo_chunk_starts(in, a.in_starts);
	if (heads)
		gpo_chunk_starts(heads, a.heads_starts);
	gpo_chunk_starts(out, a.out_starts);

	gpo_omp_prepare(gpo_threads(ctx));
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
	for (int b = 0; b < a.nb; b++)
		scan_pass1(&a, b);
	scan_carries(&a);
#pragma omp parallel for schedule(static, 1) num_threads(a.nb)
	for (int b = 0; b < a.nb; b++)
		scan_pass2(&a, b);

	for (int b = 0; b < a.nb; b++)
		overflow |= a.parts[b].overflow;
	free(own);
	if (overflow)
	{
		gpo_set_detail(ctx, "%s scan result out of range",
					   gpo_type_name(in->type));
		return GPO_ERR_OVERFLOW;
	}
	return GPO_OK;
}
