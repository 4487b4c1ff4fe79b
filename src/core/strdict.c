/*
 * strdict.c
 *	  The string dictionary (gpo_strdict.h): an open-addressing table of
 *	  codes over one byte arena holding the strings.
 *
 * Each slot is one 64-bit word: the low 32 bits of the string's hash, and
 * its code + 1 (0: empty), probed linearly from the slot the hash's top
 * bits name; the table is kept at most half full.  A code's offset, length
 * and high hash bits sit together in one entry, so that a lookup misses the
 * cache three times (slot, entry, bytes) rather than four, and the table
 * grows without hashing its strings again: a slot keeps its low bits, the
 * entry gives the top bits of its new place.  A caller that knows how many
 * strings will come makes room for them at once (gpo_strdict_expect).
 *
 * gpo_strdict_encode hashes and looks up its rows with the context's
 * threads, taking pieces as they come (the table is read only), then makes
 * room for every row not found at once and adds them in row order: a few
 * on the calling thread (looking each up again, since an earlier row of the
 * call may have added it, in the probe that finds its empty slot), many
 * with the threads (strdict_add_parallel).  Lookups take rows a group at a
 * time (see strdict_lookup_range).
 *
 * Measured on the 2-core build machine: 250,000 distinct strings of 30-200
 * bytes coded into a dictionary of 160,000 (150,000 of them new) took
 * 737-771 ns a string on one thread before the entries, the grouped
 * lookups and the room made at once, 670-686 ns after; the same count of
 * strings, all but a few known, 161-173 ms before, 100 ms after (68-71 ms
 * on 2 threads, 105-113 ms before).  3.3M rows of 400,000 strings of 60-120
 * bytes in calls of 27,000 rows on 2 threads: 648-848 ms with the strings
 * hashed again as the table doubled and added on one thread, 548-635 ms
 * with neither (a noisy machine: best of 3, three runs each).
 * The strings' own hash is written here: a 64-bit multiply-rotate over
 * 8-byte words and murmur3's finalizer.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_str_internal.h"

/* Slots of a new table: 2^STRDICT_INIT_LOG2. */
#define STRDICT_INIT_LOG2	10
#define STRDICT_INIT_SLOTS	(1 << STRDICT_INIT_LOG2)
/* Rows a call looks up on the calling thread alone. */
#define STRDICT_SERIAL_ROWS 4096
/*
 * Fewest rows a piece of a threaded lookup takes.  Each lookup reads a
 * string that is cold (in a page the caller just pinned): far more work
 * per row than the engine's blocks of gpo_rows_per_block assume.  A page
 * batch of a 105-column table holds some 27,000 rows, which the blocks
 * cut into 2 pieces, leaving 14 of the H200 machine's 16 threads idle.
 */
#define STRDICT_ROWS_PER_PIECE 1024

/* Where a code's string is. */
typedef struct strdict_entry
{
	int64_t		off;			/* offset in bytes */
	int32_t		len;			/* length */
	uint32_t	hi;				/* its hash's high 32 bits */
} strdict_entry;

struct gpo_strdict
{
	uint64_t   *slots;			/* [mask + 1]: hash low bits << 32 | code + 1 */
	uint64_t	mask;
	int			shift;			/* 64 - log2(mask + 1): a hash's home slot is
								 * its top bits, h >> shift */
	int64_t		count;			/* strings held; the next code */
	int64_t		limit;			/* most strings */
	int64_t		empty_code;		/* the empty string's code, -1: none yet */
	strdict_entry *ents;		/* [cap] each code's string */
	int64_t		cap;
	char	   *bytes;			/* the strings, one after the other */
	int64_t		nbytes;
	int64_t		bytes_cap;
};

/* 64-bit rotate left. */
static inline uint64_t
strdict_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* The hash of len bytes at p. */
static inline uint64_t
strdict_hash(const char *p, int32_t len)
{
	uint64_t	h = 0x9E3779B97F4A7C15ull ^ ((uint64_t) len * 0xC2B2AE3D27D4EB4Full);
	uint64_t	w;

	while (len >= 8)
	{
		memcpy(&w, p, 8);
		h = strdict_rotl(h ^ (w * 0xFF51AFD7ED558CCDull), 31) * 0x87C37B91114253D5ull;
		p += 8;
		len -= 8;
	}
	if (len > 0)
	{
		w = 0;
		memcpy(&w, p, (size_t) len);
		h = strdict_rotl(h ^ (w * 0xFF51AFD7ED558CCDull), 31) * 0x87C37B91114253D5ull;
	}
	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDull;
	h ^= h >> 33;
	h *= 0xC4CEB9FE1A85EC53ull;
	h ^= h >> 33;
	return h;
}

