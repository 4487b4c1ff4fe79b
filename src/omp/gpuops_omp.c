/*
 * gpuops_omp.c
 *	  gpuops_omp.so: a companion of gpuops.so that is linked against libgomp.
 *
 * gpuops.so is linked without libgomp so that it can say how libgomp's
 * idle threads wait before libgomp reads that (src/pg/budget/omp_runtime.c), and
 * then loads libgomp by loading this module, whose dependency it is.  So
 * tools that follow shared-library dependencies (ldd, packagers, bundles
 * of a server and its libraries) find libgomp here, and the dynamic linker
 * finds it the way it finds any dependency.
 */
#include <omp.h>

int			gpuops_omp_cores(void);

/* Cores OpenMP sees (the reference that keeps libgomp a dependency). */
int
gpuops_omp_cores(void)
{
	return omp_get_num_procs();
}
