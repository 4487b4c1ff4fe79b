/*
 * groupagg.c
 *	  GROUP BY aggregation: the dispatcher, the CPU face's key statistics
 *	  and strategy choice, its sort strategy, and the result stores.
 *
 * The CPU face reads the keys once for their code range and NULL count,
 * picks a strategy (gpo_agg_choose unless forced), and runs it:
 *   dense  groupagg_cpu.c: a slot per key value, per-thread slot arrays
 *   hash   groupagg_cpu.c: per-thread hash tables merged by key
 *   sort   here: radix sort -> run boundaries -> offsets -> segmented reduce
 * Every strategy yields the groups in key order, the NULL-key group last.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "groupagg_internal.h"

/* The GPU face's row limit (its row numbers are 32-bit). */
#define GPU_MAX_ROWS	((int64_t) INT32_MAX)

/* Keys read, evenly spaced, to estimate the number of groups. */
#define SAMPLE_ROWS		4096

/*
 * Estimates the number of distinct non-NULL keys from SAMPLE_ROWS evenly
 * spaced rows (deterministic): d distinct codes in the sample, f1 of them
 * seen once and f2 twice give Chao's estimate d + f1^2 / (2 f2) (d + f1 (f1
 * - 1) / 2 when f2 = 0), at most the row count.  0 for an empty input.
 * *seen gets d and *once f1 (left as they were for an empty sample).
 */
static int64_t
sample_groups(const gpo_vector *keys, int64_t n, int64_t *seen, int64_t *once)
{
	uint64_t	codes[SAMPLE_ROWS];
	int64_t    *starts = gpo_starts_of(keys);
	size_t		taken = 0;
	int64_t		d = 0,
				f1 = 0,
				f2 = 0,
				est;
	size_t		i,
				j;

	if (starts == NULL || n == 0)
	{
		free(starts);
		return 0;
	}
	for (int64_t s = 0; s < SAMPLE_ROWS && s < n; s++)
	{
		int64_t		row = n <= SAMPLE_ROWS ? s : (int64_t) ((__int128) s * n / SAMPLE_ROWS);
		int32_t		c = gpo_find_chunk(keys, starts, row);
		const gpo_chunk *ch = &keys->chunks[c];
		int64_t		off = row - starts[c];

		if (gpo_valid(ch, off))
			codes[taken++] = gpo_key_code(keys->type,
										  (const char *) ch->data +
										  off * gpo_type_size(keys->type));
	}
	free(starts);
	if (taken == 0)
		return 0;
	qsort(codes, taken, sizeof(uint64_t), gpo_code_cmp);
	for (i = 0; i < taken; i = j)
	{
		for (j = i + 1; j < taken && codes[j] == codes[i]; j++)
			;
		d++;
		f1 += (j - i == 1);
		f2 += (j - i == 2);
	}
	*seen = d;
	*once = f1;
	if (taken == (size_t) n)
		return d;				/* the whole input was read */
	est = f2 > 0 ? d + f1 * f1 / (2 * f2) : d + f1 * (f1 - 1) / 2;
	return est < n ? est : n;
}

/*
 * Whether the sort that gpo_agg_choose picked from est_groups should be a
 * hash: where the planner's estimate is high but a sample of the batch saw
 * every one of its few keys at least twice (no key seen once: the keys it
 * missed hold almost none of the rows, by Good and Turing), the batch has
 * about that few groups.  The planner estimates an expression key by its
 * column's distinct values: date_trunc('day', ts) over 100,000 timestamps
 * of 20 days was sorted, 2M rows in about 4 radix passes a batch, where a
 * hash table of 20 groups does.
 */
static bool
sample_says_hash(const gpo_vector *keys, int64_t nvalid)
{
	int64_t		seen = 0,
				once = 0;

	if (nvalid < 4 * SAMPLE_ROWS)
		return false;
	(void) sample_groups(keys, gpo_vector_rows(keys), &seen, &once);
	return once == 0 && seen > 0 && seen <= SAMPLE_ROWS / 4;
}

