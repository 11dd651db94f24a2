#include "ringlab/model/model_query.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/model_json.hpp"

namespace ringlab::model {

ModelAnswer answerModelQuery(const ModelQuery& q) {
  ModelAnswer answer;
  switch (q.kind) {
    case ModelQuery::Kind::Sweep: {
      const std::uint64_t minCount = elementCount(q.minBytes, q.type, q.labels.minBytes);
      const std::uint64_t maxCount = elementCount(q.maxBytes, q.type, q.labels.maxBytes);
      if (minCount == 0 || minCount > maxCount) {
        throwInvalid(q.labels.minBytes + " " + formatSize(q.minBytes) + " and " +
                     q.labels.maxBytes + " " + formatSize(q.maxBytes) + ": need 0 < min <= max");
      }
      answer.sweep = sweepSizes(q.ranks, minCount, maxCount, q.type, q.params, q.withVolume);
      answer.json = sweepJson(answer.sweep, q.ranks, q.type);
      return answer;
    }
    case ModelQuery::Kind::VersusRanks: {
      const std::uint64_t count = elementCount(q.bytes, q.type, q.labels.size);
      answer.ranks = ringVersusRanks(q.rankList, count, q.type, q.params);
      answer.limit_s = ringBandwidthLimit_s(q.bytes, q.params);
      answer.json = ranksJson(answer.ranks, q.bytes, q.type, answer.limit_s);
      return answer;
    }
    case ModelQuery::Kind::Size:
      break;
  }
  const std::uint64_t count = elementCount(q.bytes, q.type, q.labels.size);
  answer.size = predictSize(q.ranks, count, q.type, q.params, q.withVolume);
  answer.json = sizeJson(answer.size);
  return answer;
}

}  // namespace ringlab::model
