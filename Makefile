# The short commands. Everything is CMake underneath; see README.md.
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all configure test bench install clean
all: configure
	cmake --build $(BUILD) -j $(JOBS)

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

# Every test, each in its own process with a timeout (ctest).
test: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The headline benchmark: SPSC throughput against the peers, same run.
bench: all
	$(BUILD)/bench/conq-bench

install: all
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
