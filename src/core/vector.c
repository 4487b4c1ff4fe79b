/*
 * vector.c
 *	  Column vectors: type sizes and names, row counts, argument checks and
 *	  chunk addressing shared by every primitive.
 */
#include <stdarg.h>
#include <stdio.h>

#include "gpo_internal.h"

/* Bytes of one value of a physical type. */
size_t
gpo_type_size(gpo_type type)
{
	switch (type)
	{
		case GPO_INT32:
		case GPO_UINT32:
		case GPO_FLOAT32:
			return 4;
		case GPO_INT64:
		case GPO_FLOAT64:
			return 8;
		case GPO_UINT8:
			return 1;
	}
	return 0;
}

/* Name of a physical type, for messages. */
const char *
gpo_type_name(gpo_type type)
{
	switch (type)
	{
		case GPO_INT32:
			return "int32";
		case GPO_UINT32:
			return "uint32";
		case GPO_INT64:
			return "int64";
		case GPO_FLOAT32:
			return "float32";
		case GPO_FLOAT64:
			return "float64";
		case GPO_UINT8:
			return "uint8";
	}
	return "unknown";
}

/* Total rows (or capacity) of a vector; 0 for a NULL or empty vector. */
int64_t
gpo_vector_rows(const gpo_vector *v)
{
	int64_t		n = 0;

	if (v == NULL || v->chunks == NULL)
		return 0;
	for (int32_t c = 0; c < v->nchunks; c++)
		n += v->chunks[c].n;
	return n;
}

/* Short text of a status, for messages. */
const char *
gpo_status_text(gpo_status st)
{
	switch (st)
	{
		case GPO_OK:
			return "ok";
		case GPO_ERR_INVALID:
			return "invalid argument";
		case GPO_ERR_CAPACITY:
			return "output capacity too small";
		case GPO_ERR_OVERFLOW:
			return "integer out of range";
		case GPO_ERR_NOMEM:
			return "out of host memory";
		case GPO_ERR_DEVICE_NOMEM:
			return "out of device memory";
		case GPO_ERR_NO_DEVICE:
			return "no usable GPU";
		case GPO_ERR_DEVICE:
			return "GPU error";
	}
	return "unknown status";
}

/* Writes a formatted message into ctx->detail. */
void
gpo_set_detail(gpo_ctx *ctx, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(ctx->detail, sizeof(ctx->detail), fmt, ap);
	va_end(ap);
}

/* Why v is not a well-formed vector, or NULL if it is. */
static const char *
vector_problem(const gpo_vector *v)
{
	if (v == NULL)
		return "is NULL";
	if ((int) v->type < (int) GPO_INT32 || (int) v->type > (int) GPO_UINT8)
		return "has an unknown type";
	if (v->nchunks < 0)
		return "has a negative chunk count";
	if (v->nchunks > 0 && v->chunks == NULL)
		return "has chunks but no chunk array";
	for (int32_t c = 0; c < v->nchunks; c++)
	{
		if (v->chunks[c].n < 0)
			return "has a chunk of negative length";
		if (v->chunks[c].n > 0 && v->chunks[c].data == NULL)
			return "has a chunk without data";
	}
	return NULL;
}

/* True if v is a well-formed vector. */
bool
gpo_vector_ok(const gpo_vector *v)
{
	return vector_problem(v) == NULL;
}

/* Checks v as an argument; on failure writes why into ctx->detail. */
gpo_status
gpo_check_vector(gpo_ctx *ctx, const gpo_vector *v, const char *what)
{
	const char *why = vector_problem(v);

	if (why == NULL)
		return GPO_OK;
	gpo_set_detail(ctx, "%s %s", what, why);
	return GPO_ERR_INVALID;
}

/* starts[c] = logical row of chunk c's first row; starts[nchunks] = total. */
void
gpo_chunk_starts(const gpo_vector *v, int64_t *starts)
{
	int64_t		row = 0;

	for (int32_t c = 0; c < v->nchunks; c++)
	{
		starts[c] = row;
		row += v->chunks[c].n;
	}
	starts[v->nchunks] = row;
}

/*
 * Index of the chunk holding logical row: the last chunk that starts at or
 * before it, so empty chunks sharing its start are passed over.  Returns 0
 * for a vector without chunks.
 */
int32_t
gpo_find_chunk(const gpo_vector *v, const int64_t *starts, int64_t row)
{
	int32_t		lo = 0;
	int32_t		hi = v->nchunks - 1;

	while (lo < hi)
	{
		int32_t		mid = lo + (hi - lo + 1) / 2;

		if (starts[mid] <= row)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo < 0 ? 0 : lo;
}

/* Orders two uint64_t key codes, for qsort (see gpo_internal.h). */
int
gpo_code_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a;
	uint64_t	y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* Positions cur at logical row of v (starts from gpo_chunk_starts). */
void
gpo_cursor_seek(gpo_cursor *cur, const gpo_vector *v, const int64_t *starts,
				int64_t row)
{
	cur->v = v;
	if (v->nchunks <= 0)
	{
		cur->c = 0;
		cur->off = 0;
		return;
	}
	cur->c = gpo_find_chunk(v, starts, row);
	cur->off = row - starts[cur->c];
}
