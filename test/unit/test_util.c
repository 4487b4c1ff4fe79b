/*
 * test_util.c
 *	  Shared pieces of the engine's unit tests: random numbers, partitions,
 *	  test-owned chunked vectors, and pass/fail bookkeeping.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_util.h"

int			total_passed = 0;
int			total_failed = 0;
int			total_skipped = 0;
bool		quick = false;
bool		have_gpu = false;
char		gpu_why[256] = "";

/* Failure messages printed per group at most. */
#define MAX_MESSAGES 8

static uint64_t rng_state = 1;

/* Seeds the generator. */
void
rng_seed(uint64_t seed)
{
	rng_state = seed;
}

/* Next 64 random bits (splitmix64). */
uint64_t
rng_next(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0). */
uint64_t
rng_below(uint64_t n)
{
	return rng_next() % n;
}

/* True with probability num / den. */
bool
rng_chance(uint64_t num, uint64_t den)
{
	return rng_below(den) < num;
}

/* Name of a partition kind. */
const char *
part_name(part_kind kind)
{
	static const char *const names[] = {
		"one chunk", "uneven", "leading empty", "interior empty",
		"trailing empty", "1-row chunks", "mixed empties"
	};

	return kind < PART_COUNT ? names[kind] : "?";
}

/* Appends len to the growing array lens. */
static void
push_len(int64_t **lens, int32_t *n, int32_t *cap, int64_t len)
{
	if (*n == *cap)
	{
		*cap = *cap ? *cap * 2 : 16;
		*lens = realloc(*lens, sizeof(int64_t) * *cap);
		if (*lens == NULL)
		{
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
	}
	(*lens)[(*n)++] = len;
}

/* Chunk lengths of kind over n rows; *nchunks gets their number (malloc'd). */
int64_t *
make_partition(part_kind kind, int64_t n, int32_t *nchunks)
{
	int64_t    *lens = NULL;
	int32_t		cnt = 0;
	int32_t		cap = 0;
	int64_t		left = n;
	int64_t		pieces = 1 + (int64_t) rng_below(12);
	int64_t		maxlen = n / pieces * 2 + 1;
	bool		interior = kind == PART_INTERIOR_EMPTY || kind == PART_MIXED;

	if (kind == PART_LEAD_EMPTY || kind == PART_MIXED)
		for (int k = 1 + (int) rng_below(3); k > 0; k--)
			push_len(&lens, &cnt, &cap, 0);
	if (kind == PART_ONE)
		push_len(&lens, &cnt, &cap, n);
	else if (kind == PART_ONES)
	{
		for (int64_t i = 0; i < n; i++)
			push_len(&lens, &cnt, &cap, 1);
	}
	else
	{
		while (left > 0)
		{
			int64_t		len = 1 + (int64_t) rng_below((uint64_t) maxlen);

			if (rng_chance(1, 4))
				len = 1 + (int64_t) rng_below(9);	/* short chunks often */
			if (len > left)
				len = left;
			push_len(&lens, &cnt, &cap, len);
			left -= len;
			if (interior && left > 0)
				for (int k = (int) rng_below(3); k > 0; k--)
					push_len(&lens, &cnt, &cap, 0);
		}
		/* an interior kind always has at least one empty chunk inside */
		if (interior && cnt > 0 && n > 0)
		{
			push_len(&lens, &cnt, &cap, 0);
			if (cnt >= 2)
			{
				int64_t		tmp = lens[cnt - 1];

				lens[cnt - 1] = lens[cnt - 2];
				lens[cnt - 2] = tmp;
			}
		}
	}
	if (kind == PART_TRAIL_EMPTY || kind == PART_MIXED)
		for (int k = 1 + (int) rng_below(3); k > 0; k--)
			push_len(&lens, &cnt, &cap, 0);
	if (cnt == 0)
		push_len(&lens, &cnt, &cap, 0);
	*nchunks = cnt;
	return lens;
}

/* Builds a vector of type with the given chunk lengths (data uninitialised). */
void
tvec_make(tvec *t, gpo_type type, const int64_t *lens, int32_t nchunks,
		  bool with_validity)
{
	size_t		w = gpo_type_size(type);

	t->v.type = type;
	t->v.nchunks = nchunks;
	t->v.chunks = calloc(nchunks > 0 ? nchunks : 1, sizeof(gpo_chunk));
	t->rows = 0;
	for (int32_t c = 0; c < nchunks; c++)
	{
		gpo_chunk  *ch = &t->v.chunks[c];

		ch->n = lens[c];
		t->rows += lens[c];
		ch->data = lens[c] > 0 ? malloc(w * lens[c]) : NULL;
		ch->validity = (with_validity && lens[c] > 0) ?
			malloc((lens[c] + 7) / 8) : NULL;
		if ((lens[c] > 0 && ch->data == NULL) ||
			(with_validity && lens[c] > 0 && ch->validity == NULL))
		{
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
	}
}

/* Builds a vector over rows of kind's partition. */
void
tvec_make_kind(tvec *t, gpo_type type, part_kind kind, int64_t rows,
			   bool with_validity)
{
	int32_t		nchunks;
	int64_t    *lens = make_partition(kind, rows, &nchunks);

	tvec_make(t, type, lens, nchunks, with_validity);
	free(lens);
}

/* Removes the bitmaps of some chunks of t, marking their rows valid in valid. */
void
tvec_drop_some_bitmaps(tvec *t, uint8_t *valid)
{
	int64_t		row = 0;

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		gpo_chunk  *ch = &t->v.chunks[c];

		if (ch->validity && rng_chance(1, 3))
		{
			free(ch->validity);
			ch->validity = NULL;
			memset(valid + row, 1, ch->n);
		}
		row += ch->n;
	}
}

/* A random partition kind for rows (1-row chunks only for small vectors). */
part_kind
random_kind(int64_t rows)
{
	part_kind	k;

	do
		k = (part_kind) rng_below(PART_COUNT);
	while (k == PART_ONES && rows > 70000);
	return k;
}

/* Copies flat values (and valid bytes, NULL = all valid) into t. */
void
tvec_fill(tvec *t, const void *flat, const uint8_t *valid)
{
	size_t		w = gpo_type_size(t->v.type);
	int64_t		row = 0;

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		gpo_chunk  *ch = &t->v.chunks[c];

		if (ch->n == 0)
			continue;
		memcpy(ch->data, (const char *) flat + row * w, ch->n * w);
		if (ch->validity)
		{
			memset(ch->validity, SENTINEL_BITS, (ch->n + 7) / 8);
			for (int64_t j = 0; j < ch->n; j++)
			{
				uint8_t		bit = (uint8_t) (1u << (j & 7));

				if (valid == NULL || valid[row + j])
					ch->validity[j >> 3] |= bit;
				else
					ch->validity[j >> 3] &= (uint8_t) ~bit;
			}
		}
		row += ch->n;
	}
}

