/*
 * gpo_strdict.h
 *	  A string dictionary: byte strings -> dense int32 codes, in first-seen
 *	  order, for grouping keys the devices can only group as integers.
 *
 * Plain C11 + OpenMP; never includes postgres.h.  Equal byte strings get
 * equal codes and only they, so grouping by the code is grouping by the
 * string under any collation whose equality is byte equality.  A call
 * hashes and looks up its strings with the context's threads (the table is
 * only read then), then adds the strings it did not find on the calling
 * thread, in row order: so the codes do not depend on the threads.  The
 * dictionary keeps its own copy of every string.  Host only: the codes,
 * not the strings, go to a device.
 */
#ifndef GPO_STRDICT_H
#define GPO_STRDICT_H

#include "gpo.h"

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct gpo_strdict gpo_strdict; /* opaque */

/* One string: len bytes at data; data NULL stands for no string. */
typedef struct gpo_str
{
	const char *data;
	int32_t		len;
} gpo_str;

/* An empty dictionary (malloc'd), or NULL when memory is short. */
extern gpo_strdict *gpo_strdict_create(void);

/*
 * Makes room at once for strings more distinct strings (a caller's
 * estimate: more may come, and the dictionary grows as it would have), so
 * that the table is not doubled on the way.  Errors: GPO_ERR_INVALID (d
 * NULL, strings negative), GPO_ERR_NOMEM (the dictionary stays as it was,
 * and usable).
 */
extern gpo_status gpo_strdict_expect(gpo_strdict *d, int64_t strings);

/* Frees the dictionary and its strings (NULL is fine). */
extern void gpo_strdict_free(gpo_strdict *d);

/*
 * codes[i] = the code of strs[i] for i < n, adding the strings not yet in
 * the dictionary with the next codes, in row order; a row whose data is
 * NULL gets code 0 and adds nothing.  Errors: GPO_ERR_INVALID (arguments,
 * a negative length), GPO_ERR_NOMEM, GPO_ERR_CAPACITY (more distinct
 * strings than the dictionary's limit, INT32_MAX unless set lower): then
 * the strings of rows before the failing one may have been added, codes
 * is undefined, and the dictionary stays usable.
 */
extern gpo_status gpo_strdict_encode(gpo_ctx *ctx, gpo_strdict *d, int64_t n,
									 const gpo_str *strs, int32_t *codes);

/* What gpo_str_lengths counts. */
typedef enum gpo_strlen_mode
{
	GPO_STRLEN_BYTES = 0,		/* bytes */
	GPO_STRLEN_UTF8				/* UTF-8 characters: the bytes that do not
								 * continue a character (not 10xxxxxx) */
} gpo_strlen_mode;

/*
 * lens[i] = the length of strs[i] for i < n, counted as mode says, after
 * dropping its trailing spaces (0x20) when trim is set (the length of a
 * char(n) value); 0 where data is NULL.  The strings must be valid in
 * their encoding (a character's bytes are not split).  CPU only, with the
 * context's threads (ctx NULL: one).  Errors: GPO_ERR_INVALID (arguments,
 * a negative length, an unknown mode).
 */
extern gpo_status gpo_str_lengths(gpo_ctx *ctx, int64_t n, const gpo_str *strs,
								  int mode, int trim, int32_t *lens);

/*
 * A LIKE pattern of literal bytes and '%' only: its pieces between the
 * '%'s, in order (npieces = the '%'s + 1; a piece may be empty).  A string
 * matches when it starts with the first piece, ends with the last, and
 * holds the others in order between them without overlap; with one piece,
 * when it equals it.
 */
typedef struct gpo_like
{
	int			npieces;
	const gpo_str *pieces;
} gpo_like;

/*
 * out[i] = 1 where strs[i] matches pat, else 0 (0 where data is NULL), for
 * i < n, comparing bytes: PostgreSQL's LIKE where the encoding is UTF-8 or
 * of one byte a character (a piece then matches only at a character's
 * start) and the collation deterministic.  CPU only, with the context's
 * threads (ctx NULL: one).  Errors: GPO_ERR_INVALID (arguments, a negative
 * length, no piece).
 */
extern gpo_status gpo_str_like(gpo_ctx *ctx, int64_t n, const gpo_str *strs,
							   const gpo_like *pat, int32_t *out);

/* Distinct strings held (the next code). */
extern int64_t gpo_strdict_count(const gpo_strdict *d);

/*
 * The string of code (data NULL when code is not one); valid until the
 * next gpo_strdict_encode or gpo_strdict_free.
 */
extern gpo_str gpo_strdict_get(const gpo_strdict *d, int32_t code);

/* Bytes the dictionary holds (strings and table). */
extern size_t gpo_strdict_bytes(const gpo_strdict *d);

/* Lowers the most distinct strings the dictionary takes (for tests). */
extern void gpo_strdict_set_limit(gpo_strdict *d, int64_t max_codes);

#ifdef __cplusplus
}
#endif

#endif							/* GPO_STRDICT_H */
