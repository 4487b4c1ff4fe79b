/*
 * gpu_expr.cu
 *	  Standalone benchmark of the expression machine's GPU kernel
 *	  (kernels/expr.cu: gpo_cuda_expr_columns, the interpreter of
 *	  gpo_expr_eval.h run once per thread and row over device columns).
 *
 * Usage: gpu_expr [rows [reps]]   (defaults 60000000, 5)
 * Fills on the device, with no NULLs, TPC-H-like lineitem columns held as
 * the engine holds numeric(15, 2): int64 values * 10^2 (price 900.00 ..
 * 104949.50, discount 0.00 .. 0.10, tax 0.00 .. 0.08), an int32 column k
 * (0 .. 999), an int64 column v (0 .. 996) and a float64 column f.  Each
 * program is built as the planner's compiler (src/pg/aggnode/plan/agg_expr*.c)
 * emits it, checked with gpo_expr_check, then timed with CUDA events as one
 * gpo_cuda_expr_columns call over every row into a preallocated output and
 * validity buffer, the median of reps runs after a warm-up run:
 *   - a device-to-device cudaMemcpy of one int64 column (the bandwidth
 *     reference: read + write bytes),
 *   - the fixed cost of one call (one row: the column table, program and
 *     error word copies, the launch and the error word read back),
 *   - TPC-H Q1's l_extendedprice * (1 - l_discount) (numeric, scale 4; the
 *     1 comes as the constant 100 at the discount's scale 2),
 *   - l_extendedprice * (1 - l_discount) * (1 + l_tax) (scale 6),
 *   - Q6's l_extendedprice * l_discount (scale 4),
 *   - v * (100 - k) (int8 * int4, int64 out),
 *   - f * 1.5 + 1 (float8),
 *   - price alone: one column load, the interpreter's floor (the compiler
 *     never emits it: a bare column is read, not evaluated).
 * All working memory of a call comes from a small arena allocated up front,
 * so no run times cudaMalloc.  GB/s counts the bytes a program must move:
 * the columns it reads, the 8-byte output and the validity byte of each
 * row; % copy compares with the copy.  The error word of every call must be
 * GPO_XERR_NONE, and after timing 1,001 rows spread over the table (and the
 * last) are copied back and compared with a plain C computation; any
 * difference fails the run.
 */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>

#include "gpo_expr.h"
#include "../kernels/expr_cuda.cuh"
#include "bench_cuda.cuh"

/* The input columns, by their index in the column table. */
enum
{
	BC_PRICE = 0,				/* int64: l_extendedprice * 10^2 */
	BC_DISC,					/* int64: l_discount * 10^2 */
	BC_TAX,						/* int64: l_tax * 10^2 */
	BC_K,						/* int32: 0 .. 999 */
	BC_V,						/* int64: 0 .. 996 */
	BC_F,						/* float64 */
	BC_NCOLS
};

/* Lowest and highest price (scale 2), as TPC-H's l_extendedprice. */
#define BENCH_PRICE_MIN		90000
#define BENCH_PRICE_MAX		10494950

/* Rows compared with the host computation (and the last row besides). */
#define BENCH_SAMPLE		1000

/* Which computation a program stands for (the host check's switch). */
typedef enum bench_kind
{
	BK_Q1 = 0,					/* price * (1 - disc) */
	BK_Q1_TAX,					/* price * (1 - disc) * (1 + tax) */
	BK_Q6,						/* price * disc */
	BK_INT,						/* v * (100 - k) */
	BK_FLOAT,					/* f * 1.5 + 1 */
	BK_LOAD						/* price */
} bench_kind;

/* One program to time. */
typedef struct bench_prog
{
	const char *name;
	bench_kind	kind;
	std::vector<gpo_xnode> nodes;
	gpo_type	out_type;
	int			scale;			/* numeric result scale, -1 if not numeric */
} bench_prog;

/* The sampled rows of every input column, copied back to the host. */
typedef struct bench_sample
{
	int64_t		count;			/* rows: BENCH_SAMPLE (or n) + the last */
	int64_t		stride;
	std::vector<int64_t> rows;
	std::vector<int64_t> price;
	std::vector<int64_t> disc;
	std::vector<int64_t> tax;
	std::vector<int32_t> k;
	std::vector<int64_t> v;
	std::vector<double> f;
} bench_sample;

