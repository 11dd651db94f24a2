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

# Two tests more than there are cores: many tests spend their time waiting on processes, sockets
# and browsers, and the ones that reserve two (PROCESSORS 2: torch's jobs of two ranks) keep only
# 1.1-1.6 cores busy. In a fresh clone's build on two cores (the longest tests first, no recorded
# costs), ctest -j3 took 409 s and 429 s (1.6 cores busy), -j4 384 s and 381 s (1.8), every test
# passing each time.
test: build
	cd $(BUILD) && ctest --output-on-failure -j$$(($$(nproc) + 2)) --timeout 600

clean:
	rm -rf $(BUILD)
