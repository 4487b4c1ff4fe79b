#!/bin/bash
# A new session's first query against a warm session's: the light query of
# bench/concurrency.sh (its table, conc_bench.t, must exist) run REPS times,
# each in a new session (psql -c), then REPS times in one session after a
# warm-up run; the median Execution Time of each, per face (native, cpu,
# gpu), and their ratio.  Where the server runs the GPU service no session
# starts CUDA, so a new session's first GPU query should cost what a warm
# one does.
#   usage: bash bench/first_query.sh      env: REPS (default 5), FACES
set -euo pipefail
reps=${REPS:-5}
faces=${FACES:-"native cpu gpu"}
q="SELECT k, count(*), sum(v) FROM conc_bench.t WHERE w < 50 GROUP BY k"

# the Execution Time (ms) of EXPLAIN ANALYZE output on stdin
exec_ms() { sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p'; }
# the median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

printf '| face | new session, first query (ms) | warm session (ms) | new / warm |\n| --- | ---: | ---: | ---: |\n'
for f in $faces; do
	case $f in
		native) opts="-c gpuops.enabled=off" ;;
		*) opts="-c gpuops.device=$f" ;;
	esac
	new=$(for i in $(seq "$reps"); do
		PGOPTIONS="$opts" psql -X -At -c "EXPLAIN (ANALYZE, TIMING OFF) $q" | exec_ms
	done | median)
	warm=$({
		echo "EXPLAIN (ANALYZE, TIMING OFF) $q;"
		for i in $(seq "$reps"); do echo "EXPLAIN (ANALYZE, TIMING OFF) $q;"; done
	} | PGOPTIONS="$opts" psql -X -At | exec_ms | tail -n "$reps" | median)
	ratio=$(awk -v a="$new" -v b="$warm" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
	printf '| %s | %s | %s | %s |\n' "$f" "$new" "$warm" "$ratio"
done
