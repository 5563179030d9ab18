# The short commands. Everything is CMake underneath; see README.md.
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Extra ctest arguments for `make test` and the checking builds, e.g.
# CTEST_ARGS='-LE torture' (CI's tiers choose what each one runs).
CTEST_ARGS ?=

.PHONY: all configure test bench stress torture spin install clean scaling-kit
all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

# Every test, each in its own process with a timeout (ctest).
test: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The headline benchmark: every queue against the peers, same run. First the
# peer libraries: installed when missing if that needs no password (apt-get,
# as root; CONQ_NO_PEER_INSTALL=1 skips it), else named with the command
# that installs them. Then CMake looks again for those it had not found
# (a configured build keeps what it found; it retries what it did not).
bench:
	@bash scripts/install-peers.sh --auto
	@if test -f $(BUILD)/CMakeCache.txt; then cmake -S . -B $(BUILD) >/dev/null; fi
	@$(MAKE) --no-print-directory all
	$(BUILD)/bench/conq-bench $(BENCH_ARGS)

# conq-stress, the quick profile: every litmus, atomicity and queue test,
# 1 s each (about 4 minutes; docs/stress.md). STRESS_ARGS adds options,
# e.g. STRESS_ARGS='--test q.*.mpmc_array --json stress.jsonl'.
stress: all
	$(BUILD)/stress/conq-stress --tier quick $(STRESS_ARGS)

# The queue torture engine, quick tier (every family, several shapes and
# capacities; docs/stress.md). TORTURE_ARGS adds options, e.g.
# TORTURE_ARGS='--family=mpmc_array --duration=60'.
torture: all
	$(BUILD)/stress/torture/conq-torture --tier=quick $(TORTURE_ARGS)

# The Spin models of the index protocols (spin/): every search errors: 0,
# and every planted bug caught.
spin:
	sh spin/check.sh && sh spin/check.sh --bugs

install: all
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------------------
# Checking builds, each in its own directory (configured once, like $(BUILD);
# `make distclean` or rm -rf the directory after changing their flags).

.PHONY: asan tsan cross-aarch64 index16 format-check ci distclean

# Compilers for the sanitizer builds (clang needs libclang-rt-14-dev).
ASAN_CC ?= clang
TSAN_CC ?= clang
ASAN_CXX ?= $(subst clang,clang++,$(subst gcc,g++,$(ASAN_CC)))
TSAN_CXX ?= $(subst clang,clang++,$(subst gcc,g++,$(TSAN_CC)))
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
SAN_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo
# The sanitizer runtimes of LLVM 14 / GCC 12 cannot cope with more than 28
# bits of mmap randomisation (newer kernels may default to 32: TSan dies with
# "unexpected memory mapping", ASan hangs or crashes at start-up). There, the
# tests run with ASLR off; or, as root: sysctl vm.mmap_rnd_bits=28.
SANRUN ?= $(shell test "$$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 0)" -le 28 || echo setarch $$(uname -m) -R)
ASAN_OPTIONS ?= abort_on_error=1:detect_leaks=1:strict_string_checks=1
UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
TSAN_OPTIONS ?= halt_on_error=1:second_deadlock_stack=1
export ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS

# The tests under AddressSanitizer + UndefinedBehaviorSanitizer.
asan:
	$(MAKE) all BUILD=$(ASAN_BUILD) CMAKE_FLAGS='$(SAN_FLAGS) -DCMAKE_C_COMPILER=$(ASAN_CC) -DCMAKE_CXX_COMPILER=$(ASAN_CXX) -DCONQ_SANITIZE=address,undefined $(CMAKE_FLAGS)'
	$(SANRUN) ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The tests under ThreadSanitizer.
tsan:
	$(MAKE) all BUILD=$(TSAN_BUILD) CMAKE_FLAGS='$(SAN_FLAGS) -DCMAKE_C_COMPILER=$(TSAN_CC) -DCMAKE_CXX_COMPILER=$(TSAN_CXX) -DCONQ_SANITIZE=thread $(CMAKE_FLAGS)'
	$(SANRUN) ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Cross-build for 64-bit Arm and run the unit tests under qemu-aarch64
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, qemu-user). The long
# transfer tests move QEMU_TEST_SCALE (CONQ_TEST_SCALE) times the elements.
AARCH64_BUILD ?= build-aarch64
QEMU_TEST_SCALE ?= 0.1
cross-aarch64:
	$(MAKE) all BUILD=$(AARCH64_BUILD) CMAKE_FLAGS='-DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/toolchain-aarch64-linux-gnu.cmake -DCONQ_BUILD_BENCH=OFF $(CMAKE_FLAGS)'
	CONQ_TEST_SCALE=$(QEMU_TEST_SCALE) ctest --test-dir $(AARCH64_BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The tests with 16-bit queue indices (CONQ_INDEX_BITS=16, a test build):
# every family wraps every 65,536 operations, thousands of times per run.
# No conq-bench: it measures nothing in such a build; no libconq-journal: it
# has no queue index (its tests would run the plain build's again).
INDEX16_BUILD ?= build-index16
index16:
	$(MAKE) all BUILD=$(INDEX16_BUILD) CMAKE_FLAGS='-DCONQ_INDEX_BITS=16 -DCONQ_WERROR=ON -DCONQ_BUILD_BENCH=OFF -DCONQ_BUILD_JOURNAL=OFF $(CMAKE_FLAGS)'
	ctest --test-dir $(INDEX16_BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The multi-core scaling kit (issue 3): a static conq-bench, with every peer
# that has a static archive, and scripts/run-scaling.sh, in $(KIT_BUILD)/kit:
# copy that directory to a many-core machine without the libraries and run
# run-scaling.sh there (docs/benchmarks.md, "Scaling on many cores").
KIT_BUILD ?= build-kit
scaling-kit:
	$(MAKE) configure BUILD=$(KIT_BUILD) CMAKE_FLAGS='-DCONQ_BENCH_STATIC=ON -DCONQ_BUILD_TESTS=OFF -DCONQ_BUILD_STRESS=OFF -DCONQ_BUILD_EXAMPLES=OFF $(CMAKE_FLAGS)'
	cmake --build $(KIT_BUILD) --target conq-bench -j $(JOBS)
	mkdir -p $(KIT_BUILD)/kit
	cp $(KIT_BUILD)/bench/conq-bench scripts/run-scaling.sh $(KIT_BUILD)/kit/
	@echo "scaling kit: $(KIT_BUILD)/kit (there: OUT=DIR ./run-scaling.sh)"

# Report (do not fix) formatting that differs from .clang-format.
CLANG_FORMAT ?= clang-format
FORMAT_DIRS = include src tests bench examples
format-check:
	@files=$$(find $(FORMAT_DIRS) -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' -o -name '*.hpp' \) | LC_ALL=C sort); \
	echo "$(CLANG_FORMAT) --dry-run -Werror: $$(echo "$$files" | wc -l) files"; \
	$(CLANG_FORMAT) --dry-run -Werror $$files

# What CI runs (installs packages with apt-get when root): see .ci/run.
ci:
	bash .ci/run

distclean: clean
	rm -rf build-asan build-tsan build-aarch64 build-index16 build-ci build-kit