/* Fills the columns of row i from hashes of (i, column): no NULLs. */
__global__ void
bench_fill(int64_t *d_price, int64_t *d_disc, int64_t *d_tax, int32_t *d_k,
		   int64_t *d_v, double *d_f, int64_t n)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
	{
		uint64_t	base = (uint64_t) i * 8;

		d_price[i] = BENCH_PRICE_MIN + (int64_t) (bench_hash(base + BC_PRICE) %
												  (BENCH_PRICE_MAX - BENCH_PRICE_MIN + 1));
		d_disc[i] = (int64_t) (bench_hash(base + BC_DISC) % 11);
		d_tax[i] = (int64_t) (bench_hash(base + BC_TAX) % 9);
		d_k[i] = (int32_t) (bench_hash(base + BC_K) % 1000);
		d_v[i] = (int64_t) (bench_hash(base + BC_V) % 997);
		d_f[i] = (double) (int64_t) (bench_hash(base + BC_F) % 100000000) / 100.0 - 500000.0;
	}
}

/* Median of a list of times. */
static float
median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* One timed row of the table. */
static void
print_row(const char *op, const char *prog, const char *out, int64_t n,
		  double row_bytes, float ms, double copy_gbs, const char *err)
{
	double		gbs = row_bytes * n / (ms * 1e-3) / 1e9;

	printf("| %s | %s | %s | %.0f | %.3f | %.2f | %.1f | %.1f%% | %s |\n", op, prog,
		   out, row_bytes, ms, (double) n / (ms * 1e-3) / 1e9, gbs,
		   copy_gbs > 0 ? 100.0 * gbs / copy_gbs : 100.0, err);
	fflush(stdout);
}

/* A program node: op with its width, arg and constant, every other field 0. */
static gpo_xnode
xnode(int op, int width, int arg, int64_t ival, double fval)
{
	gpo_xnode	x;

	memset(&x, 0, sizeof(x));
	x.op = (int16_t) op;
	x.width = (int16_t) width;
	x.arg = arg;
	x.ival = ival;
	x.fval = fval;
	return x;
}

/* A column read, as gpuops_x_var emits it (width 0, arg the column). */
static gpo_xnode
xcol(int col)
{
	return xnode(GPO_X_COL, 0, col, 0, 0.0);
}

/*
 * The programs, node for node as the compiler emits them: a numeric
 * operator gets width 8 (gpuops_x_num_call); + and - bring the constant 1
 * to the other operand's scale 2 as the constant 100 (gpuops_x_num_arg),
 * * takes its operands as they are (the result's scale is their sum); an
 * integer constant or column has width 0, the int4 - gets width 4 and the
 * int8 * int4 (int84mul) width 8; float8 constants (1.5 and 1, folded
 * casts) are double slots (width 1), the float8 operators width 8.
 */
