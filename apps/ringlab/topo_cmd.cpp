// `ringlab topo show|search|detect`: a ring's link loads on a topology and placement, rank order
// against the order the search finds, and that order exported for --ring-order, mpirun and NCCL.
// The figures come from topo::searchOrGiven, topo::compareLinkLoads and their JSON; this file
// parses, calls and prints.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/topo_detect.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/ring_export.hpp"
#include "ringlab/topo/ring_report.hpp"
#include "topo_options.hpp"

namespace ringlab::cli {
namespace {

using schedule::RingOrder;

struct TopoArgs {
  TopologyOptions where;
  std::string size = "64M";
  int channels = 0;   // 0: not given (1, or the number of rings --order gives)
  std::string order;  // compare these rings instead of searching
  int links = 12;     // show: rows of the link table
  bool json = false;
  std::string exportKind;  // search: ring-order, rankfile, machinefile, nccl-graph
  std::string output;      // search, detect: write here instead of stdout
  std::string saveTopology;
  io::DetectOptions detect;
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
               const topo::Topology& t) {
  std::printf("  %-11s %12.1f %10.2f %-28s %9.2f  %s\n", label, c.time_s * 1e6, c.step_s * 1e6,
              c.bottleneckLink >= 0 ? t.linkName(c.bottleneckLink).c_str() : "-", c.latency_s * 1e6,
              ringsText(rings).c_str());
}

// The placed topology (also saved when asked), the size, and the rings searched or given.
struct Priced {
  PlacedTopology placed;
  std::uint64_t bytes = 0;
  topo::RingSearchResult result;
  std::vector<RingOrder> rankOrder;  // as many rings as the result, in rank order
  topo::RingReportHeader header() const {
    return {placed.topologyText(), placed.placementText(), placed.placement->ranks(), bytes};
  }
};

Priced price(const TopoArgs& a, bool search) {
  Priced pr{a.where.load(), parseSize(a.size), {}, {}};
  if (!a.saveTopology.empty()) {
    io::writeTopologyFile(*pr.placed.topology, a.saveTopology, "--save-topology");
  }
  if (search && pr.bytes == 0) throwInvalid("--size 0: the search prices a message; give one > 0");
  pr.result = topo::searchOrGiven(*pr.placed.topology, *pr.placed.placement,
                                  static_cast<double>(pr.bytes), a.channels, a.order);
  pr.rankOrder = schedule::multiRingOrders(pr.placed.placement->ranks(),
                                           static_cast<int>(pr.result.rings.size()), {}, {});
  return pr;
}

void printHeader(const char* what, const Priced& pr) {
  std::printf("# ringlab topo %s: topology %s\n", what, pr.placed.topologyText().c_str());
  std::printf("# placement %s  p %d  channels %zu\n", pr.placed.placementText().c_str(),
              pr.placed.placement->ranks(), pr.result.rings.size());
  std::printf(
      "# predicted ring allreduce of %s: T = 2(p-1) x (chunk x max over links of "
      "transfers/bandwidth + slowest path latency), chunk = size/(channels x p)\n",
      formatSize(pr.bytes).c_str());
  std::printf("# %-11s %12s %10s %-28s %9s  %s\n", "ring", "time(us)", "step(us)",
              "bottleneck link", "lat(us)", "order");
}

void printComparison(const char* what, const char* label, const Priced& pr) {
  const topo::RingSearchResult& r = pr.result;
  printHeader(what, pr);
  printCost("rank order", pr.rankOrder, r.rankOrderCost, *pr.placed.topology);
  printCost(label, r.rings, r.cost, *pr.placed.topology);
  std::printf(
      "# %.2fx faster than rank order; lower bound %.1f us, the chosen order is %.3fx of it\n",
      r.rankOrderCost.time_s / r.cost.time_s, r.lowerBound_s * 1e6,
      r.lowerBound_s > 0 ? r.cost.time_s / r.lowerBound_s : 1.0);
  std::printf("# method: %s\n", r.method.c_str());
}

void printLinkTable(const topo::LinkLoadComparison& c, const topo::Topology& t, const char* label,
                    int rows) {
  std::printf(
      "# link-hop bytes (bytes x links crossed, whole allreduce): rank order %llu, %s %llu\n",
      static_cast<unsigned long long>(c.rankOrder.linkHopBytes), label,
      static_cast<unsigned long long>(c.chosen.linkHopBytes));
  std::printf(
      "# busiest links (link-hop convention): transfers sharing the link in one step, bytes over "
      "the whole allreduce, and busy time = bytes / bandwidth\n");
  std::printf("# %-30s %9s | %-9s %14s %10s | %-9s %14s %10s\n", "link", "GB/s", "rank ord.",
              "bytes", "busy(us)", "chosen", "bytes", "busy(us)");
  for (std::size_t i = 0; i < c.busiest.size() && static_cast<int>(i) < rows; ++i) {
    const int l = c.busiest[i];
    std::printf("  %-30s %9.3f | %9d %14llu %10.1f | %9d %14llu %10.1f\n", t.linkName(l).c_str(),
                t.links()[l].bandwidth_Bps / 1e9, c.rankOrder.maxTransfers[l],
                static_cast<unsigned long long>(c.rankOrder.totalBytes[l]),
                c.busy_s(t, c.rankOrder, l) * 1e6, c.chosen.maxTransfers[l],
                static_cast<unsigned long long>(c.chosen.totalBytes[l]),
                c.busy_s(t, c.chosen, l) * 1e6);
  }
}

int runShow(const TopoArgs& a) {
  const Priced pr = price(a, false);
  const topo::Topology& t = *pr.placed.topology;
  const int p = pr.placed.placement->ranks();
  const std::uint64_t count = elementCount(pr.bytes, DataType::Float32, "--size");
  std::unique_ptr<topo::LinkLoadComparison> loads;
  if (p <= topo::kMaxLinkTableRanks && p > 1) {
    loads = std::make_unique<topo::LinkLoadComparison>(
        topo::compareLinkLoads(t, *pr.placed.placement, pr.rankOrder, pr.result.rings, count));
  }
  if (a.json) {
    nlohmann::json doc = topo::ringsJson(pr.header(), pr.result, pr.rankOrder, t);
    if (loads) topo::addLinkLoadsJson(doc, *loads, t);
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
  }
  const char* label = a.order.empty() ? "searched" : "given";
  printComparison("show", label, pr);
  if (loads) {
    printLinkTable(*loads, t, label, a.links);
  } else {
    std::printf("# link table left out: p %d > %d would need the whole schedule; see ringlab sim\n",
                p, topo::kMaxLinkTableRanks);
  }
  return 0;
}

int runSearch(const TopoArgs& a) {
  const Priced pr = price(a, true);
  const topo::RingSearchResult& r = pr.result;
  if (!a.exportKind.empty()) {
    const std::string text =
        topo::exportRings(a.exportKind, *pr.placed.topology, *pr.placed.placement, r.rings);
    if (a.output.empty()) {
      std::fputs(text.c_str(), stdout);
      return 0;
    }
    io::writeTextFile(a.output, text, "-o");
    std::printf("# wrote %s (%s)\n", a.output.c_str(), a.exportKind.c_str());
  }
  if (a.json) {
    std::printf("%s\n",
                topo::ringsJson(pr.header(), r, pr.rankOrder, *pr.placed.topology).dump(2).c_str());
    return 0;
  }
  printComparison("search", a.order.empty() ? "searched" : "given", pr);
  if (r.rings.size() == 1)
    std::printf("# apply: ringlab bench --ring-order %s\n", r.rings.front().toString().c_str());
  return 0;
}

int runDetect(TopoArgs& a) {
  if (!a.detectIntra.empty()) a.detect.intra_Bps = parseBandwidth(a.detectIntra);
  if (!a.detectNic.empty()) a.detect.nic_Bps = parseBandwidth(a.detectNic);
  std::string notes;
  const topo::Topology t = io::detectLocalTopology(a.detect, notes);
  const std::string json = topo::topologyToJson(t);
  if (a.output.empty()) {
    std::fputs(json.c_str(), stdout);
  } else {
    io::writeTextFile(a.output, json, "-o");
  }
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
                    "rings (channels) to find, each carrying 1/k of the data (default 1, or the "
                    "rings --order gives)");
    sub->add_option("--order", args->order,
                    "use these k ring orders instead of searching, separated by '|', e.g. 0,2,1,3 "
                    "or '0,1,2,3|0,2,1,3'");
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
