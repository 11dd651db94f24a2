#include "ringlab/topo/ring_report.hpp"

#include <algorithm>
#include <utility>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/schedule/multi_ring.hpp"

namespace ringlab::topo {

using schedule::RingOrder;

std::vector<RingOrder> parseRings(std::string_view text, int ranks, std::string_view what) {
  std::vector<RingOrder> rings;
  for (const std::string& order : splitList(text, '|'))
    rings.push_back(RingOrder::parse(order, ranks));
  const int k = static_cast<int>(rings.size());
  if (k < 1 || k > schedule::kMaxChannels) {
    throwInvalid(std::string(what) + " '" + std::string(text) + "': " + std::to_string(k) +
                 " rings; give 1.." + std::to_string(schedule::kMaxChannels) +
                 " orders separated by '|', e.g. 0,1,2,3|0,2,1,3");
  }
  return rings;
}

RingSearchResult searchOrGiven(const Topology& topology, const Placement& placement, double bytes,
                               int channels, std::string_view order,
                               const ProgressCallback& progress, const RingLabels& labels) {
  RingSearchOptions options;
  options.bytes = bytes;
  options.channels = channels == 0 ? 1 : channels;
  options.progress = progress;
  options.labels = labels;
  if (order.empty()) return searchRings(topology, placement, options);
  const int p = placement.ranks();
  RingSearchResult given;
  given.rings = parseRings(order, p, labels.order);
  const int k = static_cast<int>(given.rings.size());
  if (channels != 0 && channels != k) {
    throwInvalid(labels.channels + " " + std::to_string(channels) + " with " + labels.order + " '" +
                 std::string(order) + "' of " + std::to_string(k) + (k == 1 ? " ring" : " rings") +
                 ": give one order per channel, separated by '|' (e.g. 0,1,2,3|0,2,1,3), or "
                 "leave out " +
                 labels.channels);
  }
  given.cost = ringCost(topology, placement, given.rings, bytes);
  given.rankOrderCost =
      ringCost(topology, placement, schedule::multiRingOrders(p, k, {}, {}), bytes);
  given.lowerBound_s = ringLowerBound(topology, placement, bytes, k);
  given.method = "given by " + labels.order;
  return given;
}

double LinkLoadComparison::busy_s(const Topology& topology, const LinkLoadReport& report,
                                  int link) const {
  return report.totalBytes[link] / topology.links()[link].bandwidth_Bps;
}

LinkLoadComparison compareLinkLoads(const Topology& topology, const Placement& placement,
                                    const std::vector<RingOrder>& rankOrder,
                                    const std::vector<RingOrder>& chosen, std::uint64_t count) {
  const auto count_ = [&](const std::vector<RingOrder>& rings) {
    return countLinkLoads(topology, placement, schedule::multiRingAllReduce(rings), count,
                          DataType::Float32);
  };
  LinkLoadComparison c{count_(rankOrder), count_(chosen), {}};
  for (std::size_t l = 0; l < topology.links().size(); ++l) {
    if (c.rankOrder.totalBytes[l] || c.chosen.totalBytes[l])
      c.busiest.push_back(static_cast<int>(l));
  }
  const auto busiest = [&](int l) {
    return std::max(c.busy_s(topology, c.rankOrder, l), c.busy_s(topology, c.chosen, l));
  };
  std::stable_sort(c.busiest.begin(), c.busiest.end(),
                   [&](int x, int y) { return busiest(x) > busiest(y); });
  return c;
}

nlohmann::json costJson(const RingCost& c, const std::vector<RingOrder>& rings, const Topology& t) {
  nlohmann::json orders = nlohmann::json::array();
  for (const RingOrder& r : rings) orders.push_back(r.ranks());
  return {{"time_us", c.time_s * 1e6},
          {"step_us", c.step_s * 1e6},
          {"bottleneck_us", c.bottleneck_s * 1e6},
          {"latency_us", c.latency_s * 1e6},
          {"bottleneck_link",
           c.bottleneckLink >= 0 ? nlohmann::json(t.linkName(c.bottleneckLink)) : nlohmann::json()},
          {"rings", orders}};
}

nlohmann::json ringsJson(const RingReportHeader& h, const RingSearchResult& r,
                         const std::vector<RingOrder>& rankOrder, const Topology& t) {
  return {{"topology", h.topology},
          {"placement", h.placement},
          {"p", h.ranks},
          {"size_bytes", h.bytes},
          {"method", r.method},
          {"rank_order", costJson(r.rankOrderCost, rankOrder, t)},
          {"chosen", costJson(r.cost, r.rings, t)},
          {"lower_bound_us", r.lowerBound_s * 1e6}};
}

void addLinkLoadsJson(nlohmann::json& doc, const LinkLoadComparison& c, const Topology& t) {
  doc["link_hop_bytes"] = {{"rank_order", c.rankOrder.linkHopBytes},
                           {"chosen", c.chosen.linkHopBytes}};
  nlohmann::json links = nlohmann::json::array();
  for (std::size_t l = 0; l < t.links().size(); ++l) {
    if (c.rankOrder.totalBytes[l] == 0 && c.chosen.totalBytes[l] == 0) continue;
    const auto side = [&](const LinkLoadReport& r) {
      return nlohmann::json{{"bytes", r.totalBytes[l]}, {"max_transfers", r.maxTransfers[l]}};
    };
    links.push_back({{"link", t.linkName(static_cast<int>(l))},
                     {"bandwidth_GBps", t.links()[l].bandwidth_Bps / 1e9},
                     {"rank_order", side(c.rankOrder)},
                     {"chosen", side(c.chosen)}});
  }
  doc["links"] = links;
}

RingReport reportRings(const Topology& topology, const Placement& placement,
                       const RingReportHeader& header, int channels, std::string_view order,
                       bool linkLoads, const ProgressCallback& progress,
                       std::optional<ReferenceRings> reference, const RingLabels& labels) {
  RingReport r{header, {}, {}, !order.empty(), std::move(reference), std::nullopt};
  const double bytes = static_cast<double>(header.bytes);
  r.result = searchOrGiven(topology, placement, bytes, channels, order, progress, labels);
  if (r.reference) r.reference->cost = ringCost(topology, placement, r.reference->rings, bytes);
  const int p = placement.ranks();
  r.rankOrder = schedule::multiRingOrders(p, static_cast<int>(r.result.rings.size()), {}, {});
  if (!linkLoads) return r;
  // Checked even where the table is left out: --size must be whole float32 elements either way.
  const std::uint64_t count = elementCount(header.bytes, DataType::Float32, labels.size);
  if (p > 1 && p <= kMaxLinkTableRanks)
    r.loads = compareLinkLoads(topology, placement, r.rankOrder, r.result.rings, count);
  return r;
}

nlohmann::json ringReportJson(const RingReport& report, const Topology& topology) {
  nlohmann::json doc = ringsJson(report.header, report.result, report.rankOrder, topology);
  if (report.reference) {
    doc["reference"] = costJson(report.reference->cost, report.reference->rings, topology);
    doc["reference"]["name"] = report.reference->name;
  }
  if (report.loads) addLinkLoadsJson(doc, *report.loads, topology);
  return doc;
}

}  // namespace ringlab::topo
