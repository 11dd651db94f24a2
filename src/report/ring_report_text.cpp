#include "ringlab/report/ring_report_text.hpp"

#include <fmt/format.h>

#include "ringlab/core/units.hpp"

namespace ringlab::report {
namespace {

using schedule::RingOrder;

// An order as a table cell: cut after the first comma past 50 characters when longer than 60.
std::string shortOrder(const RingOrder& ring) {
  std::string text = ring.toString();
  return text.size() > 60 ? text.substr(0, text.find(',', 50)) + ",..." : text;
}

std::string ringsText(const std::vector<RingOrder>& rings) {
  std::string text;
  for (const RingOrder& r : rings) text += (text.empty() ? "" : " | ") + shortOrder(r);
  return text;
}

std::string costRow(const std::string& label, const std::vector<RingOrder>& rings,
                    const topo::RingCost& c, const topo::Topology& t) {
  return fmt::format("  {:<11} {:12.1f} {:10.2f} {:<28} {:9.2f}  {}\n", label, c.time_s * 1e6,
                     c.step_s * 1e6, c.bottleneckLink >= 0 ? t.linkName(c.bottleneckLink) : "-",
                     c.latency_s * 1e6, ringsText(rings));
}

const char* chosenLabel(const topo::RingReport& report) {
  return report.given ? "given" : "searched";
}

// What show and search both print: header, the two rows, the speed-up and the method.
std::string comparisonText(const char* what, const topo::RingReport& report,
                           const topo::Topology& t) {
  const topo::RingReportHeader& h = report.header;
  const topo::RingSearchResult& r = report.result;
  std::string text = fmt::format("# ringlab topo {}: topology {}\n", what, h.topology);
  text += fmt::format("# placement {}  p {}  channels {}\n", h.placement, h.ranks, r.rings.size());
  text += fmt::format(
      "# predicted ring allreduce of {}: T = 2(p-1) x (chunk x max over links of "
      "transfers/bandwidth + slowest path latency), chunk = size/(channels x p)\n",
      formatSize(h.bytes));
  text += fmt::format("# {:<11} {:>12} {:>10} {:<28} {:>9}  {}\n", "ring", "time(us)", "step(us)",
                      "bottleneck link", "lat(us)", "order");
  text += costRow("rank order", report.rankOrder, r.rankOrderCost, t);
  if (report.reference) {
    text += costRow(report.reference->name, report.reference->rings, report.reference->cost, t);
  }
  text += costRow(chosenLabel(report), r.rings, r.cost, t);
  if (report.reference) {
    text += fmt::format("# {:.2f}x faster than {}\n", report.reference->cost.time_s / r.cost.time_s,
                        report.reference->name);
  }
  text += fmt::format(
      "# {:.2f}x faster than rank order; lower bound {:.1f} us, the chosen order is {:.3f}x of "
      "it\n",
      r.rankOrderCost.time_s / r.cost.time_s, r.lowerBound_s * 1e6,
      r.lowerBound_s > 0 ? r.cost.time_s / r.lowerBound_s : 1.0);
  return text + fmt::format("# method: {}\n", r.method);
}

std::string linkTable(const topo::LinkLoadComparison& c, const topo::Topology& t, const char* label,
                      int rows) {
  std::string text = fmt::format(
      "# link-hop bytes (bytes x links crossed, whole allreduce): rank order {}, {} {}\n",
      c.rankOrder.linkHopBytes, label, c.chosen.linkHopBytes);
  text +=
      "# busiest links (link-hop convention): transfers sharing the link in one step, bytes over "
      "the whole allreduce, and busy time = bytes / bandwidth\n";
  text += fmt::format("# {:<30} {:>9} | {:<9} {:>14} {:>10} | {:<9} {:>14} {:>10}\n", "link",
                      "GB/s", "rank ord.", "bytes", "busy(us)", "chosen", "bytes", "busy(us)");
  for (std::size_t i = 0; i < c.busiest.size() && static_cast<int>(i) < rows; ++i) {
    const int l = c.busiest[i];
    text += fmt::format("  {:<30} {:9.3f} | {:9} {:14} {:10.1f} | {:9} {:14} {:10.1f}\n",
                        t.linkName(l), t.links()[l].bandwidth_Bps / 1e9,
                        c.rankOrder.maxTransfers[l], c.rankOrder.totalBytes[l],
                        c.busy_s(t, c.rankOrder, l) * 1e6, c.chosen.maxTransfers[l],
                        c.chosen.totalBytes[l], c.busy_s(t, c.chosen, l) * 1e6);
  }
  return text;
}

}  // namespace

std::string ringSearchText(const topo::RingReport& report, const topo::Topology& topology,
                           std::string_view applyWith) {
  std::string text = comparisonText("search", report, topology);
  if (report.result.rings.size() == 1) {
    text +=
        "# apply: " + std::string(applyWith) + " " + report.result.rings.front().toString() + "\n";
  }
  return text;
}

std::string ringShowText(const topo::RingReport& report, const topo::Topology& topology, int rows) {
  std::string text = comparisonText("show", report, topology);
  if (report.loads) return text + linkTable(*report.loads, topology, chosenLabel(report), rows);
  return text + fmt::format(
                    "# link table left out: p {} > {} would need the whole schedule; see ringlab "
                    "sim\n",
                    report.header.ranks, topo::kMaxLinkTableRanks);
}

}  // namespace ringlab::report
