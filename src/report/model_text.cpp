#include "ringlab/report/model_text.hpp"

#include <fmt/format.h>

#include "ringlab/core/units.hpp"
#include "ringlab/model/describe.hpp"
#include "ringlab/model/model_json.hpp"

namespace ringlab::report {
namespace {

std::string basisLines(const ModelBasis& basis) {
  return fmt::format(
      "# {}  [{}]\n"
      "# time = steps x alpha + bytes x beta + reduced bytes x gamma (full duplex: a rank's "
      "sends and receives overlap)\n"
      "# topology: {}  placement: {}\n",
      model::describeModel(basis.profile), basis.source, model::kNoTopology, model::kNoPlacement);
}

}  // namespace

std::string modelSizeText(const ModelBasis& basis, int p, DataType type,
                          const model::SizeRow& row) {
  std::string text = fmt::format("# ringlab model: allreduce of {} ({} {}) over p = {}\n",
                                 formatSize(row.bytes), row.count, dataTypeName(type), p);
  text += basisLines(basis);
  text += "# bytes per rank: the busiest rank, under the send and send+recv conventions\n";
  text += fmt::format("# {:<19} {:>6} {:>15} {:>15} {:>12} {:>13} {:>12} {:>12}\n", "algorithm",
                      "steps", "send (B)", "send+recv (B)", "startup(us)", "bandwidth(us)",
                      "reduce(us)", "time(us)");
  for (const model::Prediction& q : row.predictions) {
    text += fmt::format("  {:<19} {:6} {:15} {:15} {:12.2f} {:13.2f} {:12.2f} {:12.2f}{}\n",
                        q.algorithm, q.cost.steps, q.volume.maxSentBytes, q.volume.maxSendRecvBytes,
                        q.cost.startup_s * 1e6, q.cost.bandwidth_s * 1e6, q.cost.reduce_s * 1e6,
                        q.cost.total_s() * 1e6, q.algorithm == row.fastest ? "  <- fastest" : "");
  }
  return text;
}

std::string modelSweepText(const ModelBasis& basis, int p, DataType type,
                           const model::SizeSweep& sweep, std::string_view title) {
  std::string text = fmt::format("# {}: allreduce over p = {}, {}\n", title, p, dataTypeName(type));
  text += basisLines(basis);
  text += fmt::format("# {:>12}", "size (B)");
  for (const model::Prediction& q : sweep.rows.front().predictions)
    text += fmt::format(" {:>19}", q.algorithm + "(us)");
  text += "  fastest\n";
  for (const model::SizeRow& row : sweep.rows) {
    text += fmt::format("  {:>12}", row.bytes);
    for (const model::Prediction& q : row.predictions)
      text += fmt::format(" {:>19.2f}", q.cost.total_s() * 1e6);
    text += fmt::format("  {}\n", row.fastest);
  }
  text += fmt::format("# crossovers (exact, by bisection on the element count):{}\n",
                      sweep.crossovers.empty() ? " none" : "");
  for (const model::Crossover& c : sweep.crossovers)
    text += fmt::format("#   {} -> {} at {} B ({} elements)\n", c.from, c.to, c.bytes, c.count);
  return text;
}

std::string modelRanksText(const ModelBasis& basis, std::uint64_t bytes,
                           const std::vector<model::RanksRow>& rows, double limit_s,
                           std::string_view title) {
  std::string text =
      fmt::format("# {}: ring allreduce of {} as p grows\n", title, formatSize(bytes));
  text += basisLines(basis);
  text += fmt::format(
      "# the bandwidth term 2(p-1)/p n beta approaches 2 n beta = {:.2f} us and never shrinks; "
      "the startup term 2(p-1) alpha grows linearly in p\n",
      limit_s * 1e6);
  text += fmt::format("# {:>6} {:>6} {:>14} {:>15} {:>17} {:>12}\n", "p", "steps", "startup(us)",
                      "bandwidth(us)", "bandwidth/limit", "time(us)");
  for (const model::RanksRow& r : rows) {
    text += fmt::format("  {:6} {:6} {:14.2f} {:15.2f} {:17.4f} {:12.2f}\n", r.p, r.cost.steps,
                        r.cost.startup_s * 1e6, r.cost.bandwidth_s * 1e6,
                        limit_s > 0 ? r.cost.bandwidth_s / limit_s : 0.0, r.cost.total_s() * 1e6);
  }
  return text;
}

}  // namespace ringlab::report
