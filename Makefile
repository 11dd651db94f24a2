# The whole set-up on a fresh Debian 12 machine:
#   make run    install what is missing, build the ringlab binary (Release), run the main job
#               (ringlab bench); tests, benchmarks and fuzzers are not built
#   make test   install what is missing, build everything (Release), run every test with ctest
BUILD ?= build

.PHONY: all deps configure build run test clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null

build: configure
	@cmake --build $(BUILD)

# The main job needs the ringlab binary only (ringlab_cli), not the 140-odd other targets.
run: configure
	@cmake --build $(BUILD) --target ringlab_cli
	$(BUILD)/ringlab bench

# One test more than there are cores: the tests that reserve two (PROCESSORS 2: torch's jobs of
# two ranks) keep 1.1-1.6 cores busy, and a one-core test beside them takes up the rest. On two
# cores, ctest -j3 took 426 s where -j2 took 485 s (one run each, back to back), every test passing.
test: build
	cd $(BUILD) && ctest --output-on-failure -j$$(($$(nproc) + 1)) --timeout 600

clean:
	rm -rf $(BUILD)
