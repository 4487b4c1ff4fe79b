/*
 * gpuops_omp.h
 *	  The OpenMP runtime that gpuops.so loads itself (omp_runtime.c).
 *
 * No PostgreSQL header: omp_runtime.c's trampolines run on any thread.
 */
#ifndef GPUOPS_OMP_H
#define GPUOPS_OMP_H

/*
 * Opens libgomp once, with a short spin for idle threads unless the
 * server's environment says how they wait; NULL, or why the engine runs on
 * one thread.
 */
extern const char *gpuops_omp_load(void);

/* How the engine's idle OpenMP threads wait, for gpuops.info(). */
extern const char *gpuops_omp_wait(void);

#endif							/* GPUOPS_OMP_H */
