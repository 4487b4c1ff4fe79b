/*
 * test_strdict.c
 *	  The string dictionary (gpo_strdict.h) against a naive reference: rows
 *	  draw strings from a pool in which string j is a distinct byte string
 *	  (the empty one, NUL and high bytes, lengths up to a few hundred), so
 *	  the expected code of a row is the rank of its string's first row over
 *	  all calls so far.  Calls of every size (0, 1, around the serial
 *	  threshold, 100K rows), 1 and 4 threads, rows without a string, the
 *	  limit error and bad arguments.  And the lengths of strings
 *	  (gpo_str_lengths) in bytes and in UTF-8 characters, trailing spaces
 *	  kept or dropped, against a reference that decodes each character;
 *	  and LIKE of strings (test_strlike.c).
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_strdict.h"
#include "test_util.h"

/* Pool strings: at most this many bytes each. */
#define POOL_MAX_LEN 300

/* Writes pool string j into buf; returns its length (distinct j, distinct strings). */
static int32_t
pool_string(int64_t j, char *buf)
{
	int32_t		len = 0;
	int32_t		pad;
	int32_t		k;

	if (j == 0)
		return 0;				/* the empty string */
	/* j in base 255, digits 1..255 (so NUL never appears among them) */
	for (int64_t v = j; v > 0; v /= 255)
		buf[len++] = (char) (1 + v % 255);
	/* then a NUL and a padding whose length depends on j */
	buf[len++] = 0;
	pad = (int32_t) ((j * 2654435761u) % (POOL_MAX_LEN - 16));
	for (k = 0; k < pad; k++)
		buf[len++] = (char) ('a' + (j + k) % 26);
	return len;
}

/* One run: calls of sizes sizes[] over a pool of npool strings. */
static void
strdict_case(tgroup *g, int threads, int64_t npool, const int64_t *sizes,
			 int ncalls, int null_pct)
{
	tcase		c;
	gpo_ctx		ctx;
	gpo_strdict *d = gpo_strdict_create();
	int32_t    *first = malloc(sizeof(int32_t) * npool);	/* code of j, or -1 */
	int64_t		next = 0;
	int			k;

	case_begin(&c, "strdict threads %d pool %lld null %d%%", threads,
			   (long long) npool, null_pct);
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	expect(&c, d != NULL, "create failed");
	for (int64_t j = 0; j < npool; j++)
		first[j] = -1;
	for (k = 0; d != NULL && k < ncalls && c.ok; k++)
	{
		int64_t		n = sizes[k];
		gpo_str    *strs = malloc(sizeof(gpo_str) * (n + 1));
		int64_t    *pick = malloc(sizeof(int64_t) * (n + 1));
		char	   *bytes = malloc((size_t) (n + 1) * POOL_MAX_LEN);
		int32_t    *codes = malloc(sizeof(int32_t) * (n + 1));
		gpo_status	st;

		for (int64_t i = 0; i < n; i++)
		{
			/* skewed: half the rows from the first few strings */
			pick[i] = rng_chance(1, 2) ? (int64_t) rng_below((npool < 8 ? npool : 8)) :
				(int64_t) rng_below((uint64_t) npool);
			if (rng_chance((uint64_t) null_pct, 100))
				pick[i] = -1;
			strs[i].data = pick[i] < 0 ? NULL : bytes + i * POOL_MAX_LEN;
			strs[i].len = pick[i] < 0 ? 7 : pool_string(pick[i], bytes + i * POOL_MAX_LEN);
		}
		st = gpo_strdict_encode(&ctx, d, n, strs, codes);
		expect(&c, st == GPO_OK, "call %d of %lld rows: status %d", k,
			   (long long) n, (int) st);
		for (int64_t i = 0; i < n && c.ok; i++)
		{
			int32_t		want;

			if (pick[i] < 0)
				want = 0;
			else
			{
				if (first[pick[i]] < 0)
					first[pick[i]] = (int32_t) next++;
				want = first[pick[i]];
			}
			expect(&c, codes[i] == want, "call %d row %lld: code %d, want %d",
				   k, (long long) i, codes[i], want);
		}
		expect(&c, gpo_strdict_count(d) == next, "count %lld, want %lld",
			   (long long) gpo_strdict_count(d), (long long) next);
		free(strs);
		free(pick);
		free(bytes);
		free(codes);
	}
	/* every code gives its string back */
	for (int64_t j = 0; d != NULL && j < npool && c.ok; j++)
	{
		char		buf[POOL_MAX_LEN];
		int32_t		len;
		gpo_str		s;

		if (first[j] < 0)
			continue;
		len = pool_string(j, buf);
		s = gpo_strdict_get(d, first[j]);
		expect(&c, s.data != NULL && s.len == len && memcmp(s.data, buf, len) == 0,
			   "string of code %d is not pool string %lld", first[j], (long long) j);
	}
	if (d != NULL)
	{
		expect(&c, gpo_strdict_get(d, (int32_t) next).data == NULL &&
			   gpo_strdict_get(d, -1).data == NULL, "a code out of range gave a string");
		expect(&c, gpo_strdict_bytes(d) > 0, "no bytes reported");
	}
	case_result(g, c.ok, c.msg);
	gpo_strdict_free(d);
	free(first);
}

