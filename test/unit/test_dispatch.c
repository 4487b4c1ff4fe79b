/*
 * test_dispatch.c
 *	  Unit tests of the dispatcher and the small vector helpers: scratch
 *	  queries, face choice, argument checks, the no-GPU paths and the
 *	  signal mask of OpenMP's worker threads.
 */
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "gpo_internal.h"
#include "test_util.h"

/* Records one named check in g. */
static void
check(tgroup *g, bool ok, const char *what)
{
	case_result(g, ok, what);
}

/* A small int64 input, its output, heads and a uint8 mask. */
typedef struct fixture
{
	int64_t		vals[8];
	int64_t		outv[8];
	uint8_t		hd[8];
	gpo_chunk	in_chunks[2];
	gpo_chunk	out_chunk;
	gpo_chunk	hd_chunk;
	gpo_vector	in;
	gpo_vector	out;
	gpo_vector	heads;
} fixture;

/* Sets up a fixture of 8 rows in two input chunks. */
static void
fixture_init(fixture *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 8; i++)
		f->vals[i] = i + 1;
	f->in_chunks[0] = (gpo_chunk) {f->vals, NULL, 5};
	f->in_chunks[1] = (gpo_chunk) {f->vals + 5, NULL, 3};
	f->out_chunk = (gpo_chunk) {f->outv, NULL, 8};
	f->hd_chunk = (gpo_chunk) {f->hd, NULL, 8};
	f->in = (gpo_vector) {GPO_INT64, 2, f->in_chunks};
	f->out = (gpo_vector) {GPO_INT64, 1, &f->out_chunk};
	f->heads = (gpo_vector) {GPO_UINT8, 1, &f->hd_chunk};
}

/* Scan through the dispatcher with scratch; returns its status. */
static gpo_status
scan_call(gpo_ctx *ctx, fixture *f, const gpo_vector *in,
		  const gpo_vector *heads, gpo_vector *out)
{
	size_t		bytes = 0;
	char		scratch[4096];
	gpo_status	st = gpo_scan(ctx, in, heads, true, out, NULL, &bytes);

	(void) f;
	if (st != GPO_OK || bytes > sizeof(scratch))
		return st == GPO_OK ? GPO_ERR_NOMEM : st;
	return gpo_scan(ctx, in, heads, true, out, scratch, &bytes);
}

