/*
 * gpo_keypack.h
 *	  Key packing: a GROUP BY over up to GPO_KEYPACK_MAX_KEYS key columns
 *	  becomes a GROUP BY over one INT64 key, so that the single-key
 *	  primitives (gpo_groupagg, gpo_sort_pairs) group and order multi-key
 *	  rows, and the groups' keys are decoded back afterwards.
 *
 * Plain C11; never includes postgres.h.  The packed key of a row is exact
 * for any input: equal packed keys mean equal key tuples under PostgreSQL's
 * grouping equality, and packed order is the tuples' lexicographic order in
 * PostgreSQL's order (gpo_key_code order) with NULL after every value of its
 * key.  How a tuple is packed (key code offsets, dense ranks, ranks of key
 * pairs) depends on the data and is recorded in a gpo_keypack for decoding.
 */
#ifndef GPO_KEYPACK_H
#define GPO_KEYPACK_H

#include "gpo.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GPO_KEYPACK_MAX_KEYS 8

typedef struct gpo_keypack gpo_keypack;	/* opaque: how to decode packed keys */

/*
 * Packs row i of the nkeys key vectors (INT32, UINT32, INT64, FLOAT32,
 * FLOAT64; same rows, chunking may differ; NULLs allowed) into one
 * non-negative int64 packed[i] (packed: INT64 vector, caller-owned, capacity
 * >= rows, no validity written or needed) so that:
 *   - two rows get the same packed key iff every key is equal under
 *     PostgreSQL's grouping equality (floats: all NaN equal, -0.0 == 0.0;
 *     NULL equals NULL);
 *   - packed order is the lexicographic order of the keys in PostgreSQL's
 *     order (gpo_key_code order) with NULL after every value of that key.
 * *info receives the decode information (malloc'ed; free with
 * gpo_keypack_free); it is set to NULL on failure.  ctx->device is honoured
 * for the engine calls made inside (gpo_sort_pairs, when a key's range is
 * too wide to pack directly); the packing itself is CPU (OpenMP).
 * ctx->used says GPU if any of those sorts ran on the GPU, else CPU.
 * Errors: GPO_ERR_INVALID (arguments; ctx->detail says which),
 * GPO_ERR_CAPACITY (packed too small), GPO_ERR_NOMEM, and the sorts' errors.
 */
extern gpo_status gpo_keypack_build(gpo_ctx *ctx, int nkeys,
									const gpo_vector *keys,
									gpo_vector *packed, gpo_keypack **info);

/*
 * Decodes n packed keys (made by gpo_keypack_build with this info): for
 * each key k, writes values[k][i] (the key's type, canonical floats: -0.0
 * -> 0.0, NaN -> quiet NaN as gpo_code_decode does) and valid[k][i] (1
 * value, 0 NULL; the value is 0 then).  Either array for a key may be NULL
 * (not wanted), and so may values or valid as a whole.
 */
extern void gpo_keypack_decode(const gpo_keypack *info, int64_t n,
							   const int64_t *packed, void **values,
							   uint8_t **valid);

/*
 * True when a and b (from gpo_keypack_build) pack every key tuple to the
 * same key, so that packed keys of both batches can be grouped together:
 * both packings offset every key column's codes alone, with equal offsets
 * and widths.  Packings that rank codes (which depends on the data) are
 * never the same.
 */
extern bool gpo_keypack_same(const gpo_keypack *a, const gpo_keypack *b);

/* Number of keys, and the type of key k. */
extern int	gpo_keypack_nkeys(const gpo_keypack *info);
extern gpo_type gpo_keypack_type(const gpo_keypack *info, int k);

/* Frees info (NULL is fine). */
extern void gpo_keypack_free(gpo_keypack *info);

/*
 * Tuning knobs, for tests: columns are ranked, and then pairs ranked, while
 * the packed levels need more than gpo_keypack_fit_bits bits (63; lower
 * values force those paths on small inputs, the result may still need up
 * to 63 bits); a pair whose combined code needs more than
 * gpo_keypack_pair_bits bits (64) is ranked with two stable sorts instead
 * of one sort of the combined code.
 */
extern int	gpo_keypack_fit_bits;
extern int	gpo_keypack_pair_bits;

#ifdef __cplusplus
}
#endif

#endif							/* GPO_KEYPACK_H */
