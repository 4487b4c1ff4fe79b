/*
 * strlen.c
 *	  The lengths of many strings (gpo_strdict.h): in bytes or in UTF-8
 *	  characters, trailing spaces dropped or kept, for the text columns of
 *	  which a query wants only length(), char_length() or octet_length().
 *
 * Plain C11 + OpenMP.  The rows are cut into pieces the threads take as
 * they come, as strdict.c's lookups are.
 */
#include <string.h>

#include "gpo_str_internal.h"

/* Rows below which one thread counts them all. */
#define STRLEN_SERIAL_ROWS	2048
/* Fewest rows of a piece. */
#define STRLEN_ROWS_PER_PIECE 1024
/* Rows ahead whose bytes are fetched into the cache. */
#define STRLEN_AHEAD		16

/* The length of one string (not NULL) as mode and trim say. */
static inline int32_t
str_length(const char *data, int32_t len, int mode, int trim)
{
	int32_t		chars = 0;
	int32_t		i;

	if (trim)
		while (len > 0 && data[len - 1] == ' ')
			len--;
	if (mode == GPO_STRLEN_BYTES)
		return len;
	/*
	 * A character is a byte that does not continue one (10xxxxxx): 8 bytes
	 * a step, the continuation bytes marked in their top bits, moved to
	 * their bytes' low bits and added up byte by byte (at most 255 steps
	 * before a byte could overflow), then summed across the bytes: pairs
	 * into 16-bit lanes, the lanes with a multiply.  Byte by byte,
	 * avg(length(url)) over 1M rows spent a quarter of its time here;
	 * __builtin_popcountll was a library call where the build targets no
	 * POPCNT instruction (2-core build machine, perf).
	 */
	chars = len;
	i = 0;
	while (i + 8 <= len)
	{
		uint64_t	acc = 0;
		int			steps = 0;

		for (; i + 8 <= len && steps < 255; i += 8, steps++)
		{
			uint64_t	w;

			memcpy(&w, data + i, 8);
			acc += (w & ~(w << 1) & 0x8080808080808080ull) >> 7;
		}
		acc = (acc & 0x00FF00FF00FF00FFull) +
			((acc >> 8) & 0x00FF00FF00FF00FFull);
		chars -= (int32_t) ((acc * 0x0001000100010001ull) >> 48);
	}
	for (; i < len; i++)
		chars -= ((uint8_t) data[i] & 0xC0) == 0x80;
	return chars;
}

/* What a piece of gpo_str_lengths needs. */
typedef struct strlen_args
{
	const gpo_str *strs;
	int			mode;
	int			trim;
	int32_t    *lens;
} strlen_args;

/* Lengths of rows lo .. hi - 1 (a gpo_rows_fn over strlen_args). */
static void
str_lengths_range(void *arg, int64_t lo, int64_t hi)
{
	const strlen_args *a = (const strlen_args *) arg;
	int64_t		i;

	for (i = lo; i < hi; i++)
	{
		/*
		 * The strings lie in the table's pages, out of the caches by the
		 * time a batch's lengths are counted: fetch them some rows ahead.
		 * Without it, 87% of this loop's samples stalled on the first load
		 * (2-core build machine, perf).
		 */
		if (i + STRLEN_AHEAD < hi)
			gpo_prefetch_str(a->strs[i + STRLEN_AHEAD].data);
		a->lens[i] = a->strs[i].data == NULL ? 0 :
			str_length(a->strs[i].data, a->strs[i].len, a->mode, a->trim);
	}
}

/* The lengths of n strings (see gpo_strdict.h). */
gpo_status
gpo_str_lengths(gpo_ctx *ctx, int64_t n, const gpo_str *strs, int mode,
				int trim, int32_t *lens)
{
	strlen_args a = {strs, mode, trim, lens};

	if (n < 0 || (n > 0 && (strs == NULL || lens == NULL)) ||
		(mode != GPO_STRLEN_BYTES && mode != GPO_STRLEN_UTF8) ||
		!gpo_strs_valid(n, strs))
		return GPO_ERR_INVALID;
	gpo_run_pieces(ctx, n, STRLEN_SERIAL_ROWS, STRLEN_ROWS_PER_PIECE,
				   str_lengths_range, &a);
	return GPO_OK;
}
