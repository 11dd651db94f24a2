#pragma once
// `ringlab sim`'s computation as library functions: a spec's rings replaced by the ones the
// topology's ring search finds, an AllReduce prepared for simulation at any size (its real Schedule
// where that fits in memory, else, for ring and multi_ring, its ring orders), and the simulation
// over a list of sizes with nccl-tests' algbw and busbw.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/progress.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/sim/simulator.hpp"
#include "ringlab/sim/workload.hpp"
#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::sim {

// `spec` (ring or multi_ring) with its ring order(s) replaced by what topo::searchRings finds for
// messages of `bytes`; `method` receives the search's description; `progress` hears the search.
// Throws InvalidArgument for another algorithm.
schedule::AlgorithmSpec withSearchedRings(const schedule::AlgorithmSpec& spec,
                                          const topo::Topology& topology,
                                          const topo::Placement& placement, double bytes,
                                          std::string& method,
                                          const ProgressCallback& progress = {});

// An AllReduce ready to simulate at any count. Small schedules run from the real Schedule (exact
// block sizes); ring and multi_ring beyond kMaterialiseBytes run from their ring orders
// (ringAllReduceWorkload), which reaches p = 65536.
class AllReduceSim {
 public:
  static constexpr std::uint64_t kMaterialiseBytes = 256ull << 20;

  // Throws InvalidArgument when the schedule would be needed in memory but is estimated larger
  // than `memoryLimitBytes`; the message names the limit as `limitText` (e.g. "--max-memory 4G").
  AllReduceSim(const schedule::AlgorithmSpec& spec, int ranks, std::uint64_t memoryLimitBytes,
               const std::string& limitText);

  Workload workload(std::uint64_t count, DataType type) const;
  bool fromOrders() const { return !rings_.empty(); }

 private:
  std::shared_ptr<const schedule::Schedule> schedule_;
  std::vector<schedule::RingOrder> rings_;
};

struct SimRow {
  std::uint64_t bytes = 0, count = 0;
  double time_s = 0;
  double algbw_GBps = 0, busbw_GBps = 0;  // model/bandwidth.hpp
  std::uint64_t simulatedSteps = 0;
};

// Simulates each size (bytes per rank) in turn, calling `onRow` after each (to print as it goes);
// returns the rows and the full result of the last (largest) size in `last`. `progress` hears
// each size start and end (stage: the size; units: sizes).
std::vector<SimRow> simulateSizes(const topo::Topology& topology, const topo::Placement& placement,
                                  const AllReduceSim& allReduce,
                                  const std::vector<std::uint64_t>& sizes, DataType type,
                                  const SimParams& params, SimResult& last,
                                  const std::function<void(const SimRow&)>& onRow = {},
                                  const ProgressCallback& progress = {});

}  // namespace ringlab::sim