/* Prefills every data byte and validity byte of t with the sentinels. */
void
tvec_sentinel(tvec *t)
{
	size_t		w = gpo_type_size(t->v.type);

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		gpo_chunk  *ch = &t->v.chunks[c];

		if (ch->n == 0)
			continue;
		memset(ch->data, SENTINEL_BYTE, ch->n * w);
		if (ch->validity)
			memset(ch->validity, SENTINEL_BITS, (ch->n + 7) / 8);
	}
}

/* Reads t's rows into flat (and valid bytes, if valid != NULL). */
void
tvec_read(const tvec *t, void *flat, uint8_t *valid)
{
	size_t		w = gpo_type_size(t->v.type);
	int64_t		row = 0;

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		const gpo_chunk *ch = &t->v.chunks[c];

		if (ch->n > 0)
			memcpy((char *) flat + row * w, ch->data, ch->n * w);
		if (valid)
			for (int64_t j = 0; j < ch->n; j++)
				valid[row + j] = gpo_valid(ch, j) ? 1 : 0;
		row += ch->n;
	}
}

/* True if every row of t from row on, and every bitmap padding bit, still holds the sentinels. */
bool
tvec_spare_untouched(const tvec *t, int64_t from)
{
	size_t		w = gpo_type_size(t->v.type);
	int64_t		row = 0;

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		const gpo_chunk *ch = &t->v.chunks[c];
		int64_t		nbits = (ch->n + 7) / 8 * 8;

		for (int64_t j = 0; j < ch->n; j++)
		{
			if (row + j < from)
				continue;
			for (size_t k = 0; k < w; k++)
				if (((const uint8_t *) ch->data)[j * w + k] != SENTINEL_BYTE)
					return false;
		}
		if (ch->validity)
			for (int64_t j = 0; j < nbits; j++)
			{
				bool		got = (ch->validity[j >> 3] >> (j & 7)) & 1;
				bool		want = (SENTINEL_BITS >> (j & 7)) & 1;

				if ((j >= ch->n || row + j >= from) && got != want)
					return false;
			}
		row += ch->n;
	}
	return true;
}

/* hb[r] = 1 if row r of t lies in a chunk with a validity bitmap. */
void
tvec_has_bits(const tvec *t, uint8_t *hb)
{
	int64_t		row = 0;

	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		memset(hb + row, t->v.chunks[c].validity != NULL, t->v.chunks[c].n);
		row += t->v.chunks[c].n;
	}
}

