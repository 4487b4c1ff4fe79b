/*
 * omp_runtime.c
 *	  Loads the OpenMP runtime (libgomp) itself, after saying how its idle
 *	  threads wait.
 *
 * libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its constructor,
 * when it is loaded; by default each idle team thread then spins for 300000
 * rounds (milliseconds of a core) before it sleeps.  With one team per
 * backend, 64 sessions on 16 cores ran at 0.76 tps against native's 11.3,
 * and 55.9 with OMP_WAIT_POLICY=passive in the server's environment.  A
 * library that names libgomp as a dependency cannot set that: the dynamic
 * linker initializes libgomp before any code of the library runs.
 *
 * So gpuops.so is linked without libgomp (the Makefile checks that no
 * OpenMP symbol is left for the dynamic linker).  The calls the compiler
 * emits for OpenMP constructs land in the hidden trampolines below, which
 * jump into the libgomp that gpuops_omp_load() opens with dlopen, after
 * setting GOMP_SPINCOUNT to a short spin, unless the server's environment
 * already says how to wait (OMP_WAIT_POLICY or GOMP_SPINCOUNT): that wins.
 * libgomp comes in as the dependency of gpuops_omp.so, installed beside
 * gpuops.so (src/omp), so that ldd and packagers see it; failing that,
 * libgomp.so.1 is opened by name.
 * The variable is removed again once libgomp has read it, so nothing else
 * in the process sees it.  Each symbol is bound at the version that gcc's
 * own link against libgomp would bind.
 *
 * If libgomp cannot be loaded, the trampolines run every parallel region on
 * the calling thread alone (a team of one), and gpuops.info() says so.
 *
 * This file includes no PostgreSQL header: the trampolines run on any
 * thread.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "budget/gpuops_omp.h"

#define GPUOPS_HIDDEN __attribute__((visibility("hidden")))

/*
 * The spin that gpuops sets: 1000 rounds (tens of microseconds), then sleep.
 * On 2 busy cores 1000 and passive waiting ran the query in 94-150 ms, 100000
 * in 475 ms and libgomp's default (300000) in 406 ms.
 */
#define GPUOPS_GOMP_SPINCOUNT "1000"

typedef void (*omp_parallel_fn) (void (*) (void *), void *, unsigned, unsigned);
typedef void (*omp_void_fn) (void);
typedef bool (*omp_bool_fn) (void);
typedef int (*omp_int_fn) (void);
typedef void (*omp_set_int_fn) (int);
typedef double (*omp_double_fn) (void);
typedef void (*omp_ptr_fn) (void **);
typedef bool (*omp_loop_start_fn) (long, long, long, long, long *, long *);
typedef bool (*omp_loop_next_fn) (long *, long *);
typedef bool (*omp_ull_start_fn) (bool, unsigned long long, unsigned long long,
								  unsigned long long, unsigned long long,
								  unsigned long long *, unsigned long long *);
typedef bool (*omp_ull_next_fn) (unsigned long long *, unsigned long long *);

/* libgomp's entry points, NULL until loaded (or when it cannot be) */
static struct
{
	omp_parallel_fn parallel;
	omp_void_fn barrier;
	omp_void_fn critical_start;
	omp_void_fn critical_end;
	omp_ptr_fn critical_name_start;
	omp_ptr_fn critical_name_end;
	omp_void_fn atomic_start;
	omp_void_fn atomic_end;
	omp_bool_fn single_start;
	omp_loop_start_fn loop_dynamic_start;
	omp_loop_next_fn loop_dynamic_next;
	omp_loop_start_fn loop_nm_dynamic_start;
	omp_loop_next_fn loop_nm_dynamic_next;
	omp_loop_start_fn loop_guided_start;
	omp_loop_next_fn loop_guided_next;
	omp_ull_start_fn loop_ull_nm_dynamic_start;
	omp_ull_next_fn loop_ull_nm_dynamic_next;
	omp_void_fn loop_end;
	omp_void_fn loop_end_nowait;
	omp_int_fn get_thread_num;
	omp_int_fn get_num_threads;
	omp_int_fn get_max_threads;
	omp_int_fn get_num_procs;
	omp_set_int_fn set_num_threads;
	omp_int_fn in_parallel;
	omp_double_fn get_wtime;
} gomp;

/* Loads gpuops_omp.so from gpuops.so's directory, and with it libgomp; false if it cannot be. */
static bool
gpuops_omp_companion(void)
{
	Dl_info		self;
	char		path[PATH_MAX];
	const char *slash;

	if (dladdr((void *) gpuops_omp_load, &self) == 0 || self.dli_fname == NULL)
		return false;
	slash = strrchr(self.dli_fname, '/');
	if (slash == NULL)
		return false;
	if (snprintf(path, sizeof(path), "%.*s/gpuops_omp.so",
				 (int) (slash - self.dli_fname), self.dli_fname) >= (int) sizeof(path))
		return false;
	return dlopen(path, RTLD_NOW | RTLD_LOCAL) != NULL;
}

