/*
 * keypack.c
 *	  Key packing (gpo_keypack.h): up to four GROUP BY key columns become
 *	  one order-preserving INT64 key.
 *
 * Every key column gets per-row levels that group and order its values as
 * PostgreSQL does, NULL after every value:
 *   offset  level = key code - smallest key code, NULL = span + 1 (the fast
 *           path: one statistics pass and one packing pass, no sort);
 *   rank    level = dense rank of the key code among the column's distinct
 *           codes (gpo_sort_pairs), NULL = the number of distinct codes;
 *           taken, widest first, for columns whose code span needs more
 *           bits than their rows could, while the levels do not fit.
 * The components' levels are concatenated, first key in the most
 * significant bits, into at most 63 bits.  When even the ranks do not fit,
 * two adjacent components are replaced by the dense rank of their level
 * pair (one sort of the combined code, or two stable sorts when the pair is
 * wider than 64 bits), until they fit.  The packing keeps what decoding
 * needs: offsets, the distinct codes of ranked columns and the distinct
 * level pairs of ranked pairs.  The passes over rows are OpenMP blocks of
 * rows, with the type switch outside the row loops.
 *
 * This file plans the packing (gpo_keypack_build); the passes over rows are
 * in keypack_pack.c, the ranking in keypack_rank.c and reading a packing in
 * keypack_decode.c.
 */
#include <stdlib.h>

#include "keypack_internal.h"

/* The tuning knobs (see gpo_keypack.h). */
int			gpo_keypack_fit_bits = 63;
int			gpo_keypack_pair_bits = 64;

/* Bits of an OFFSET leaf of a column with stats s over n rows (65: too wide). */
static int
kp_offset_bits(const kp_stats *s, int64_t n)
{
	uint64_t	span = s->max - s->min;

	if (s->nvalid == 0)
		return 0;
	if (s->nvalid == n)
		return kp_bits(span);
	return span == UINT64_MAX ? 65 : kp_bits(span + 1);
}

/* Total bits of kp's components. */
static int
kp_total_bits(const gpo_keypack *kp)
{
	int			total = 0;

	for (int c = 0; c < kp->ncomp; c++)
		total += kp->nodes[kp->comp[c]].bits;
	return total;
}

/* Checks gpo_keypack_build's arguments. */
static gpo_status
kp_check(gpo_ctx *ctx, int nkeys, const gpo_vector *keys,
		 const gpo_vector *packed, gpo_keypack **info)
{
	gpo_status	st;

	if (nkeys < 1 || nkeys > GPO_KEYPACK_MAX_KEYS || keys == NULL ||
		info == NULL)
	{
		gpo_set_detail(ctx, "keypack needs 1 to %d key vectors and an info pointer",
					   GPO_KEYPACK_MAX_KEYS);
		return GPO_ERR_INVALID;
	}
	for (int k = 0; k < nkeys; k++)
	{
		if ((st = gpo_check_vector(ctx, &keys[k], "key")) != GPO_OK)
			return st;
		if (!gpo_agg_key_type_ok(keys[k].type))
		{
			gpo_set_detail(ctx, "keys of type %s are not supported",
						   gpo_type_name(keys[k].type));
			return GPO_ERR_INVALID;
		}
		if (gpo_vector_rows(&keys[k]) != gpo_vector_rows(&keys[0]))
		{
			gpo_set_detail(ctx, "key %d has %lld rows, key 0 has %lld", k,
						   (long long) gpo_vector_rows(&keys[k]),
						   (long long) gpo_vector_rows(&keys[0]));
			return GPO_ERR_INVALID;
		}
	}
	if ((st = gpo_check_vector(ctx, packed, "packed")) != GPO_OK)
		return st;
	if (packed->type != GPO_INT64)
	{
		gpo_set_detail(ctx, "packed must be INT64, not %s",
					   gpo_type_name(packed->type));
		return GPO_ERR_INVALID;
	}
	if (gpo_vector_rows(packed) < gpo_vector_rows(&keys[0]))
	{
		gpo_set_detail(ctx, "packed holds %lld rows, %lld needed",
					   (long long) gpo_vector_rows(packed),
					   (long long) gpo_vector_rows(&keys[0]));
		return GPO_ERR_CAPACITY;
	}
	return GPO_OK;
}

