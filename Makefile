# gpuops: GPU (CUDA) and multi-core (OpenMP) GROUP BY, filters, histograms and
# joins for PostgreSQL.  PGXS build; CUDA is used when nvcc is found.
#
#   make                 build (CUDA=0 forces a CPU-only build)
#   make install         install into the PostgreSQL that pg_config names
#   make unittest        build and run the engine's C unit tests
#   make installcheck    pg_regress and the isolation specs against a running server
#   make test            set up, build, install, unit tests and pg_regress in a
#                        throwaway cluster (what CI runs; needs root for apt)
#   make citus-test      gpuops under Citus: a coordinator and 2 workers in throwaway
#                        clusters (builds Citus from ../shared/citus; after make install)
#   make demo            set up, build, install and run a short demonstration
#   make gpubench        build the GPU benchmarks bench/gpu_* (CUDA builds only)
#   make cpubench        build the CPU benchmarks bench/cpu_primitives, cpu_multiagg, cpu_strdict, cpu_keypack

EXTENSION = gpuops
MODULE_big = gpuops
# gpuops_omp.so: linked against libgomp, which gpuops.so loads through it
MODULES = src/omp/gpuops_omp
DATA = $(wildcard sql/$(EXTENSION)--*.sql)
PGFILEDESC = "gpuops - GPU and multi-core aggregation for PostgreSQL"

REGRESS = $(sort $(basename $(notdir $(filter-out sql/$(EXTENSION)--%,$(wildcard sql/*.sql)))))
REGRESS_OPTS = --load-extension=$(EXTENSION)
# concurrent sessions (specs/*.spec), run by installcheck after REGRESS
ISOLATION = $(sort $(basename $(notdir $(wildcard specs/*.spec))))
ISOLATION_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG ?= pg_config

# ---- CUDA detection ----
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
ifeq ($(origin CUDA),undefined)
CUDA := $(if $(NVCC),1,0)
endif
CUDA_ARCH ?= -gencode arch=compute_90,code=[sm_90,compute_90]
NVCCFLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC $(CUDA_ARCH)
# stream 0 is each host thread's own stream: the GPU service's executor
# runs several requests at once, one thread and one stream each
NVCC_STREAM = --default-stream per-thread

STUB_SRCS = $(wildcard src/core/*stub.c)
CORE_SRCS = $(filter-out $(STUB_SRCS),$(wildcard src/core/*.c))
PG_SRCS = $(wildcard src/pg/*.c src/pg/*/*.c src/pg/*/*/*.c)
ifeq ($(CUDA),1)
KERNEL_OBJS = $(patsubst %.cu,%.o,$(wildcard kernels/*.cu))
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
KERNEL_OBJS = $(STUB_SRCS:.c=.o)
CUDA_LIBS = -lpthread
endif
CORE_OBJS = $(CORE_SRCS:.c=.o) $(KERNEL_OBJS)
OBJS = $(PG_SRCS:.c=.o) $(CORE_OBJS)

# src/pg sees the core's public headers only (src/core/include)
PG_CPPFLAGS = -I$(srcdir)/src/pg -I$(srcdir)/src/core/include
# Objects are compiled with OpenMP, but gpuops.so is linked without libgomp:
# src/pg/budget/omp_runtime.c loads it at _PG_init, after saying how its idle
# threads wait (libgomp reads that once, when it is loaded).
$(OBJS): override CFLAGS += -fopenmp
# The expression loops are written branch-free for the vectorizer.
src/core/expr_loops.o: override CFLAGS += -O3
SHLIB_LINK = $(CUDA_LIBS) -ldl

EXTRA_CLEAN = src/omp/*.o src/omp/*.so test/unit/test_core $(GPU_BENCHES) bench/cpu_primitives bench/cpu_multiagg bench/cpu_strdict bench/cpu_keypack \
	kernels/*.o src/core/*.o src/pg/*/*.o src/pg/*/*/*.o build-info.txt

# ---- targets that work before PostgreSQL's headers are installed ----
.DEFAULT_GOAL := all
.PHONY: test demo unittest gpubench cpubench build-info

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh

.PHONY: citus-test
citus-test:
	bash test/citus/run.sh

# no LLVM bitcode: the .cu objects have none, and the engine gains nothing from JIT
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
else
all install installcheck:
	@echo "pg_config not found: install postgresql-server-dev-15 (or run 'make test' as root, which does)" >&2; exit 2
endif

CORE_HEADERS = $(wildcard src/core/*.h src/core/include/*.h)
CORE_INC = -I$(srcdir)/src/core -I$(srcdir)/src/core/include

src/omp/gpuops_omp$(DLSUFFIX): override LDFLAGS_SL += -fopenmp

kernels/%.o: kernels/%.cu $(wildcard kernels/*.cuh) $(CORE_HEADERS)
	$(NVCC) $(NVCCFLAGS) $(NVCC_STREAM) -Xcompiler -fopenmp $(CORE_INC) -c $< -o $@

$(OBJS): $(CORE_HEADERS) $(wildcard src/pg/*/*.h src/pg/*/*/*.h)

# the engine's own files see its internal headers too
$(CORE_SRCS:.c=.o) $(STUB_SRCS:.c=.o): override CPPFLAGS += -I$(srcdir)/src/core

# says which build this is
build-info:
ifeq ($(CUDA),1)
	@echo "gpuops build: CUDA ($(NVCC)), $(CUDA_ARCH)"
else
	@echo "gpuops build: CPU only (no nvcc found, or CUDA=0); the GPU face reports 'built without CUDA'"
endif

all: build-info omp-check

# every OpenMP call of gpuops.so must land in omp_runtime.c's trampolines
.PHONY: omp-check
omp-check: $(shlib)
	@if nm -D --undefined-only $(shlib) | grep -E ' (GOMP_|omp_)'; then \
		echo "gpuops.so calls the OpenMP symbols above: add them to src/pg/budget/omp_runtime.c" >&2; \
		exit 1; fi

UNIT_SRCS = $(wildcard test/unit/*.c)

test/unit/test_core: $(UNIT_SRCS) $(wildcard test/unit/*.h) $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -g -fopenmp -Wall $(CORE_INC) -Itest/unit $(UNIT_SRCS) $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

unittest: test/unit/test_core
	./test/unit/test_core

bench/cpu_primitives: bench/cpu_primitives.c $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -fopenmp $(CORE_INC) bench/cpu_primitives.c $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

bench/cpu_multiagg: bench/cpu_multiagg.c $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -fopenmp $(CORE_INC) bench/cpu_multiagg.c $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

bench/cpu_strdict: bench/cpu_strdict.c $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -fopenmp $(CORE_INC) bench/cpu_strdict.c $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

bench/cpu_keypack: bench/cpu_keypack.c $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -fopenmp $(CORE_INC) bench/cpu_keypack.c $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

cpubench: bench/cpu_primitives bench/cpu_multiagg bench/cpu_strdict bench/cpu_keypack

GPU_BENCHES = $(patsubst %.cu,%,$(wildcard bench/gpu_*.cu))

ifeq ($(CUDA),1)
bench/gpu_%: bench/gpu_%.cu $(CORE_OBJS)
	$(NVCC) $(NVCCFLAGS) $(NVCC_STREAM) $(CORE_INC) -Ikernels -Xcompiler -fopenmp $< $(CORE_OBJS) -lgomp -o $@

gpubench: $(GPU_BENCHES)
else
gpubench:
	@echo "gpubench needs a CUDA build (nvcc)" >&2; exit 2
endif