/* Positions it at logical row of both vectors. */
void
gpo_kv_seek(gpo_kv_iter *it, const gpo_vector *keys, const int64_t *kstarts,
			const gpo_vector *values, const int64_t *vstarts, int64_t row)
{
	it->kt = keys->type;
	gpo_cursor_seek(&it->k, keys, kstarts, row);
	it->has_values = values != NULL;
	if (values != NULL)
	{
		it->vt = values->type;
		gpo_cursor_seek(&it->v, values, vstarts, row);
	}
	else
		it->vt = GPO_INT64;
}

/* Chunk starts of v (malloc'd, nchunks + 1 entries), NULL on no memory. */
int64_t *
gpo_starts_of(const gpo_vector *v)
{
	int64_t    *s;

	if (v == NULL)
		return calloc(1, sizeof(int64_t));
	s = malloc(sizeof(int64_t) * (v->nchunks + 1));
	if (s != NULL)
		gpo_chunk_starts(v, s);
	return s;
}

/*
 * The extremes of valid int32 / int64 values (see gpo_agg_internal.h).
 * Branch-free: a batch filtered into NULL keys has them at random, which
 * branches on the bit mispredict half the time.
 */
#define GPO_MINMAX_VALID(NAME, T) \
int64_t \
NAME(const T *d, const uint8_t *valid, int64_t lo, int64_t hi, \
	 int64_t *rmn, int64_t *rmx) \
{ \
	int64_t		mn = *rmn, \
				mx = *rmx, \
				nv = 0; \
\
	if (valid == NULL) \
	{ \
		for (int64_t i = lo; i < hi; i++) \
		{ \
			mn = d[i] < mn ? d[i] : mn; \
			mx = d[i] > mx ? d[i] : mx; \
		} \
		nv = hi - lo; \
	} \
	else \
		for (int64_t i = lo; i < hi; i++) \
		{ \
			int64_t		ok = (valid[i >> 3] >> (i & 7)) & 1; \
			int64_t		x = d[i]; \
			int64_t		xl = ok ? x : INT64_MAX; \
			int64_t		xh = ok ? x : INT64_MIN; \
\
			mn = xl < mn ? xl : mn; \
			mx = xh > mx ? xh : mx; \
			nv += ok; \
		} \
	*rmn = mn; \
	*rmx = mx; \
	return nv; \
}
GPO_MINMAX_VALID(gpo_minmax_valid_i32, int32_t)
GPO_MINMAX_VALID(gpo_minmax_valid_i64, int64_t)
#undef GPO_MINMAX_VALID

/* Key statistics: code range and count of non-NULL keys. */
void
gpo_key_stats(const gpo_vector *keys, const int64_t *kstarts, int nt,
		  uint64_t *min_code, uint64_t *max_code, int64_t *nvalid)
{
	int64_t		n = gpo_vector_rows(keys);
	uint64_t	mn = UINT64_MAX,
				mx = 0;
	int64_t		nv = 0;
	int			nb = gpo_agg_nblocks(n, nt);

#pragma omp parallel for num_threads(nb) schedule(static, 1) \
	reduction(min:mn) reduction(max:mx) reduction(+:nv)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(n, b, nb);
		int64_t		hi = gpo_block_lo(n, b + 1, nb);
		gpo_cursor	cur;

		gpo_cursor_seek(&cur, keys, kstarts, lo);
		for (int64_t r = lo; r < hi;)
		{
			int64_t		avail = gpo_cursor_avail(&cur);
			int64_t		take = avail < hi - r ? avail : hi - r;
			const gpo_chunk *ch = gpo_cursor_chunk(&cur);

			/* integer keys: the raw extremes of the valid ones, coded once */
			if (take > 0 && (keys->type == GPO_INT32 || keys->type == GPO_INT64))
			{
				int64_t		rmn = INT64_MAX,
							rmx = INT64_MIN,
							cnt;

				if (keys->type == GPO_INT32)
					cnt = gpo_minmax_valid_i32((const int32_t *) ch->data, ch->validity,
										   cur.off, cur.off + take, &rmn, &rmx);
				else
					cnt = gpo_minmax_valid_i64((const int64_t *) ch->data, ch->validity,
										   cur.off, cur.off + take, &rmn, &rmx);
				if (cnt > 0)
				{
					uint64_t	cmn = gpo_code_of_raw(keys->type, (uint64_t) rmn, 1);
					uint64_t	cmx = gpo_code_of_raw(keys->type, (uint64_t) rmx, 1);

					mn = cmn < mn ? cmn : mn;
					mx = cmx > mx ? cmx : mx;
				}
				nv += cnt;
				cur.off += take;
				r += take;
				continue;
			}
			for (int64_t i = cur.off; i < cur.off + take; i++)
			{
				uint64_t	c;

				if (!gpo_valid(ch, i))
					continue;
				c = gpo_code_of_raw(keys->type, gpo_raw_at(keys->type, ch->data, i), 1);
				nv++;
				if (c < mn)
					mn = c;
				if (c > mx)
					mx = c;
			}
			cur.off += take;
			r += take;
		}
	}
	*min_code = mn;
	*max_code = mx;
	*nvalid = nv;
}

