// `ringlab topo show|search`: a ring's link loads on a topology and placement, rank order against
// the order the search finds, and that order exported for --ring-order, mpirun and NCCL.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/link_load.hpp"
#include "ringlab/topo/ring_export.hpp"
#include "ringlab/topo/ring_search.hpp"
#include "topo_detect.hpp"
#include "topo_options.hpp"

namespace ringlab::cli {
namespace {

using schedule::RingOrder;

// Beyond this p the per-link table would need the whole Schedule (2p(p-1) transfers).
constexpr int kMaxLinkTableRanks = 2048;

struct TopoArgs {
  TopologyOptions where;
  std::string size = "64M";
  int channels = 1;
  std::string order;  // show: compare this order instead of searching
  int links = 12;     // show: rows of the link table
  bool json = false;
  std::string exportKind;  // search: ring-order, rankfile, machinefile, nccl-graph
  std::string output;      // search: write the export here instead of stdout
  std::string saveTopology;
  DetectOptions detect;
  std::string detectIntra, detectNic;
};

std::string shortOrder(const RingOrder& ring) {
  std::string text = ring.toString();
  return text.size() > 60 ? text.substr(0, text.find(',', 50)) + ",..." : text;
}

std::string ringsText(const std::vector<RingOrder>& rings) {
  std::string text;
  for (const RingOrder& r : rings) text += (text.empty() ? "" : " | ") + shortOrder(r);
  return text;
}

void printCost(const char* label, const std::vector<RingOrder>& rings, const topo::RingCost& c,
               const topo::Topology& t, const std::string& note) {
  std::printf("  %-11s %12.1f %10.2f %-28s %9.2f  %s%s\n", label, c.time_s * 1e6, c.step_s * 1e6,
              c.bottleneckLink >= 0 ? t.linkName(c.bottleneckLink).c_str() : "-", c.latency_s * 1e6,
              ringsText(rings).c_str(), note.c_str());
}

void writeOrPrint(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream out(output);
  if (!out) throwInvalid("-o " + output + ": cannot open for writing");
  out << text;
}

void saveTopology(const TopoArgs& a, const topo::Topology& t) {
  if (a.saveTopology.empty()) return;
  std::ofstream out(a.saveTopology);
  if (!out) throwInvalid("--save-topology " + a.saveTopology + ": cannot open for writing");
  out << topo::topologyToJson(t);
}

nlohmann::json costJson(const topo::RingCost& c, const std::vector<RingOrder>& rings,
                        const topo::Topology& t) {
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

topo::RingSearchResult searchOrGiven(const TopoArgs& a, const PlacedTopology& placed,
                                     double bytes) {
  topo::RingSearchOptions options;
  options.bytes = bytes;
  options.channels = a.channels;
  if (a.order.empty()) return topo::searchRings(*placed.topology, *placed.placement, options);
  const int p = placed.placement->ranks();
  topo::RingSearchResult given;
  given.rings = {RingOrder::parse(a.order, p)};
  given.cost = topo::ringCost(*placed.topology, *placed.placement, given.rings, bytes);
  given.rankOrderCost =
      topo::ringCost(*placed.topology, *placed.placement, {RingOrder::identity(p)}, bytes);
  given.lowerBound_s = topo::ringLowerBound(*placed.topology, *placed.placement, bytes, 1);
  given.method = "given by --order";
  return given;
}

void printHeader(const char* what, const PlacedTopology& placed, std::uint64_t bytes,
                 int channels) {
  std::printf("# ringlab topo %s: topology %s\n", what, placed.topologyText().c_str());
  std::printf("# placement %s  p %d  channels %d\n", placed.placementText().c_str(),
              placed.placement->ranks(), channels);
  std::printf(
      "# predicted ring allreduce of %s: T = 2(p-1) x (chunk x max over links of "
      "transfers/bandwidth + "
      "slowest path latency), chunk = size/(channels x p)\n",
      formatSize(bytes).c_str());
  std::printf("# %-11s %12s %10s %-28s %9s  %s\n", "ring", "time(us)", "step(us)",
              "bottleneck link", "lat(us)", "order");
}

void printSearchSummary(const topo::RingSearchResult& r) {
  std::printf(
      "# %.2fx faster than rank order; lower bound %.1f us, the chosen order is %.3fx of it\n",
      r.rankOrderCost.time_s / r.cost.time_s, r.lowerBound_s * 1e6,
      r.lowerBound_s > 0 ? r.cost.time_s / r.lowerBound_s : 1.0);
  std::printf("# method: %s\n", r.method.c_str());
}

int runShow(const TopoArgs& a) {
  const PlacedTopology placed = a.where.load();
  saveTopology(a, *placed.topology);
  const topo::Topology& t = *placed.topology;
  const topo::Placement& pl = *placed.placement;
  const std::uint64_t bytes = parseSize(a.size);
  const std::uint64_t count = elementCount(bytes, DataType::Float32, "--size");
  const int p = pl.ranks();
  const topo::RingSearchResult r = searchOrGiven(a, placed, static_cast<double>(bytes));
  const std::vector<RingOrder> rankOrder =
      schedule::multiRingOrders(p, static_cast<int>(r.rings.size()), {}, {});
  const bool table = p <= kMaxLinkTableRanks && p > 1;
  std::unique_ptr<topo::LinkLoadReport> before, after;
  if (table) {
    const auto build = [&](const std::vector<RingOrder>& rings) {
      return std::make_unique<topo::LinkLoadReport>(topo::countLinkLoads(
          t, pl, schedule::multiRingAllReduce(rings), count, DataType::Float32));
    };
    before = build(rankOrder);
    after = build(r.rings);
  }
  if (a.json) {
    nlohmann::json doc = {{"topology", placed.topologyText()},
                          {"placement", placed.placementText()},
                          {"p", p},
                          {"size_bytes", bytes},
                          {"method", r.method},
                          {"rank_order", costJson(r.rankOrderCost, rankOrder, t)},
                          {"chosen", costJson(r.cost, r.rings, t)},
                          {"lower_bound_us", r.lowerBound_s * 1e6}};
    if (table) {
      doc["link_hop_bytes"] = {{"rank_order", before->linkHopBytes},
                               {"chosen", after->linkHopBytes}};
      nlohmann::json links = nlohmann::json::array();
      for (std::size_t l = 0; l < t.links().size(); ++l) {
        if (before->totalBytes[l] == 0 && after->totalBytes[l] == 0) continue;
        links.push_back(
            {{"link", t.linkName(static_cast<int>(l))},
             {"bandwidth_GBps", t.links()[l].bandwidth_Bps / 1e9},
             {"rank_order",
              {{"bytes", before->totalBytes[l]}, {"max_transfers", before->maxTransfers[l]}}},
             {"chosen",
              {{"bytes", after->totalBytes[l]}, {"max_transfers", after->maxTransfers[l]}}}});
      }
      doc["links"] = links;
    }
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
  }
  printHeader("show", placed, bytes, static_cast<int>(r.rings.size()));
  printCost("rank order", rankOrder, r.rankOrderCost, t, "");
  printCost(a.order.empty() ? "searched" : "given", r.rings, r.cost, t, "");
  printSearchSummary(r);
  if (!table) {
    std::printf("# link table left out: p %d > %d would need the whole schedule; see ringlab sim\n",
                p, kMaxLinkTableRanks);
    return 0;
  }
  std::printf(
      "# link-hop bytes (bytes x links crossed, whole allreduce): rank order %llu, %s %llu\n",
      static_cast<unsigned long long>(before->linkHopBytes), a.order.empty() ? "searched" : "given",
      static_cast<unsigned long long>(after->linkHopBytes));
  std::printf(
      "# busiest links (link-hop convention): transfers sharing the link in one step, bytes over "
      "the whole "
      "allreduce, and busy time = bytes / bandwidth\n");
  std::printf("# %-30s %9s | %-9s %14s %10s | %-9s %14s %10s\n", "link", "GB/s", "rank ord.",
              "bytes", "busy(us)", "chosen", "bytes", "busy(us)");
  std::vector<int> order;
  for (std::size_t l = 0; l < t.links().size(); ++l) {
    if (before->totalBytes[l] || after->totalBytes[l]) order.push_back(static_cast<int>(l));
  }
  const auto busy = [&](const topo::LinkLoadReport& rep, int l) {
    return rep.totalBytes[l] / t.links()[l].bandwidth_Bps;
  };
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    return std::max(busy(*before, x), busy(*after, x)) >
           std::max(busy(*before, y), busy(*after, y));
  });
  for (std::size_t i = 0; i < order.size() && static_cast<int>(i) < a.links; ++i) {
    const int l = order[i];
    std::printf("  %-30s %9.3f | %9d %14llu %10.1f | %9d %14llu %10.1f\n", t.linkName(l).c_str(),
                t.links()[l].bandwidth_Bps / 1e9, before->maxTransfers[l],
                static_cast<unsigned long long>(before->totalBytes[l]), busy(*before, l) * 1e6,
                after->maxTransfers[l], static_cast<unsigned long long>(after->totalBytes[l]),
                busy(*after, l) * 1e6);
  }
  return 0;
}

int runSearch(const TopoArgs& a) {
  const PlacedTopology placed = a.where.load();
  saveTopology(a, *placed.topology);
  const topo::Topology& t = *placed.topology;
  const std::uint64_t bytes = parseSize(a.size);
  if (bytes == 0) throwInvalid("--size 0: the search prices a message; give one > 0");
  const topo::RingSearchResult r = searchOrGiven(a, placed, static_cast<double>(bytes));
  const int p = placed.placement->ranks();
  if (!a.exportKind.empty()) {
    std::string text;
    if (a.exportKind == "ring-order") {
      for (const RingOrder& ring : r.rings) text += ring.toString() + "\n";
    } else if (a.exportKind == "rankfile") {
      text = topo::openMpiRankfile(t, *placed.placement, r.rings.front());
    } else if (a.exportKind == "machinefile") {
      text = topo::mpichMachinefile(t, *placed.placement, r.rings.front());
    } else if (a.exportKind == "nccl-graph") {
      text = topo::ncclGraphXml(t, *placed.placement, r.rings, placed.placement->nodeOf(0));
    } else {
      throwInvalid("--export " + a.exportKind +
                   ": valid are ring-order, rankfile, machinefile, nccl-graph");
    }
    writeOrPrint(text, a.output);
    if (!a.output.empty()) std::printf("# wrote %s (%s)\n", a.output.c_str(), a.exportKind.c_str());
    if (a.output.empty()) return 0;
  }
  if (a.json) {
    nlohmann::json doc = {
        {"topology", placed.topologyText()},
        {"placement", placed.placementText()},
        {"p", p},
        {"size_bytes", bytes},
        {"method", r.method},
        {"rank_order",
         costJson(r.rankOrderCost, schedule::multiRingOrders(p, a.channels, {}, {}), t)},
        {"chosen", costJson(r.cost, r.rings, t)},
        {"lower_bound_us", r.lowerBound_s * 1e6}};
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
  }
  printHeader("search", placed, bytes, a.channels);
  printCost("rank order", schedule::multiRingOrders(p, a.channels, {}, {}), r.rankOrderCost, t, "");
  printCost("searched", r.rings, r.cost, t, "");
  printSearchSummary(r);
  if (r.rings.size() == 1)
    std::printf("# apply: ringlab bench --ring-order %s\n", r.rings.front().toString().c_str());
  return 0;
}

int runDetect(TopoArgs& a) {
  if (!a.detectIntra.empty()) a.detect.intra_Bps = parseBandwidth(a.detectIntra);
  if (!a.detectNic.empty()) a.detect.nic_Bps = parseBandwidth(a.detectNic);
  std::string notes;
  const topo::Topology t = detectLocalTopology(a.detect, notes);
  const std::string json = topo::topologyToJson(t);
  writeOrPrint(json, a.output);
  std::fprintf(a.output.empty() ? stderr : stdout, "# ringlab topo detect: %s; %s\n",
               t.summary().c_str(), notes.c_str());
  return 0;
}

}  // namespace

