// `ringlab topo show|search|detect`: a ring's link loads on a topology and placement, rank order
// against the order the search finds, and that order exported for --ring-order, mpirun and NCCL.
// The figures come from topo::reportRings and its JSON, the text from report::ringShowText and
// ringSearchText; this file parses, calls and prints.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "option_groups.hpp"
#include "progress_line.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/gpu/system_topology.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/topo_detect.hpp"
#include "ringlab/report/ring_report_text.hpp"
#include "ringlab/topo/file_format.hpp"
#include "ringlab/topo/ring_export.hpp"
#include "ringlab/topo/ring_report.hpp"

namespace ringlab::cli {
namespace {

struct TopoArgs {
  TopologyOptions where;
  GpuSystemOptions system;  // in place of where: a GPU system, held against NCCL's rings
  std::string size = "64M";
  int channels = 0;             // 0: not given (1, or the number of rings --order gives)
  std::string order;            // compare these rings instead of searching
  int links = 12;               // show: rows of the link table
  JsonOutput json;              // show, search: the report; detect: the topology file ("-" default)
  std::string exportKind;       // search: ring-order, rankfile, machinefile, nccl-graph
  std::string exportFile;       // search: write the export here instead of stdout
  std::string hosts, hostfile;  // search: topology nodes -> hosts for rankfile, machinefile
  std::string saveTopology;
  io::DetectOptions detect;
  std::string detectIntra, detectNic;
};

// The user's hosts for the topology's nodes, when given (--hosts or --hostfile).
std::optional<topo::HostMap> hostMap(const TopoArgs& a, const topo::Topology& t) {
  if (!a.hosts.empty()) return topo::hostsFromList(a.hosts, t, "--hosts");
  if (!a.hostfile.empty())
    return topo::hostsFromHostfile(readTextFile(a.hostfile, "--hostfile"), t,
                                   "--hostfile " + a.hostfile);
  return std::nullopt;
}

int runRings(const TopoArgs& a, bool search) {
  if ((!a.hosts.empty() || !a.hostfile.empty()) && a.exportKind != "rankfile" &&
      a.exportKind != "machinefile") {
    throwInvalid(std::string(a.hosts.empty() ? "--hostfile" : "--hosts") +
                 " maps topology nodes to hosts for --export rankfile or machinefile");
  }
  const bool exportToStdout = search && !a.exportKind.empty() && a.exportFile.empty();
  if (exportToStdout && a.json.toStdout()) {
    throwInvalid("--export " + a.exportKind +
                 " and --json - both write to standard output: give --export-file FILE");
  }
  a.json.checkWritable();
  TopologyOptions where = a.where;
  const std::optional<gpu::GpuSystem> system = drawSystem(a.system, where);
  int channels = a.channels;
  std::optional<topo::ReferenceRings> nccl;
  if (system) {
    // As many of NCCL's rings as the rings priced: given, asked for, or NCCL's own count.
    const int k = channels > 0      ? channels
                  : a.order.empty() ? gpu::ncclRingChannels(*system)
                                    : static_cast<int>(std::ranges::count(a.order, '|')) + 1;
    if (a.order.empty()) channels = k;
    nccl = gpu::ncclReferenceRings(*system, k);
  }
  const PlacedTopology placed = where.load();
  const topo::Topology& t = *placed.topology;
  if (!a.saveTopology.empty()) io::writeTopologyFile(t, a.saveTopology, "--save-topology");
  const std::uint64_t bytes = parseSize(a.size);
  if (search && bytes == 0) throwInvalid("--size 0: the search prices a message; give one > 0");
  ProgressLine line(search ? "topo search" : "topo show");
  const topo::RingReport report = topo::reportRings(
      t, *placed.placement,
      {placed.topologyText(), placed.placementText(), placed.placement->ranks(), bytes}, channels,
      a.order, !search, line.callback(), nccl,
      {.order = "--order", .channels = "--channels", .size = "--size"});
  line.finish();
  if (search && !a.exportKind.empty()) {
    const std::optional<topo::HostMap> hosts = hostMap(a, t);
    const std::string exported =
        topo::exportRings(a.exportKind, t, *placed.placement, report.result.rings,
                          hosts ? &*hosts : nullptr, {.kind = "--export", .hosts = "--hosts"});
    if (exportToStdout) {
      std::fputs(exported.c_str(), stdout);
      return 0;
    }
    io::writeTextFile(a.exportFile, exported, "--export-file");
    a.json.printText(fmt::format("# wrote {} ({})\n", a.exportFile, a.exportKind));
  }
  std::string text = search ? report::ringSearchText(report, t, "ringlab bench --ring-order")
                            : report::ringShowText(report, t, a.links);
  if (system) {
    text = "# system: " + gpu::describeSystem(*system) + "\n# " + gpu::topologyNote(*system) +
           "\n" + text;
  }
  a.json.printText(text);
  if (a.json.given()) a.json.write(topo::ringReportJson(report, t).dump(2) + "\n");
  return 0;
}

int runDetect(TopoArgs& a) {
  a.detect.slotsWhat = "--slots";
  a.detect.intraWhat = "--intra";
  a.detect.nicWhat = "--nic-bw";
  if (!a.detectIntra.empty()) a.detect.intra_Bps = parseBandwidth(a.detectIntra);
  if (!a.detectNic.empty()) a.detect.nic_Bps = parseBandwidth(a.detectNic);
  if (!a.json.given()) a.json.path = "-";  // detect's output is the topology file itself
  std::string notes;
  const topo::Topology t = io::detectLocalTopology(a.detect, notes);
  a.json.write(topo::topologyToJson(t));
  // The summary goes beside the file: to standard error when the file is standard output.
  std::fprintf(a.json.toStdout() ? stderr : stdout, "# ringlab topo detect: %s; %s\n",
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
    args->system.add(*sub, false);
    sub->add_option("--size", args->size, "the allreduce size the prediction prices");
    sub->add_option("--channels", args->channels,
                    "rings (channels) to find, each carrying 1/k of the data (default 1, the "
                    "rings --order gives, or NCCL's channels on --system)");
    sub->add_option("--order", args->order,
                    "use these k ring orders instead of searching, separated by '|', e.g. 0,2,1,3 "
                    "or '0,1,2,3|0,2,1,3'");
    args->json.add(*sub, "also write the report as JSON to this file");
    sub->add_option("--save-topology", args->saveTopology,
                    "also write the topology as a ringlab JSON file")
        ->type_name("FILE");
  };
  CLI::App* show =
      cmd->add_subcommand("show", "link loads of a ring in rank order against a better order");
  common(show);
  addLinks(*show, args->links, "rows of the busiest-link table");
  CLI::App* search =
      cmd->add_subcommand("search", "find ring orders minimising the predicted allreduce time");
  common(search);
  search->add_option("--export", args->exportKind,
                     "ring-order, rankfile (Open MPI), machinefile (MPICH), "
                     "nccl-graph (NCCL_GRAPH_FILE, intra-node rings)");
  search
      ->add_option("--export-file", args->exportFile,
                   "write the export to this file (default: standard output, alone)")
      ->type_name("FILE");
  CLI::Option* hosts =
      search->add_option("--hosts", args->hosts,
                         "the host of each topology node for rankfile and machinefile, "
                         "e.g. n0=node01,n1=node02");
  search
      ->add_option("--hostfile", args->hostfile,
                   "hosts for the topology's nodes in order, one per line (\"HOST slots=N\" or "
                   "\"HOST:N\" read)")
      ->type_name("FILE")
      ->excludes(hosts);
  CLI::App* detect =
      cmd->add_subcommand("detect", "this machine as a ringlab topology file (hwloc)");
  detect->add_option("--slots", args->detect.slots, "auto (GPUs if any, else cores), gpus, cores");
  addBandwidth(*detect, "--intra", args->detectIntra,
               "each slot's link to the node's fabric (not detected; default 20GB/s)");
  addBandwidth(*detect, "--nic-bw", args->detectNic,
               "each slot's link to a NIC (not detected; default 12.5GB/s)");
  args->json.add(*detect, "write the topology file here (default -)");
  return [args, show, search] {  // exactly one subcommand was given
    if (show->parsed() || search->parsed()) return runRings(*args, search->parsed());
    return runDetect(*args);
  };
}

}  // namespace ringlab::cli