/*
 * gpo_strdict_expect between calls: strings coded before it keep their
 * codes and are found after it moved them; new ones get the next codes.
 */
static void
strdict_expect(tgroup *g, int threads)
{
	enum
	{
		N = 6000
	};
	tcase		c;
	gpo_ctx		ctx;
	gpo_strdict *d = gpo_strdict_create();
	gpo_str    *strs = malloc(sizeof(gpo_str) * N);
	char	   *bytes = malloc((size_t) N * POOL_MAX_LEN);
	int32_t    *codes = malloc(sizeof(int32_t) * N);
	int			i;

	case_begin(&c, "strdict expect threads %d", threads);
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	for (i = 0; i < N; i++)
	{
		strs[i].data = bytes + (size_t) i * POOL_MAX_LEN;
		strs[i].len = pool_string(i, bytes + (size_t) i * POOL_MAX_LEN);
	}
	expect(&c, d != NULL && gpo_strdict_expect(d, -1) == GPO_ERR_INVALID &&
		   gpo_strdict_expect(NULL, 5) == GPO_ERR_INVALID, "bad arguments");
	/* the first half, then room for many, then all of them */
	expect(&c, gpo_strdict_encode(&ctx, d, N / 2, strs, codes) == GPO_OK, "first call");
	expect(&c, gpo_strdict_expect(d, 1 << 20) == GPO_OK, "expect");
	expect(&c, gpo_strdict_encode(&ctx, d, N, strs, codes) == GPO_OK, "second call");
	for (i = 0; i < N && c.ok; i++)
		expect(&c, codes[i] == i, "row %d: code %d", i, codes[i]);
	expect(&c, gpo_strdict_count(d) == N, "count %lld", (long long) gpo_strdict_count(d));
	case_result(g, c.ok, c.msg);
	gpo_strdict_free(d);
	free(strs);
	free(bytes);
	free(codes);
}

/* The limit, bad arguments, empty calls. */
static void
strdict_edges(tgroup *g)
{
	tcase		c;
	gpo_ctx		ctx;
	gpo_strdict *d = gpo_strdict_create();
	gpo_str		s[3] = {{"a", 1}, {"b", 1}, {"c", 1}};
	gpo_str		bad = {"x", -1};
	int32_t		codes[3];

	case_begin(&c, "strdict edges");
	test_ctx(&ctx, GPO_DEVICE_CPU, 2);
	expect(&c, gpo_strdict_encode(&ctx, d, 0, NULL, NULL) == GPO_OK, "empty call failed");
	expect(&c, gpo_strdict_encode(&ctx, NULL, 1, s, codes) == GPO_ERR_INVALID, "NULL dictionary");
	expect(&c, gpo_strdict_encode(&ctx, d, -1, s, codes) == GPO_ERR_INVALID, "negative rows");
	expect(&c, gpo_strdict_encode(&ctx, d, 1, &bad, codes) == GPO_ERR_INVALID, "negative length");
	expect(&c, gpo_strdict_count(d) == 0, "bad calls added strings");
	gpo_strdict_set_limit(d, 2);
	expect(&c, gpo_strdict_encode(&ctx, d, 3, s, codes) == GPO_ERR_CAPACITY,
		   "a third string past a limit of 2 was taken");
	expect(&c, gpo_strdict_count(d) == 2, "count after the limit: %lld",
		   (long long) gpo_strdict_count(d));
	/* still usable: known strings code, the same as before */
	expect(&c, gpo_strdict_encode(&ctx, d, 2, s, codes) == GPO_OK &&
		   codes[0] == 0 && codes[1] == 1, "known strings after the limit");
	expect(&c, gpo_strdict_encode(NULL, d, 1, &s[1], codes) == GPO_OK &&
		   codes[0] == 1, "a call without a context");
	case_result(g, c.ok, c.msg);
	gpo_strdict_free(d);
	gpo_strdict_free(NULL);
}