/* The slot where a string of hash h is looked for first. */
static inline uint64_t
strdict_home(const gpo_strdict *d, uint64_t h)
{
	return h >> d->shift;
}

/* The code of string s of hash h, or -1 if the dictionary lacks it. */
static inline int64_t
strdict_find(const gpo_strdict *d, uint64_t h, const gpo_str *s)
{
	uint32_t	tag = (uint32_t) h;
	uint64_t	i = strdict_home(d, h);

	for (;;)
	{
		uint64_t	slot = d->slots[i];
		int64_t		code;

		if (slot == 0)
			return -1;
		code = (int64_t) (uint32_t) slot - 1;
		if ((uint32_t) (slot >> 32) == tag && d->ents[code].len == s->len &&
			memcmp(d->bytes + d->ents[code].off, s->data, (size_t) s->len) == 0)
			return code;
		i = (i + 1) & d->mask;
	}
}

/*
 * Moves the table to nslots slots (a larger power of two, at most 2^32);
 * false when memory is short.  A string's new home is the top bits of its
 * entry's hi (shift stays >= 32); its slot moves as it is.
 */
static bool
strdict_grow_table(gpo_strdict *d, uint64_t nslots)
{
	uint64_t   *old = d->slots;
	uint64_t	oldn = d->mask + 1;
	uint64_t	j;

	d->slots = calloc(nslots, sizeof(uint64_t));
	if (d->slots == NULL)
	{
		d->slots = old;
		return false;
	}
	d->mask = nslots - 1;
	while ((UINT64_C(1) << (64 - d->shift)) < nslots)
		d->shift--;
	for (j = 0; j < oldn; j++)
	{
		uint64_t	slot = old[j];
		uint64_t	i;

		if (slot == 0)
			continue;
		i = strdict_home(d, (uint64_t) d->ents[(uint32_t) slot - 1].hi << 32);
		while (d->slots[i] != 0)
			i = (i + 1) & d->mask;
		d->slots[i] = slot;
	}
	free(old);
	return true;
}

/* Makes room for n more strings of bytes bytes in all; false when memory is short. */
static bool
strdict_reserve(gpo_strdict *d, int64_t n, int64_t bytes)
{
	uint64_t	nslots = d->mask + 1;

	while ((uint64_t) (d->count + n) * 2 > nslots)
		nslots *= 2;
	if (nslots > d->mask + 1 &&
		(nslots > (UINT64_C(1) << 32) || !strdict_grow_table(d, nslots)))
		return false;
	if (d->count + n > d->cap)
	{
		int64_t		cap = d->cap * 2;
		strdict_entry *ents;

		while (cap < d->count + n)
			cap *= 2;
		ents = realloc(d->ents, sizeof(strdict_entry) * cap);
		if (ents == NULL)
			return false;
		d->ents = ents;
		d->cap = cap;
	}
	if (d->nbytes + bytes > d->bytes_cap)
	{
		int64_t		cap = d->bytes_cap * 2;
		char	   *b;

		while (cap < d->nbytes + bytes)
			cap *= 2;
		b = realloc(d->bytes, (size_t) cap);
		if (b == NULL)
			return false;
		d->bytes = b;
		d->bytes_cap = cap;
	}
	return true;
}

/* Writes code c's entry and copies its string s of hash h to byte offset off. */
static inline void
strdict_fill(gpo_strdict *d, int64_t c, uint64_t h, const gpo_str *s,
			 int64_t off)
{
	d->ents[c].off = off;
	d->ents[c].len = s->len;
	d->ents[c].hi = (uint32_t) (h >> 32);
	if (s->len > 0)
		memcpy(d->bytes + off, s->data, (size_t) s->len);
}

/*
 * The code of s of hash h, added if new (calling thread only): one probe
 * finds it or the empty slot it takes.
 */
static gpo_status
strdict_add(gpo_strdict *d, uint64_t h, const gpo_str *s, int32_t *code)
{
	uint32_t	tag = (uint32_t) h;
	uint64_t	i;
	int64_t		c;

	if (!strdict_reserve(d, 1, s->len))
		return GPO_ERR_NOMEM;
	for (i = strdict_home(d, h);; i = (i + 1) & d->mask)
	{
		uint64_t	slot = d->slots[i];

		if (slot == 0)
			break;
		c = (int64_t) (uint32_t) slot - 1;
		if ((uint32_t) (slot >> 32) == tag && d->ents[c].len == s->len &&
			memcmp(d->bytes + d->ents[c].off, s->data, (size_t) s->len) == 0)
		{
			*code = (int32_t) c;
			return GPO_OK;
		}
	}
	if (d->count >= d->limit)
		return GPO_ERR_CAPACITY;
	c = d->count++;
	strdict_fill(d, c, h, s, d->nbytes);
	d->nbytes += s->len;
	d->slots[i] = ((uint64_t) tag << 32) | (uint64_t) (c + 1);
	if (s->len == 0)
		d->empty_code = c;
	*code = (int32_t) c;
	return GPO_OK;
}