/* The strategy to use for keys when want is a preference (see gpo_agg.h). */
gpo_agg_strategy
gpo_agg_strategy_fit(const gpo_ctx *ctx, const gpo_vector *keys,
					 gpo_agg_strategy want)
{
	int64_t    *kstarts;
	uint64_t	mn,
				mx;
	int64_t		nvalid;
	int			nt = gpo_threads(ctx);

	if (want != GPO_AGG_DENSE)
		return want;
	if (!gpo_type_is_int(keys->type))
		return GPO_AGG_AUTO;
	kstarts = gpo_starts_of(keys);
	if (kstarts == NULL)
		return GPO_AGG_AUTO;
	gpo_omp_prepare(nt);
	gpo_key_stats(keys, kstarts, nt, &mn, &mx, &nvalid);
	free(kstarts);
	if (nvalid > 0 && mx - mn >= (uint64_t) GPO_AGG_DENSE_MAX_RANGE)
		return GPO_AGG_AUTO;
	return GPO_AGG_DENSE;
}

/* Blocks for n rows under nt threads (1 .. nt, about 4096 rows each at least). */
int
gpo_agg_nblocks(int64_t n, int nt)
{
	int64_t		want = n / 4096 + 1;

	return want < nt ? (int) want : nt;
}

/* Sort strategy: sorted codes -> run boundaries -> offsets -> reduction. */
static gpo_status
sort_strategy(const gpo_vector *keys, int nreqs, const gpo_agg_req *reqs,
			  int nt, gpo_agg_out *outs, int64_t *ngroups)
{
	int64_t		n = gpo_vector_rows(keys);
	gpo_status	st = GPO_OK;
	uint64_t   *codes = malloc(sizeof(uint64_t) * (n + 1));
	int64_t    *rows = malloc(sizeof(int64_t) * (n + 1));
	uint64_t   *tc = malloc(sizeof(uint64_t) * (n + 1));
	int64_t    *tr = malloc(sizeof(int64_t) * (n + 1));
	int64_t    *hist = malloc(sizeof(int64_t) * 256 * nt);
	uint64_t   *raw = NULL;
	uint8_t    *valid = NULL;
	int64_t    *off = NULL;
	int64_t    *vstarts = NULL;
	int64_t		blk[257];
	int64_t		nvalid,
				ng;
	int			nb = gpo_agg_nblocks(n, nt);

	if (nb > 256)
		nb = 256;
	if (!codes || !rows || !tc || !tr || !hist)
	{
		st = GPO_ERR_NOMEM;
		goto done;
	}
	nvalid = gpo_keys_to_codes(keys, codes, rows, nt);
	if (nvalid < 0)
	{
		st = GPO_ERR_NOMEM;
		goto done;
	}
	gpo_radix_sort_varying(codes, rows, tc, tr, nvalid, nt, hist);

	/* run heads per block, then their offsets (tr is reused for them) */
#pragma omp parallel for num_threads(nb) schedule(static, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(nvalid, b, nb);
		int64_t		hi = gpo_block_lo(nvalid, b + 1, nb);
		int64_t		c = 0;

		for (int64_t i = lo; i < hi; i++)
			c += (i == 0 || codes[i] != codes[i - 1]);
		blk[b] = c;
	}
	ng = 0;
	for (int b = 0; b < nb; b++)
	{
		int64_t		c = blk[b];

		blk[b] = ng;
		ng += c;
	}
	*ngroups = ng + (nvalid < n ? 1 : 0);
	for (int r = 0; r < nreqs; r++)
		if (*ngroups > outs[r].capacity)
		{
			st = GPO_ERR_CAPACITY;
			goto done;
		}
	off = tr;
