/*
 * sort.c
 *	  Stable radix sort of key/row pairs: the dispatcher and the CPU face.
 *
 * Keys become order codes (gpo_agg_codes.h), NULL keys are set aside in row
 * order, and the codes are sorted with an OpenMP LSD radix sort of 8-bit
 * digits (per-thread histograms, stable scatter) over only the bits in which
 * the keys differ; a pass whose digit all keys share is skipped.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_agg_internal.h"

/* The GPU face's row limit (its row numbers are 32-bit). */
#define GPU_MAX_ROWS	((int64_t) INT32_MAX)

/* Rows of block b of nb over n rows: [*lo, *hi). */
static void
block_range(int64_t n, int b, int nb, int64_t *lo, int64_t *hi)
{
	*lo = gpo_block_lo(n, b, nb);
	*hi = gpo_block_lo(n, b + 1, nb);
}

/* Fills key codes of the non-NULL rows, then the NULL rows (see header). */
int64_t
gpo_keys_to_codes(const gpo_vector *keys, uint64_t *codes, int64_t *rows,
				  int nthreads)
{
	int64_t		n = gpo_vector_rows(keys);
	int64_t		starts_buf[65];
	int64_t    *starts = keys->nchunks < 64 ? starts_buf :
		malloc(sizeof(int64_t) * (keys->nchunks + 1));
	int64_t		nvalid_blk[256];
	int64_t		nvalid = 0;
	int			nb = nthreads < 256 ? nthreads : 256;

	if (starts == NULL)
		return -1;
	if (nb > n)
		nb = n > 0 ? (int) n : 1;
	gpo_chunk_starts(keys, starts);

	/* pass 1: non-NULL rows per block */
#pragma omp parallel for num_threads(nb) schedule(static, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo,
					hi,
					cnt = 0;
		gpo_cursor	cur;

		block_range(n, b, nb, &lo, &hi);
		gpo_cursor_seek(&cur, keys, starts, lo);
		for (int64_t r = lo; r < hi;)
		{
			int64_t		avail = gpo_cursor_avail(&cur);
			int64_t		take = avail < hi - r ? avail : hi - r;
			const gpo_chunk *ch = gpo_cursor_chunk(&cur);

			if (ch->validity == NULL)
				cnt += take;
			else
				for (int64_t i = 0; i < take; i++)
					cnt += gpo_valid(ch, cur.off + i);
			cur.off += take;
			r += take;
		}
		nvalid_blk[b] = cnt;
	}
	for (int b = 0; b < nb; b++)
	{
		int64_t		c = nvalid_blk[b];

		nvalid_blk[b] = nvalid;
		nvalid += c;
	}

	/* pass 2: codes and rows, valid rows first, NULL rows after them */
#pragma omp parallel for num_threads(nb) schedule(static, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo,
					hi;
		int64_t		v_at,
					z_at;
		gpo_cursor	cur;

		block_range(n, b, nb, &lo, &hi);
		v_at = nvalid_blk[b];
		z_at = nvalid + (lo - nvalid_blk[b]);
		gpo_cursor_seek(&cur, keys, starts, lo);
		for (int64_t r = lo; r < hi;)
		{
			int64_t		avail = gpo_cursor_avail(&cur);
			int64_t		take = avail < hi - r ? avail : hi - r;
			const gpo_chunk *ch = gpo_cursor_chunk(&cur);

			for (int64_t i = 0; i < take; i++)
			{
				int64_t		j = cur.off + i;

				if (gpo_valid(ch, j))
				{
					codes[v_at] = gpo_code_of_raw(keys->type,
												  gpo_raw_at(keys->type, ch->data, j), 1);
					rows[v_at++] = r + i;
				}
				else
				{
					codes[z_at] = 0;
					rows[z_at++] = r + i;
				}
			}
			cur.off += take;
			r += take;
		}
	}
	if (starts != starts_buf)
		free(starts);
	return nvalid;
}

/*
 * Stable sort of n (code, row) pairs by code over only the bits that vary
 * (see gpo_agg_internal.h), as gpo_sort_bit_range chooses them.  Subtracted
 * codes keep the skipped low bits equal (zero), and are restored after the
 * sort.
 */