/* Argument checks: each bad argument gives GPO_ERR_INVALID (or CAPACITY). */
static void
invalid_arguments(tgroup *g)
{
	fixture		f;
	gpo_ctx		ctx;
	gpo_vector	bad;
	gpo_chunk	badc;
	int64_t		count;
	size_t		bytes;

	test_ctx(&ctx, GPO_DEVICE_CPU, 0);
	fixture_init(&f);
	check(g, scan_call(&ctx, &f, &f.in, NULL, &f.out) == GPO_OK &&
		  f.outv[7] == 36, "valid scan gives 36");
	check(g, gpo_scan(NULL, &f.in, NULL, true, &f.out, NULL, &bytes) == GPO_ERR_INVALID,
		  "NULL ctx");
	check(g, scan_call(&ctx, &f, NULL, NULL, &f.out) == GPO_ERR_INVALID && ctx.detail[0],
		  "NULL input, with detail");
	check(g, scan_call(&ctx, &f, &f.in, NULL, NULL) == GPO_ERR_INVALID, "NULL output");
	check(g, gpo_scan(&ctx, &f.in, NULL, true, &f.out, NULL, NULL) == GPO_ERR_INVALID,
		  "NULL scratch and scratch_bytes");
	bytes = 1;
	check(g, gpo_scan(&ctx, &f.in, NULL, true, &f.out, f.outv, &bytes) == GPO_ERR_INVALID,
		  "scratch smaller than asked");

	bad = f.in;
	bad.type = GPO_FLOAT32;
	check(g, scan_call(&ctx, &f, &bad, NULL, &f.out) == GPO_ERR_INVALID, "float32 scan");
	bad.type = (gpo_type) 99;
	check(g, scan_call(&ctx, &f, &bad, NULL, &f.out) == GPO_ERR_INVALID, "unknown type");
	bad = f.out;
	bad.type = GPO_INT32;
	check(g, scan_call(&ctx, &f, &f.in, NULL, &bad) == GPO_ERR_INVALID, "output type differs");
	bad = f.in;
	bad.chunks = NULL;
	check(g, scan_call(&ctx, &f, &bad, NULL, &f.out) == GPO_ERR_INVALID, "chunks NULL");
	bad.nchunks = -1;
	check(g, scan_call(&ctx, &f, &bad, NULL, &f.out) == GPO_ERR_INVALID, "negative nchunks");
	badc = (gpo_chunk) {NULL, NULL, 3};
	bad = (gpo_vector) {GPO_INT64, 1, &badc};
	check(g, scan_call(&ctx, &f, &bad, NULL, &f.out) == GPO_ERR_INVALID, "data NULL, n 3");
	badc = (gpo_chunk) {f.vals, NULL, -2};
	check(g, scan_call(&ctx, &f, &bad, NULL, &f.out) == GPO_ERR_INVALID, "negative n");
	f.hd_chunk.n = 7;
	check(g, scan_call(&ctx, &f, &f.in, &f.heads, &f.out) == GPO_ERR_INVALID,
		  "heads shorter than input");
	f.hd_chunk.n = 8;
	f.heads.type = GPO_INT32;
	check(g, scan_call(&ctx, &f, &f.in, &f.heads, &f.out) == GPO_ERR_INVALID,
		  "heads not uint8");
	f.heads.type = GPO_UINT8;
	f.out_chunk.n = 7;
	check(g, scan_call(&ctx, &f, &f.in, NULL, &f.out) == GPO_ERR_CAPACITY,
		  "scan output too small");
	check(g, gpo_scan_cpu(&ctx, &f.in, NULL, true, &f.out, NULL) == GPO_ERR_CAPACITY,
		  "scan CPU face checks capacity");
	f.out_chunk.n = 8;
	check(g, gpo_scan_cpu(&ctx, &f.in, NULL, false, &f.out, NULL) == GPO_OK &&
		  f.outv[0] == 0 && f.outv[7] == 28, "CPU face without scratch");

	/* compaction */
	bad = f.heads;
	check(g, gpo_compact(&ctx, &f.in, 0, NULL, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "compaction mask not uint8");
	check(g, gpo_compact(&ctx, &bad, 4, NULL, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "unknown compaction flag");
	check(g, gpo_compact(&ctx, &bad, 0, NULL, NULL, NULL, &bytes) == GPO_ERR_INVALID,
		  "compaction count NULL");
	check(g, gpo_compact(&ctx, &bad, 0, &f.heads, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "index map not int64");
	memset(f.hd, 1, 8);
	f.out_chunk.n = 5;
	check(g, gpo_compact_cpu(&ctx, &bad, 0, &f.out, &count, NULL) == GPO_ERR_CAPACITY &&
		  count == 8, "compaction capacity error sets count");
	f.out_chunk.n = 8;

	/* run-length encoding */
	check(g, gpo_rle(&ctx, &f.in, &f.heads, NULL, NULL, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "rle values of another type");
	check(g, gpo_rle(&ctx, &f.in, NULL, &f.heads, NULL, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "rle starts not int64");
	check(g, gpo_rle(&ctx, &f.in, NULL, NULL, &f.heads, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "rle lengths not int64");
	check(g, gpo_rle(&ctx, &f.in, NULL, NULL, NULL, NULL, NULL, &bytes) == GPO_ERR_INVALID,
		  "rle count NULL");
	check(g, gpo_unique(&ctx, NULL, NULL, &count, NULL, &bytes) == GPO_ERR_INVALID,
		  "unique NULL input");
	f.out_chunk.n = 7;
	check(g, gpo_rle_cpu(&ctx, &f.in, &f.out, NULL, NULL, &count, NULL) == GPO_ERR_CAPACITY &&
		  count == 8, "rle capacity error sets count");
}

/* Face choice: scratch query, GPU demanded, AUTO. */
static void
face_choice(tgroup *g)
{
	fixture		f;
	gpo_ctx		ctx;
	size_t		bytes = 0;
	int64_t		count = -1;
	gpo_status	st;

	fixture_init(&f);
	test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
	check(g, gpo_scan(&ctx, &f.in, &f.heads, true, &f.out, NULL, &bytes) == GPO_OK &&
		  bytes > 0, "scan scratch query");
	bytes = 0;
	check(g, gpo_compact(&ctx, &f.heads, 0, &f.out, &count, NULL, &bytes) == GPO_OK &&
		  bytes > 0, "compaction scratch query");
	bytes = 0;
	check(g, gpo_rle(&ctx, &f.in, &f.out, NULL, NULL, &count, NULL, &bytes) == GPO_OK &&
		  bytes > 0, "rle scratch query");
	bytes = 0;
	check(g, gpo_unique(&ctx, &f.in, &f.out, &count, NULL, &bytes) == GPO_OK &&
		  bytes > 0, "unique scratch query");
	check(g, gpo_scan_scratch_bytes(&ctx, &f.in, NULL, &f.out) < 4096,
		  "scan scratch is small");

	if (have_gpu)
	{
		gpo_rows_per_block = 16384;
		test_ctx(&ctx, GPO_DEVICE_GPU, 0);
		check(g, scan_call(&ctx, &f, &f.in, NULL, &f.out) == GPO_OK &&
			  ctx.used == GPO_DEVICE_GPU && f.outv[7] == 36, "device=gpu runs the GPU");
		test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
		ctx.gpu_min_rows = 0;
		check(g, scan_call(&ctx, &f, &f.in, NULL, &f.out) == GPO_OK &&
			  ctx.used == GPO_DEVICE_GPU, "auto with a GPU and enough rows runs the GPU");
		ctx.gpu_min_rows = 9;
		check(g, scan_call(&ctx, &f, &f.in, NULL, &f.out) == GPO_OK &&
			  ctx.used == GPO_DEVICE_CPU, "auto below gpu_min_rows runs the CPU");
		return;
	}
	test_ctx(&ctx, GPO_DEVICE_GPU, 0);
	st = scan_call(&ctx, &f, &f.in, NULL, &f.out);
	check(g, st == GPO_ERR_NO_DEVICE && ctx.detail[0], "device=gpu without a GPU: scan");
	check(g, gpo_compact(&ctx, &f.heads, 0, NULL, &count, &f, &bytes) == GPO_ERR_NO_DEVICE,
		  "device=gpu without a GPU: compaction");
	check(g, gpo_rle(&ctx, &f.in, NULL, NULL, NULL, &count, &f, &bytes) == GPO_ERR_NO_DEVICE,
		  "device=gpu without a GPU: rle");
	check(g, gpo_scan_gpu(&ctx, &f.in, NULL, true, &f.out) == GPO_ERR_NO_DEVICE &&
		  ctx.detail[0], "GPU face without a GPU");
	test_ctx(&ctx, GPO_DEVICE_AUTO, 0);
	ctx.gpu_min_rows = 0;
	strcpy(ctx.detail, "stale");
	memset(f.outv, 0, sizeof(f.outv));
	check(g, scan_call(&ctx, &f, &f.in, NULL, &f.out) == GPO_OK &&
		  ctx.used == GPO_DEVICE_CPU && f.outv[7] == 36 && ctx.detail[0] == '\0',
		  "auto without a GPU runs the CPU, detail cleared");
}

/* Small helpers: types, statuses, contexts. */
static void
helpers(tgroup *g)
{
	gpo_ctx		ctx;
	gpo_device_info info;
	fixture		f;
	bool		texts = true;

	for (int s = GPO_OK; s <= GPO_ERR_DEVICE; s++)
		texts &= gpo_status_text((gpo_status) s)[0] != '\0';
	check(g, texts, "every status has a text");
	check(g, gpo_type_size(GPO_INT32) == 4 && gpo_type_size(GPO_UINT32) == 4 &&
		  gpo_type_size(GPO_INT64) == 8 && gpo_type_size(GPO_FLOAT32) == 4 &&
		  gpo_type_size(GPO_FLOAT64) == 8 && gpo_type_size(GPO_UINT8) == 1,
		  "type sizes");
	check(g, strcmp(gpo_type_name(GPO_FLOAT64), "float64") == 0, "type name");
	fixture_init(&f);
	check(g, gpo_vector_rows(&f.in) == 8 && gpo_vector_rows(NULL) == 0, "vector rows");
	gpo_ctx_init(&ctx);
	check(g, ctx.device == GPO_DEVICE_AUTO && ctx.gpu_min_rows == 100000 &&
		  ctx.threads == 0 && ctx.detail[0] == '\0', "context defaults");
	check(g, gpo_threads(&ctx) == omp_get_num_procs(), "threads 0 = all cores");
	ctx.threads = 3;
	check(g, gpo_threads(&ctx) == 3, "threads 3");
	gpo_gpu_info(&info);
	check(g, info.usable == have_gpu && (info.usable || info.error[0]),
		  "gpu info agrees with gpo_gpu_available");
	check(g, info.compiled || strcmp(info.error, "built without CUDA") == 0,
		  "a build without CUDA says so");
}

/* OpenMP worker threads run with every signal blocked; the caller's mask is kept. */
static void
signal_mask(tgroup *g)
{
	int			bad = 0;
	int			workers = 0;
	sigset_t	mine;

	gpo_omp_prepare(4);
#pragma omp parallel num_threads(4) reduction(+:bad, workers)
	{
		sigset_t	cur;

		pthread_sigmask(SIG_BLOCK, NULL, &cur);
		if (omp_get_thread_num() != 0)
		{
			workers++;
			bad += !sigismember(&cur, SIGINT) || !sigismember(&cur, SIGTERM) ||
				!sigismember(&cur, SIGUSR1);
		}
	}
	pthread_sigmask(SIG_BLOCK, NULL, &mine);
	check(g, workers > 0 && bad == 0, "worker threads block SIGINT, SIGTERM, SIGUSR1");
	check(g, !sigismember(&mine, SIGINT), "the caller's mask is restored");
}

/* All dispatcher tests. */
void
test_dispatch(void)
{
	tgroup		g;

	group_begin(&g, "dispatch and helpers");
	helpers(&g);
	signal_mask(&g);
	face_choice(&g);
	invalid_arguments(&g);
	group_end(&g);
}
