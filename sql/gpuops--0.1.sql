-- gpuops 0.1: data-parallel primitives (run-length encoding, adjacent-unique,
-- prefix sums, compaction) on the GPU (CUDA) or every CPU core (OpenMP).

\echo Use "CREATE EXTENSION gpuops" to load this file. \quit

-- Volatility.  gpuops.device, gpuops.gpu_min_rows, gpuops.threads and
-- gpuops.chunk_size only choose which face computes a result and how the
-- input is cut into chunks; both faces agree to the bit on integers and on
-- which elements are equal, so rle, unique, compact and the int8 prefix_sum
-- depend only on their arguments: IMMUTABLE.  The float8 prefix_sum may
-- differ in the last bits between faces and thread counts (the summation
-- order differs), so it is only STABLE: it must not be folded into an index
-- expression or a stored plan constant that another setting would contradict.
-- gpuops.info() reports the machine and the current settings: VOLATILE.
--
-- STRICT: a NULL array (or a NULL keep mask, or a NULL inclusive flag) gives
-- NULL; for the set-returning functions that is an empty set.  NULL elements
-- inside an array are data, handled as each function documents.
--
-- All of them are PARALLEL SAFE: they touch no shared state, and the GUCs
-- they read are copied into parallel workers.

-- Runs of adjacent equal elements, in input order; start_pos is 1-based.
CREATE FUNCTION gpuops.rle(anyarray)
RETURNS TABLE(value anyelement, start_pos bigint, run_length bigint)
AS 'MODULE_PATHNAME', 'gpuops_rle'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.rle(anyarray) IS
'run-length encoding: one row (value, start_pos, run_length) per run of adjacent equal elements';

-- The first element of every run of adjacent equal elements.
CREATE FUNCTION gpuops.unique(anyarray)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'gpuops_unique'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.unique(anyarray) IS
'adjacent-unique: the first element of every run of adjacent equal elements';

-- Running sums in bigint; NULL elements stay NULL and add nothing.
CREATE FUNCTION gpuops.prefix_sum(int8[], inclusive bool DEFAULT true)
RETURNS int8[]
AS 'MODULE_PATHNAME', 'gpuops_prefix_sum_int8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.prefix_sum(int8[], bool) IS
'running sums (inclusive, or exclusive starting at 0) of a bigint array';

-- Running sums in double precision; NULL elements stay NULL and add nothing.
CREATE FUNCTION gpuops.prefix_sum(float8[], inclusive bool DEFAULT true)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'gpuops_prefix_sum_float8'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.prefix_sum(float8[], bool) IS
'running sums (inclusive, or exclusive starting at 0) of a double precision array';

-- The elements whose keep flag is true, as a 1-D array with lower bound 1.
CREATE FUNCTION gpuops.compact(anyarray, keep bool[])
RETURNS anyarray
AS 'MODULE_PATHNAME', 'gpuops_compact'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.compact(anyarray, bool[]) IS
'stable selection: the elements whose keep flag is true (NULL drops)';

-- Build and device facts, one (key, value) row each.
CREATE FUNCTION gpuops.info()
RETURNS TABLE(key text, value text)
AS 'MODULE_PATHNAME', 'gpuops_info'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.info() IS
'build, CUDA and GPU facts and the current gpuops.device setting';
