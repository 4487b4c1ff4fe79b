-- gpuops demonstration (make demo): run by psql in a throwaway cluster.
\set ECHO queries
\timing on
CREATE EXTENSION gpuops;

-- what this build and this machine offer
SELECT * FROM gpuops.info();

-- the run-length encoding of the seed example, and adjacent-unique
SELECT * FROM gpuops.rle(ARRAY[2,2,2,5,5,9,9,9,9]);
SELECT gpuops.unique(ARRAY[2,2,5,2]);

-- a sizeable array: 10 million readings of a sensor whose status changes
-- every few thousand rows ("gaps and islands")
CREATE TEMP TABLE readings AS
SELECT array_agg(CASE WHEN (i / 2500) % 7 IN (0, 3) THEN 'fault' ELSE 'ok' END::text
                 ORDER BY i) AS status,
       array_agg(((i / 2500) % 7)::int4 ORDER BY i) AS code
  FROM generate_series(0, 9999999) AS i;

-- runs of the int4 codes: the engine (GPU when one is usable and the array is
-- at least gpuops.gpu_min_rows long, else every CPU core)
SELECT count(*) AS runs, max(run_length) AS longest
  FROM readings, gpuops.rle(readings.code);
SELECT * FROM gpuops.last_run();

-- the same on every CPU core, for comparison
SET gpuops.device = 'cpu';
SELECT count(*) AS runs, max(run_length) AS longest
  FROM readings, gpuops.rle(readings.code);
SELECT * FROM gpuops.last_run();
RESET gpuops.device;

-- text runs: elements compared by bytes on the CPU, run heads found by the engine
SELECT value, count(*) AS islands, sum(run_length) AS readings
  FROM readings, gpuops.rle(readings.status)
 GROUP BY value ORDER BY value;

-- adjacent-unique over the 10M codes: the first few values
SELECT u FROM readings, gpuops.unique(readings.code) AS u LIMIT 8;
SELECT * FROM gpuops.last_run();
