#pragma once
// How a bench run measured, as its preamble states it: the values of measure::BenchConfig that
// the text names (measure::benchSettings fills it), so that a rendering of a run needs no
// measuring configuration, and so no communicator or transport.
#include <cstdint>
#include <optional>
#include <string>

#include "ringlab/model/profile.hpp"
#include "ringlab/record/record.hpp"

namespace ringlab::record {

struct BenchSettings {
  std::uint64_t segmentBytes = 0;
  int iterations = 0;
  double secondsPerSize = 0;  // > 0: iterated for about this long per size instead
  int warmup = 0;
  int check = 0;      // checked runs per size; 0: unchecked
  bool peer = false;  // another library's allreduce timed beside ringlab's
  std::string peerLibrary;
  OverRanks overRanks = OverRanks::Max;
  std::string algorithm;                  // as requested: "auto" lets each size choose
  std::optional<model::Profile> profile;  // the model each row's prediction came from
};

}  // namespace ringlab::record