/* What gpuops_omp_wait() reports. */
static char omp_wait[160] = "not loaded";

/* One symbol of libgomp at the version gcc links against, or NULL. */
static void *
gpuops_omp_sym(void *lib, const char *name, const char *version)
{
	void	   *p = dlvsym(lib, name, version);

	return p != NULL ? p : dlsym(lib, name);
}

/* Binds every entry point; false if one is missing. */
static bool
gpuops_omp_bind(void *lib)
{
	void	  **slot;

#define BIND(field, name, version) \
	(gomp.field = gpuops_omp_sym(lib, name, version))
	BIND(parallel, "GOMP_parallel", "GOMP_4.0");
	BIND(barrier, "GOMP_barrier", "GOMP_1.0");
	BIND(critical_start, "GOMP_critical_start", "GOMP_1.0");
	BIND(critical_end, "GOMP_critical_end", "GOMP_1.0");
	BIND(critical_name_start, "GOMP_critical_name_start", "GOMP_1.0");
	BIND(critical_name_end, "GOMP_critical_name_end", "GOMP_1.0");
	BIND(atomic_start, "GOMP_atomic_start", "GOMP_1.0");
	BIND(atomic_end, "GOMP_atomic_end", "GOMP_1.0");
	BIND(single_start, "GOMP_single_start", "GOMP_1.0");
	BIND(loop_dynamic_start, "GOMP_loop_dynamic_start", "GOMP_1.0");
	BIND(loop_dynamic_next, "GOMP_loop_dynamic_next", "GOMP_1.0");
	BIND(loop_nm_dynamic_start, "GOMP_loop_nonmonotonic_dynamic_start", "GOMP_4.5");
	BIND(loop_nm_dynamic_next, "GOMP_loop_nonmonotonic_dynamic_next", "GOMP_4.5");
	BIND(loop_guided_start, "GOMP_loop_guided_start", "GOMP_1.0");
	BIND(loop_guided_next, "GOMP_loop_guided_next", "GOMP_1.0");
	BIND(loop_ull_nm_dynamic_start, "GOMP_loop_ull_nonmonotonic_dynamic_start", "GOMP_4.5");
	BIND(loop_ull_nm_dynamic_next, "GOMP_loop_ull_nonmonotonic_dynamic_next", "GOMP_4.5");
	BIND(loop_end, "GOMP_loop_end", "GOMP_1.0");
	BIND(loop_end_nowait, "GOMP_loop_end_nowait", "GOMP_1.0");
	BIND(get_thread_num, "omp_get_thread_num", "OMP_1.0");
	BIND(get_num_threads, "omp_get_num_threads", "OMP_1.0");
	BIND(get_max_threads, "omp_get_max_threads", "OMP_1.0");
	BIND(get_num_procs, "omp_get_num_procs", "OMP_1.0");
	BIND(set_num_threads, "omp_set_num_threads", "OMP_1.0");
	BIND(in_parallel, "omp_in_parallel", "OMP_1.0");
	BIND(get_wtime, "omp_get_wtime", "OMP_2.0");
#undef BIND
	for (slot = (void **) &gomp; slot < (void **) (&gomp + 1); slot++)
	{
		if (*slot == NULL)
		{
			memset(&gomp, 0, sizeof(gomp));
			return false;
		}
	}
	return true;
}

/*
 * Opens libgomp (once), with a short spin unless the environment says how
 * to wait; returns NULL or why the engine runs on one thread.
 */
const char *
gpuops_omp_load(void)
{
	static bool tried = false;
	static char why[160];
	const char *policy;
	const char *spin;
	bool		already;
	bool		ours = false;
	void	   *lib;

	if (tried)
		return why[0] != '\0' ? why : NULL;
	tried = true;
	policy = getenv("OMP_WAIT_POLICY");
	spin = getenv("GOMP_SPINCOUNT");
	already = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD) != NULL;
	if (already)
		snprintf(omp_wait, sizeof(omp_wait),
				 "libgomp default (already loaded by another library)");
	else if (policy != NULL || spin != NULL)
		snprintf(omp_wait, sizeof(omp_wait), "%s%s%s%s (server environment)",
				 policy ? "OMP_WAIT_POLICY=" : "", policy ? policy : "",
				 policy && spin ? ", GOMP_SPINCOUNT=" : spin ? "GOMP_SPINCOUNT=" : "",
				 spin ? spin : "");
	else
	{
		setenv("GOMP_SPINCOUNT", GPUOPS_GOMP_SPINCOUNT, 1);
		ours = true;
		snprintf(omp_wait, sizeof(omp_wait),
				 "GOMP_SPINCOUNT=%s (gpuops default)", GPUOPS_GOMP_SPINCOUNT);
	}
	if (gpuops_omp_companion())
		lib = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
	else
		lib = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL);
	if (ours)
		unsetenv("GOMP_SPINCOUNT");
	if (lib == NULL || !gpuops_omp_bind(lib))
	{
		snprintf(why, sizeof(why), "%s",
				 lib == NULL ? dlerror() : "libgomp.so.1 lacks an OpenMP entry point");
		snprintf(omp_wait, sizeof(omp_wait), "one thread: %s", why);
		return why;
	}
	return NULL;
}

