/*
 * keypack_decode.c
 *	  Reading a packing: decoding packed keys back into key columns, and the
 *	  packing's accessors, comparison and release.
 */
#include <stdlib.h>

#include "keypack_internal.h"

/* Rows a block decodes at a time. */
#define KP_DECODE_TILE	256

/* The mask of the low bits bits. */
static inline uint64_t
kp_mask(int bits)
{
	return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

/* Writes the values (type t) of leaf nd at cnt levels lv into dst. */
static inline __attribute__((always_inline)) void
kp_decode_values(gpo_type t, const kp_node *nd, const uint64_t *lv,
				 int64_t cnt, char *dst)
{
	for (int64_t i = 0; i < cnt; i++)
	{
		bool		isnull = lv[i] >= nd->null_level;
		uint64_t	code = nd->kind == KP_RANK ? nd->table[isnull ? 0 : lv[i]] :
			nd->base + lv[i];
		uint64_t	raw = isnull ? 0 : gpo_raw_of_code(t, code);

		if (t == GPO_INT64 || t == GPO_FLOAT64)
			((uint64_t *) dst)[i] = raw;
		else
			((uint32_t *) dst)[i] = (uint32_t) raw;
	}
}

/*
 * Writes the keys under node x of rows [i0, i0 + cnt) from their levels lv;
 * spare holds two level arrays for each pair level below.
 */
static void
kp_decode_tile(const gpo_keypack *kp, int x, const uint64_t *lv, int64_t i0,
			   int64_t cnt, void **values, uint8_t **valid,
			   uint64_t (*spare)[KP_DECODE_TILE])
{
	const kp_node *nd = &kp->nodes[x];
	int			k = nd->key;

	if (nd->kind == KP_PAIR)
	{
		uint64_t   *l = spare[0],
				   *r = spare[1];

		if (nd->table2 != NULL)
			for (int64_t i = 0; i < cnt; i++)
			{
				l[i] = nd->table[lv[i]];
				r[i] = nd->table2[lv[i]];
			}
		else
			for (int64_t i = 0; i < cnt; i++)
			{
				uint64_t	c = nd->table[lv[i]];

				l[i] = c >> nd->split;
				r[i] = c & kp_mask(nd->split);
			}
		kp_decode_tile(kp, nd->left, l, i0, cnt, values, valid, spare + 2);
		kp_decode_tile(kp, nd->right, r, i0, cnt, values, valid, spare + 2);
		return;
	}
	if (valid != NULL && valid[k] != NULL)
		for (int64_t i = 0; i < cnt; i++)
			valid[k][i0 + i] = lv[i] < nd->null_level;
	if (values != NULL && values[k] != NULL)
		KP_BY_TYPE(kp->types[k], kp_decode_values, nd, lv, cnt,
				   (char *) values[k] + i0 * gpo_type_size(kp->types[k]));
}

/* Decodes n packed keys (see gpo_keypack.h). */
void
gpo_keypack_decode(const gpo_keypack *info, int64_t n, const int64_t *packed,
				   void **values, uint8_t **valid)
{
	gpo_ctx		ctx;
	int			nb;

	if (info == NULL || n <= 0)
		return;
	gpo_ctx_init(&ctx);
	gpo_omp_prepare(gpo_threads(&ctx));
	nb = gpo_pieces(&ctx, n);
#pragma omp parallel for num_threads(gpo_team(&ctx, nb)) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb),
					hi = gpo_block_lo(n, b + 1, nb);
		uint64_t	lv[KP_MAX_NODES][KP_DECODE_TILE];

		for (int64_t i0 = lo; i0 < hi; i0 += KP_DECODE_TILE)
		{
			int64_t		cnt = hi - i0 < KP_DECODE_TILE ? hi - i0 : KP_DECODE_TILE;

			for (int c = 0; c < info->ncomp; c++)
			{
				int			x = info->comp[c];
				int			sh = info->shift[c];
				uint64_t	m = kp_mask(info->nodes[x].bits);

				for (int64_t i = 0; i < cnt; i++)
					lv[0][i] = ((uint64_t) packed[i0 + i] >> sh) & m;
				kp_decode_tile(info, x, lv[0], i0, cnt, values, valid, lv + 1);
			}
		}
	}
}

/* Number of keys of a packing. */
int
gpo_keypack_nkeys(const gpo_keypack *info)
{
	return info->nkeys;
}

/* Type of key k of a packing. */
gpo_type
gpo_keypack_type(const gpo_keypack *info, int k)
{
	return info->types[k];
}

/* Frees a packing. */
void
gpo_keypack_free(gpo_keypack *info)
{
	if (info == NULL)
		return;
	for (int x = 0; x < info->nnodes; x++)
	{
		free(info->nodes[x].table);
		free(info->nodes[x].table2);
	}
	free(info);
}

/* Whether a and b pack every key tuple to the same key (see gpo_keypack.h). */
bool
gpo_keypack_same(const gpo_keypack *a, const gpo_keypack *b)
{
	if (a == NULL || b == NULL || a->nkeys != b->nkeys ||
		a->nnodes != b->nnodes || a->ncomp != b->ncomp)
		return false;
	for (int k = 0; k < a->nkeys; k++)
		if (a->types[k] != b->types[k])
			return false;
	for (int c = 0; c < a->ncomp; c++)
		if (a->comp[c] != b->comp[c] || a->shift[c] != b->shift[c])
			return false;
	for (int i = 0; i < a->nnodes; i++)
	{
		const kp_node *x = &a->nodes[i];
		const kp_node *y = &b->nodes[i];

		if (x->kind != KP_OFFSET || y->kind != KP_OFFSET ||
			x->key != y->key || x->bits != y->bits || x->base != y->base ||
			x->null_level != y->null_level)
			return false;
	}
	return true;
}
