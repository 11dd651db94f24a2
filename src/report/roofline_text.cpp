#include "ringlab/report/roofline_text.hpp"

#include <fmt/format.h>

namespace ringlab::report {

namespace {

std::string passes(const model::TransportTraffic& t) {
  if (t.copies == 1) return "1 memory pass per byte received";
  const std::string slots = "2 memory passes through slots (their side at the slot rates)";
  if (t.singleCopyBytes == model::kNeverSingleCopy) return slots + " for every message";
  return fmt::format(
      "{} for messages below {} B, 1 pass from the sender's buffer from it up ({} B "
      "segments)",
      slots, t.singleCopyBytes, t.segmentBytes);
}

std::string counted(const record::RooflineReport& r) {
  if (r.traffic.network) {
    const std::string shared =
        r.loopbackRingConnections == 0
            ? ""
            : fmt::format(
                  "; all ranks' bytes no faster than the loopback's total rate, the most of the "
                  "pair's and a ring's of {} connections at once ({:.2f} GB/s each)",
                  r.loopbackRingConnections, r.loopbackRingBytesPerSecond / 1e9);
    return fmt::format(
        "{}: per step, a rank's larger of sent and received bytes over one loopback connection: "
        "while it sends and receives at once at the two-way rate ({:.2f} GB/s per direction), "
        "otherwise at the one-way rate ({:.2f} GB/s){}; column `wire` says which; its reductions "
        "overlapped, all ranks' shared among {} cores",
        r.transport, r.loopbackTwoWayBytesPerSecond / 1e9, r.loopbackBytesPerSecond / 1e9, shared,
        r.cores);
  }
  return fmt::format(
      "{}: {}, the last pass the reduce where the schedule reduces; copy and reduce rates of one "
      "core while its share of all ranks' inputs and outputs goes through its caches "
      "(calibrate's working-set probe); all ranks' passes shared among {} cores",
      r.transport, passes(r.traffic), r.cores);
}

}  // namespace

std::string rooflineTable(const record::RooflineReport& r) {
  std::string text =
      "#\n# roofline (" + counted(r) + "; copy rates " +
      (r.copyFromProfile ? "of float32 rows from the profile's probes" : "measured") +
      "; reduce rate " + (r.reduceFromProfile ? "of float32 from the profile" : "measured") + ")\n";
  text += fmt::format("# {:>12} {:>8} {:>5} {:>16} {:>10} {:>10} {:>7} {:>8} {:>8}", "size", "type",
                      "op", "algorithm", "time(us)", "roof(us)", "of-roof", "copyGB/s", "reduGB/s");
  text += r.traffic.network ? " wire\n" : "\n";
  for (const record::RooflineRow& row : r.rows) {
    // Comment lines all: the table above stays the one that nccl-tests' readers parse.
    text += fmt::format("# {:>12} {:>8} {:>5} {:>16} {:10.1f} {:10.1f} {:6.0f}% {:8.2f} {:8.2f}",
                        row.bytes, row.dtype, row.op, row.algorithm, row.timeUs,
                        row.roof.seconds * 1e6, row.ofRoofline * 100,
                        row.rates.copyBytesPerSecond / 1e9, row.rates.reduceBytesPerSecond / 1e9);
    text += r.traffic.network ? fmt::format(" {}\n", record::loopbackRateUsed(row)) : "\n";
  }
  return text;
}

}  // namespace ringlab::report
