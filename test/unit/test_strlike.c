/*
 * test_strlike.c
 *	  LIKE of many strings (gpo_str_like) against a reference that matches
 *	  a pattern token by token, '%' by trying every split: random strings
 *	  over a few bytes and UTF-8 characters, so that pieces often match,
 *	  patterns cut from them or drawn anew with '%' anywhere (leading,
 *	  trailing, doubled, alone), the empty string and pattern, rows without
 *	  a string, 1 and 4 threads, sizes around the serial threshold, and bad
 *	  arguments.  Part of the strdict group (test_strdict.c).
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_strdict.h"
#include "test_util.h"

/* Most pieces a test pattern has. */
#define LIKE_MAX_PIECES 5

/* The reference: does s (slen bytes) match the pieces from k on, a '%' before each but the first? */
static bool
like_ref(const char *s, int32_t slen, const gpo_str *pieces, int npieces, int k)
{
	const gpo_str *p = &pieces[k];

	if (k == 0)
	{
		if (slen < p->len || memcmp(s, p->data, (size_t) p->len) != 0)
			return false;
		if (npieces == 1)
			return slen == p->len;
		return like_ref(s + p->len, slen - p->len, pieces, npieces, 1);
	}
	/* '%' then piece k: try every place */
	for (int32_t at = 0; at + p->len <= slen; at++)
		if (memcmp(s + at, p->data, (size_t) p->len) == 0)
		{
			if (k == npieces - 1)
			{
				if (at + p->len == slen)
					return true;
			}
			else if (like_ref(s + at + p->len, slen - at - p->len, pieces,
							  npieces, k + 1))
				return true;
		}
	return false;
}

/* Appends one random character (a, b, c, é or 東) to buf; returns its bytes. */
static int32_t
like_char(char *buf)
{
	switch (rng_below(5))
	{
		case 0:
			buf[0] = 'a';
			return 1;
		case 1:
			buf[0] = 'b';
			return 1;
		case 2:
			buf[0] = 'c';
			return 1;
		case 3:
			memcpy(buf, "\xC3\xA9", 2);
			return 2;
		default:
			memcpy(buf, "\xE6\x9D\xB1", 3);
			return 3;
	}
}

/* A random string of up to max characters into buf; returns its bytes. */
static int32_t
like_string(char *buf, int max)
{
	int			chars = (int) rng_below((uint64_t) max + 1);
	int32_t		len = 0;

	for (int k = 0; k < chars; k++)
		len += like_char(buf + len);
	return len;
}

/* A random pattern into pieces (their bytes in buf); returns the piece count. */
static int
like_pattern(gpo_str *pieces, char *buf, const gpo_str *from)
{
	int			n = 1 + (int) rng_below(LIKE_MAX_PIECES);
	int32_t		used = 0;

	for (int k = 0; k < n; k++)
	{
		pieces[k].data = buf + used;
		if (from->data != NULL && from->len > 0 && rng_chance(1, 2))
		{
			/* a run of whole characters of a row's string */
			int32_t		lo = (int32_t) rng_below((uint64_t) from->len);
			int32_t		hi;

			while (lo > 0 && ((uint8_t) from->data[lo] & 0xC0) == 0x80)
				lo--;
			hi = lo + (int32_t) rng_below(4);
			if (hi > from->len)
				hi = from->len;
			while (hi < from->len && ((uint8_t) from->data[hi] & 0xC0) == 0x80)
				hi++;
			memcpy(buf + used, from->data + lo, (size_t) (hi - lo));
			pieces[k].len = hi - lo;
		}
		else
			pieces[k].len = like_string(buf + used, 2);
		used += pieces[k].len;
	}
	return n;
}