/* How the engine's idle OpenMP threads wait, for gpuops.info(). */
const char *
gpuops_omp_wait(void)
{
	return omp_wait;
}

/*
 * The trampolines.  Without libgomp each runs as a team of one: a parallel
 * region calls its body once, a loop hands the whole range to its only
 * thread, and locks, barriers and single sections are trivially held.
 */
GPUOPS_HIDDEN void GOMP_parallel(void (*fn) (void *), void *data,
								 unsigned nthreads, unsigned flags);
GPUOPS_HIDDEN void GOMP_barrier(void);
GPUOPS_HIDDEN void GOMP_critical_start(void);
GPUOPS_HIDDEN void GOMP_critical_end(void);
GPUOPS_HIDDEN void GOMP_critical_name_start(void **p);
GPUOPS_HIDDEN void GOMP_critical_name_end(void **p);
GPUOPS_HIDDEN void GOMP_atomic_start(void);
GPUOPS_HIDDEN void GOMP_atomic_end(void);
GPUOPS_HIDDEN bool GOMP_single_start(void);
GPUOPS_HIDDEN bool GOMP_loop_dynamic_start(long start, long end, long incr,
										   long chunk, long *istart, long *iend);
GPUOPS_HIDDEN bool GOMP_loop_dynamic_next(long *istart, long *iend);
GPUOPS_HIDDEN bool GOMP_loop_nonmonotonic_dynamic_start(long start, long end,
														long incr, long chunk,
														long *istart, long *iend);
GPUOPS_HIDDEN bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend);
GPUOPS_HIDDEN bool GOMP_loop_guided_start(long start, long end, long incr,
										  long chunk, long *istart, long *iend);
GPUOPS_HIDDEN bool GOMP_loop_guided_next(long *istart, long *iend);
GPUOPS_HIDDEN bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up,
															unsigned long long start,
															unsigned long long end,
															unsigned long long incr,
															unsigned long long chunk,
															unsigned long long *istart,
															unsigned long long *iend);
GPUOPS_HIDDEN bool GOMP_loop_ull_nonmonotonic_dynamic_next(unsigned long long *istart,
														   unsigned long long *iend);
GPUOPS_HIDDEN void GOMP_loop_end(void);
GPUOPS_HIDDEN void GOMP_loop_end_nowait(void);
GPUOPS_HIDDEN int omp_get_thread_num(void);
GPUOPS_HIDDEN int omp_get_num_threads(void);
GPUOPS_HIDDEN int omp_get_max_threads(void);
GPUOPS_HIDDEN int omp_get_num_procs(void);
GPUOPS_HIDDEN void omp_set_num_threads(int n);
GPUOPS_HIDDEN int omp_in_parallel(void);
GPUOPS_HIDDEN double omp_get_wtime(void);

/* #pragma omp parallel */
void
GOMP_parallel(void (*fn) (void *), void *data, unsigned nthreads, unsigned flags)
{
	if (gomp.parallel)
		gomp.parallel(fn, data, nthreads, flags);
	else
		fn(data);
}

/* #pragma omp barrier */
void
GOMP_barrier(void)
{
	if (gomp.barrier)
		gomp.barrier();
}

/* #pragma omp critical (unnamed): entry */
void
GOMP_critical_start(void)
{
	if (gomp.critical_start)
		gomp.critical_start();
}

/* #pragma omp critical (unnamed): exit */
void
GOMP_critical_end(void)
{
	if (gomp.critical_end)
		gomp.critical_end();
}

/* #pragma omp critical (name): entry */
void
GOMP_critical_name_start(void **p)
{
	if (gomp.critical_name_start)
		gomp.critical_name_start(p);
}

/* #pragma omp critical (name): exit */
void
GOMP_critical_name_end(void **p)
{
	if (gomp.critical_name_end)
		gomp.critical_name_end(p);
}

/* #pragma omp atomic that needs a lock: entry */
void
GOMP_atomic_start(void)
{
	if (gomp.atomic_start)
		gomp.atomic_start();
}

