#include "ringlab/report/bench_table.hpp"

#include <fmt/format.h>

#include "ringlab/model/bandwidth.hpp"

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

}  // namespace ringlab::report