#pragma omp parallel for num_threads(nb) schedule(static, 1)
	for (int b = 0; b < nb; b++)
	{
		int64_t		lo = gpo_block_lo(nvalid, b, nb);
		int64_t		hi = gpo_block_lo(nvalid, b + 1, nb);
		int64_t		at = blk[b];

		for (int64_t i = lo; i < hi; i++)
			if (i == 0 || codes[i] != codes[i - 1])
				off[at++] = i;
	}
	off[ng] = nvalid;
	if (nvalid < n)
		off[ng + 1] = n;

	/* keys of the groups, into every output that takes them */
	for (int r = 0; r < nreqs; r++)
	{
		for (int64_t g = 0; g < ng; g++)
			gpo_key_store(&outs[r], g, keys->type, true, codes[off[g]]);
		if (nvalid < n)
			gpo_key_store(&outs[r], ng, keys->type, false, 0);
	}

	/* each request's values in sorted order (tc holds their bits), reduced */
	raw = tc;
	valid = malloc((size_t) n + 1);
	if (valid == NULL)
	{
		st = GPO_ERR_NOMEM;
		goto done;
	}
	for (int q = 0; q < nreqs && st == GPO_OK; q++)
	{
		const gpo_vector *values = reqs[q].values;

		if (values != NULL)
		{
			free(vstarts);
			vstarts = gpo_starts_of(values);
			if (vstarts == NULL)
			{
				st = GPO_ERR_NOMEM;
				goto done;
			}
#pragma omp parallel for num_threads(nt) schedule(static)
			for (int64_t i = 0; i < n; i++)
			{
				int64_t		r = rows[i];
				int32_t		c = gpo_find_chunk(values, vstarts, r);
				const gpo_chunk *ch = &values->chunks[c];

				r -= vstarts[c];
				raw[i] = gpo_raw_at(values->type, ch->data, r);
				valid[i] = gpo_valid(ch, r) ? 1 : 0;
			}
		}
		st = gpo_segreduce_rows(values ? values->type : GPO_INT64,
								values ? raw : NULL, values ? valid : NULL,
								NULL, off, *ngroups, &outs[q], nt);
	}

done:
	free(codes);
	free(rows);
	free(tc);
	free(tr);
	free(hist);
	free(valid);
	free(vstarts);
	return st;
}

/*
 * The outputs a face writes: outs, with m2 taken away where the request
 * does not want it (malloc'd; NULL on no memory).  nreqs 0 is one request
 * of no values.
 */
static gpo_agg_out *
face_outs(int nreqs, const gpo_agg_req *reqs, const gpo_agg_out *outs)
{
	int			n = nreqs > 0 ? nreqs : 1;
	gpo_agg_out *o = malloc(sizeof(gpo_agg_out) * n);

	if (o == NULL)
		return NULL;
	for (int r = 0; r < n; r++)
	{
		o[r] = outs[r];
		if (nreqs == 0 || !(reqs[r].aggs & GPO_AGG_WANT_M2) ||
			reqs[r].values == NULL)
			o[r].m2 = NULL;
	}
	return o;
}

/*
 * The dense strategy of nr requests over codes [mn, mn + range): all in one
 * pass over the groups each thread meets where the estimated groups fill
 * at most half the codes, the rows are fewer than 16 a code and the
 * threads' groups fit; else a pass a request over its own slots.  A
 * thread's slots take 80 bytes a code, set up, folded and (in a backend,
 * past 32 MB) faulted in anew each call; a thread's groups take 4 bytes a
 * code and 80 a group it meets.  On 2 cores, forced dense, one count a
 * request (ms, slots -> one pass): 1M rows of 51,000 keys over 316,000
 * codes 114 -> 34 (3 requests 273 -> 92), 200,000 rows of 6,000 keys over
 * 100,000 codes 25 -> 1.6; but 1M rows over 10,000 codes, 3 requests, 2.8
 * -> 6.9, 4M rows over 100,000 codes 21 -> 39, and 2M rows of 865,000 keys
 * over 1M codes 184 -> 369.
 */
