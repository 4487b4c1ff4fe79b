/*
 * agg_parallel_text.c
 *	  Text keys with worker processes: each process codes the text keys it
 *	  reads in its own dictionary (agg_dict.c), so a worker's groups go to
 *	  the backend with their keys' strings, and the backend codes them in
 *	  its own dictionaries before it merges them.
 *
 * The strings of one key of a piece of groups travel as one message: the
 * groups' lengths (int32, -1 for a NULL key), then their bytes one after
 * the other.  Recoding changes the keys' order, so the backend sorts the
 * piece again (the merge takes groups sorted by key, agg_state.c); no two
 * groups of a piece get the same keys, since distinct strings keep
 * distinct codes.
 */
#include "aggnode/exec/gpuops_agg_exec.h"

/* The order of a piece's groups while it is sorted again. */
typedef struct GpuopsPieceSort
{
	int			nkeys;
	uint64	  **codes;
	uint8	  **valid;
} GpuopsPieceSort;

/*
 * True if key k of s's table te holds this process's own dictionary codes
 * (a text key the reader codes); a star join's dimension keys hold the
 * backend's codes in every process.
 */
bool
gpuops_agg_key_own_codes(const GpuopsAggScanState *s,
						 const GpuopsAggTableExec *te, int k)
{
	return s->spec.key_dicts[k] != NULL && te->tab->key_exprs[k] == NULL &&
		te->key_col[k] >= 0 && te->key_col[k] < te->nread;
}

/*
 * The strings of n groups' codes of key k (valid: not NULL), as one message
 * of *bytes bytes in the current memory context (see the file header).
 */
char *
gpuops_parallel_strings_pack(const GpuopsTextDict *d, const uint64 *codes,
							 const uint8 *valid, int64 n, Size *bytes)
{
	Size		total = sizeof(int32) * n;
	int32	   *lens;
	char	   *msg;
	char	   *p;
	int64		g;

	for (g = 0; g < n; g++)
	{
		int32		code;

		if (!valid[g])
			continue;
		gpo_code_decode(GPO_INT32, codes[g], &code);
		total += gpuops_dict_string(d, code).len;
	}
	msg = palloc_extended(Max(total, 1), MCXT_ALLOC_HUGE);
	lens = (int32 *) msg;
	p = msg + sizeof(int32) * n;
	for (g = 0; g < n; g++)
	{
		int32		code;
		gpo_str		str;

		if (!valid[g])
		{
			lens[g] = -1;
			continue;
		}
		gpo_code_decode(GPO_INT32, codes[g], &code);
		str = gpuops_dict_string(d, code);
		lens[g] = str.len;
		memcpy(p, str.data, str.len);
		p += str.len;
	}
	*bytes = total;
	return msg;
}

/*
 * Codes in d, with up to nthreads threads, the strings of a message of
 * bytes bytes for n groups, writing the key codes of the new codes into
 * codes (NULL keys untouched).
 */
void
gpuops_parallel_strings_recode(GpuopsTextDict *d, int nthreads,
							   const char *msg, Size bytes, uint64 *codes,
							   int64 n)
{
	const int32 *lens = (const int32 *) msg;
	const char *p = msg + sizeof(int32) * n;
	const char *end = msg + bytes;
	gpo_str    *strs = palloc_extended(sizeof(gpo_str) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32	   *newc = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64		g;

	if (bytes < sizeof(int32) * n)
		elog(ERROR, "GpuOpsAgg worker sent a short strings message");
	for (g = 0; g < n; g++)
	{
		strs[g].data = NULL;
		strs[g].len = 0;
		if (lens[g] < 0)
			continue;
		if (lens[g] > end - p)
			elog(ERROR, "GpuOpsAgg worker sent a short strings message");
		strs[g].data = p;
		strs[g].len = lens[g];
		p += lens[g];
	}
	gpuops_dict_encode_many(d, nthreads, n, strs, newc);
	for (g = 0; g < n; g++)
		if (strs[g].data != NULL)
			codes[g] = gpo_key_code(GPO_INT32, &newc[g]);
	pfree(strs);
	pfree(newc);
}

/* qsort_arg comparator of group numbers in the engine's key order. */
static int
gpuops_piece_cmp(const void *a, const void *b, void *arg)
{
	const GpuopsPieceSort *ps = (const GpuopsPieceSort *) arg;
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;
	int			k;

	for (k = 0; k < ps->nkeys; k++)
	{
		bool		vx = ps->valid[k][x] != 0;
		bool		vy = ps->valid[k][y] != 0;

		if (vx != vy)
			return vx ? -1 : 1;
		if (vx && ps->codes[k][x] != ps->codes[k][y])
			return ps->codes[k][x] < ps->codes[k][y] ? -1 : 1;
	}
	return 0;
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
 * and per value column of val_types the engine's results) by key again.
 */
void
gpuops_parallel_sort_piece(int nkeys, int nvals, const gpo_type *val_types,
						   int64 n, uint64 **codes, uint8 **valid,
						   int64 *rows, gpo_agg_out *vals)
{
	GpuopsPieceSort ps = {nkeys, codes, valid};
	int64	   *perm = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64		i;
	int			k;
	int			v;

	for (i = 0; i < n; i++)
		perm[i] = i;
	qsort_arg(perm, n, sizeof(int64), gpuops_piece_cmp, &ps);
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