/* Writes a random valid UTF-8 string into buf (at most 4 * chars bytes); returns its bytes. */
static int32_t
utf8_string(char *buf, int chars)
{
	int32_t		len = 0;
	int			k;

	for (k = 0; k < chars; k++)
	{
		uint64_t	r = rng_below(10);

		if (r < 3)
			buf[len++] = ' ';	/* spaces anywhere, trailing ones too */
		else if (r < 6)
			buf[len++] = (char) (0x21 + rng_below(0x5E));
		else if (r < 8)
		{
			uint32_t	cp = 0x80 + (uint32_t) rng_below(0x780);	/* 2 bytes */

			buf[len++] = (char) (0xC0 | cp >> 6);
			buf[len++] = (char) (0x80 | (cp & 0x3F));
		}
		else if (r < 9)
		{
			uint32_t	cp = 0x800 + (uint32_t) rng_below(0xD000);	/* 3 bytes */

			buf[len++] = (char) (0xE0 | cp >> 12);
			buf[len++] = (char) (0x80 | (cp >> 6 & 0x3F));
			buf[len++] = (char) (0x80 | (cp & 0x3F));
		}
		else
		{
			uint32_t	cp = 0x10000 + (uint32_t) rng_below(0x100000);	/* 4 bytes */

			buf[len++] = (char) (0xF0 | cp >> 18);
			buf[len++] = (char) (0x80 | (cp >> 12 & 0x3F));
			buf[len++] = (char) (0x80 | (cp >> 6 & 0x3F));
			buf[len++] = (char) (0x80 | (cp & 0x3F));
		}
	}
	return len;
}

/* The reference: characters of a valid UTF-8 string, by each lead byte's width. */
static int32_t
utf8_chars(const char *s, int32_t len)
{
	int32_t		chars = 0;
	int32_t		i = 0;

	while (i < len)
	{
		uint8_t		b = (uint8_t) s[i];

		i += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
		chars++;
	}
	return chars;
}

/* gpo_str_lengths over n random strings (some NULL), every mode and trim. */
static void
strlen_case(tgroup *g, int threads, int64_t n)
{
	tcase		c;
	gpo_ctx		ctx;
	gpo_str    *strs = malloc(sizeof(gpo_str) * (n + 1));
	char	   *bytes = malloc((size_t) (n + 1) * 4 * 40);
	int32_t    *lens = malloc(sizeof(int32_t) * (n + 1));
	int			mode;
	int			trim;

	case_begin(&c, "str_lengths threads %d rows %lld", threads, (long long) n);
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	for (int64_t i = 0; i < n; i++)
	{
		strs[i].data = rng_chance(1, 10) ? NULL : bytes + i * 160;
		strs[i].len = strs[i].data == NULL ? 3 :
			utf8_string(bytes + i * 160, (int) rng_below(40));
	}
	for (mode = 0; mode < 2; mode++)
		for (trim = 0; trim < 2; trim++)
		{
			gpo_status	st = gpo_str_lengths(&ctx, n, strs, mode, trim, lens);

			expect(&c, st == GPO_OK, "mode %d trim %d: status %d", mode, trim, (int) st);
			for (int64_t i = 0; i < n && c.ok; i++)
			{
				int32_t		len = strs[i].len;
				int32_t		want;

				if (strs[i].data == NULL)
					want = 0;
				else
				{
					while (trim && len > 0 && strs[i].data[len - 1] == ' ')
						len--;
					want = mode == GPO_STRLEN_BYTES ? len : utf8_chars(strs[i].data, len);
				}
				expect(&c, lens[i] == want, "mode %d trim %d row %lld: %d, want %d",
					   mode, trim, (long long) i, lens[i], want);
			}
		}
	case_result(g, c.ok, c.msg);
	free(strs);
	free(bytes);
	free(lens);
}

