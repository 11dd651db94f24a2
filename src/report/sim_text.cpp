#include "ringlab/report/sim_text.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "ringlab/report/bench_table.hpp"

namespace ringlab::report {

std::string simPreamble(const record::SimRun& run) {
  const record::RunInfo& info = run.info;
  const std::string search =
      run.searchMethod.empty() ? "" : "  searched (" + run.searchMethod + ")";
  const std::string reduction = run.gammaSPerByte > 0
                                    ? fmt::format("gamma {:.3g} s/B ({}) on the receiving rank",
                                                  run.gammaSPerByte, run.reduceBandwidth)
                                    : "free (no reduction cost or rate given)";
  return fmt::format(
             "# ringlab sim: allreduce  algorithm {}  transport simulated  p {}\n"
             "# version {}  host {}  date {}\n"
             "# ring order {}{}\n"
             "# topology: {}\n# placement: {}\n"
             "# reduction: {}\n",
             info.algorithm, info.ranks, info.version, info.host, info.date, info.ringOrder, search,
             run.topology, run.placement, reduction) +
         "# time: simulated completion of the slowest rank (links max-min shared, no global step "
         "barrier); in-place equals out-of-place.  algbw = size / time.  busbw = algbw x 2(p-1)/p "
         "(nccl-tests' allreduce convention).  GB/s = 1e9 B/s\n" +
         benchTableHeader({});
}

std::string simTableRow(const sim::SimRow& row, const record::RunInfo& info) {
  record::RecordRow record;
  record.bytes = row.bytes;
  record.count = row.count;
  record::Timing timing;  // no wrong count: printed as N/A
  timing.timeUs = row.time_s * 1e6;
  record.outOfPlace = timing;
  record.inPlace = record.outOfPlace;
  return benchTableRow(record, info.ranks, info.dtype, info.op, {});
}

std::string simCriticalPath(const sim::SimResult& last, const topo::Topology& topology) {
  constexpr std::size_t kHead = 4, kTail = 16;
  const auto& path = last.criticalPath;
  std::string text = fmt::format(
      "# critical path of the largest size (step, transfer, start -> end, lowest-rate link), {} "
      "entries:\n",
      path.size());
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i == kHead && path.size() > kHead + kTail) {
      text += fmt::format("#   ... {} entries ...\n", path.size() - kHead - kTail);
      i = path.size() - kTail;
    }
    const sim::CriticalStep& c = path[i];
    if (c.src < 0) {
      text += fmt::format("#   steps {}..{} repeat as a time shift  {:.1f} -> {:.1f} us\n",
                          c.firstStep, c.firstStep + c.steps - 1, c.start_s * 1e6, c.end_s * 1e6);
    } else {
      text += fmt::format("#   step {}  {} -> {}  {:.1f} -> {:.1f} us  {}\n", c.firstStep, c.src,
                          c.dst, c.start_s * 1e6, c.end_s * 1e6,
                          c.bottleneckLink >= 0 ? topology.linkName(c.bottleneckLink) : "-");
    }
  }
  return text;
}

std::string simBusiestLinks(const sim::SimResult& last, const topo::Topology& topology, int links) {
  std::vector<int> order(last.linkUtilisation.size());
  for (std::size_t l = 0; l < order.size(); ++l) order[l] = static_cast<int>(l);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return last.linkUtilisation[a] > last.linkUtilisation[b]; });
  std::string text =
      "# busiest links at the largest size: utilisation = bytes / (bandwidth x time)\n";
  for (int i = 0; i < links && i < static_cast<int>(order.size()); ++i) {
    text += fmt::format("#   {:<32} {:6.1f}%  {:.0f} B\n", topology.linkName(order[i]),
                        100 * last.linkUtilisation[order[i]], last.linkBytes[order[i]]);
  }
  return text;
}

}  // namespace ringlab::report