static gpo_status
dense_strategy(const gpo_vector *keys, const int64_t *kstarts, int nr,
			   const gpo_agg_req *rq, int nt, uint64_t mn, uint64_t range,
			   int64_t est_groups, gpo_agg_out *o, int64_t *ngroups)
{
	bool		taken = false;
	gpo_status	st = GPO_OK;

	if (est_groups > 0 && (uint64_t) est_groups * 2 <= range &&
		(double) range * 16 >= (double) gpo_vector_rows(keys))
		st = gpo_dense_groups_many_cpu(keys, kstarts, nr, rq, nt, mn, range, o,
									   ngroups, &taken);
	for (int r = 0; st == GPO_OK && !taken && r < nr; r++)
		st = gpo_groupagg_dense_cpu(keys, kstarts, rq[r].values, nt, mn, range,
									&o[r], ngroups);
	return st;
}

/* Group aggregation CPU face (see gpo_agg.h). */
gpo_status
gpo_groupagg_many_cpu(gpo_ctx *ctx, const gpo_vector *keys, int nreqs,
					  const gpo_agg_req *reqs, int64_t est_groups,
					  gpo_agg_strategy *strategy, gpo_agg_out *outs,
					  int64_t *ngroups)
{
	int			nt = gpo_threads(ctx);
	int64_t    *kstarts = gpo_starts_of(keys);
	gpo_agg_req none = {NULL, 0};
	const gpo_agg_req *rq = nreqs > 0 ? reqs : &none;
	int			nr = nreqs > 0 ? nreqs : 1;
	gpo_agg_out *o = face_outs(nreqs, reqs, outs);
	uint64_t	mn,
				mx;
	int64_t		nvalid;
	gpo_agg_strategy s = *strategy;
	gpo_status	st = GPO_OK;

	ctx->used = GPO_DEVICE_CPU;
	if (kstarts == NULL || o == NULL)
	{
		free(kstarts);
		free(o);
		return GPO_ERR_NOMEM;
	}
	gpo_omp_prepare(nt);
	gpo_key_stats(keys, kstarts, nt, &mn, &mx, &nvalid);
	if (s == GPO_AGG_AUTO)
	{
		s = gpo_agg_choose(keys->type, nvalid, mn, mx, est_groups);
		if (s == GPO_AGG_SORT && sample_says_hash(keys, nvalid))
			s = GPO_AGG_HASH;
	}
	if (s == GPO_AGG_DENSE && (!gpo_type_is_int(keys->type) ||
							   (nvalid > 0 && mx - mn >= (uint64_t) GPO_AGG_DENSE_MAX_RANGE)))
	{
		free(kstarts);
		free(o);
		gpo_set_detail(ctx, "dense aggregation needs integer keys whose range is at most %lld",
					   (long long) GPO_AGG_DENSE_MAX_RANGE);
		return GPO_ERR_INVALID;
	}
	*strategy = s;
	if (s == GPO_AGG_DENSE)
		st = dense_strategy(keys, kstarts, nr, rq, nt, mn,
							nvalid > 0 ? mx - mn + 1 : 0, est_groups, o, ngroups);
	else if (s == GPO_AGG_HASH)
		st = gpo_groupagg_hash_cpu(keys, kstarts, nr, rq, nt, o, ngroups);
	else
		st = sort_strategy(keys, nr, rq, nt, o, ngroups);
	free(kstarts);
	free(o);
	if (st == GPO_ERR_CAPACITY)
		gpo_set_detail(ctx, "output holds %lld groups, %lld found",
					   (long long) outs[0].capacity, (long long) *ngroups);
	return st;
}

/* The request gpo_groupagg makes (see gpo_agg.h). */
gpo_agg_req
gpo_agg_req_of_out(const gpo_vector *values, const gpo_agg_out *out)
{
	gpo_agg_req r;

	r.values = values;
	r.aggs = (out->count ? GPO_AGG_WANT_COUNT : 0) |
		(out->isum || out->fsum || out->fflags ? GPO_AGG_WANT_SUM : 0) |
		(out->min ? GPO_AGG_WANT_MIN : 0) | (out->max ? GPO_AGG_WANT_MAX : 0) |
		(out->m2 ? GPO_AGG_WANT_M2 : 0);
	return r;
}

