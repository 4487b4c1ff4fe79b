/*
 * test_resident_util.h
 *	  Helpers shared by the kept column set tests (test_resident.c and
 *	  test_resident_dims.c): raw bits and values of the engine's types, the
 *	  reference float comparison, output reads and strategy picks.
 */
#ifndef TEST_RESIDENT_UTIL_H
#define TEST_RESIDENT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpo.h"
#include "gpo_agg.h"

extern int	tres_pg_fcmp(double a, double b);
extern bool tres_is_float(gpo_type t);
extern double tres_dbl_of(gpo_type t, uint64_t r);
extern uint64_t tres_raw_of_dbl(gpo_type t, double d);
extern uint64_t tres_raw_at(const void *arr, size_t w, int64_t g);
extern gpo_agg_strategy tres_rand_strategy(gpo_type kt, uint64_t span);

#endif							/* TEST_RESIDENT_UTIL_H */
