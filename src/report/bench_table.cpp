#include "ringlab/report/bench_table.hpp"

#include <fmt/format.h>

#include "ringlab/core/reduce.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/bandwidth.hpp"
#include "ringlab/model/describe.hpp"
#include "ringlab/model/predict.hpp"

namespace ringlab::report {
namespace {

std::string trimmedLine(std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

std::string wrongText(const measure::Timing& t) {
  return t.wrong ? std::to_string(*t.wrong) : std::string("N/A");
}

std::string timingColumns(std::uint64_t bytes, const measure::Timing& t, int ranks) {
  return fmt::format("{:9.1f} {:7.2f} {:7.2f} {:>6}", t.timeUs, model::algbwGBps(bytes, t.timeUs),
                     model::allReduceBusbwGBps(bytes, t.timeUs, ranks), wrongText(t));
}

}  // namespace

std::string benchPreamble(const measure::BenchConfig& config, const measure::RunInfo& info,
                          const std::string& tunedName, const std::string& profileName) {
  const std::string iterations = config.secondsPerSize > 0
                                     ? fmt::format("iters ~{}s per size", config.secondsPerSize)
                                     : fmt::format("iters {}", config.iterations);
  std::string text = fmt::format(
      "# ringlab bench: allreduce  algorithm {}  transport {}  p {}\n"
      "# version {}  host {}  date {}  kernels {}\n"
      "# ring order {}  topology: {}  placement: {}  segment {}  {}  warmup {}  check {}\n",
      info.algorithm, info.transport, info.ranks, info.version, info.host, info.date,
      reduceKernelIsa(), info.ringOrder, info.topology, info.placement,
      formatSize(config.collective.exec.segmentBytes), iterations, config.warmup,
      config.check ? "on" : "off");
  if (config.peer) {
    text += fmt::format("# peer: MPI_Allreduce of {}, out of place, same buffers\n",
                        config.peerLibrary);
  }
  text +=
      "# time: median over iterations of the slowest rank's time.  algbw = size / time.  "
      "busbw = algbw x 2(p-1)/p (nccl-tests' allreduce convention: per-rank send volume / time).  "
      "GB/s = 1e9 B/s\n";
  if (config.collective.algorithm.name == model::kAutoAlgorithm) {
    const std::string basis = !tunedName.empty() ? "the measured decision table " + tunedName
                              : config.profile   ? "the model with profile " + profileName
                                                 : "the model with its stated default parameters";
    text += fmt::format(
        "# auto: each size runs the algorithm chosen by {}, shown in the last column\n", basis);
  }
  if (config.profile) {
    text += fmt::format(
        "# model: profile {} (transport {}, host {}): {}; model(us) is the prediction for this "
        "algorithm\n",
        profileName, config.profile->transport, config.profile->host,
        model::describeModel(*config.profile));
  }
  return text;
}

std::string benchTableHeader(const BenchColumns& c) {
  const std::string extra = std::string(c.peer ? "   mpi(us) mpi_busbw #wrong" : "") +
                            (c.model ? "  model(us) oop/model ip/model" : "") +
                            (c.algorithm ? "  algorithm" : "");
  return trimmedLine(fmt::format("# {:>58} {:>32}", "out-of-place", "in-place")) +
         trimmedLine(fmt::format(
             "# {:>12} {:>12} {:>8} {:>6} {:>9} {:>7} {:>7} {:>6} {:>9} {:>7} {:>7} {:>6}{}",
             "size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong", "time", "algbw",
             "busbw", "#wrong", extra)) +
         trimmedLine(fmt::format("# {:>12} {:>12} {:>8} {:>6} {:>9} {:>7} {:>7} {:>6} {:>9} {:>7} "
                                 "{:>7}",
                                 "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "",
                                 "(us)", "(GB/s)", "(GB/s)"));
}

std::string benchTableRow(const measure::RecordRow& row, int ranks, const std::string& dtype,
                          const std::string& op, const BenchColumns& c) {
  std::string extra;
  if (c.peer) {
    extra += fmt::format(" {:9.1f} {:9.2f} {:>6}", row.peer->timeUs,
                         model::allReduceBusbwGBps(row.bytes, row.peer->timeUs, ranks),
                         wrongText(*row.peer));
  }
  if (c.model) {
    const double us = *row.predictedUs;
    extra += fmt::format(" {:10.1f} {:9.2f} {:8.2f}", us, row.outOfPlace->timeUs / us,
                         row.inPlace->timeUs / us);
  }
  if (c.algorithm) extra += "  " + row.algorithm;
  return fmt::format("  {:>12} {:>12} {:>8} {:>6} {} {}{}\n", row.bytes, row.count, dtype, op,
                     timingColumns(row.bytes, *row.outOfPlace, ranks),
                     timingColumns(row.bytes, *row.inPlace, ranks), extra);
}

std::string oversubscription(int ranksOnHost, int ranks, int cores) {
  if (ranksOnHost <= cores) return "";
  const std::string who = ranksOnHost == ranks
                              ? fmt::format("p = {} ranks", ranks)
                              : fmt::format("{} of the p = {} ranks", ranksOnHost, ranks);
  return fmt::format("# {} on {}{} core{}: oversubscribed, times include waiting for a core\n", who,
                     ranksOnHost == ranks ? "" : "this host's ", cores, cores == 1 ? "" : "s");
}

}  // namespace ringlab::report
