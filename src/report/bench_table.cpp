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

std::string wrongText(const record::Timing& t) {
  return t.wrong ? std::to_string(*t.wrong) : std::string("N/A");
}

std::string timingColumns(std::uint64_t bytes, const record::Timing& t, int ranks,
                          const std::vector<record::Statistic>& stats) {
  const double us = record::statisticUs(t, stats.front());
  std::string text = fmt::format("{:9.1f} {:7.2f} {:7.2f} {:>6}", us, model::algbwGBps(bytes, us),
                                 model::allReduceBusbwGBps(bytes, us, ranks), wrongText(t));
  for (std::size_t k = 1; k < stats.size(); ++k)
    text += fmt::format(" {:9.1f}", record::statisticUs(t, stats[k]));
  return text;
}

std::string checkText(int check) {
  return check == 0 ? "off" : check == 1 ? "on" : fmt::format("{} runs", check);
}

// Which rank's `what` the table shows, as -a says: "slowest rank's time (-a 3)".
std::string overRanksText(record::OverRanks over, const std::string& what) {
  switch (over) {
    case record::OverRanks::Rank0:
      return "rank 0's " + what + " (-a 0)";
    case record::OverRanks::Mean:
      return "mean over ranks of each rank's " + what + " (-a 1)";
    case record::OverRanks::Min:
      return "fastest rank's " + what + " (-a 2)";
    case record::OverRanks::Max:
      break;
  }
  return "slowest rank's " + what + " (-a 3)";
}

// What `time` is: a statistic over iterations each reduced over ranks, or (loop) each rank's mean
// over its own iterations, reduced over ranks.
std::string timeText(record::Statistic s, record::OverRanks over) {
  if (s == record::Statistic::Loop) {
    return "loop: each rank's mean over its iterations, then the " + overRanksText(over, "mean") +
           ", as nccl-tests times";
  }
  return std::string(record::statisticName(s)) + " over iterations of the " +
         overRanksText(over, "time");
}

}  // namespace

std::string iterationTimeText(record::OverRanks over) {
  return overRanksText(over, "time");
}

std::string benchPreamble(const record::BenchSettings& settings, const record::RunInfo& info,
                          const std::vector<record::Statistic>& stats, const std::string& tunedName,
                          const std::string& profileName) {
  const std::string iterations = settings.secondsPerSize > 0
                                     ? fmt::format("iters ~{}s per size", settings.secondsPerSize)
                                     : fmt::format("iters {}", settings.iterations);
  std::string text = fmt::format(
      "# ringlab bench: allreduce  algorithm {}  transport {}  p {}\n"
      "# version {}  host {}  date {}  kernels {}\n"
      "# ring order {}  topology: {}  placement: {}  segment {}  {}  warmup {}  check {}\n",
      info.algorithm, info.transport, info.ranks, info.version, info.host, info.date,
      reduceKernelIsa(), info.ringOrder, info.topology, info.placement,
      formatSize(settings.segmentBytes), iterations, settings.warmup, checkText(settings.check));
  if (settings.peer) {
    text += fmt::format("# peer: MPI_Allreduce of {}, out of place, same buffers\n",
                        settings.peerLibrary);
  }
  text += fmt::format(
      "# time: {}.  algbw = size / time.  busbw = algbw x 2(p-1)/p "
      "(nccl-tests' allreduce convention: per-rank send volume / time).  GB/s = 1e9 B/s\n",
      timeText(stats.front(), settings.overRanks));
  if (stats.size() > 1) {
    std::string others;
    for (std::size_t k = 1; k < stats.size(); ++k)
      others += std::string(k > 1 ? ", " : "") + record::statisticName(stats[k]);
    text += fmt::format("# {}: over the same iterations, after each side's #wrong\n", others);
  }
  if (settings.algorithm == model::kAutoAlgorithm) {
    const std::string basis = !tunedName.empty() ? "the measured decision table " + tunedName
                              : settings.profile ? "the model with profile " + profileName
                                                 : "the model with its stated default parameters";
    text += fmt::format(
        "# auto: each size runs the algorithm chosen by {}, shown in the last column\n", basis);
  }
  if (settings.profile) {
    text += fmt::format(
        "# model: profile {} (transport {}, host {}): {}; model(us) is the prediction for this "
        "algorithm in place; oop/model is against its out-of-place prediction (the profile's "
        "out-of-place gamma, where it has one)\n",
        profileName, settings.profile->transport, settings.profile->host,
        model::describeModel(*settings.profile));
  }
  return text;
}