void
gpo_radix_sort_varying(uint64_t *codes, int64_t *rows, uint64_t *tmp_codes,
					   int64_t *tmp_rows, int64_t n, int nthreads,
					   int64_t *hist)
{
	uint64_t	diff = 0;
	uint64_t	mn = UINT64_MAX;
	uint64_t	mx = 0;
	uint64_t	c0;
	int			bb,
				eb;

	if (n <= 1)
		return;
	c0 = codes[0];
#pragma omp parallel for num_threads(nthreads) schedule(static) \
	reduction(|:diff) reduction(min:mn) reduction(max:mx)
	for (int64_t i = 0; i < n; i++)
	{
		uint64_t	c = codes[i];

		diff |= c ^ c0;
		mn = c < mn ? c : mn;
		mx = c > mx ? c : mx;
	}
	if (diff == 0)
		return;
	if (!gpo_sort_bit_range(diff, mn, mx, &bb, &eb))
	{
		gpo_radix_sort_codes(codes, rows, tmp_codes, tmp_rows, n, bb, eb,
							 nthreads, hist);
		return;
	}
#pragma omp parallel for num_threads(nthreads) schedule(static)
	for (int64_t i = 0; i < n; i++)
		codes[i] -= mn;
	gpo_radix_sort_codes(codes, rows, tmp_codes, tmp_rows, n, bb, eb,
						 nthreads, hist);
#pragma omp parallel for num_threads(nthreads) schedule(static)
	for (int64_t i = 0; i < n; i++)
		codes[i] += mn;
}

/* Stable LSD radix sort of (code, row) pairs (see gpo_agg_internal.h). */
void
gpo_radix_sort_codes(uint64_t *codes, int64_t *rows, uint64_t *tmp_codes,
					 int64_t *tmp_rows, int64_t n, int begin_bit, int end_bit,
					 int nthreads, int64_t *hist)
{
	uint64_t   *src_c = codes,
			   *dst_c = tmp_codes;
	int64_t    *src_r = rows,
			   *dst_r = tmp_rows;
	int			nb = nthreads;

	if (nb > n)
		nb = n > 0 ? (int) n : 1;
	for (int shift = begin_bit; shift < end_bit; shift += 8)
	{
		int64_t		total[256];
		int64_t		run = 0;
		bool		skip = false;

		memset(hist, 0, sizeof(int64_t) * 256 * nb);
#pragma omp parallel for num_threads(nb) schedule(static, 1)
		for (int b = 0; b < nb; b++)
		{
			int64_t    *h = hist + 256 * b;
			int64_t		lo,
						hi;

			block_range(n, b, nb, &lo, &hi);
			for (int64_t i = lo; i < hi; i++)
				h[(src_c[i] >> shift) & 255]++;
		}
		/* exclusive offsets, digit-major then block */
		for (int d = 0; d < 256; d++)
		{
			total[d] = 0;
			for (int b = 0; b < nb; b++)
			{
				int64_t		c = hist[256 * b + d];

				hist[256 * b + d] = run;
				run += c;
				total[d] += c;
			}
			if (total[d] == n)
				skip = true;
		}
		if (skip)
			continue;
#pragma omp parallel for num_threads(nb) schedule(static, 1)
		for (int b = 0; b < nb; b++)
		{
			int64_t    *h = hist + 256 * b;
			int64_t		lo,
						hi;

			block_range(n, b, nb, &lo, &hi);
			for (int64_t i = lo; i < hi; i++)
			{
				int64_t		at = h[(src_c[i] >> shift) & 255]++;

				dst_c[at] = src_c[i];
				dst_r[at] = src_r[i];
			}
		}
		{
			uint64_t   *tc = src_c;
			int64_t    *tr = src_r;

			src_c = dst_c;
			src_r = dst_r;
			dst_c = tc;
			dst_r = tr;
		}
	}
	if (src_c != codes)
	{
		memcpy(codes, src_c, sizeof(uint64_t) * n);
		memcpy(rows, src_r, sizeof(int64_t) * n);
	}
}

/* Places the host scratch pieces of the CPU face (or only sizes them). */
static void
sort_layout(gpo_arena *a, int64_t n, int nthreads, uint64_t **codes,
			int64_t **rows, uint64_t **tc, int64_t **tr, int64_t **hist)
{
	*codes = gpo_arena_take(a, sizeof(uint64_t) * (size_t) n);
	*rows = gpo_arena_take(a, sizeof(int64_t) * (size_t) n);
	*tc = gpo_arena_take(a, sizeof(uint64_t) * (size_t) n);
	*tr = gpo_arena_take(a, sizeof(int64_t) * (size_t) n);
	*hist = gpo_arena_take(a, sizeof(int64_t) * 256 * (size_t) nthreads);
}