static void
build_programs(std::vector<bench_prog> &progs)
{
	bench_prog	p;

	p.name = "Q1: price * (1 - disc)";
	p.kind = BK_Q1;
	p.out_type = GPO_INT64;
	p.scale = 4;
	p.nodes = {xcol(BC_PRICE), xnode(GPO_X_CONST, 0, 0, 100, 0.0), xcol(BC_DISC),
		xnode(GPO_X_NSUB, 8, 0, 0, 0.0), xnode(GPO_X_NMUL, 8, 0, 0, 0.0)};
	progs.push_back(p);

	p.name = "price * (1 - disc) * (1 + tax)";
	p.kind = BK_Q1_TAX;
	p.scale = 6;
	p.nodes = {xcol(BC_PRICE), xnode(GPO_X_CONST, 0, 0, 100, 0.0), xcol(BC_DISC),
		xnode(GPO_X_NSUB, 8, 0, 0, 0.0), xnode(GPO_X_NMUL, 8, 0, 0, 0.0),
		xnode(GPO_X_CONST, 0, 0, 100, 0.0), xcol(BC_TAX),
		xnode(GPO_X_NADD, 8, 0, 0, 0.0), xnode(GPO_X_NMUL, 8, 0, 0, 0.0)};
	progs.push_back(p);

	p.name = "Q6: price * disc";
	p.kind = BK_Q6;
	p.scale = 4;
	p.nodes = {xcol(BC_PRICE), xcol(BC_DISC), xnode(GPO_X_NMUL, 8, 0, 0, 0.0)};
	progs.push_back(p);

	p.name = "v * (100 - k) (int8 * int4)";
	p.kind = BK_INT;
	p.scale = -1;
	p.nodes = {xcol(BC_V), xnode(GPO_X_CONST, 0, 0, 100, 0.0), xcol(BC_K),
		xnode(GPO_X_ISUB, 4, 0, 0, 0.0), xnode(GPO_X_IMUL, 8, 0, 0, 0.0)};
	progs.push_back(p);

	p.name = "f * 1.5 + 1 (float8)";
	p.kind = BK_FLOAT;
	p.out_type = GPO_FLOAT64;
	p.nodes = {xcol(BC_F), xnode(GPO_X_CONST, 1, 0, 0, 1.5),
		xnode(GPO_X_FMUL, 8, 0, 0, 0.0), xnode(GPO_X_CONST, 1, 0, 0, 1.0),
		xnode(GPO_X_FADD, 8, 0, 0, 0.0)};
	progs.push_back(p);

	p.name = "price (one column load)";
	p.kind = BK_LOAD;
	p.out_type = GPO_INT64;
	p.scale = 2;
	p.nodes = {xcol(BC_PRICE)};
	progs.push_back(p);
}

/* The program as postfix text (COL0 CONST100 COL1 NSUB.8 ..., CONST(1.5) a double) into buf. */
static void
prog_text(const std::vector<gpo_xnode> &nodes, char *buf, size_t size)
{
	size_t		at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nodes.size() && at < size; i++)
	{
		const gpo_xnode *x = &nodes[i];
		const char *sep = i > 0 ? " " : "";
		int			len;

		switch (x->op)
		{
			case GPO_X_COL:
				len = snprintf(buf + at, size - at, "%sCOL%d", sep, (int) x->arg);
				break;
			case GPO_X_CONST:
				if (x->width == 1)
					len = snprintf(buf + at, size - at, "%sCONST(%g)", sep, x->fval);
				else
					len = snprintf(buf + at, size - at, "%sCONST%lld", sep,
								   (long long) x->ival);
				break;
			default:
				len = snprintf(buf + at, size - at, "%s%s.%d", sep,
							   x->op == GPO_X_NADD ? "NADD" :
							   x->op == GPO_X_NSUB ? "NSUB" :
							   x->op == GPO_X_NMUL ? "NMUL" :
							   x->op == GPO_X_ISUB ? "ISUB" :
							   x->op == GPO_X_IMUL ? "IMUL" :
							   x->op == GPO_X_FADD ? "FADD" :
							   x->op == GPO_X_FMUL ? "FMUL" : "OP",
							   (int) x->width);
				break;
		}
		if (len < 0)
			break;
		at += (size_t) len;
	}
}

/* The name of a gpo_xerr. */
static const char *
xerr_name(int code)
{
	static const char *const names[] = {
		"NONE", "INT2_RANGE", "INT4_RANGE", "INT8_RANGE", "DIV_ZERO",
		"FLOAT_OVERFLOW", "FLOAT_UNDERFLOW", "DATE_RANGE", "DATE_INFINITE_SUB",
		"DATE_TS_RANGE", "TS_RANGE", "UNREPRESENTABLE"
	};

	if (code < 0 || code > GPO_XERR_UNREPRESENTABLE)
		return "UNKNOWN";
	return names[code];
}

/* Bytes a row of p must move: its columns' values, the output and its validity byte. */
static double
prog_row_bytes(const bench_prog *p, const gpo_xcol *h_cols)
{
	bool		read[BC_NCOLS] = {false};
	double		bytes = (double) gpo_type_size(p->out_type) + 1.0;

	for (size_t i = 0; i < p->nodes.size(); i++)
		if (p->nodes[i].op == GPO_X_COL)
			read[p->nodes[i].arg] = true;
	for (int c = 0; c < BC_NCOLS; c++)
		if (read[c])
			bytes += (double) gpo_type_size((gpo_type) h_cols[c].type);
	return bytes;
}

