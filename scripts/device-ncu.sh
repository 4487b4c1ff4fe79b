#!/bin/bash
# On the GPU machine (carry [".device"], after scripts/device-prepare.sh):
# Nsight Compute over the group-by and histogram/join benchmarks (one timed
# rep each, N rows, default 1e8), clocks left as they run (not locked to base).
# Each kernel launch gets its duration, DRAM bytes, the speed-of-light
# throughputs and the warp stall reasons.  Output: $OUT/ncu_<bench>.csv
# (ncu --csv --page raw: one row a kernel launch).
#   NCU_LAUNCHES  most kernel launches profiled per benchmark (default 400)
#   NCU_TIMEOUT   seconds per benchmark (default 150)
#   NCU_KERNELS   a regular expression: profile only the kernels it matches
#   BENCHES       default "gpu_groupby gpu_histjoin"
#   ARENA_GB      gpu_groupby's device arena in GiB (default 24)
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
N=${N:-100000000}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
for b in ${BENCHES:-gpu_groupby gpu_histjoin}; do
	args="$N 1"
	[ $b = gpu_histjoin ] && args="$N 1000000 1"
	echo "== ncu $b $args =="
	GPO_BENCH_ARENA_GB=${ARENA_GB:-24} timeout -k 5 ${NCU_TIMEOUT:-150} "$ncu" --clock-control none --metrics "$metrics" \
		--section WarpStateStats -c ${NCU_LAUNCHES:-400} ${NCU_KERNELS:+-k "regex:$NCU_KERNELS"} --csv --page raw \
		".device/$b" $args >"$OUT/ncu_$b.csv" 2>"$OUT/ncu_$b.log"
	echo "rc=$? rows=$(grep -c '^"' "$OUT/ncu_$b.csv")"
	tail -3 "$OUT/ncu_$b.log"
	pkill -9 -f "\.device/gpu_" 2>/dev/null
	sleep 1
done
