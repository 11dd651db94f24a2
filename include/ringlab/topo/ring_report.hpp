#pragma once
// What `ringlab topo show|search` reports about rings on a placed topology, for every front end:
// the rings priced (searched, or given as k orders), the per-link loads of the chosen rings against
// rank order, and the JSON of both.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/topo/link_load.hpp"
#include "ringlab/topo/ring_search.hpp"

namespace ringlab::topo {

// "0,1,2,3|0,2,1,3": k ring orders over the same p ranks, separated by '|'. Throws
// InvalidArgument naming the order that is not a permutation of 0..p-1, or for k outside
// 1..kMaxChannels (starting with `what`, the caller's name for the text).
std::vector<schedule::RingOrder> parseRings(std::string_view text, int ranks,
                                            std::string_view what = RingLabels{}.order);

// The rings to report on: searched for `channels` rings when `order` is empty, else the k rings
// `order` gives, priced with the same objective. `channels` 0 means not given (1 for a search, k
// for given rings); given with an order it must be k. Throws InvalidArgument otherwise.
// `progress` hears the search; errors name the inputs by `labels`.
RingSearchResult searchOrGiven(const Topology& topology, const Placement& placement, double bytes,
                               int channels, std::string_view order,
                               const ProgressCallback& progress = {},
                               const RingLabels& labels = {});

// The per-link loads of one whole allreduce over the chosen rings against the rank-order rings.
struct LinkLoadComparison {
  LinkLoadReport rankOrder, chosen;
  // Links that carry bytes in either, busiest first (the larger busy time, bytes / bandwidth).
  std::vector<int> busiest;
  // Seconds link l is busy in `report` (bytes / bandwidth).
  double busy_s(const Topology& topology, const LinkLoadReport& report, int link) const;
};

// Counts float32 allreduces of `count` elements. Beyond kMaxLinkTableRanks the schedule would be
// too large: callers leave the table out.
inline constexpr int kMaxLinkTableRanks = 2048;
LinkLoadComparison compareLinkLoads(const Topology& topology, const Placement& placement,
                                    const std::vector<schedule::RingOrder>& rankOrder,
                                    const std::vector<schedule::RingOrder>& chosen,
                                    std::uint64_t count);

// One ring set's cost: time, step, bottleneck, latency (us), the bottleneck link, the orders.
nlohmann::json costJson(const RingCost& cost, const std::vector<schedule::RingOrder>& rings,
                        const Topology& topology);

// The document of `topo search --json` (and the head of `topo show --json`).
struct RingReportHeader {
  std::string topology, placement;  // as io::PlacedTopology states them
  int ranks = 0;
  std::uint64_t bytes = 0;
};
nlohmann::json ringsJson(const RingReportHeader& header, const RingSearchResult& result,
                         const std::vector<schedule::RingOrder>& rankOrder,
                         const Topology& topology);

// Adds link_hop_bytes and the per-link table to a ringsJson document (`topo show --json`).
void addLinkLoadsJson(nlohmann::json& doc, const LinkLoadComparison& loads,
                      const Topology& topology);

// Rings the chosen ones are held against beside rank order, priced with the same objective: the
// rings NCCL builds on a GPU system (gpu/system_topology.hpp), which is the baseline a GPU user
// knows.
struct ReferenceRings {
  std::string name;  // "NCCL's rings"
  std::vector<schedule::RingOrder> rings;
  RingCost cost;  // filled by reportRings
};

// Everything `topo show|search` reports on one placed topology: the rings searched (or given),
// rank order as as many rings, the reference rings when given, and, when asked for and
// 1 < p <= kMaxLinkTableRanks, the link loads of a float32 allreduce of header.bytes.
struct RingReport {
  RingReportHeader header;
  RingSearchResult result;
  std::vector<schedule::RingOrder> rankOrder;
  bool given = false;  // the rings came from `order`, not from a search
  std::optional<ReferenceRings> reference;
  std::optional<LinkLoadComparison> loads;
};
RingReport reportRings(const Topology& topology, const Placement& placement,
                       const RingReportHeader& header, int channels, std::string_view order,
                       bool linkLoads, const ProgressCallback& progress = {},
                       std::optional<ReferenceRings> reference = std::nullopt,
                       const RingLabels& labels = {});

// ringsJson, with the link loads when the report has them.
nlohmann::json ringReportJson(const RingReport& report, const Topology& topology);

}  // namespace ringlab::topo
