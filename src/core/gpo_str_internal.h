/*
 * gpo_str_internal.h
 *	  What the string primitives (strdict.c, strlen.c, strlike.c) share.
 */
#ifndef GPO_STR_INTERNAL_H
#define GPO_STR_INTERNAL_H

#include "gpo_internal.h"
#include "gpo_strdict.h"

/* False if a string that is not NULL has a negative length. */
static inline bool
gpo_strs_valid(int64_t n, const gpo_str *strs)
{
	int64_t		i;

	for (i = 0; i < n; i++)
		if (strs[i].data != NULL && strs[i].len < 0)
			return false;
	return true;
}

#endif							/* GPO_STR_INTERNAL_H */
