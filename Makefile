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

test: build
	cd $(BUILD) && ctest --output-on-failure -j2 --timeout 600

clean:
	rm -rf $(BUILD)