/* #pragma omp atomic that needs a lock: exit */
void
GOMP_atomic_end(void)
{
	if (gomp.atomic_end)
		gomp.atomic_end();
}

/* #pragma omp single: whether this thread runs it */
bool
GOMP_single_start(void)
{
	return gomp.single_start ? gomp.single_start() : true;
}

/* A team of one's share of a loop over [start, end) by incr: all of it. */
static bool
gpuops_omp_whole(long start, long end, long incr, long *istart, long *iend)
{
	*istart = start;
	*iend = end;
	return incr > 0 ? start < end : start > end;
}

/* schedule(monotonic: dynamic): the first chunk */
bool
GOMP_loop_dynamic_start(long start, long end, long incr, long chunk,
						long *istart, long *iend)
{
	if (gomp.loop_dynamic_start)
		return gomp.loop_dynamic_start(start, end, incr, chunk, istart, iend);
	return gpuops_omp_whole(start, end, incr, istart, iend);
}

/* schedule(monotonic: dynamic): the next chunk */
bool
GOMP_loop_dynamic_next(long *istart, long *iend)
{
	return gomp.loop_dynamic_next ? gomp.loop_dynamic_next(istart, iend) : false;
}

/* schedule(dynamic): the first chunk */
bool
GOMP_loop_nonmonotonic_dynamic_start(long start, long end, long incr, long chunk,
									 long *istart, long *iend)
{
	if (gomp.loop_nm_dynamic_start)
		return gomp.loop_nm_dynamic_start(start, end, incr, chunk, istart, iend);
	return gpuops_omp_whole(start, end, incr, istart, iend);
}

/* schedule(dynamic): the next chunk */
bool
GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend)
{
	return gomp.loop_nm_dynamic_next ? gomp.loop_nm_dynamic_next(istart, iend) : false;
}

/* schedule(guided): the first chunk */
bool
GOMP_loop_guided_start(long start, long end, long incr, long chunk,
					   long *istart, long *iend)
{
	if (gomp.loop_guided_start)
		return gomp.loop_guided_start(start, end, incr, chunk, istart, iend);
	return gpuops_omp_whole(start, end, incr, istart, iend);
}

/* schedule(guided): the next chunk */
bool
GOMP_loop_guided_next(long *istart, long *iend)
{
	return gomp.loop_guided_next ? gomp.loop_guided_next(istart, iend) : false;
}

/* schedule(dynamic) over an unsigned 64-bit range: the first chunk */
bool
GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, unsigned long long start,
										 unsigned long long end,
										 unsigned long long incr,
										 unsigned long long chunk,
										 unsigned long long *istart,
										 unsigned long long *iend)
{
	if (gomp.loop_ull_nm_dynamic_start)
		return gomp.loop_ull_nm_dynamic_start(up, start, end, incr, chunk,
											  istart, iend);
	*istart = start;
	*iend = end;
	return up ? start < end : start > end;
}

/* schedule(dynamic) over an unsigned 64-bit range: the next chunk */
bool
GOMP_loop_ull_nonmonotonic_dynamic_next(unsigned long long *istart,
										unsigned long long *iend)
{
	return gomp.loop_ull_nm_dynamic_next ?
		gomp.loop_ull_nm_dynamic_next(istart, iend) : false;
}

/* The end of a loop, with its barrier. */
void
GOMP_loop_end(void)
{
	if (gomp.loop_end)
		gomp.loop_end();
}

/* The end of a loop without a barrier (nowait). */
void
GOMP_loop_end_nowait(void)
{
	if (gomp.loop_end_nowait)
		gomp.loop_end_nowait();
}

/* omp_get_thread_num() */
int
omp_get_thread_num(void)
{
	return gomp.get_thread_num ? gomp.get_thread_num() : 0;
}

/* omp_get_num_threads() */
int
omp_get_num_threads(void)
{
	return gomp.get_num_threads ? gomp.get_num_threads() : 1;
}

/* omp_get_max_threads() */
int
omp_get_max_threads(void)
{
	return gomp.get_max_threads ? gomp.get_max_threads() : 1;
}

/* omp_get_num_procs() */
int
omp_get_num_procs(void)
{
	return gomp.get_num_procs ? gomp.get_num_procs() : 1;
}

/* omp_set_num_threads() */
void
omp_set_num_threads(int n)
{
	if (gomp.set_num_threads)
		gomp.set_num_threads(n);
}

/* omp_in_parallel() */
int
omp_in_parallel(void)
{
	return gomp.in_parallel ? gomp.in_parallel() : 0;
}

/* omp_get_wtime() */
double
omp_get_wtime(void)
{
	struct timespec ts;

	if (gomp.get_wtime)
		return gomp.get_wtime();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}