/*
 * Copies rows j * stride (j < count - 1) and the last row (n - 1) of a
 * device array of elem-byte values into dst (count values).
 */
static void
fetch_rows(void *dst, const void *d_src, size_t elem, const bench_sample *s, int64_t n)
{
	BENCH_CHECK(cudaMemcpy2D(dst, elem, d_src, elem * (size_t) s->stride, elem,
							 (size_t) (s->count - 1), cudaMemcpyDeviceToHost));
	BENCH_CHECK(cudaMemcpy((char *) dst + elem * (size_t) (s->count - 1),
						   (const char *) d_src + elem * (size_t) (n - 1), elem,
						   cudaMemcpyDeviceToHost));
}

/* Copies the sampled rows of the input columns back; exits if one is out of its range. */
static void
fetch_sample(bench_sample *s, const gpo_xcol *h_cols, int64_t n)
{
	s->count = std::min(n, (int64_t) BENCH_SAMPLE) + 1;
	s->stride = n / (s->count - 1);
	s->rows.resize(s->count);
	for (int64_t j = 0; j < s->count - 1; j++)
		s->rows[j] = j * s->stride;
	s->rows[s->count - 1] = n - 1;
	s->price.resize(s->count);
	s->disc.resize(s->count);
	s->tax.resize(s->count);
	s->k.resize(s->count);
	s->v.resize(s->count);
	s->f.resize(s->count);
	fetch_rows(s->price.data(), h_cols[BC_PRICE].data, 8, s, n);
	fetch_rows(s->disc.data(), h_cols[BC_DISC].data, 8, s, n);
	fetch_rows(s->tax.data(), h_cols[BC_TAX].data, 8, s, n);
	fetch_rows(s->k.data(), h_cols[BC_K].data, 4, s, n);
	fetch_rows(s->v.data(), h_cols[BC_V].data, 8, s, n);
	fetch_rows(s->f.data(), h_cols[BC_F].data, 8, s, n);
	for (int64_t j = 0; j < s->count; j++)
		if (s->price[j] < BENCH_PRICE_MIN || s->price[j] > BENCH_PRICE_MAX ||
			s->disc[j] < 0 || s->disc[j] > 10 || s->tax[j] < 0 || s->tax[j] > 8 ||
			s->k[j] < 0 || s->k[j] > 999 || s->v[j] < 0 || s->v[j] > 996 ||
			!(s->f[j] >= -500000.0 && s->f[j] < 500000.0))
		{
			fprintf(stderr, "gpu_expr: FAILED: input row %lld out of range (fill kernel)\n",
					(long long) s->rows[j]);
			exit(1);
		}
}

/* Sampled row j's expected result of p, computed in plain C: int64 or double bits. */
static int64_t
expected(const bench_prog *p, const bench_sample *s, int64_t j)
{
	volatile double prod;		/* two roundings, as float8mul then float8pl */
	double		r;
	int64_t		bits;

	switch (p->kind)
	{
		case BK_Q1:
			return s->price[j] * (100 - s->disc[j]);
		case BK_Q1_TAX:
			return s->price[j] * (100 - s->disc[j]) * (100 + s->tax[j]);
		case BK_Q6:
			return s->price[j] * s->disc[j];
		case BK_INT:
			return s->v[j] * (int64_t) (100 - s->k[j]);
		case BK_FLOAT:
			prod = s->f[j] * 1.5;
			r = prod + 1.0;
			memcpy(&bits, &r, sizeof(bits));
			return bits;
		default:
			return s->price[j];
	}
}

/*
 * Copies p's results and validity at the sampled rows back and compares
 * them with the plain C computation; exits on any difference.
 */