/* Frees t's chunks. */
void
tvec_free(tvec *t)
{
	for (int32_t c = 0; c < t->v.nchunks; c++)
	{
		free(t->v.chunks[c].data);
		free(t->v.chunks[c].validity);
	}
	free(t->v.chunks);
	memset(t, 0, sizeof(*t));
}

/* Seconds on a monotonic clock. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts a group. */
void
group_begin(tgroup *g, const char *name)
{
	memset(g, 0, sizeof(*g));
	g->name = name;
	g->started = now();
}

/* Ends a group: prints its line and adds to the totals. */
void
group_end(tgroup *g)
{
	if (g->gpu_skipped > 0)
		printf("SKIPPED: %s (no GPU: %s): %d GPU-face cases\n",
			   g->name, gpu_why, g->gpu_skipped);
	printf("%s %s: %d passed, %d failed, %d skipped (%.1f s)\n",
		   g->failed ? "FAIL" : "ok  ", g->name, g->passed, g->failed,
		   g->skipped + g->gpu_skipped, now() - g->started);
	fflush(stdout);
	total_passed += g->passed;
	total_failed += g->failed;
	total_skipped += g->skipped + g->gpu_skipped;
}

/* Records one case's outcome (ok) in g; prints msg on failure. */
void
case_result(tgroup *g, bool ok, const char *msg)
{
	if (ok)
	{
		g->passed++;
		return;
	}
	g->failed++;
	if (g->messages++ < MAX_MESSAGES)
		printf("  failed: %s: %s\n", g->name, msg);
}

/* Records that a GPU case could not run. */
void
gpu_skip(tgroup *g)
{
	g->gpu_skipped++;
}

/* Starts a case description. */
void
case_begin(tcase *c, const char *fmt,...)
{
	va_list		ap;

	c->ok = true;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

/* Fails case c (first failure's reason is kept) unless cond holds. */
bool
expect(tcase *c, bool cond, const char *fmt,...)
{
	va_list		ap;
	size_t		len;

	if (cond)
		return true;
	if (c->ok)
	{
		c->ok = false;
		len = strlen(c->msg);
		if (len + 3 < sizeof(c->msg))
		{
			strcat(c->msg, ": ");
			va_start(ap, fmt);
			vsnprintf(c->msg + len + 2, sizeof(c->msg) - len - 2, fmt, ap);
			va_end(ap);
		}
	}
	return false;
}

/* Prepares a context for a test run. */
void
test_ctx(gpo_ctx *ctx, gpo_device device, int threads)
{
	gpo_ctx_init(ctx);
	ctx->device = device;
	ctx->threads = threads;
}

/* PostgreSQL-order comparison of raw keys a, b (floats: NaNs equal, zeros equal if fold). */
int
key_cmp_raw(gpo_type t, uint64_t a, uint64_t b, bool fold_zero)
{
	double		x,
				y;

	if (t == GPO_INT32)
		return (int32_t) a < (int32_t) b ? -1 : (int32_t) a > (int32_t) b;
	if (t == GPO_UINT32)
		return (uint32_t) a < (uint32_t) b ? -1 : (uint32_t) a > (uint32_t) b;
	if (t == GPO_INT64)
		return (int64_t) a < (int64_t) b ? -1 : (int64_t) a > (int64_t) b;
	if (t == GPO_FLOAT32)
	{
		float		fx,
					fy;
		uint32_t	ua = (uint32_t) a,
					ub = (uint32_t) b;

		memcpy(&fx, &ua, 4);
		memcpy(&fy, &ub, 4);
		x = fx;
		y = fy;
	}
	else
	{
		memcpy(&x, &a, 8);
		memcpy(&y, &b, 8);
	}
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y) ? 0 : isnan(x) ? 1 : -1;
	if (x != y)
		return x < y ? -1 : 1;
	if (!fold_zero && x == 0)
		return signbit(x) == signbit(y) ? 0 : signbit(x) ? -1 : 1;
	return 0;
}

/* Canonical raw bits of a key (NaN -> quiet NaN, -0.0 -> 0.0); fold_zero says whether zeros fold. */
uint64_t
key_canon(gpo_type t, uint64_t r, bool fold_zero)
{
	if (t == GPO_FLOAT32)
	{
		uint32_t	u = (uint32_t) r;

		if ((u & 0x7fffffff) > 0x7f800000)
			return 0x7fc00000;
		return fold_zero && u == 0x80000000 ? 0 : u;
	}
	if (t == GPO_FLOAT64)
	{
		if ((r & UINT64_C(0x7fffffffffffffff)) > UINT64_C(0x7ff0000000000000))
			return UINT64_C(0x7ff8000000000000);
		return fold_zero && r == UINT64_C(0x8000000000000000) ? 0 : r;
	}
	return r;
}
