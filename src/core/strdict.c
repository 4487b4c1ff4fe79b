/*
 * strdict.c
 *	  The string dictionary (gpo_strdict.h): an open-addressing table of
 *	  codes over one byte arena holding the strings.
 *
 * Each slot is one 64-bit word: the high 32 bits of the string's hash, and
 * its code + 1 (0: empty), probed linearly from the hash's low bits; the
 * table is kept at most half full.  A code's offset, length and hash bits
 * sit together in one entry, so that a lookup misses the cache three times
 * (slot, entry, bytes) rather than four.  gpo_strdict_encode hashes and
 * looks up its rows with the context's threads, taking pieces as they come
 * (the table is read only), then makes room for every row not found at
 * once and adds them on the calling thread, in row order (looking each up
 * again, since an earlier row of the call may have added it, in the probe
 * that finds its empty slot).  Once a key's strings are known, a call is
 * all parallel.  Lookups take rows a group at a time (see
 * strdict_lookup_range).  On the 2-core build machine, 250,000 distinct
 * strings of 30-200 bytes coded into a dictionary of 160,000 (150,000 of
 * them new) took 737-771 ns a string on one thread before the entries, the
 * grouped lookups and the room made at once, 670-686 ns after; the same
 * count of strings, all but a few known, 161-173 ms before, 100 ms after
 * (68-71 ms on 2 threads, 105-113 ms before).
 * The strings' own hash is written here: a 64-bit multiply-rotate over
 * 8-byte words and murmur3's finalizer.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "gpo_strdict.h"

/* Slots of a new table (a power of two). */
#define STRDICT_INIT_SLOTS	1024
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
	uint32_t	tag;			/* its hash's high bits */
} strdict_entry;

struct gpo_strdict
{
	uint64_t   *slots;			/* [mask + 1]: hash high bits << 32 | code + 1 */
	uint64_t	mask;
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

/* The code of string s of hash h, or -1 if the dictionary lacks it. */
static inline int64_t
strdict_find(const gpo_strdict *d, uint64_t h, const gpo_str *s)
{
	uint32_t	tag = (uint32_t) (h >> 32);
	uint64_t	i = h & d->mask;

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

/* Puts code of hash high bits tag into the table (which has room). */
static inline void
strdict_place(gpo_strdict *d, uint32_t tag, uint64_t h, int64_t code)
{
	uint64_t	i = h & d->mask;

	while (d->slots[i] != 0)
		i = (i + 1) & d->mask;
	d->slots[i] = ((uint64_t) tag << 32) | (uint64_t) (code + 1);
}

/* Doubles the table; false when memory is short. */
static bool
strdict_grow_table(gpo_strdict *d)
{
	uint64_t	nslots = (d->mask + 1) * 2;
	uint64_t   *old = d->slots;
	int64_t		c;

	d->slots = calloc(nslots, sizeof(uint64_t));
	if (d->slots == NULL)
	{
		d->slots = old;
		return false;
	}
	d->mask = nslots - 1;
	for (c = 0; c < d->count; c++)
	{
		/* the full hash isn't kept: rehash the string */
		gpo_str		s = {d->bytes + d->ents[c].off, d->ents[c].len};

		strdict_place(d, d->ents[c].tag, strdict_hash(s.data, s.len), c);
	}
	free(old);
	return true;
}

/* Makes room for n more strings of bytes bytes in all; false when memory is short. */
static bool
strdict_reserve(gpo_strdict *d, int64_t n, int64_t bytes)
{
	while ((uint64_t) (d->count + n) * 2 > d->mask + 1)
		if (!strdict_grow_table(d))
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

/*
 * The code of s of hash h, added if new (calling thread only): one probe
 * finds it or the empty slot it takes.
 */
static gpo_status
strdict_add(gpo_strdict *d, uint64_t h, const gpo_str *s, int32_t *code)
{
	uint32_t	tag = (uint32_t) (h >> 32);
	uint64_t	i;
	int64_t		c;

	if (!strdict_reserve(d, 1, s->len))
		return GPO_ERR_NOMEM;
	for (i = h & d->mask;; i = (i + 1) & d->mask)
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
	d->ents[c].off = d->nbytes;
	d->ents[c].len = s->len;
	d->ents[c].tag = tag;
	if (s->len > 0)
		memcpy(d->bytes + d->nbytes, s->data, (size_t) s->len);
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
		int64_t		i;

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
				__builtin_prefetch(&d->slots[hashes[i] & d->mask]);
			}
		}
		for (i = g; i < end; i++)
			if (codes[i] == -2)
			{
				uint64_t	slot = d->slots[hashes[i] & d->mask];

				if (slot != 0)
					__builtin_prefetch(&d->ents[(uint32_t) slot - 1]);
			}
		for (i = g; i < end; i++)
			if (codes[i] == -2)
			{
				uint64_t	slot = d->slots[hashes[i] & d->mask];

				if (slot != 0 && (uint32_t) (slot >> 32) == (uint32_t) (hashes[i] >> 32))
					__builtin_prefetch(d->bytes + d->ents[(uint32_t) slot - 1].off);
			}
		for (i = g; i < end; i++)
			if (codes[i] == -2)
				codes[i] = (int32_t) strdict_find(d, hashes[i], &strs[i]);
	}
}

/* The codes of n strings, new ones added in row order (see gpo_strdict.h). */
gpo_status
gpo_strdict_encode(gpo_ctx *ctx, gpo_strdict *d, int64_t n,
				   const gpo_str *strs, int32_t *codes)
{
	uint64_t	local[64];
	uint64_t   *hashes = local;
	gpo_status	st = GPO_OK;
	int64_t		i;

	if (d == NULL || n < 0 || (n > 0 && (strs == NULL || codes == NULL)))
		return GPO_ERR_INVALID;
	for (i = 0; i < n; i++)
		if (strs[i].data != NULL && strs[i].len < 0)
			return GPO_ERR_INVALID;
	if (n > 64 && (hashes = malloc(sizeof(uint64_t) * n)) == NULL)
		return GPO_ERR_NOMEM;
	if (ctx == NULL || n <= STRDICT_SERIAL_ROWS)
		strdict_lookup_range(d, strs, 0, n, hashes, codes);
	else
	{
		int64_t		most = (int64_t) gpo_threads(ctx) * GPO_PIECES_PER_THREAD;
		int			np = (int) (n / STRDICT_ROWS_PER_PIECE < most ?
								n / STRDICT_ROWS_PER_PIECE : most);
		int			p;

#pragma omp parallel for num_threads(gpo_team(ctx, np)) schedule(dynamic, 1)
		for (p = 0; p < np; p++)
			strdict_lookup_range(d, strs, gpo_block_lo(n, p, np),
								 gpo_block_lo(n, p + 1, np), hashes, codes);
	}
	/* room for every string not found, at once (duplicates counted twice) */
	{
		int64_t		miss = 0;
		int64_t		bytes = 0;

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
	}
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