static void
check_results(const bench_prog *p, const bench_sample *s, const void *d_out,
			  const uint8_t *d_valid, int64_t n)
{
	std::vector<int64_t> got(s->count);
	std::vector<uint8_t> valid(s->count);
	int64_t		bad = 0;

	fetch_rows(got.data(), d_out, 8, s, n);
	fetch_rows(valid.data(), d_valid, 1, s, n);
	for (int64_t j = 0; j < s->count; j++)
	{
		int64_t		want = expected(p, s, j);

		if (valid[j] == 1 && got[j] == want)
			continue;
		if (bad++ < 5)
		{
			double		gf,
						wf;

			memcpy(&gf, &got[j], sizeof(gf));
			memcpy(&wf, &want, sizeof(wf));
			if (p->out_type == GPO_FLOAT64)
				fprintf(stderr, "gpu_expr: %s: row %lld: got %.17g (valid %d), want %.17g\n",
						p->name, (long long) s->rows[j], gf, (int) valid[j], wf);
			else
				fprintf(stderr, "gpu_expr: %s: row %lld: got %lld (valid %d), want %lld\n",
						p->name, (long long) s->rows[j], (long long) got[j],
						(int) valid[j], (long long) want);
		}
	}
	if (bad > 0)
	{
		fprintf(stderr, "gpu_expr: FAILED: %s: %lld of %lld sampled rows differ from plain C\n",
				p->name, (long long) bad, (long long) s->count);
		exit(1);
	}
}

/* Times fn (after a warm-up run) with CUDA events; the median in ms. */
template <typename F>
static float
time_median(int reps, cudaEvent_t ev0, cudaEvent_t ev1, F fn)
{
	std::vector<float> t;
	float		ms;

	for (int r = 0; r <= reps; r++)
	{
		BENCH_CHECK(cudaEventRecord(ev0));
		fn();
		BENCH_CHECK(cudaEventRecord(ev1));
		BENCH_CHECK(cudaEventSynchronize(ev1));
		BENCH_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
		if (r > 0)
			t.push_back(ms);
	}
	return median(t);
}