/* gpo_str_like over n random strings against several random patterns. */
static void
strlike_case(tgroup *g, int threads, int64_t n)
{
	tcase		c;
	gpo_ctx		ctx;
	gpo_str    *strs = malloc(sizeof(gpo_str) * (n + 1));
	char	   *bytes = malloc((size_t) (n + 1) * 3 * 12);
	int32_t    *out = malloc(sizeof(int32_t) * (n + 1));
	int64_t		hits = 0;

	case_begin(&c, "str_like threads %d rows %lld", threads, (long long) n);
	test_ctx(&ctx, GPO_DEVICE_CPU, threads);
	for (int64_t i = 0; i < n; i++)
	{
		strs[i].data = rng_chance(1, 10) ? NULL : bytes + i * 36;
		strs[i].len = strs[i].data == NULL ? 5 :
			like_string(bytes + i * 36, (int) rng_below(12));
	}
	for (int t = 0; t < 20 && c.ok; t++)
	{
		gpo_str		pieces[LIKE_MAX_PIECES];
		char		pbuf[LIKE_MAX_PIECES * 12];
		gpo_like	pat;
		gpo_status	st;

		pat.pieces = pieces;
		pat.npieces = like_pattern(pieces, pbuf, n > 0 ? &strs[rng_below((uint64_t) n)] :
								   &(gpo_str) {NULL, 0});
		st = gpo_str_like(&ctx, n, strs, &pat, out);
		expect(&c, st == GPO_OK, "pattern %d: status %d", t, (int) st);
		for (int64_t i = 0; i < n && c.ok; i++)
		{
			int32_t		want = strs[i].data != NULL &&
				like_ref(strs[i].data, strs[i].len, pieces, pat.npieces, 0);

			hits += want;
			expect(&c, out[i] == want, "pattern %d (%d pieces) row %lld: %d, want %d",
				   t, pat.npieces, (long long) i, out[i], want);
		}
	}
	/* the patterns cut from the rows match some of them */
	expect(&c, n < 1000 || hits > 0, "no row matched any pattern");
	case_result(g, c.ok, c.msg);
	free(strs);
	free(bytes);
	free(out);
}

/* gpo_str_like's fixed cases, bad arguments and empty calls. */
static void
strlike_edges(tgroup *g)
{
	tcase		c;
	gpo_str		s[5] = {{"abcab", 5}, {"", 0}, {"ab", 2}, {NULL, 0}, {"aXbXa", 5}};
	gpo_str		bad[1] = {{"x", -1}};
	gpo_str		p_ab_ab[3] = {{"ab", 2}, {"", 0}, {"ab", 2}};	/* 'ab%%ab' */
	gpo_str		p_any[2] = {{"", 0}, {"", 0}};	/* '%' */
	gpo_str		p_empty[1] = {{"", 0}}; /* '' */
	gpo_str		p_a_b_a[3] = {{"a", 1}, {"b", 1}, {"a", 1}};	/* 'a%b%a' */
	gpo_like	pat;
	int32_t		out[5];

	case_begin(&c, "str_like edges");
	pat.pieces = p_ab_ab;
	pat.npieces = 3;
	expect(&c, gpo_str_like(NULL, 0, NULL, &pat, NULL) == GPO_OK, "empty call failed");
	expect(&c, gpo_str_like(NULL, -1, s, &pat, out) == GPO_ERR_INVALID, "negative rows");
	expect(&c, gpo_str_like(NULL, 1, bad, &pat, out) == GPO_ERR_INVALID, "negative length");
	expect(&c, gpo_str_like(NULL, 1, s, NULL, out) == GPO_ERR_INVALID, "no pattern");
	pat.npieces = 0;
	expect(&c, gpo_str_like(NULL, 1, s, &pat, out) == GPO_ERR_INVALID, "no piece");
	/* 'ab%%ab': the prefix and the suffix may not overlap */
	pat.npieces = 3;
	expect(&c, gpo_str_like(NULL, 5, s, &pat, out) == GPO_OK &&
		   out[0] == 1 && out[1] == 0 && out[2] == 0 && out[3] == 0 && out[4] == 0,
		   "'ab%%ab': %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
	pat.pieces = p_any;
	pat.npieces = 2;
	expect(&c, gpo_str_like(NULL, 5, s, &pat, out) == GPO_OK &&
		   out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == 0 && out[4] == 1,
		   "'%%': %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
	pat.pieces = p_empty;
	pat.npieces = 1;
	expect(&c, gpo_str_like(NULL, 5, s, &pat, out) == GPO_OK &&
		   out[0] == 0 && out[1] == 1 && out[2] == 0 && out[3] == 0 && out[4] == 0,
		   "'': %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
	pat.pieces = p_a_b_a;
	pat.npieces = 3;
	expect(&c, gpo_str_like(NULL, 5, s, &pat, out) == GPO_OK &&
		   out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0 && out[4] == 1,
		   "'a%%b%%a': %d %d %d %d %d", out[0], out[1], out[2], out[3], out[4]);
	case_result(g, c.ok, c.msg);
}

/* gpo_str_like's cases, in the strdict group. */
void
test_strlike_cases(tgroup *g)
{
	static const int64_t sizes[] = {0, 1, 2047, 2048, 2049, 5000, 100000};
	int			threads[2] = {1, 4};

	strlike_edges(g);
	for (int t = 0; t < 2; t++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			strlike_case(g, threads[t], sizes[k]);
}
