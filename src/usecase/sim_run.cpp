#include "ringlab/usecase/sim_run.hpp"

#include "ringlab/core/units.hpp"

namespace ringlab::usecase {

SimOutcome simulateRun(const SimRequest& request,
                       const std::function<void(const record::SimRun&)>& onStart,
                       const std::function<void(const sim::SimRow&)>& onRow,
                       const ProgressCallback& progress) {
  SimOutcome out;
  out.placed = io::loadTopology(request.where);
  const int p = out.placed.placement->ranks();
  record::SimRun& run = out.run;
  run.topology = out.placed.topologyText();
  run.placement = out.placed.placementText();
  run.reduceBandwidth = request.reductionGiven;
  run.gammaSPerByte = request.gammaSPerByte.value_or(0);
  schedule::AlgorithmSpec spec = request.algorithm(p);
  if (request.search) {
    spec =
        sim::withSearchedRings(spec, *out.placed.topology, *out.placed.placement,
                               static_cast<double>(request.maxBytes), run.searchMethod, progress);
  }
  const sim::AllReduceSim allReduce(
      spec, p, request.maxMemoryBytes,
      request.maxMemoryWhat + " " + formatSize(request.maxMemoryBytes));
  run.info = record::simRunInfo(spec, run.topology, run.placement, p, request.type, request.op);
  onStart(run);
  out.rows = sim::simulateSizes(
      *out.placed.topology, *out.placed.placement, allReduce, request.sizes, request.type,
      sim::SimParams{.gamma_s_per_byte = run.gammaSPerByte}, out.last, onRow, progress);
  return out;
}

}  // namespace ringlab::usecase