/* gpo_str_lengths' bad arguments and empty calls. */
static void
strlen_edges(tgroup *g)
{
	tcase		c;
	gpo_str		s[2] = {{"ab  ", 4}, {"x", -1}};
	int32_t		lens[2];

	case_begin(&c, "str_lengths edges");
	expect(&c, gpo_str_lengths(NULL, 0, NULL, GPO_STRLEN_BYTES, 0, NULL) == GPO_OK,
		   "empty call failed");
	expect(&c, gpo_str_lengths(NULL, -1, s, GPO_STRLEN_BYTES, 0, lens) == GPO_ERR_INVALID,
		   "negative rows");
	expect(&c, gpo_str_lengths(NULL, 2, s, GPO_STRLEN_BYTES, 0, lens) == GPO_ERR_INVALID,
		   "negative length");
	expect(&c, gpo_str_lengths(NULL, 1, s, 7, 0, lens) == GPO_ERR_INVALID, "unknown mode");
	expect(&c, gpo_str_lengths(NULL, 1, s, GPO_STRLEN_UTF8, 1, lens) == GPO_OK &&
		   lens[0] == 2, "trimmed length of 'ab  ': %d", lens[0]);
	case_result(g, c.ok, c.msg);
}

/*
 * gpo_str_lengths over long strings: runs of continuation bytes past the
 * 255 steps (2,040 bytes) a counter byte may take, and long valid UTF-8.
 */
static void
strlen_long(tgroup *g)
{
	static const int32_t sizes[] = {2039, 2040, 2041, 2047, 2048, 2049, 4081,
	8200};
	enum
	{
		NSIZES = sizeof(sizes) / sizeof(sizes[0])
	};
	tcase		c;
	gpo_str		strs[NSIZES * 2];
	char	   *bytes = malloc((size_t) NSIZES * 2 * 8200);
	int32_t		lens[NSIZES * 2];
	int			i;

	case_begin(&c, "str_lengths long strings");
	for (i = 0; i < NSIZES; i++)
	{
		char	   *run = bytes + (size_t) i * 2 * 8200;
		char	   *text = run + 8200;

		/* a lead byte, then continuation bytes only */
		run[0] = (char) 0xC2;
		memset(run + 1, 0x80, sizes[i] - 1);
		strs[2 * i].data = run;
		strs[2 * i].len = sizes[i];
		strs[2 * i + 1].data = text;
		strs[2 * i + 1].len = utf8_string(text, sizes[i] / 4);
	}
	expect(&c, gpo_str_lengths(NULL, NSIZES * 2, strs, GPO_STRLEN_UTF8, 0,
							   lens) == GPO_OK, "status");
	for (i = 0; i < NSIZES && c.ok; i++)
	{
		expect(&c, lens[2 * i] == 1, "%d bytes of one lead byte and its "
			   "continuations: %d characters, want 1", sizes[i], lens[2 * i]);
		expect(&c, lens[2 * i + 1] == utf8_chars(strs[2 * i + 1].data,
												 strs[2 * i + 1].len),
			   "%d characters of UTF-8: counted %d", sizes[i] / 4,
			   lens[2 * i + 1]);
	}
	case_result(g, c.ok, c.msg);
	free(bytes);
}

/* gpo_str_like's cases (test_strlike.c). */
extern void test_strlike_cases(tgroup *g);

/* The string dictionary's group. */
void
test_strdict(void)
{
	tgroup		g;
	static const int64_t small[] = {0, 1, 2, 5, 64, 65, 100, 4095, 4096, 4097};
	/* the last call looks up strings the table placed again as it grew */
	int64_t		big[5] = {100000, 1, 30000, 250000, 60000};
	int			threads[2] = {1, 4};
	int			t;

	group_begin(&g, "strdict");
	strdict_edges(&g);
	strlen_edges(&g);
	strlen_long(&g);
	test_strlike_cases(&g);
	for (t = 0; t < 2; t++)
	{
		strdict_case(&g, threads[t], 1, small, 10, 0);
		strdict_case(&g, threads[t], 50, small, 10, 10);
		strdict_case(&g, threads[t], 3000, big, quick ? 2 : 5, 5);
		/* many distinct strings: the table grows during calls */
		strdict_case(&g, threads[t], 200000, big, 5, 0);
		strdict_expect(&g, threads[t]);
		strlen_case(&g, threads[t], 0);
		strlen_case(&g, threads[t], 2048);	/* one thread counts them */
		strlen_case(&g, threads[t], 2049);	/* two pieces */
		strlen_case(&g, threads[t], 5000);
		strlen_case(&g, threads[t], 100000);
	}
	group_end(&g);
}
