/*
 * test_util.h
 *	  Shared pieces of the engine's unit tests: random numbers, partitions,
 *	  test-owned chunked vectors, and pass/fail bookkeeping.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpo.h"

/* Byte every output data byte is prefilled with. */
#define SENTINEL_BYTE	0xA5
/* Byte every output validity byte is prefilled with. */
#define SENTINEL_BITS	0x5A

/* How a vector's rows are split into chunks. */
typedef enum part_kind
{
	PART_ONE = 0,				/* one chunk */
	PART_UNEVEN,				/* random lengths, no empty chunks */
	PART_LEAD_EMPTY,			/* empty chunks first, then uneven */
	PART_INTERIOR_EMPTY,		/* uneven with empty chunks between */
	PART_TRAIL_EMPTY,			/* uneven, then empty chunks */
	PART_ONES,					/* one row a chunk */
	PART_MIXED,					/* uneven, empties everywhere */
	PART_COUNT
} part_kind;

/* A vector owned by a test: every chunk is its own allocation. */
typedef struct tvec
{
	gpo_vector	v;
	int64_t		rows;			/* total rows (capacity for outputs) */
} tvec;

/* One test group's tallies. */
typedef struct tgroup
{
	const char *name;
	int			passed;
	int			failed;
	int			skipped;
	int			gpu_skipped;
	int			messages;		/* failure messages printed so far */
	double		started;		/* seconds, monotonic */
} tgroup;

/* Totals over all groups. */
extern int	total_passed;
extern int	total_failed;
extern int	total_skipped;
/* GPO_TEST_QUICK=1: skip the cases above 10M rows. */
extern bool quick;
/* True when a usable GPU is present (GPU cases run). */
extern bool have_gpu;
/* Why there is no GPU, for SKIPPED lines. */
extern char gpu_why[256];

/* Random numbers (splitmix64). */
extern void rng_seed(uint64_t seed);
extern uint64_t rng_next(void);
/* Uniform in [0, n) (n > 0). */
extern uint64_t rng_below(uint64_t n);
/* True with probability num / den. */
extern bool rng_chance(uint64_t num, uint64_t den);

/* Chunk lengths of kind over n rows; *nchunks gets their number (malloc'd). */
extern int64_t *make_partition(part_kind kind, int64_t n, int32_t *nchunks);
/* Name of a partition kind. */
extern const char *part_name(part_kind kind);

/* Builds a vector of type with the given chunk lengths (data uninitialised). */
extern void tvec_make(tvec *t, gpo_type type, const int64_t *lens,
					  int32_t nchunks, bool with_validity);
/* Builds a vector over rows of kind's partition. */
extern void tvec_make_kind(tvec *t, gpo_type type, part_kind kind,
						   int64_t rows, bool with_validity);
/* Removes the bitmaps of some chunks of t, marking their rows valid in valid. */
extern void tvec_drop_some_bitmaps(tvec *t, uint8_t *valid);
/* A random partition kind for rows (1-row chunks only for small vectors). */
extern part_kind random_kind(int64_t rows);
/* Copies flat values (and valid bytes, NULL = all valid) into t. */
extern void tvec_fill(tvec *t, const void *flat, const uint8_t *valid);
/* Prefills every data byte and validity byte of t with the sentinels. */
extern void tvec_sentinel(tvec *t);
/* Reads t's rows into flat (and valid bytes, if valid != NULL). */
extern void tvec_read(const tvec *t, void *flat, uint8_t *valid);
/* True if every row of t from row on, and every bitmap padding bit, still holds the sentinels. */
extern bool tvec_spare_untouched(const tvec *t, int64_t row);
/* hb[r] = 1 if row r of t lies in a chunk with a validity bitmap. */
extern void tvec_has_bits(const tvec *t, uint8_t *hb);
/* Frees t's chunks. */
extern void tvec_free(tvec *t);

/* Starts a group. */
extern void group_begin(tgroup *g, const char *name);
/* Ends a group: prints its line and adds to the totals. */
extern void group_end(tgroup *g);
/* Records one case's outcome (ok) in g; prints msg on failure. */
extern void case_result(tgroup *g, bool ok, const char *msg);
/* Records that a GPU case could not run. */
extern void gpu_skip(tgroup *g);

/* Per-case failure text buffer helpers. */
typedef struct tcase
{
	bool		ok;
	char		msg[512];
} tcase;

/* Starts a case description. */
extern void case_begin(tcase *c, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));
/* Fails case c (first failure's reason is kept) unless cond holds. */
extern bool expect(tcase *c, bool cond, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Prepares a context for a test run. */
extern void test_ctx(gpo_ctx *ctx, gpo_device device, int threads);

/* Test groups, one file each. */
extern void test_scan(void);
extern void test_compact(void);
extern void test_rle(void);
extern void test_dispatch(void);
extern void test_agg(void);
extern void test_histjoin(void);
extern void test_keypack(void);
extern void test_filter(void);
extern void test_transfer(void);

/* PostgreSQL-order comparison of non-NULL raw keys a, b of type t (floats: NaNs equal; zeros equal if fold_zero). */
extern int	key_cmp_raw(gpo_type t, uint64_t a, uint64_t b, bool fold_zero);
/* Canonical raw bits of a key (NaN -> quiet NaN; -0.0 -> 0.0 if fold_zero). */
extern uint64_t key_canon(gpo_type t, uint64_t r, bool fold_zero);

#endif							/* TEST_UTIL_H */
