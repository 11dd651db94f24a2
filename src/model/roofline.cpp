#include "ringlab/model/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "ringlab/core/error.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {

TransportTraffic transportTraffic(const std::string& transport) {
  if (transport == "shm") return {.network = false, .copies = 2};
  if (transport == "inproc") return {.network = false, .copies = 1};
  if (transport == "tcp") return {.network = true, .copies = 1};
  throwInvalid("roofline of transport '" + transport +
               "': known for inproc, shm and tcp (mpi's bytes move inside the MPI library)");
}

namespace {

double perSecond(double bytes, double rate, const char* name) {
  if (bytes == 0) return 0;
  if (!std::isfinite(rate) || rate <= 0)
    throwInvalid(std::string("roofline: ") + name + " = " + std::to_string(rate) +
                 " bytes/s: must be a finite rate > 0");
  return bytes / rate;
}

struct RankWork {
  double copyBytes = 0, reduceBytes = 0, wireBytes = 0;
  double seconds = 0;
};

RankWork rankWork(const schedule::RankVolume& v, const TransportTraffic& traffic,
                  const MachineRates& rates) {
  RankWork w;
  const double received = static_cast<double>(v.receivedBytes);
  const double reduced = static_cast<double>(v.reducedBytes);
  w.reduceBytes = reduced;
  if (traffic.network) {
    w.wireBytes = static_cast<double>(std::max(v.sentBytes, v.receivedBytes));
    w.seconds = std::max(perSecond(w.wireBytes, rates.loopbackBytesPerSecond, "loopback rate"),
                         perSecond(reduced, rates.reduceBytesPerSecond, "reduce rate"));
    return w;
  }
  // The sender's copies (all passes but the last) and the receiver's last pass if not a reduce.
  w.copyBytes = static_cast<double>(v.sentBytes) * (traffic.copies - 1) + (received - reduced);
  w.seconds = perSecond(w.copyBytes, rates.copyBytesPerSecond, "copy rate") +
              perSecond(reduced, rates.reduceBytesPerSecond, "reduce rate");
  return w;
}

}  // namespace

Roofline roofline(const schedule::Schedule& schedule, std::uint64_t count, DataType type,
                  const TransportTraffic& traffic, const MachineRates& rates) {
  if (traffic.copies < 1)
    throwInvalid("roofline: copies = " + std::to_string(traffic.copies) + ": must be >= 1");
  if (rates.cores < 1)
    throwInvalid("roofline: cores = " + std::to_string(rates.cores) + ": must be >= 1");
  const schedule::VolumeReport volume = schedule::countVolume(schedule, count, type);
  Roofline result;
  double allRanksSeconds = 0;
  for (const schedule::RankVolume& v : volume.perRank) {
    const RankWork w = rankWork(v, traffic, rates);
    allRanksSeconds += w.seconds;
    if (w.seconds >= result.seconds) {
      result = {w.copyBytes, w.reduceBytes, w.wireBytes, w.seconds};
    }
  }
  // Memory passes of all ranks share the cores. (Not so over tcp: the loopback rate of one
  // connection is not a per-core rate, and small messages in flight both ways beat it.)
  if (!traffic.network)
    result.seconds =
        std::max(result.seconds, allRanksSeconds / std::min(schedule.ranks, rates.cores));
  return result;
}

}  // namespace ringlab::model
