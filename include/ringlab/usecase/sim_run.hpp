#pragma once
// One `ringlab sim`: the topology loaded and placed, the algorithm resolved against its p (the
// searched ring orders with `search`), every size of the sweep simulated. The CLI and the Python
// package (ringlab.simulate) both call it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ringlab/core/progress.hpp"
#include "ringlab/io/topology_files.hpp"
#include "ringlab/record/sim_record.hpp"

namespace ringlab::usecase {

struct SimRequest {
  io::TopologySource where;
  // The algorithm for the topology's p (the CLI's --algo, --ring-order, ... resolved against it).
  std::function<schedule::AlgorithmSpec(int ranks)> algorithm;
  std::vector<std::uint64_t> sizes;      // the sweep
  std::uint64_t maxBytes = 64ull << 20;  // the size the ring-order search prices
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  // The reduction's cost on the receiving rank, in s/B (none: free), and how it was given, as the
  // record states it ("10GB/s", "0.1ns/B"). The links' costs come from the topology.
  std::optional<double> gammaSPerByte;
  std::string reductionGiven;
  // A schedule estimated larger is refused, in a message that names the limit by its label.
  std::uint64_t maxMemoryBytes = 4ull << 30;
  std::string maxMemoryWhat = "the memory limit";
  bool search = false;  // simulate the ring orders topo::searchRings finds
};

struct SimOutcome {
  io::PlacedTopology placed;
  record::SimRun run;
  std::vector<sim::SimRow> rows;
  sim::SimResult last;  // the largest size's result: critical path and link loads
};

// `onStart` once the run is described, before the first size; `onRow` after each size; `progress`
// through the search and the sweep. Throws InvalidArgument for a bad topology, algorithm or
// memory limit.
SimOutcome simulateRun(const SimRequest& request,
                       const std::function<void(const record::SimRun&)>& onStart,
                       const std::function<void(const sim::SimRow&)>& onRow,
                       const ProgressCallback& progress = {});

}  // namespace ringlab::usecase