/* An empty dictionary, or NULL when memory is short. */
gpo_strdict *
gpo_strdict_create(void)
{
	gpo_strdict *d = calloc(1, sizeof(gpo_strdict));

	if (d == NULL)
		return NULL;
	d->mask = STRDICT_INIT_SLOTS - 1;
	d->shift = 64 - STRDICT_INIT_LOG2;
	d->limit = INT32_MAX;
	d->empty_code = -1;
	d->cap = STRDICT_INIT_SLOTS / 2;
	d->bytes_cap = 16384;
	d->slots = calloc(STRDICT_INIT_SLOTS, sizeof(uint64_t));
	d->ents = malloc(sizeof(strdict_entry) * d->cap);
	d->bytes = malloc((size_t) d->bytes_cap);
	if (!d->slots || !d->ents || !d->bytes)
	{
		gpo_strdict_free(d);
		return NULL;
	}
	return d;
}

/* Room for strings more distinct strings (see gpo_strdict.h). */
gpo_status
gpo_strdict_expect(gpo_strdict *d, int64_t strings)
{
	if (d == NULL || strings < 0)
		return GPO_ERR_INVALID;
	if (strings > d->limit - d->count)
		strings = d->limit - d->count;
	return strdict_reserve(d, strings, 0) ? GPO_OK : GPO_ERR_NOMEM;
}

/* Frees the dictionary and its strings. */
void
gpo_strdict_free(gpo_strdict *d)
{
	if (d == NULL)
		return;
	free(d->slots);
	free(d->ents);
	free(d->bytes);
	free(d);
}

/*
 * Fewest new strings a call adds with its threads (strdict_add_parallel);
 * fewer are added on the calling thread.
 */
#define STRDICT_PARALLEL_ADDS 4096
/* The part of nparts that a string of hash h is deduplicated in. */
#define STRDICT_PART(h, nparts) ((int) (((h) >> 16 & 0xFFFF) % (uint64_t) (nparts)))

/* Rows a lookup takes at a time, so that their cache misses overlap. */
#define STRDICT_LOOKUP_GROUP 16

/*
 * Hashes rows lo .. hi - 1 into hashes and looks them up: codes[i] gets the
 * code found, 0 for no string, -1 for a string to add.  A group of rows at
 * a time: their hashes and home slots first, then their first candidates'
 * entries and bytes are fetched ahead, then each is found; a lookup in a
 * large table waits on memory three times, and these waits overlap.
 */
static void
strdict_lookup_range(const gpo_strdict *d, const gpo_str *strs,
					 int64_t lo, int64_t hi, uint64_t *hashes, int32_t *codes)
{
	for (int64_t g = lo; g < hi; g += STRDICT_LOOKUP_GROUP)
	{
		int64_t		end = g + STRDICT_LOOKUP_GROUP < hi ? g + STRDICT_LOOKUP_GROUP : hi;
		int64_t		next = end + STRDICT_LOOKUP_GROUP < hi ? end + STRDICT_LOOKUP_GROUP : hi;
		int64_t		i;

		/*
		 * The next group's strings, cold in the table's pages, fetched
		 * while this group waits on its own misses (the
		 * hash's first load of each string took 67% of this function, GROUP
		 * BY url over 1M wide rows, 2-core build machine, perf).
		 */
		for (i = end; i < next; i++)
			gpo_prefetch_str(strs[i].data);
		for (i = g; i < end; i++)
		{
			codes[i] = -2;		/* to find */
			if (strs[i].data == NULL)
				codes[i] = 0;
			/* empty strings are most rows of many text columns */
			else if (strs[i].len == 0 && d->empty_code >= 0)
				codes[i] = (int32_t) d->empty_code;
			else
			{
				hashes[i] = strdict_hash(strs[i].data, strs[i].len);
				__builtin_prefetch(&d->slots[strdict_home(d, hashes[i])]);
			}
		}
		for (i = g; i < end; i++)
			if (codes[i] == -2)
			{
				uint64_t	slot = d->slots[strdict_home(d, hashes[i])];

				if (slot != 0)
					__builtin_prefetch(&d->ents[(uint32_t) slot - 1]);
			}
		for (i = g; i < end; i++)
			if (codes[i] == -2)
			{
				uint64_t	slot = d->slots[strdict_home(d, hashes[i])];

				if (slot != 0 && (uint32_t) (slot >> 32) == (uint32_t) hashes[i])
					__builtin_prefetch(d->bytes + d->ents[(uint32_t) slot - 1].off);
			}
		for (i = g; i < end; i++)
			if (codes[i] == -2)
				codes[i] = (int32_t) strdict_find(d, hashes[i], &strs[i]);
	}
}

