/*
 * keypack_pack.c
 *	  Key packing's passes over rows: the key columns' code ranges and the
 *	  concatenation of the components' levels.
 */
#include <stdlib.h>
#include <string.h>

#include "keypack_internal.h"

/* Rows a block packs at a time (its accumulator lives on the stack). */
#define KP_TILE			1024

/* Folds rows [off, off + take) of ch into *s (type t). */
static inline __attribute__((always_inline)) void
kp_stats_span(gpo_type t, const gpo_chunk *ch, int64_t off, int64_t take,
			  kp_stats *s)
{
	uint64_t	mn = s->min,
				mx = s->max;
	int64_t		nv = 0;

	if (ch->validity == NULL)
	{
		for (int64_t i = 0; i < take; i++)
		{
			uint64_t	c = kp_code(t, ch->data, off + i);

			mn = c < mn ? c : mn;
			mx = c > mx ? c : mx;
		}
		nv = take;
	}
	else
		for (int64_t i = 0; i < take; i++)
		{
			uint64_t	c = kp_code(t, ch->data, off + i);

			if (!gpo_valid(ch, off + i))
				continue;
			mn = c < mn ? c : mn;
			mx = c > mx ? c : mx;
			nv++;
		}
	s->min = mn;
	s->max = mx;
	s->nvalid += nv;
}

/* ORs the levels of rows [off, off + take) of ch, shifted, into acc (type t). */
static inline __attribute__((always_inline)) void
kp_level_span(gpo_type t, const gpo_chunk *ch, int64_t off, int64_t take,
			  uint64_t base, uint64_t null_level, int shift, uint64_t *acc)
{
	if (ch->validity == NULL)
		for (int64_t i = 0; i < take; i++)
			acc[i] |= (kp_code(t, ch->data, off + i) - base) << shift;
	else
		for (int64_t i = 0; i < take; i++)
		{
			uint64_t	l = kp_code(t, ch->data, off + i) - base;

			acc[i] |= (gpo_valid(ch, off + i) ? l : null_level) << shift;
		}
}

/* Each key column's code range over n rows, in nb blocks. */
gpo_status
gpo_kp_gather_stats(kp_split sp, int64_t n, int nkeys, const gpo_vector *keys,
					int64_t *const *starts, kp_stats *out)
{
	int			nb = sp.nb;
	kp_stats   *part = malloc(sizeof(kp_stats) * nb * nkeys);

	if (part == NULL)
		return GPO_ERR_NOMEM;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb),
					hi = gpo_block_lo(n, b + 1, nb);

		for (int k = 0; k < nkeys; k++)
		{
			kp_stats	s = {UINT64_MAX, 0, 0};
			gpo_cursor	cur;

			gpo_cursor_seek(&cur, &keys[k], starts[k], lo);
			for (int64_t r = lo; r < hi;)
			{
				int64_t		avail = gpo_cursor_avail(&cur);
				int64_t		take = avail < hi - r ? avail : hi - r;

				KP_BY_TYPE(keys[k].type, kp_stats_span, gpo_cursor_chunk(&cur),
						   cur.off, take, &s);
				cur.off += take;
				r += take;
			}
			part[b * nkeys + k] = s;
		}
	}
	for (int k = 0; k < nkeys; k++)
	{
		kp_stats	s = {UINT64_MAX, 0, 0};

		for (int b = 0; b < nb; b++)
		{
			const kp_stats *p = &part[b * nkeys + k];

			s.min = p->min < s.min ? p->min : s.min;
			s.max = p->max > s.max ? p->max : s.max;
			s.nvalid += p->nvalid;
		}
		out[k] = s;
	}
	free(part);
	return GPO_OK;
}

/*
 * Concatenates the levels of nsrc components for n rows, in nb blocks, into
 * flat_out (n entries) or, if that is NULL, into the INT64 vector out.
 */
void
gpo_kp_pack(kp_split sp, int64_t n, const kp_src *src, int nsrc,
			uint64_t *flat_out, const gpo_vector *out,
			const int64_t *out_starts)
{
	int			nb = sp.nb;
#pragma omp parallel for num_threads(sp.nt) schedule(dynamic, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb),
					hi = gpo_block_lo(n, b + 1, nb);
		gpo_cursor	cur[GPO_KEYPACK_MAX_KEYS];
		gpo_cursor	oc;
		uint64_t	acc[KP_TILE];

		for (int s = 0; s < nsrc; s++)
			if (src[s].vec != NULL)
				gpo_cursor_seek(&cur[s], src[s].vec, src[s].starts, lo);
		if (flat_out == NULL)
			gpo_cursor_seek(&oc, out, out_starts, lo);
		for (int64_t r0 = lo; r0 < hi; r0 += KP_TILE)
		{
			int64_t		cnt = hi - r0 < KP_TILE ? hi - r0 : KP_TILE;

			memset(acc, 0, sizeof(uint64_t) * cnt);
			for (int s = 0; s < nsrc; s++)
			{
				const kp_src *p = &src[s];

				if (p->vec == NULL)
				{
					const uint64_t *f = p->flat + r0;

					for (int64_t i = 0; i < cnt; i++)
						acc[i] |= f[i] << p->shift;
					continue;
				}
				for (int64_t done = 0; done < cnt;)
				{
					int64_t		avail = gpo_cursor_avail(&cur[s]);
					int64_t		take = avail < cnt - done ? avail : cnt - done;

					KP_BY_TYPE(p->vec->type, kp_level_span, gpo_cursor_chunk(&cur[s]),
							   cur[s].off, take, p->base, p->null_level, p->shift,
							   acc + done);
					cur[s].off += take;
					done += take;
				}
			}
			if (flat_out != NULL)
			{
				memcpy(flat_out + r0, acc, sizeof(uint64_t) * cnt);
				continue;
			}
			for (int64_t done = 0; done < cnt;)
			{
				int64_t		avail = gpo_cursor_avail(&oc);
				int64_t		take = avail < cnt - done ? avail : cnt - done;

				memcpy((int64_t *) gpo_cursor_chunk(&oc)->data + oc.off, acc + done,
					   sizeof(uint64_t) * take);
				oc.off += take;
				done += take;
			}
		}
	}
}