/* Packs the keys' rows into packed (see gpo_keypack.h). */
gpo_status
gpo_keypack_build(gpo_ctx *ctx, int nkeys, const gpo_vector *keys,
				  gpo_vector *packed, gpo_keypack **info)
{
	gpo_keypack *kp = NULL;
	int64_t    *starts[GPO_KEYPACK_MAX_KEYS + 1] = {NULL};
	uint64_t   *lvl[KP_MAX_NODES] = {NULL};
	kp_stats	stats[GPO_KEYPACK_MAX_KEYS];
	kp_src		src[GPO_KEYPACK_MAX_KEYS];
	bool		on_gpu = false;
	gpo_status	st;
	int64_t		n;
	kp_split	sp;

	if (info != NULL)
		*info = NULL;
	if (ctx == NULL)
		return GPO_ERR_INVALID;
	ctx->detail[0] = '\0';
	ctx->used = GPO_DEVICE_CPU;
	if ((st = kp_check(ctx, nkeys, keys, packed, info)) != GPO_OK)
		return st;
	n = gpo_vector_rows(&keys[0]);
	gpo_omp_prepare(gpo_threads(ctx));
	sp.nb = gpo_pieces(ctx, n);
	sp.nt = gpo_team(ctx, sp.nb);
	st = GPO_ERR_NOMEM;
	if ((kp = calloc(1, sizeof(gpo_keypack))) == NULL)
		goto done;
	for (int k = 0; k <= nkeys; k++)
	{
		const gpo_vector *v = k < nkeys ? &keys[k] : packed;

		if ((starts[k] = malloc(sizeof(int64_t) * (v->nchunks + 1))) == NULL)
			goto done;
		gpo_chunk_starts(v, starts[k]);
	}
	st = gpo_kp_gather_stats(sp, n, nkeys, keys, starts, stats);
	if (st != GPO_OK)
		goto done;

	/* every key an OFFSET leaf */
	kp->nkeys = kp->nnodes = kp->ncomp = nkeys;
	for (int k = 0; k < nkeys; k++)
	{
		kp_node    *nd = &kp->nodes[k];

		kp->types[k] = keys[k].type;
		nd->kind = KP_OFFSET;
		nd->key = k;
		nd->base = stats[k].nvalid > 0 ? stats[k].min : 0;
		nd->null_level = stats[k].nvalid > 0 ? stats[k].max - stats[k].min + 1 : 0;
		nd->bits = kp_offset_bits(&stats[k], n);
		kp->comp[k] = k;
	}

	/* too wide: rank the widest columns that ranks would narrow */
	while (kp_total_bits(kp) > gpo_keypack_fit_bits)
	{
		int			best = -1;

		for (int k = 0; k < nkeys; k++)
		{
			kp_node    *nd = &kp->nodes[k];
			int			most = kp_bits((uint64_t) stats[k].nvalid - (stats[k].nvalid == n));

			if (nd->kind == KP_OFFSET && nd->bits > most &&
				(best < 0 || nd->bits > kp->nodes[best].bits))
				best = k;
		}
		if (best < 0)
			break;
		if ((lvl[best] = malloc(sizeof(uint64_t) * n)) == NULL)
		{
			st = GPO_ERR_NOMEM;
			goto done;
		}
		st = gpo_kp_rank_leaf(ctx, sp, &keys[best], n, stats[best].nvalid,
							  lvl[best], &kp->nodes[best], &on_gpu);
		if (st != GPO_OK)
			goto done;
	}

	/* still too wide: rank adjacent pairs, the widest pair first */
	while (kp_total_bits(kp) > gpo_keypack_fit_bits && kp->ncomp > 1)
	{
		int			i = 0;
		int			a,
					b,
					id = kp->nnodes;

		for (int c = 1; c + 1 < kp->ncomp; c++)
			if (kp->nodes[kp->comp[c]].bits + kp->nodes[kp->comp[c + 1]].bits >
				kp->nodes[kp->comp[i]].bits + kp->nodes[kp->comp[i + 1]].bits)
				i = c;
		a = kp->comp[i];
		b = kp->comp[i + 1];
		for (int side = 0; side < 2; side++)
		{
			int			x = side == 0 ? a : b;
			kp_src		one;

			if (lvl[x] != NULL)
				continue;
			/* an OFFSET leaf (x < nkeys): materialize its levels */
			one.vec = &keys[x];
			one.starts = starts[x];
			one.flat = NULL;
			one.base = kp->nodes[x].base;
			one.null_level = kp->nodes[x].null_level;
			one.shift = 0;
			if ((lvl[x] = malloc(sizeof(uint64_t) * n)) == NULL)
			{
				st = GPO_ERR_NOMEM;
				goto done;
			}
			gpo_kp_pack(sp, n, &one, 1, lvl[x], NULL, NULL);
		}
		if ((lvl[id] = malloc(sizeof(uint64_t) * n)) == NULL)
		{
			st = GPO_ERR_NOMEM;
			goto done;
		}
		kp->nnodes++;
		kp->nodes[id].left = a;
		kp->nodes[id].right = b;
		st = gpo_kp_rank_pair(ctx, sp, n, lvl[a], kp->nodes[a].bits, lvl[b],
							  kp->nodes[b].bits, lvl[id], &kp->nodes[id],
							  &on_gpu);
		if (st != GPO_OK)
			goto done;
		free(lvl[a]);
		free(lvl[b]);
		lvl[a] = lvl[b] = NULL;
		kp->comp[i] = id;
		for (int c = i + 1; c + 1 < kp->ncomp; c++)
			kp->comp[c] = kp->comp[c + 1];
		kp->ncomp--;
	}

	if (kp_total_bits(kp) > 63)
	{
		gpo_set_detail(ctx, "keypack: packed keys would need %d bits",
					   kp_total_bits(kp));
		st = GPO_ERR_INVALID;	/* cannot happen: one rank fits 63 bits */
		goto done;
	}

	/* concatenate, the first component in the highest bits */
	for (int c = kp->ncomp - 1, shift = 0; c >= 0; c--)
	{
		int			x = kp->comp[c];
		const kp_node *nd = &kp->nodes[x];

		kp->shift[c] = shift;
		src[c].vec = lvl[x] == NULL ? &keys[nd->key] : NULL;
		src[c].starts = lvl[x] == NULL ? starts[nd->key] : NULL;
		src[c].flat = lvl[x];
		src[c].base = nd->base;
		src[c].null_level = nd->null_level;
		src[c].shift = shift;
		shift += nd->bits;
	}
	gpo_kp_pack(sp, n, src, kp->ncomp, NULL, packed, starts[nkeys]);
	st = GPO_OK;

done:
	for (int k = 0; k <= GPO_KEYPACK_MAX_KEYS; k++)
		free(starts[k]);
	for (int x = 0; x < KP_MAX_NODES; x++)
		free(lvl[x]);
	if (on_gpu)
		ctx->used = GPO_DEVICE_GPU;
	else if (st == GPO_OK)
		ctx->used = GPO_DEVICE_CPU;
	if (st != GPO_OK)
	{
		gpo_keypack_free(kp);
		return st;
	}
	*info = kp;
	return GPO_OK;
}