/*
 * first[j] = the first of the call's rows rows[0 .. j] (rows not found, in
 * row order) holding the same string as rows[j], for the rows whose hash
 * falls in part of nparts: a table of the part's rows, local to the thread.
 */
static bool
strdict_first_rows(const gpo_str *strs, const uint64_t *hashes,
				   const int64_t *rows, int64_t nrows, int part, int nparts,
				   int64_t *first)
{
	int64_t		mine = 0;
	uint64_t	size = 16;
	int64_t    *tab;
	int64_t		j;

	for (j = 0; j < nrows; j++)
		mine += STRDICT_PART(hashes[rows[j]], nparts) == part;
	while (size < (uint64_t) mine * 2)
		size *= 2;
	if ((tab = calloc(size, sizeof(int64_t))) == NULL)
		return false;
	for (j = 0; j < nrows; j++)
	{
		int64_t		r = rows[j];
		uint64_t	i;

		if (STRDICT_PART(hashes[r], nparts) != part)
			continue;
		/* (bits apart from those that chose the part) */
		for (i = (hashes[r] >> 33) & (size - 1);; i = (i + 1) & (size - 1))
		{
			int64_t		f = tab[i] - 1;

			if (f < 0)
			{
				tab[i] = j + 1;
				first[j] = j;
				break;
			}
			if (hashes[rows[f]] == hashes[r] && strs[rows[f]].len == strs[r].len &&
				memcmp(strs[rows[f]].data, strs[r].data, (size_t) strs[r].len) == 0)
			{
				first[j] = f;
				break;
			}
		}
	}
	free(tab);
	return true;
}

/*
 * Puts string s of hash h into the dictionary as code c at byte offset off,
 * beside other threads putting other new strings (the table has room).
 */
