/*
 * agg_parallel_text.c
 *	  Text keys with worker processes: each process codes the text keys it
 *	  reads in its own dictionary (agg_dict.c), so with each piece of its
 *	  groups a worker sends the strings its dictionary gained since its
 *	  last piece, and the backend codes them in its own dictionary, keeping
 *	  per worker and key a map from the worker's codes to its own.
 *
 * The strings travel as one message per key: their count (int64), their
 * lengths (int32), then their bytes one after the other.  The map turns a
 * piece's codes into the backend's, which changes the keys' order, so the
 * backend sorts the piece again (the merge takes groups sorted by key,
 * agg_state.c); no two groups of a piece get the same keys, since
 * distinct strings keep distinct codes.  A worker's dictionary holds each
 * string once, so the backend codes each string a worker saw once, however
 * many groups it is in (count(DISTINCT) makes many).
 */
#include "aggnode/exec/agg_parallel.h"

/*
 * True if key k of s's table te holds this process's own dictionary codes
 * (a text key the reader codes); a star join's dimension keys hold the
 * backend's codes in every process.
 */
bool
gpuops_agg_key_own_codes(const GpuopsAggScanState *s,
						 const GpuopsAggTableExec *te, int k)
{
	if (s->spec.key_dicts[k] == NULL)
		return false;
	/* a label key that takes a column: the column's codes (agg_label.c) */
	if (te->tab->key_exprs[k] != NULL)
		return gpuops_label_source((Node *) te->tab->key_exprs[k]) > 0;
	return te->key_col[k] >= 0 && te->key_col[k] < te->nread;
}

/*
 * The strings of d's codes *sent and on, as one message of *bytes bytes in
 * the current memory context (see the file header); *sent becomes d's
 * count.
 */
char *
gpuops_parallel_strings_pack(const GpuopsTextDict *d, int64 *sent,
							 Size *bytes)
{
	int64		from = *sent;
	int64		n = gpuops_dict_count(d) - from;
	Size		total = sizeof(int64) + sizeof(int32) * n;
	int32	   *lens;
	char	   *msg;
	char	   *p;
	int64		i;

	for (i = 0; i < n; i++)
		total += gpuops_dict_string(d, (int32) (from + i)).len;
	msg = palloc_extended(total, MCXT_ALLOC_HUGE);
	memcpy(msg, &n, sizeof(int64));
	lens = (int32 *) (msg + sizeof(int64));
	p = msg + sizeof(int64) + sizeof(int32) * n;
	for (i = 0; i < n; i++)
	{
		gpo_str		str = gpuops_dict_string(d, (int32) (from + i));

		lens[i] = str.len;
		memcpy(p, str.data, str.len);
		p += str.len;
	}
	*sent = from + n;
	*bytes = total;
	return msg;
}

/* The count of strings of a strings message of bytes bytes (checked). */
static int64
gpuops_parallel_strings_count(const char *msg, Size bytes)
{
	int64		n;

	if (bytes < sizeof(int64))
		elog(ERROR, "GpuOpsAgg worker sent a short strings message");
	memcpy(&n, msg, sizeof(int64));
	if (n < 0 || (bytes - sizeof(int64)) / sizeof(int32) < (Size) n)
		elog(ERROR, "GpuOpsAgg worker sent a short strings message");
	return n;
}

/* Points strs at the n strings of a strings message of bytes bytes. */
static void
gpuops_parallel_strings_read(const char *msg, Size bytes, int64 n,
							 gpo_str *strs)
{
	const int32 *lens = (const int32 *) (msg + sizeof(int64));
	const char *p = msg + sizeof(int64) + sizeof(int32) * n;
	const char *end = msg + bytes;
	int64		i;

	for (i = 0; i < n; i++)
	{
		if (lens[i] < 0 || lens[i] > end - p)
			elog(ERROR, "GpuOpsAgg worker sent a short strings message");
		strs[i].data = p;
		strs[i].len = lens[i];
		p += lens[i];
	}
}

/*
 * Codes in d, with up to nthreads threads and in one call, the strings of
 * nmsgs messages (of one worker each: when several workers finish at once,
 * their strings are coded together with the threads they freed), each
 * message's codes appended to its worker's map; returns the strings.
 */