/* Checks the group aggregation's arguments. */
static gpo_status
groupagg_check(gpo_ctx *ctx, const gpo_vector *keys, int nreqs,
			   const gpo_agg_req *reqs, const gpo_agg_strategy *strategy,
			   const gpo_agg_out *outs, const int64_t *ngroups)
{
	gpo_status	st;

	if (nreqs < 0 || nreqs > GPO_AGG_MAX_REQS || (nreqs > 0 && reqs == NULL))
	{
		gpo_set_detail(ctx, "nreqs must be 0 .. %d, reqs given", GPO_AGG_MAX_REQS);
		return GPO_ERR_INVALID;
	}
	if ((st = gpo_agg_check_inputs(ctx, keys, NULL)) != GPO_OK)
		return st;
	for (int r = 0; r < nreqs; r++)
		if ((st = gpo_agg_check_inputs(ctx, keys, reqs[r].values)) != GPO_OK)
			return st;
	if (strategy == NULL || outs == NULL || ngroups == NULL ||
		*strategy < GPO_AGG_AUTO || *strategy > GPO_AGG_SORT)
	{
		gpo_set_detail(ctx, "strategy, out and ngroups must be given");
		return GPO_ERR_INVALID;
	}
	for (int r = 0; r < (nreqs > 0 ? nreqs : 1); r++)
		if (outs[r].capacity < 0)
		{
			gpo_set_detail(ctx, "output capacity must be >= 0");
			return GPO_ERR_INVALID;
		}
	return GPO_OK;
}

/* Group aggregation with several requests: the dispatcher (see gpo_agg.h). */
gpo_status
gpo_groupagg_many(gpo_ctx *ctx, const gpo_vector *keys, int nreqs,
				  const gpo_agg_req *reqs, int64_t est_groups,
				  gpo_agg_strategy *strategy, gpo_agg_out *outs,
				  int64_t *ngroups, void *scratch, size_t *scratch_bytes)
{
	gpo_status	st;
	gpo_device	face;
	gpo_agg_strategy want;
	int64_t		n;

	if (!gpo_call_begin(ctx))
		return GPO_ERR_INVALID;
	if ((st = groupagg_check(ctx, keys, nreqs, reqs, strategy, outs,
							 ngroups)) != GPO_OK)
		return st;
	if (gpo_scratch_phase(ctx, scratch, scratch_bytes, 0, &st))
		return st;
	n = gpo_vector_rows(keys);
	if ((st = gpo_pick_face(ctx, n, &face)) != GPO_OK)
		return st;
	if (face == GPO_DEVICE_GPU && ctx->device == GPO_DEVICE_AUTO &&
		n > GPU_MAX_ROWS)
		face = GPO_DEVICE_CPU;
	want = *strategy;
	if (want == GPO_AGG_AUTO && est_groups <= 0)
	{
		int64_t		seen,
					once;

		est_groups = sample_groups(keys, n, &seen, &once);
	}
	if (face == GPO_DEVICE_GPU)
	{
		st = gpo_groupagg_many_gpu(ctx, keys, nreqs, reqs, est_groups,
								   strategy, outs, ngroups);
		if (!gpo_gpu_fell_back(ctx, st))
		{
			ctx->used = GPO_DEVICE_GPU;
			return st;
		}
		*strategy = want;
	}
	st = gpo_groupagg_many_cpu(ctx, keys, nreqs, reqs, est_groups, strategy,
							   outs, ngroups);
	ctx->used = GPO_DEVICE_CPU;
	return st;
}

/* Group aggregation dispatcher: one request (see gpo_agg.h). */
gpo_status
gpo_groupagg(gpo_ctx *ctx, const gpo_vector *keys, const gpo_vector *values,
			 int64_t est_groups, gpo_agg_strategy *strategy, gpo_agg_out *out,
			 int64_t *ngroups, void *scratch, size_t *scratch_bytes)
{
	gpo_agg_req req;

	if (out == NULL)
		return gpo_groupagg_many(ctx, keys, 0, NULL, est_groups, strategy,
								 NULL, ngroups, scratch, scratch_bytes);
	req = gpo_agg_req_of_out(values, out);
	return gpo_groupagg_many(ctx, keys, values ? 1 : 0, &req, est_groups,
							 strategy, out, ngroups, scratch, scratch_bytes);
}
