/*
 * test_compact.c
 *	  Unit tests of gpo_compact: keep and drop flags, NULL mask rows, count
 *	  only, capacity errors, over every partition, against a sequential
 *	  reference.
 */
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "test_util.h"

/* Sequential reference: kept row numbers into map; returns their count. */
static int64_t
ref_compact(const uint8_t *mask, const uint8_t *valid, int64_t n, bool drop,
			int64_t *map)
{
	int64_t		count = 0;

	for (int64_t i = 0; i < n; i++)
	{
		bool		set = mask[i] != 0;

		if (valid[i] && (drop ? !set : set))
			map[count++] = i;
	}
	return count;
}

/*
 * Runs one compaction on device; checks status, count, the map prefix and
 * the untouched spare capacity.  cap_mode 0: enough capacity, 1: exactly
 * the count, 2: one short, 3: no index map.
 */
static void
run_one(tgroup *g, tcase *c, gpo_device device, const tvec *mask, bool drop,
		const int64_t *want, int64_t want_count, int cap_mode, int threads,
		int64_t *cpu_map)
{
	tvec		map;
	gpo_ctx		ctx;
	int64_t		count = -1;
	int64_t		cap = cap_mode == 0 ? want_count + (int64_t) rng_below(9) :
		cap_mode == 2 ? want_count - 1 : want_count;
	size_t		bytes = 0;
	void	   *scratch;
	gpo_status	st;
	gpo_status	want_st = cap_mode == 2 ? GPO_ERR_CAPACITY : GPO_OK;
	int64_t    *got = malloc(sizeof(int64_t) * (want_count + 1));

	(void) g;
	tvec_make_kind(&map, GPO_INT64, random_kind(cap), cap, rng_chance(1, 3));
	tvec_sentinel(&map);
	test_ctx(&ctx, device, threads);
	st = gpo_compact(&ctx, &mask->v, drop ? GPO_COMPACT_DROP : 0,
					 cap_mode == 3 ? NULL : &map.v, &count, NULL, &bytes);
	expect(c, st == GPO_OK && bytes > 0, "scratch query: %s", gpo_status_text(st));
	scratch = malloc(bytes);
	st = gpo_compact(&ctx, &mask->v, drop ? GPO_COMPACT_DROP : 0,
					 cap_mode == 3 ? NULL : &map.v, &count, scratch, &bytes);
	expect(c, st == want_st, "status %s, want %s (%s)", gpo_status_text(st),
		   gpo_status_text(want_st), ctx.detail);
	expect(c, ctx.used == device, "used face %d", (int) ctx.used);
	expect(c, count == want_count, "count %lld, want %lld",
		   (long long) count, (long long) want_count);
	if (st == GPO_OK && cap_mode != 3 && count == want_count)
	{
		int64_t    *all = malloc(sizeof(int64_t) * (cap + 1));

		tvec_read(&map, all, NULL);
		memcpy(got, all, sizeof(int64_t) * count);
		for (int64_t i = 0; i < count && c->ok; i++)
			expect(c, got[i] == want[i],
				   "map[%lld] = %lld, want %lld", (long long) i,
				   (long long) got[i], (long long) want[i]);
		if (cpu_map)
			for (int64_t i = 0; i < count && c->ok; i++)
				expect(c, got[i] == cpu_map[i], "GPU map[%lld] differs from CPU",
					   (long long) i);
		expect(c, tvec_spare_untouched(&map, count), "spare capacity written");
		free(all);
	}
	free(scratch);
	free(got);
	tvec_free(&map);
}

/* One random compaction case over n rows of mask partition kind. */
static void
random_case(tgroup *g, int64_t n, part_kind kind)
{
	uint8_t    *m = malloc(n + 1);
	uint8_t    *valid = malloc(n + 1);
	int64_t    *want = malloc(sizeof(int64_t) * (n + 1));
	int			density = (int) rng_below(5);	/* 0: none set ... 4: all set */
	bool		nulls = rng_chance(1, 2);
	bool		drop = rng_chance(1, 2);
	int			cap_mode = (int) rng_below(4);
	bool		tiny = n <= 70000 && rng_chance(1, 2);
	int			threads = tiny ? 1 + (int) rng_below(7) : 0;
	int64_t		count;
	tvec		mask;
	tcase		c;

	for (int64_t i = 0; i < n; i++)
	{
		m[i] = density == 0 ? 0 : density == 4 ? (uint8_t) (1 + rng_below(255)) :
			rng_chance(density, 4) ? (uint8_t) (1 + rng_below(255)) : 0;
		valid[i] = nulls ? rng_chance(3, 4) : 1;
	}
	tvec_make_kind(&mask, GPO_UINT8, kind, n, nulls);
	if (nulls)
		tvec_drop_some_bitmaps(&mask, valid);
	tvec_fill(&mask, m, valid);
	count = ref_compact(m, valid, n, drop, want);
	if (count == 0 && cap_mode == 2)
		cap_mode = 1;

	gpo_rows_per_block = tiny ? 1 : 16384;
	case_begin(&c, "n=%lld %s %s nulls=%d density=%d/4 cap=%d threads=%d%s",
			   (long long) n, part_name(kind), drop ? "drop" : "keep", nulls,
			   density, cap_mode, threads, tiny ? " tiny-blocks" : "");
	run_one(g, &c, GPO_DEVICE_CPU, &mask, drop, want, count, cap_mode,
			threads, NULL);
	case_result(g, c.ok, c.msg);
	if (!have_gpu)
		gpu_skip(g);
	else
	{
		case_begin(&c, "GPU agrees: n=%lld %s %s cap=%d", (long long) n,
				   part_name(kind), drop ? "drop" : "keep", cap_mode);
		run_one(g, &c, GPO_DEVICE_GPU, &mask, drop, want, count, cap_mode,
				threads, want);
		case_result(g, c.ok, c.msg);
	}
	gpo_rows_per_block = 16384;
	tvec_free(&mask);
	free(m);
	free(valid);
	free(want);
}

/* All compaction tests. */
void
test_compact(void)
{
	static const int64_t sizes[] = {0, 1, 2, 3, 31, 1000, 65537, 1000003};
	tgroup		g;

	group_begin(&g, "compact");
	for (int z = 0; z < 8; z++)
		for (int k = 0; k < PART_COUNT; k++)
		{
			if (k == PART_ONES && sizes[z] > 70000)
				continue;
			for (int rep = 0; rep < 6; rep++)
				random_case(&g, sizes[z], (part_kind) k);
		}
	if (quick)
		g.skipped += 2;
	else
	{
		random_case(&g, 10000019, PART_ONE);
		random_case(&g, 10000019, PART_MIXED);
	}
	group_end(&g);
}