int64
gpuops_parallel_strings_map(GpuopsTextDict *d, int nthreads, int nmsgs,
							const GpuopsStringsMsg *msgs)
{
	int64	   *counts = palloc(sizeof(int64) * Max(nmsgs, 1));
	int64		total = 0;
	int64		at = 0;
	gpo_str    *strs;
	int32	   *codes;
	int			i;

	for (i = 0; i < nmsgs; i++)
	{
		counts[i] = gpuops_parallel_strings_count(msgs[i].msg, msgs[i].bytes);
		total += counts[i];
	}
	if (total == 0)
	{
		pfree(counts);
		return 0;
	}
	strs = palloc_extended(sizeof(gpo_str) * total, MCXT_ALLOC_HUGE);
	codes = palloc_extended(sizeof(int32) * total, MCXT_ALLOC_HUGE);
	for (i = 0; i < nmsgs; i++)
	{
		gpuops_parallel_strings_read(msgs[i].msg, msgs[i].bytes, counts[i],
									 strs + at);
		at += counts[i];
	}
	gpuops_dict_encode_many(d, nthreads, total, strs, codes);
	at = 0;
	for (i = 0; i < nmsgs; i++)
	{
		const GpuopsStringsMsg *m = &msgs[i];
		int64		n = counts[i];

		if (n == 0)
			continue;
		*m->map = *m->map == NULL ?
			MemoryContextAllocHuge(m->cxt, sizeof(int32) * n) :
			repalloc_huge(*m->map, sizeof(int32) * (*m->nmap + n));
		memcpy(*m->map + *m->nmap, codes + at, sizeof(int32) * n);
		*m->nmap += n;
		at += n;
	}
	pfree(strs);
	pfree(codes);
	pfree(counts);
	return total;
}

/* Turns n groups' key codes of a worker's codes into the backend's (map). */
void
gpuops_parallel_codes_map(const int32 *map, int64 nmap, uint64 *codes,
						  const uint8 *valid, int64 n)
{
	int64		g;

	for (g = 0; g < n; g++)
	{
		int32		code;

		if (!valid[g])
			continue;
		gpo_code_decode(GPO_INT32, codes[g], &code);
		if (code < 0 || code >= nmap)
			elog(ERROR, "GpuOpsAgg worker sent text key code %d of %lld",
				 code, (long long) nmap);
		codes[g] = gpo_key_code(GPO_INT32, &map[code]);
	}
}

/* Puts the n elements of width w at p in the order of perm. */
static void
gpuops_piece_permute(void *p, size_t w, const int64 *perm, int64 n)
{
	char	   *tmp;
	int64		i;

	if (p == NULL || n <= 1)
		return;
	tmp = palloc_extended(w * n, MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
		memcpy(tmp + w * i, (char *) p + w * perm[i], w);
	memcpy(p, tmp, w * n);
	pfree(tmp);
}

/*
 * Sorts a piece of n groups (key codes and validity of nkeys keys, rows,
 * and per value column of val_types the engine's results) by key again,
 * with up to nthreads threads.
 */
void
gpuops_parallel_sort_piece(int nkeys, int nvals, const gpo_type *val_types,
						   int nthreads, int64 n, uint64 **codes,
						   uint8 **valid, int64 *rows, gpo_agg_out *vals)
{
	int64	   *perm = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	gpo_ctx		ctx;
	gpo_status	st;
	int			k;
	int			v;

	gpuops_ctx_init(&ctx);
	ctx.device = GPO_DEVICE_CPU;
	ctx.threads = Max(nthreads, 1);
	st = gpo_sort_groups(&ctx, nkeys, (const uint64_t *const *) codes,
						 (const uint8_t *const *) valid, n, perm);
	if (st == GPO_ERR_NOMEM)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("GpuOpsAgg could not order a worker's groups.")));
	if (st != GPO_OK)
		elog(ERROR, "GpuOpsAgg: ordering a worker's groups failed (%d)", (int) st);
	for (k = 0; k < nkeys; k++)
	{
		gpuops_piece_permute(codes[k], sizeof(uint64), perm, n);
		gpuops_piece_permute(valid[k], 1, perm, n);
	}
	gpuops_piece_permute(rows, sizeof(int64), perm, n);
	for (v = 0; v < nvals; v++)
	{
		size_t		w = gpo_type_size(val_types[v]);

		gpuops_piece_permute(vals[v].count, sizeof(int64), perm, n);
		gpuops_piece_permute(vals[v].isum, sizeof(gpo_int128), perm, n);
		gpuops_piece_permute(vals[v].fsum, sizeof(double), perm, n);
		gpuops_piece_permute(vals[v].min, w, perm, n);
		gpuops_piece_permute(vals[v].max, w, perm, n);
		gpuops_piece_permute(vals[v].fflags, 1, perm, n);
		gpuops_piece_permute(vals[v].m2, sizeof(double), perm, n);
	}
	pfree(perm);
}

/*
 * Sorts p's first n groups by key again (nthreads threads) and combines
 * equal neighbours; returns the groups left (the workers' gathered pieces,
 * agg_parallel.c, and mapped keys' groups, agg_mapped.c).
 */
int64
gpuops_parallel_sort_fold(GpuopsAggState *p, int64 n, int nthreads)
{
	gpuops_parallel_sort_piece(p->nkeys, p->nvals, p->val_types, nthreads, n,
							   p->key_codes, p->key_valid, p->rows, p->vals);
	return gpuops_aggstate_fold_equal(p, n);
}
