#pragma once
// `verify` as a front end asks for it: the one request type for proving a schedule correct and
// counting its bytes. The CLI fills it from -p, --collective, --algo (and the ring's options),
// --offset, --root, --size and -d; the Python package from verify()'s arguments. Each renders
// the result in its own way (report/schedule_text.hpp's listing, verdict and volume lines).
#include <cstdint>
#include <string_view>

#include "ringlab/core/dtype.hpp"
#include "ringlab/schedule/algorithm_choice.hpp"
#include "ringlab/schedule/schedule.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {

struct VerifyRequest {
  int ranks = 4;
  schedule::Collective collective = schedule::Collective::AllReduce;
  schedule::AlgorithmChoice algorithm;
  // Whether the choice names its algorithm; else the collective's default runs (defaultAlgorithm:
  // the ring builds allreduce, reduce_scatter and allgather, not reduce), with the choice's
  // other fields.
  bool algorithmNamed = true;
  int offset = 0;                 // ring: the block each rank ends the reduce-scatter owning
  int root = 0;                   // reduce, broadcast
  std::uint64_t bytes = 1 << 20;  // the buffer whose volume is counted
  DataType type = DataType::Float32;
};

struct VerifiedSchedule {
  schedule::AlgorithmSpec spec;
  schedule::Schedule schedule;
  schedule::Verdict verdict;
  schedule::VolumeReport volume;
};

// Builds the schedule (buildSchedule's errors), counts its volume before anything is shown (so
// that a size too large to count fails first) and verifies it. `sizeWhat` names the size where it
// is not a whole number of elements.
VerifiedSchedule verifySchedule(const VerifyRequest& request, std::string_view sizeWhat);

}  // namespace ringlab::model
