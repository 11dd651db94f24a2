#include "ringlab/model/verify_request.hpp"

#include "ringlab/model/registry.hpp"

namespace ringlab::model {

VerifiedSchedule verifySchedule(const VerifyRequest& request, std::string_view sizeWhat) {
  const std::uint64_t count = elementCount(request.bytes, request.type, sizeWhat);
  VerifiedSchedule out;
  out.spec = request.algorithm.spec(request.ranks);
  if (!request.algorithmNamed) out.spec.name = defaultAlgorithm(request.collective).name;
  out.spec.ownershipOffset = request.offset;
  out.spec.root = request.root;
  out.schedule = buildSchedule(request.collective, request.ranks, out.spec);
  out.volume = schedule::countVolume(out.schedule, count, request.type);
  out.verdict = schedule::verify(out.schedule);
  return out;
}

}  // namespace ringlab::model