/* Runs the benchmark. */
int
main(int argc, char **argv)
{
	int64_t		n = argc > 1 ? atoll(argv[1]) : 60000000;
	int			reps = argc > 2 ? atoi(argv[2]) : 5;
	std::vector<bench_prog> progs;
	cudaDeviceProp prop;
	int64_t    *d_price = NULL;
	int64_t    *d_disc = NULL;
	int64_t    *d_tax = NULL;
	int32_t    *d_k = NULL;
	int64_t    *d_v = NULL;
	double	   *d_f = NULL;
	void	   *d_out = NULL;
	uint8_t    *d_valid = NULL;
	gpo_xcol	h_cols[BC_NCOLS];
	gpo_dmem	mem = {};
	bench_sample sample;
	cudaEvent_t ev0,
				ev1;
	double		copy_gbs;
	gpo_ctx		ctx;
	float		ms;
	bool		errors = false;
	char		text[256];

	memset(&ctx, 0, sizeof(ctx));
	if (n < 1 || n > (INT64_C(1) << 40) || reps < 1)
	{
		fprintf(stderr, "usage: gpu_expr [rows (1 .. 2^40) [reps (1 ..)]]\n");
		return 2;
	}
	build_programs(progs);
	for (size_t i = 0; i < progs.size(); i++)
		BENCH_OK(gpo_expr_check(&ctx, BC_NCOLS, progs[i].nodes.data(),
								(int) progs[i].nodes.size()), ctx);

	BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
	BENCH_CHECK(cudaMalloc(&d_price, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_disc, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_tax, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_k, 4 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_v, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_f, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_out, 8 * (size_t) n));
	BENCH_CHECK(cudaMalloc(&d_valid, (size_t) n));
	/* a call takes only its column table, program and error word from it */
	mem.arena_bytes = (size_t) 1 << 20;
	BENCH_CHECK(cudaMalloc(&mem.d_arena, mem.arena_bytes));
	BENCH_CHECK(cudaEventCreate(&ev0));
	BENCH_CHECK(cudaEventCreate(&ev1));

	memset(h_cols, 0, sizeof(h_cols));
	h_cols[BC_PRICE].data = d_price;
	h_cols[BC_PRICE].type = GPO_INT64;
	h_cols[BC_DISC].data = d_disc;
	h_cols[BC_DISC].type = GPO_INT64;
	h_cols[BC_TAX].data = d_tax;
	h_cols[BC_TAX].type = GPO_INT64;
	h_cols[BC_K].data = d_k;
	h_cols[BC_K].type = GPO_INT32;
	h_cols[BC_V].data = d_v;
	h_cols[BC_V].type = GPO_INT64;
	h_cols[BC_F].data = d_f;
	h_cols[BC_F].type = GPO_FLOAT64;
	bench_fill<<<1024, 256>>>(d_price, d_disc, d_tax, d_k, d_v, d_f, n);
	BENCH_CHECK(cudaGetLastError());
	BENCH_CHECK(cudaDeviceSynchronize());
	fetch_sample(&sample, h_cols, n);

	printf("gpu_expr: %s, %lld rows, median of %d runs (after a warm-up run)\n\n",
		   prop.name, (long long) n, reps);
	printf("columns: COL0 price, COL1 discount, COL2 tax (int64, numeric at scale 2), "
		   "COL3 k (int32), COL4 v (int64), COL5 f (float64); no NULLs\n\n");
	printf("| operation | program | out | B/row | ms | Grows/s | GB/s | %% of copy | error |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");

	/* the bandwidth reference */
	ms = time_median(reps, ev0, ev1, [&]() {
		BENCH_CHECK(cudaMemcpy(d_out, d_price, 8 * (size_t) n, cudaMemcpyDeviceToDevice));
	});
	copy_gbs = 16.0 * n / (ms * 1e-3) / 1e9;
	print_row("d2d copy of one int64 column (read + write)", "-", "-", n, 16.0, ms,
			  copy_gbs, "-");

	/* the fixed cost of a call: Q1's program over one row */
	{
		gpo_expr_error err;
		const bench_prog *p = &progs[0];

		ms = time_median(reps, ev0, ev1, [&]() {
			mem.used = 0;
			BENCH_OK(gpo_cuda_expr_columns(&ctx, h_cols, BC_NCOLS, p->nodes.data(),
										   (int) p->nodes.size(), 1, p->out_type,
										   d_out, d_valid, &mem, &err), ctx);
		});
		prog_text(p->nodes, text, sizeof(text));
		printf("| call over 1 row (fixed cost) | %s | %s | - | %.3f | - | - | - | %s |\n",
			   text, gpo_type_name(p->out_type), ms, xerr_name(err.code));
		if (err.code != GPO_XERR_NONE)
			errors = true;
	}

	for (size_t i = 0; i < progs.size(); i++)
	{
		const bench_prog *p = &progs[i];
		gpo_expr_error err;
		gpo_expr_error worst;
		char		out[32];

		worst.code = GPO_XERR_NONE;
		worst.row = 0;
		/* stale results of an earlier program must not pass the check */
		BENCH_CHECK(cudaMemset(d_out, 0xa5, 8 * (size_t) n));
		BENCH_CHECK(cudaMemset(d_valid, 0, (size_t) n));
		ms = time_median(reps, ev0, ev1, [&]() {
			mem.used = 0;
			BENCH_OK(gpo_cuda_expr_columns(&ctx, h_cols, BC_NCOLS, p->nodes.data(),
										   (int) p->nodes.size(), n, p->out_type,
										   d_out, d_valid, &mem, &err), ctx);
			if (err.code != GPO_XERR_NONE && worst.code == GPO_XERR_NONE)
				worst = err;
		});
		prog_text(p->nodes, text, sizeof(text));
		if (p->scale >= 0)
			snprintf(out, sizeof(out), "numeric scale %d", p->scale);
		else
			snprintf(out, sizeof(out), "%s", gpo_type_name(p->out_type));
		print_row(p->name, text, out, n, prog_row_bytes(p, h_cols), ms, copy_gbs,
				  xerr_name(worst.code));
		if (worst.code != GPO_XERR_NONE)
		{
			fprintf(stderr, "gpu_expr: FAILED: %s: error %s at row %lld\n", p->name,
					xerr_name(worst.code), (long long) worst.row);
			errors = true;
			continue;
		}
		check_results(p, &sample, d_out, d_valid, n);
	}
	if (errors)
		return 1;
	printf("\nchecked: every call's error word is NONE; %lld sampled rows of each "
		   "program (every %lld-th and the last) equal a plain C computation\n",
		   (long long) sample.count, (long long) sample.stride);

	cudaFree(mem.d_arena);
	cudaFree(d_valid);
	cudaFree(d_out);
	cudaFree(d_f);
	cudaFree(d_v);
	cudaFree(d_k);
	cudaFree(d_tax);
	cudaFree(d_disc);
	cudaFree(d_price);
	return 0;
}
