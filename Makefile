# The whole set-up on a fresh Debian 12 machine:
#   make run    install what is missing, build Release, run the main job (ringlab bench)
#   make test   install what is missing, build Release, run every test with ctest
BUILD ?= build

.PHONY: all deps build run test clean

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
	@cmake --build $(BUILD)

run: build
	$(BUILD)/ringlab bench

test: build
	cd $(BUILD) && ctest --output-on-failure -j2 --timeout 600

clean:
	rm -rf $(BUILD)