static void
strdict_put_shared(gpo_strdict *d, uint64_t h, const gpo_str *s, int64_t c,
				   int64_t off)
{
	uint64_t	val = ((uint64_t) (uint32_t) h << 32) | (uint64_t) (c + 1);
	uint64_t	i;

	strdict_fill(d, c, h, s, off);
	for (i = strdict_home(d, h);; i = (i + 1) & d->mask)
	{
		uint64_t	empty = 0;

		if (__atomic_load_n(&d->slots[i], __ATOMIC_RELAXED) == 0 &&
			__atomic_compare_exchange_n(&d->slots[i], &empty, val, false,
										__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
	}
}

/*
 * Adds the nrows rows not found (rows[], in row order; the table has room,
 * and the limit for all of them) with the context's threads: the rows of
 * one string found in parallel, split by hash (strdict_first_rows), then
 * codes and byte offsets handed out in row order, then the strings copied
 * and placed in parallel.
 */
static gpo_status
strdict_add_parallel(gpo_ctx *ctx, gpo_strdict *d, const gpo_str *strs,
					 const uint64_t *hashes, const int64_t *rows,
					 int64_t nrows, int32_t *codes)
{
	int			nparts = gpo_team(ctx, gpo_threads(ctx));
	int64_t    *first = malloc(sizeof(int64_t) * nrows);
	int64_t    *offs = malloc(sizeof(int64_t) * nrows);
	gpo_status	st = first != NULL && offs != NULL ? GPO_OK : GPO_ERR_NOMEM;
	int64_t		count = d->count;
	int64_t		nbytes = d->nbytes;
	int64_t		j;
	int			p;

#pragma omp parallel for num_threads(nparts) schedule(static, 1) if (st == GPO_OK)
	for (p = 0; p < nparts; p++)
		if (!strdict_first_rows(strs, hashes, rows, nrows, p, nparts, first))
		{
#pragma omp atomic write
			st = GPO_ERR_NOMEM;
		}
	/* codes and offsets in row order */
	for (j = 0; j < nrows && st == GPO_OK; j++)
	{
		if (first[j] < j)
		{
			codes[rows[j]] = codes[rows[first[j]]];
			continue;
		}
		if (strs[rows[j]].len == 0)
			d->empty_code = count;
		codes[rows[j]] = (int32_t) count++;
		offs[j] = nbytes;
		nbytes += strs[rows[j]].len;
	}
	if (st == GPO_OK)
	{
#pragma omp parallel for num_threads(nparts) schedule(dynamic, 256)
		for (j = 0; j < nrows; j++)
			if (first[j] == j)
				strdict_put_shared(d, hashes[rows[j]], &strs[rows[j]],
								   codes[rows[j]], offs[j]);
		d->count = count;
		d->nbytes = nbytes;
	}
	free(first);
	free(offs);
	return st;
}

/* What a piece of gpo_strdict_encode's lookups needs. */
typedef struct strdict_look
{
	const gpo_strdict *d;
	const gpo_str *strs;
	uint64_t   *hashes;
	int32_t    *codes;
} strdict_look;

/* strdict_lookup_range as a gpo_rows_fn over strdict_look. */
static void
strdict_lookup_piece(void *arg, int64_t lo, int64_t hi)
{
	const strdict_look *a = (const strdict_look *) arg;

	strdict_lookup_range(a->d, a->strs, lo, hi, a->hashes, a->codes);
}

/* The codes of n strings, new ones added in row order (see gpo_strdict.h). */
gpo_status
gpo_strdict_encode(gpo_ctx *ctx, gpo_strdict *d, int64_t n,
				   const gpo_str *strs, int32_t *codes)
{
	uint64_t	local[64];
	uint64_t   *hashes = local;
	strdict_look look;
	int64_t    *rows = NULL;
	gpo_status	st = GPO_OK;
	int64_t		miss = 0;
	int64_t		bytes = 0;
	int64_t		i;

	if (d == NULL || n < 0 || (n > 0 && (strs == NULL || codes == NULL)) ||
		!gpo_strs_valid(n, strs))
		return GPO_ERR_INVALID;
	if (n > 64 && (hashes = malloc(sizeof(uint64_t) * n)) == NULL)
		return GPO_ERR_NOMEM;
	look.d = d;
	look.strs = strs;
	look.hashes = hashes;
	look.codes = codes;
	gpo_run_pieces(ctx, n, STRDICT_SERIAL_ROWS, STRDICT_ROWS_PER_PIECE,
				   strdict_lookup_piece, &look);
	/* room for every string not found, at once (duplicates counted twice) */
	for (i = 0; i < n; i++)
		if (codes[i] < 0)
		{
			miss++;
			bytes += strs[i].len;
		}
	if (miss > 0 && d->count < d->limit &&
		!strdict_reserve(d, miss < d->limit - d->count ? miss : d->limit - d->count,
						 bytes))
		st = GPO_ERR_NOMEM;
	if (st == GPO_OK && miss >= STRDICT_PARALLEL_ADDS && ctx != NULL &&
		gpo_threads(ctx) > 1 && d->count + miss <= d->limit)
	{
		int64_t		k = 0;

		if ((rows = malloc(sizeof(int64_t) * miss)) == NULL)
			st = GPO_ERR_NOMEM;
		for (i = 0; i < n && st == GPO_OK; i++)
			if (codes[i] < 0)
				rows[k++] = i;
		if (st == GPO_OK)
			st = strdict_add_parallel(ctx, d, strs, hashes, rows, miss, codes);
		free(rows);
	}
	else
		for (i = 0; i < n && st == GPO_OK; i++)
			if (codes[i] < 0)
				st = strdict_add(d, hashes[i], &strs[i], &codes[i]);
	if (hashes != local)
		free(hashes);
	return st;
}

/* Distinct strings held. */
int64_t
gpo_strdict_count(const gpo_strdict *d)
{
	return d ? d->count : 0;
}

/* The string of code, or data NULL. */
gpo_str
gpo_strdict_get(const gpo_strdict *d, int32_t code)
{
	gpo_str		s = {NULL, 0};

	if (d != NULL && code >= 0 && code < d->count)
	{
		s.data = d->bytes + d->ents[code].off;
		s.len = d->ents[code].len;
	}
	return s;
}

/* Bytes the dictionary holds. */
size_t
gpo_strdict_bytes(const gpo_strdict *d)
{
	if (d == NULL)
		return 0;
	return (size_t) d->bytes_cap + (size_t) (d->mask + 1) * sizeof(uint64_t) +
		(size_t) d->cap * sizeof(strdict_entry);
}

/* Lowers the most distinct strings the dictionary takes. */
void
gpo_strdict_set_limit(gpo_strdict *d, int64_t max_codes)
{
	if (d != NULL && max_codes >= 0 && max_codes < INT32_MAX)
		d->limit = max_codes;
}
