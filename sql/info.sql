-- gpuops.info(): keys always present; values checked only where they are the
-- same on every machine, the rest for consistency

SELECT key FROM gpuops.info();
SELECT value FROM gpuops.info() WHERE key = 'extension_version';
SELECT value = (SELECT extversion FROM pg_extension WHERE extname = 'gpuops') AS matches_catalog
  FROM gpuops.info() WHERE key = 'extension_version';
SELECT value IN ('cuda', 'cpu-only') AS build_known FROM gpuops.info() WHERE key = 'build';
SELECT value IN ('true', 'false') AS usable_known FROM gpuops.info() WHERE key = 'gpu_usable';
SELECT value::int >= 1 AS threads_positive FROM gpuops.info() WHERE key = 'openmp_threads';
SELECT value = current_setting('gpuops.device') AS device_matches
  FROM gpuops.info() WHERE key = 'device_setting';
-- idle OpenMP threads spin briefly (gpuops' default) or as the server's
-- environment says
SELECT value ~ '^(GOMP_SPINCOUNT=1000 \(gpuops default\)|.* \(server environment\))$'
       AS wait_known
  FROM gpuops.info() WHERE key = 'openmp_wait';
-- malloc keeps the page batches' memory (gpuops' default) unless the
-- server's environment tunes it
SELECT value IN ('mmap 32 MB, trim 64 MB (gpuops default)', 'set by the server''s environment',
                 'not glibc: untouched') AS malloc_known
  FROM gpuops.info() WHERE key = 'malloc_thresholds';

-- a usable GPU has a name, a memory size and no error; otherwise there is an
-- error and no name
SELECT CASE (i->>'gpu_usable')::bool
         WHEN true THEN i->>'gpu_name' IS NOT NULL AND i->>'gpu_memory' IS NOT NULL
                        AND i->>'gpu_error' IS NULL AND i->>'build' = 'cuda'
                        AND i->>'cuda_runtime' IS NOT NULL AND i->>'cuda_driver' IS NOT NULL
         ELSE i->>'gpu_error' IS NOT NULL AND i->>'gpu_name' IS NULL
              AND i->>'gpu_memory' IS NULL
       END AS consistent
  FROM (SELECT jsonb_object_agg(key, value) AS i FROM gpuops.info()) s;
-- a CPU-only build has no CUDA runtime
SELECT i->>'build' = 'cuda' OR (i->>'cuda_runtime' IS NULL AND i->>'gpu_usable' = 'false')
       AS cpu_only_consistent
  FROM (SELECT jsonb_object_agg(key, value) AS i FROM gpuops.info()) s;
-- gpu_memory looks like pg_size_pretty's output
SELECT value IS NULL OR value ~ '^[0-9]+ (bytes|kB|MB|GB|TB|PB)$' AS memory_pretty
  FROM gpuops.info() WHERE key = 'gpu_memory';
-- a versioned CUDA runtime looks like major.minor
SELECT value IS NULL OR value ~ '^[0-9]+\.[0-9]+$' AS runtime_format
  FROM gpuops.info() WHERE key = 'cuda_runtime';

-- device_setting follows the GUC
SET gpuops.device = 'cpu';
SELECT value FROM gpuops.info() WHERE key = 'device_setting';
SET gpuops.device = 'auto';
SELECT value FROM gpuops.info() WHERE key = 'device_setting';
RESET gpuops.device;

-- the catalog: volatility, strictness, parallel safety
SELECT p.oid::regprocedure AS function, provolatile, proisstrict, proparallel, proretset
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'gpuops'
 ORDER BY p.oid::regprocedure::text COLLATE "C";

-- gpuops.last_run(): no engine call yet in this session, then the face that
-- ran one: the one gpuops.device names (cpu in CI, gpu on a GPU machine)
SELECT count(*) AS calls_before FROM gpuops.last_run();
SELECT gpuops.unique(ARRAY[1, 1, 2]);
SELECT operation,
       device = CASE current_setting('gpuops.device')
                    WHEN 'auto' THEN device
                    ELSE current_setting('gpuops.device') END AS ran_where_asked,
       detail IS NULL AS no_fallback
  FROM gpuops.last_run();
SET gpuops.device = 'cpu';
SELECT gpuops.prefix_sum(ARRAY[1, 2]::int8[]);
SELECT * FROM gpuops.last_run();
RESET gpuops.device;

-- every role may use the schema (the functions' EXECUTE is PUBLIC's by default)
SELECT has_schema_privilege('public', 'gpuops', 'USAGE') AS public_usage;