/* Writes sorted codes/rows into the output vectors (NULL tail after nvalid). */
static void
write_sorted(const gpo_vector *keys, gpo_vector *keys_out,
			 gpo_vector *rows_out, const uint64_t *codes, const int64_t *rows,
			 int64_t n, int64_t nvalid)
{
	gpo_cursor	kc,
				rc;

	if (keys_out != NULL)
	{
		size_t		sz = gpo_type_size(keys->type);

		kc.v = keys_out;
		kc.c = 0;
		kc.off = 0;
		for (int64_t i = 0; i < n; i++)
		{
			gpo_chunk  *ch;

			gpo_cursor_avail(&kc);
			ch = gpo_cursor_chunk(&kc);
			if (i < nvalid)
				gpo_code_decode(keys->type, codes[i],
								(char *) ch->data + kc.off * sz);
			else
				memset((char *) ch->data + kc.off * sz, 0, sz);
			if (ch->validity)
				gpo_bit_put(ch->validity, kc.off, i < nvalid, false);
			kc.off++;
		}
	}
	if (rows_out != NULL)
	{
		rc.v = rows_out;
		rc.c = 0;
		rc.off = 0;
		for (int64_t i = 0; i < n;)
		{
			int64_t		avail = gpo_cursor_avail(&rc);
			int64_t		take = avail < n - i ? avail : n - i;

			memcpy((int64_t *) gpo_cursor_chunk(&rc)->data + rc.off, rows + i,
				   sizeof(int64_t) * take);
			rc.off += take;
			i += take;
		}
	}
}

/* Sort CPU face (see gpo_agg.h). */
gpo_status
gpo_sort_pairs_cpu(gpo_ctx *ctx, const gpo_vector *keys, gpo_vector *keys_out,
				   gpo_vector *rows_out, void *scratch)
{
	int64_t		n = gpo_vector_rows(keys);
	int			nt = gpo_threads(ctx);
	gpo_arena	a = {scratch, 0};
	uint64_t   *codes,
			   *tc;
	int64_t    *rows,
			   *tr,
			   *hist;
	int64_t		nvalid;

	gpo_omp_prepare(nt);
	sort_layout(&a, n, nt, &codes, &rows, &tc, &tr, &hist);
	nvalid = gpo_keys_to_codes(keys, codes, rows, nt);
	if (nvalid < 0)
		return GPO_ERR_NOMEM;
	gpo_radix_sort_varying(codes, rows, tc, tr, nvalid, nt, hist);
	write_sorted(keys, keys_out, rows_out, codes, rows, n, nvalid);
	ctx->used = GPO_DEVICE_CPU;
	return GPO_OK;
}

/* Checks the sort's arguments. */
static gpo_status
sort_check(gpo_ctx *ctx, const gpo_vector *keys, const gpo_vector *keys_out,
		   const gpo_vector *rows_out)
{
	gpo_status	st;
	int64_t		n;

	if ((st = gpo_check_vector(ctx, keys, "keys")) != GPO_OK)
		return st;
	if (!gpo_agg_key_type_ok(keys->type))
	{
		gpo_set_detail(ctx, "sort keys of type %s are not supported",
					   gpo_type_name(keys->type));
		return GPO_ERR_INVALID;
	}
	n = gpo_vector_rows(keys);
	if (keys_out != NULL)
	{
		if ((st = gpo_check_vector(ctx, keys_out, "keys_out")) != GPO_OK)
			return st;
		if (keys_out->type != keys->type)
		{
			gpo_set_detail(ctx, "keys_out must have the keys' type");
			return GPO_ERR_INVALID;
		}
		if (gpo_vector_rows(keys_out) < n)
		{
			gpo_set_detail(ctx, "keys_out holds fewer than %lld rows", (long long) n);
			return GPO_ERR_CAPACITY;
		}
	}
	if (rows_out != NULL)
	{
		if ((st = gpo_check_vector(ctx, rows_out, "rows_out")) != GPO_OK)
			return st;
		if (rows_out->type != GPO_INT64)
		{
			gpo_set_detail(ctx, "rows_out must be INT64");
			return GPO_ERR_INVALID;
		}
		if (gpo_vector_rows(rows_out) < n)
		{
			gpo_set_detail(ctx, "rows_out holds fewer than %lld rows", (long long) n);
			return GPO_ERR_CAPACITY;
		}
	}
	return GPO_OK;
}

/* Sort dispatcher (see gpo_agg.h). */
gpo_status
gpo_sort_pairs(gpo_ctx *ctx, const gpo_vector *keys, gpo_vector *keys_out,
			   gpo_vector *rows_out, void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;
	gpo_arena	a = {NULL, 0};
	uint64_t   *p1,
			   *p3;
	int64_t    *p2,
			   *p4,
			   *p5;
	int64_t		n;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = sort_check(ctx, keys, keys_out, rows_out)) != GPO_OK)
		return st;
	n = gpo_vector_rows(keys);
	sort_layout(&a, n, gpo_threads(ctx), &p1, &p2, &p3, &p4, &p5);
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes, a.used, &st))
		return st;
	if ((st = gpo_pick_face(ctx, n, &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU && ctx->device == GPO_DEVICE_AUTO &&
		n > GPU_MAX_ROWS)
		face = GPO_DEVICE_CPU;
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_sort_pairs_gpu(ctx, keys, keys_out, rows_out);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
	}
	st = gpo_sort_pairs_cpu(ctx, keys, keys_out, rows_out, scratch);
	ctx->used = GPO_DEVICE_CPU;
	return st;
}
