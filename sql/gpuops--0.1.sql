-- gpuops 0.1: data-parallel primitives (run-length encoding, adjacent-unique,
-- prefix sums, compaction, grouped aggregation, histograms, hash joins) on the
-- GPU (CUDA) or every CPU core (OpenMP).

\echo Use "CREATE EXTENSION gpuops" to load this file. \quit

-- Every role may call the functions (EXECUTE is PUBLIC's by default); the
-- ones that take a query run it as the caller, so privileges and row-level
-- security decide what it reads.
GRANT USAGE ON SCHEMA gpuops TO PUBLIC;

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

-- Which face ran this backend's last engine call: backend state, so
-- VOLATILE and PARALLEL RESTRICTED (a worker's calls are its own).
CREATE FUNCTION gpuops.last_run()
RETURNS TABLE(operation text, device text, detail text)
AS 'MODULE_PATHNAME', 'gpuops_last_run_sql'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuops.last_run() IS
'the operation, the face (gpu, cpu or none) and any fallback detail of this backend''s last engine call';

-- The core budget that every session's engine threads share (gpuops.max_threads)
-- and the GPU's seats (gpuops.max_gpu_queries): shared state, so VOLATILE and
-- PARALLEL RESTRICTED.
CREATE FUNCTION gpuops.budget(OUT shared bool, OUT max_threads int,
                              OUT threads_in_use int, OUT threads_held int,
                              OUT max_gpu_queries int, OUT gpu_queries_in_use int)
AS 'MODULE_PATHNAME', 'gpuops_budget_sql'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuops.budget() IS
'the core budget: whether it is shared (gpuops preloaded), its cap, the engine threads all sessions use now (NULL without a shared budget), this backend''s share, the GPU seats'' cap (0: none) and the queries on the GPU now (NULL without a shared budget)';

-- The GPU service (gpuops.gpu_service): shared state, so VOLATILE and
-- PARALLEL RESTRICTED.  A row per service (one per GPU, numbered as CUDA
-- numbers the GPUs it sees); one of NULLs where the server doesn't run it.
CREATE FUNCTION gpuops.service(OUT configured bool, OUT gpu int,
                               OUT state text, OUT pid int,
                               OUT device text, OUT pinned bool,
                               OUT arena_bytes bigint, OUT arena_used bigint,
                               OUT arena_peak bigint, OUT device_held bigint,
                               OUT device_peak bigint, OUT in_flight int,
                               OUT served bigint, OUT abandoned bigint,
                               OUT lost bigint, OUT starts bigint,
                               OUT streams int, OUT running int,
                               OUT running_peak int, OUT kept_ranges bigint,
                               OUT kept_bytes bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuops_service_sql'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuops.service() IS
'the GPU services, one row each (one per GPU): whether this server runs them, the service''s number (its GPU), its state (gpu, cpu under gpuops.debug_gpu_service, no device, down), its executor''s pid and device, whether its staging arena is page-locked, the arena''s bytes, use and peak, the device memory its pool holds and held at most (within gpuops.gpu_memory_limit), the requests in flight, served, given up by their sessions and lost to a restart, how often its executor started, the requests it runs at once (gpuops.gpu_service_streams), runs now and ran at most at once, and the column cache''s ranges it keeps on its device and their bytes';

-- Stops the executor of GPU service gpu (NULL: of every one), which its
-- supervisor starts again.
CREATE FUNCTION gpuops.service_restart(immediate boolean DEFAULT false,
                                       gpu int DEFAULT NULL)
RETURNS bool
AS 'MODULE_PATHNAME', 'gpuops_service_restart_sql'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION gpuops.service_restart(boolean, int) FROM PUBLIC;

COMMENT ON FUNCTION gpuops.service_restart(boolean, int) IS
'restarts the executor of GPU service gpu, or of every one when gpu is NULL (superuser only): it finishes the request it runs first, or, immediate, is killed at once (that request fails under gpuops.device = gpu, runs on the CPU under auto); no other process restarts; false when none was running';

-- The column cache: decoded columns of a table's all-visible block ranges in
-- shared memory, served to GpuOpsAgg while no change touched their blocks.
-- Shared state and DDL: VOLATILE, PARALLEL UNSAFE (the status: RESTRICTED).
CREATE FUNCTION gpuops.cache_mark()
RETURNS trigger
AS 'MODULE_PATHNAME', 'gpuops_cache_mark'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.cache_mark() IS
'the column cache''s trigger (installed by gpuops.cache_table): marks the block ranges of changed rows stale before the change commits';

CREATE FUNCTION gpuops.cache_table(rel regclass, auto_refresh bool DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'gpuops_cache_table'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.cache_table(regclass, bool) IS
'caches a table (its owner only): installs its triggers (enabled ALWAYS), then reads every all-visible block range of its integer, float, date, timestamp, boolean, numeric and short char(n) and varchar(n) columns into shared memory; returns the ranges cached; auto_refresh: the refresher reads stale ranges again after VACUUM';

CREATE FUNCTION gpuops.uncache_table(rel regclass)
RETURNS bool
AS 'MODULE_PATHNAME', 'gpuops_uncache_table'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.uncache_table(regclass) IS
'drops a table from the column cache and its triggers (its owner only); false if it was not cached';

CREATE FUNCTION gpuops.cache_refresh(rel regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'gpuops_cache_refresh'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.cache_refresh(regclass) IS
'reads again the block ranges of a cached table that changes made stale and that VACUUM made all-visible again (its owner only); returns how many';

CREATE FUNCTION gpuops.cache_status(OUT relation regclass, OUT range_blocks int,
                                    OUT ranges bigint, OUT ranges_cached bigint,
                                    OUT ranges_fresh bigint, OUT rows_cached bigint,
                                    OUT host_bytes bigint, OUT blocks_served bigint,
                                    OUT auto_refresh bool, OUT ranges_on_device bigint,
                                    OUT device_bytes bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuops_cache_status'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuops.cache_status() IS
'the tables of this database in the column cache: heap blocks a range, ranges of the table, ranges cached, of them fresh (served), rows and shared memory bytes cached, blocks served to queries, whether the refresher reads its stale ranges, and the fresh ranges the GPU service keeps on its device with their device bytes';

-- Histogram with even bins: width_bucket(v::float8, lo, hi, bins) counts of
-- an int2, int4, int8, float4 or float8 array; lo and hi both NULL: the
-- domain is the minimum and maximum finite element.  The counts are the same
-- on both faces: IMMUTABLE.  Not STRICT, so that lo and hi can default to
-- NULL; a NULL array or a NULL bins gives no rows, as STRICT would.
CREATE FUNCTION gpuops.histogram(vals anyarray, bins int,
                                 lo float8 DEFAULT NULL, hi float8 DEFAULT NULL)
RETURNS TABLE(bucket int, lower_bound float8, upper_bound float8, count bigint)
AS 'MODULE_PATHNAME', 'gpuops_histogram'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.histogram(anyarray, int, float8, float8) IS
'even-bin histogram: width_bucket counts per bucket, with a given or an automatic domain';

-- Equi-join of two key arrays: every (build_pos, probe_pos) pair of 1-based
-- positions with equal keys, ordered by probe_pos, then build_pos.  The same
-- pairs in the same order on both faces: IMMUTABLE.
CREATE FUNCTION gpuops.hash_join(build_keys anyarray, probe_keys anyarray)
RETURNS TABLE(build_pos bigint, probe_pos bigint)
AS 'MODULE_PATHNAME', 'gpuops_hash_join'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.hash_join(anyarray, anyarray) IS
'hash equi-join: every (build_pos, probe_pos) pair of positions with equal keys';

-- GROUP BY over two arrays: one row per distinct key, in the key type's order,
-- the NULL key last; keys of int2, int4, int8, float4, float8, date,
-- timestamp, timestamptz or bool.  The float8 variant is STABLE (its sums may
-- differ in the last bits between faces, strategies and thread counts); the
-- int8 variant is exact everywhere: IMMUTABLE.
CREATE FUNCTION gpuops.group_agg(keys anyarray, vals float8[])
RETURNS TABLE(key anyelement, rows bigint, count bigint, sum float8,
              min float8, max float8, avg float8)
AS 'MODULE_PATHNAME', 'gpuops_group_agg_float8'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.group_agg(anyarray, float8[]) IS
'GROUP BY keys: per distinct key count(*), count, sum, min, max and avg of the double precision values';

CREATE FUNCTION gpuops.group_agg(keys anyarray, vals int8[])
RETURNS TABLE(key anyelement, rows bigint, count bigint, sum numeric,
              min bigint, max bigint, avg numeric)
AS 'MODULE_PATHNAME', 'gpuops_group_agg_int8'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuops.group_agg(anyarray, int8[]) IS
'GROUP BY keys: per distinct key count(*), count, exact sum, min, max and avg of the bigint values';

-- Query versions.  These run a query (one SELECT or VALUES, as the calling
-- user: privileges and row-level security apply) and stream its rows into
-- the engine in chunks of gpuops.chunk_size bytes per column.  VOLATILE
-- (they read tables) and PARALLEL UNSAFE (they run SPI).  Not STRICT: the
-- type arguments are usually NULL (NULL::text); a NULL query gives no rows.

CREATE FUNCTION gpuops.histogram(query text, bins int,
                                 lo float8 DEFAULT NULL, hi float8 DEFAULT NULL)
RETURNS TABLE(bucket int, lower_bound float8, upper_bound float8, count bigint)
AS 'MODULE_PATHNAME', 'gpuops_histogram_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.histogram(text, int, float8, float8) IS
'even-bin histogram of a query''s numeric column, streamed in chunks; given or automatic domain';

CREATE FUNCTION gpuops.rle(query text, value_type anyelement)
RETURNS TABLE(value anyelement, start_pos bigint, run_length bigint)
AS 'MODULE_PATHNAME', 'gpuops_rle_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.rle(text, anyelement) IS
'run-length encoding of a query''s column in its row order, streamed in chunks: one row (value, start_pos, run_length) per run';

CREATE FUNCTION gpuops.unique(query text, value_type anyelement)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'gpuops_unique_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.unique(text, anyelement) IS
'adjacent-unique of a query''s column in its row order, streamed in chunks';

CREATE FUNCTION gpuops.group_agg(query text, key_type anyelement)
RETURNS TABLE(key anyelement, rows bigint, count bigint, sum float8,
              min float8, max float8, avg float8)
AS 'MODULE_PATHNAME', 'gpuops_group_agg_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuops.group_agg(text, anyelement) IS
'GROUP BY over a query''s (key, double precision value) rows, streamed in chunks: per key count(*), count, sum, min, max and avg';