std::string benchTableHeader(const BenchColumns& c) {
  const std::string extra = std::string(c.peer ? "   mpi(us) mpi_busbw #wrong" : "") +
                            (c.model ? "  model(us) oop/model ip/model" : "") +
                            (c.algorithm ? "  algorithm" : "");
  std::string names = fmt::format("{:>9} {:>7} {:>7} {:>6}", "time", "algbw", "busbw", "#wrong");
  std::string units = fmt::format("{:>9} {:>7} {:>7} {:>6}", "(us)", "(GB/s)", "(GB/s)", "");
  for (std::size_t k = 1; k < c.stats.size(); ++k) {
    names += fmt::format(" {:>9}", record::statisticName(c.stats[k]));
    units += fmt::format(" {:>9}", "(us)");
  }
  // Each side's label sits over its columns, which widen by 10 per further statistic.
  const std::size_t wider = 10 * (c.stats.size() - 1);
  return trimmedLine(fmt::format("# {:>{}} {:>{}}", "out-of-place", 58 + wider / 2, "in-place",
                                 32 + wider)) +
         trimmedLine(fmt::format("# {:>12} {:>12} {:>8} {:>6} {} {}{}", "size", "count", "type",
                                 "redop", names, names, extra)) +
         trimmedLine(fmt::format("# {:>12} {:>12} {:>8} {:>6} {} {}", "(B)", "(elements)", "", "",
                                 units, units));
}

std::string benchTableRow(const record::RecordRow& row, int ranks, const std::string& dtype,
                          const std::string& op, const BenchColumns& c) {
  std::string extra;
  if (c.peer) {
    extra += fmt::format(" {:9.1f} {:9.2f} {:>6}", row.peer->timeUs,
                         model::allReduceBusbwGBps(row.bytes, row.peer->timeUs, ranks),
                         wrongText(*row.peer));
  }
  if (c.model) {
    const double us = *row.predictedUs;
    extra +=
        fmt::format(" {:10.1f} {:9.2f} {:8.2f}", us,
                    row.outOfPlace->timeUs / row.predictedOutOfPlace(), row.inPlace->timeUs / us);
  }
  if (c.algorithm) extra += "  " + row.algorithm;
  return fmt::format("  {:>12} {:>12} {:>8} {:>6} {} {}{}\n", row.bytes, row.count, dtype, op,
                     timingColumns(row.bytes, *row.outOfPlace, ranks, c.stats),
                     timingColumns(row.bytes, *row.inPlace, ranks, c.stats), extra);
}

std::string cpuTimeTable(const record::RunRecord& record, int cores) {
  std::string text = fmt::format(
      "#\n# CPU time per call, out of place: each rank's CPU clock (user and system) over its "
      "timed loop / iterations; wall: the {}; busy: all ranks' CPU time / wall, cores kept busy of "
      "{}\n"
      "# {:>12} {:>8} {:>6} {:>10} {:>12} {:>12} {:>6}\n",
      overRanksText(record.overRanks.value_or(record::OverRanks::Max), "loop mean"), cores, "size",
      "type", "redop", "wall(us)", "cpu-max(us)", "cpu-sum(us)", "busy");
  for (const record::RecordRow& row : record.rows) {
    if (!row.outOfPlace) continue;
    const record::Timing& t = *row.outOfPlace;
    const double busy = t.loopMeanUs > 0 ? t.cpuSumUs / t.loopMeanUs : 0;
    text += fmt::format("# {:>12} {:>8} {:>6} {:10.1f} {:12.1f} {:12.1f} {:6.2f}\n", row.bytes,
                        row.dtype, row.op, t.loopMeanUs, t.cpuMaxUs, t.cpuSumUs, busy);
  }
  return text;
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
