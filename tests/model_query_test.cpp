// One model query for every front end (model/model_query.hpp): each kind answers what the sweep
// functions answer, in their JSON, and an input is refused under the caller's label.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "ringlab/model/model_json.hpp"
#include "ringlab/model/model_query.hpp"

namespace ringlab::model {
namespace {

const ModelParams kParams{{5e-6, 1 / 12.5e9}, {1 / 20e9}, {0}, {0, 0, 0}};

TEST(ModelQuery, EachKindAnswersAsTheSweepFunctionsDo) {
  ModelQuery q{.ranks = 16, .type = DataType::Float32, .bytes = 4096, .params = kParams};
  const ModelAnswer size = answerModelQuery(q);
  const SizeRow row = predictSize(16, 1024, DataType::Float32, kParams, true);
  EXPECT_EQ(size.json, sizeJson(row));
  EXPECT_EQ(size.size.fastest, row.fastest);

  q.kind = ModelQuery::Kind::Sweep;
  q.minBytes = 8;
  q.maxBytes = 1 << 20;
  const ModelAnswer sweep = answerModelQuery(q);
  EXPECT_EQ(sweep.json, sweepJson(sweepSizes(16, 2, 1 << 18, DataType::Float32, kParams, true), 16,
                                  DataType::Float32));
  EXPECT_EQ(sweep.sweep.rows.size(), 18u);  // 8 B to 1 MiB, x2

  q.kind = ModelQuery::Kind::VersusRanks;
  q.rankList = {2, 4, 8};
  const ModelAnswer ranks = answerModelQuery(q);
  ASSERT_EQ(ranks.ranks.size(), 3u);
  EXPECT_DOUBLE_EQ(ranks.limit_s, ringBandwidthLimit_s(4096, kParams));
  EXPECT_EQ(ranks.json, ranksJson(ranks.ranks, 4096, DataType::Float32, ranks.limit_s));
}

TEST(ModelQuery, RefusesUnderTheCallersLabels) {
  ModelQuery q{.kind = ModelQuery::Kind::Sweep,
               .ranks = 4,
               .type = DataType::Float32,
               .minBytes = 2048,
               .maxBytes = 1024,
               .params = kParams,
               .labels = {"size=", "min_bytes", "max_bytes"}};
  test::expectInvalid([&] { answerModelQuery(q); },
                      {"min_bytes 2 KiB and max_bytes 1 KiB: need 0 < min <= max"});
  q.minBytes = 6;
  test::expectInvalid([&] { answerModelQuery(q); }, {"min_bytes", "float32"});
  q.kind = ModelQuery::Kind::Size;
  q.bytes = 0;
  q.labels.size = "--size";
  EXPECT_NO_THROW(answerModelQuery(q));  // zero elements is a size the model prices
  q.bytes = 3;
  test::expectInvalid([&] { answerModelQuery(q); }, {"--size 3"});
}

}  // namespace
}  // namespace ringlab::model
