# gpuops: GPU (CUDA) and multi-core (OpenMP) GROUP BY, filters, histograms and
# joins for PostgreSQL.  PGXS build; CUDA is used when nvcc is found.
#
#   make                 build (CUDA=0 forces a CPU-only build)
#   make install         install into the PostgreSQL that pg_config names
#   make unittest        build and run the engine's C unit tests
#   make installcheck    pg_regress and the isolation specs against a running server
#   make test            set up, build, install, unit tests and pg_regress in a
#                        throwaway cluster (what CI runs; needs root for apt)
#   make demo            set up, build, install and run a short demonstration
#   make gpubench        build the GPU benchmarks bench/gpu_* (CUDA builds only)
#   make cpubench        build the CPU benchmark bench/cpu_primitives

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

STUB_SRCS = $(wildcard src/core/*stub.c)
CORE_SRCS = $(filter-out $(STUB_SRCS),$(wildcard src/core/*.c))
PG_SRCS = $(wildcard src/pg/*.c)
ifeq ($(CUDA),1)
KERNEL_OBJS = $(patsubst %.cu,%.o,$(wildcard kernels/*.cu))
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
KERNEL_OBJS = $(STUB_SRCS:.c=.o)
CUDA_LIBS = -lpthread
endif
CORE_OBJS = $(CORE_SRCS:.c=.o) $(KERNEL_OBJS)
OBJS = $(PG_SRCS:.c=.o) $(CORE_OBJS)

PG_CPPFLAGS = -I$(srcdir)/src/core
# Objects are compiled with OpenMP, but gpuops.so is linked without libgomp:
# src/pg/omp_runtime.c loads it at _PG_init, after saying how its idle
# threads wait (libgomp reads that once, when it is loaded).
$(OBJS): override CFLAGS += -fopenmp
SHLIB_LINK = $(CUDA_LIBS) -ldl

EXTRA_CLEAN = src/omp/*.o src/omp/*.so test/unit/test_core $(GPU_BENCHES) bench/cpu_primitives \
	kernels/*.o src/core/*.o build-info.txt

# ---- targets that work before PostgreSQL's headers are installed ----
.DEFAULT_GOAL := all
.PHONY: test demo unittest gpubench cpubench build-info

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh

# no LLVM bitcode: the .cu objects have none, and the engine gains nothing from JIT
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
else
all install installcheck:
	@echo "pg_config not found: install postgresql-server-dev-15 (or run 'make test' as root, which does)" >&2; exit 2
endif

src/omp/gpuops_omp$(DLSUFFIX): override LDFLAGS_SL += -fopenmp

kernels/%.o: kernels/%.cu $(wildcard kernels/*.cuh) $(wildcard src/core/*.h)
	$(NVCC) $(NVCCFLAGS) -Xcompiler -fopenmp -I$(srcdir)/src/core -c $< -o $@

$(OBJS): $(wildcard src/core/*.h) $(wildcard src/pg/*.h)

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
		echo "gpuops.so calls the OpenMP symbols above: add them to src/pg/omp_runtime.c" >&2; \
		exit 1; fi

UNIT_SRCS = $(wildcard test/unit/*.c)

test/unit/test_core: $(UNIT_SRCS) $(wildcard test/unit/*.h) $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -g -fopenmp -Wall -I$(srcdir)/src/core -Itest/unit $(UNIT_SRCS) $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

unittest: test/unit/test_core
	./test/unit/test_core

bench/cpu_primitives: bench/cpu_primitives.c $(CORE_OBJS)
	$(CC) -std=gnu11 -O2 -fopenmp -I$(srcdir)/src/core bench/cpu_primitives.c $(CORE_OBJS) $(CUDA_LIBS) -lm -o $@

cpubench: bench/cpu_primitives

GPU_BENCHES = $(patsubst %.cu,%,$(wildcard bench/gpu_*.cu))

ifeq ($(CUDA),1)
bench/gpu_%: bench/gpu_%.cu $(CORE_OBJS)
	$(NVCC) $(NVCCFLAGS) -I$(srcdir)/src/core -Ikernels -Xcompiler -fopenmp $< $(CORE_OBJS) -lgomp -o $@

gpubench: $(GPU_BENCHES)
else
gpubench:
	@echo "gpubench needs a CUDA build (nvcc)" >&2; exit 2
endif