Action addTopoCommand(CLI::App& app) {
  auto args = std::make_shared<TopoArgs>();
  CLI::App* cmd =
      app.add_subcommand("topo", "topology: link loads of a ring, ring-order search, exports");
  cmd->require_subcommand(1);
  const auto common = [&](CLI::App* sub) {
    args->where.add(*sub);
    sub->add_option("--size", args->size, "the allreduce size the prediction prices")
        ->capture_default_str();
    sub->add_option("--channels", args->channels,
                    "rings (channels) to find, each carrying 1/k of the data")
        ->capture_default_str();
    sub->add_option("--order", args->order,
                    "use this ring order instead of searching, e.g. 0,2,1,3");
    sub->add_flag("--json", args->json, "print JSON instead of the table");
    sub->add_option("--save-topology", args->saveTopology,
                    "also write the topology as a ringlab JSON file");
  };
  CLI::App* show =
      cmd->add_subcommand("show", "link loads of a ring in rank order against a better order");
  common(show);
  show->add_option("--links", args->links, "rows of the busiest-link table")->capture_default_str();
  CLI::App* search =
      cmd->add_subcommand("search", "find ring orders minimising the predicted allreduce time");
  common(search);
  search->add_option("--export", args->exportKind,
                     "ring-order, rankfile (Open MPI), machinefile (MPICH), "
                     "nccl-graph (NCCL_GRAPH_FILE, intra-node rings)");
  search->add_option("-o,--output", args->output, "write the export to this file");
  CLI::App* detect =
      cmd->add_subcommand("detect", "this machine as a ringlab topology file (hwloc)");
  detect->add_option("--slots", args->detect.slots, "auto (GPUs if any, else cores), gpus, cores")
      ->capture_default_str();
  detect->add_option("--intra", args->detectIntra,
                     "each slot's link to the node's fabric (not detected; default 20GB/s)");
  detect->add_option("--nic-bw", args->detectNic,
                     "each slot's link to a NIC (not detected; default 12.5GB/s)");
  detect->add_option("-o,--output", args->output, "write the topology file here instead of stdout");
  return [args, show, search, detect] {
    if (show->parsed()) return runShow(*args);
    if (search->parsed()) return runSearch(*args);
    if (detect->parsed()) return runDetect(*args);
    return 2;
  };
}

}  // namespace ringlab::cli
