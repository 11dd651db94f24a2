// The measurement layer (measure/) and the renderings front ends share (report/): the run record
// and its JSON, nccl-tests logs, statistics, bandwidths, the bench sweep, calibrate's error paths,
// tune, and the bench and compare renderings.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numbers>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "ringlab/core/check_data.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/host_caches.hpp"
#include "ringlab/measure/launch_description.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/model/bandwidth.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/predict.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/model/student_t.hpp"
#include "ringlab/record/comparison.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/statistics.hpp"
#include "ringlab/record/tune_decision.hpp"
#include "ringlab/report/bench_table.hpp"
#include "ringlab/report/comparison.hpp"
#include "ringlab/transport/inproc.hpp"
#include "transport_worlds.hpp"

#ifndef RINGLAB_TEST_DATA
#error "RINGLAB_TEST_DATA must be defined as the path of tests/data"
#endif

namespace ringlab::measure {
namespace {

using model::studentTQuantile;

// The Error `f` throws (a failure when it throws none or something else).
Error errorFrom(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ringlab::Error: " << e.what();
    return Error(ErrorCode::Internal, e.what());
  }
  ADD_FAILURE() << "no exception";
  return Error(ErrorCode::Internal, "none");
}

void expectError(const std::function<void()>& f, ErrorCode code, const std::string& needle) {
  const Error e = errorFrom(f);
  EXPECT_EQ(e.code(), code) << e.what();
  EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
      << "'" << e.what() << "' does not contain '" << needle << "'";
}

record::Timing timing(double us, std::optional<std::uint64_t> wrong) {
  record::Timing t;
  t.timeUs = t.minUs = t.maxUs = t.meanUs = us;
  t.iterations = 3;
  t.wrong = wrong;
  return t;
}

record::RunRecord sampleRecord() {
  record::RunRecord r;
  r.run = record::currentRunInfo();
  r.run.transport = "tcp";
  r.run.algorithm = "ring";
  r.run.ringOrder = "0,2,1";
  r.run.topology = "as launched: tcp ranks may span hosts";
  r.run.placement = "one process per rank";
  r.run.ranks = 3;
  r.run.dtype = "float32";
  r.run.op = "sum";
  r.segmentBytes = 262144;
  r.iterations = 3;
  r.warmup = 1;
  r.overRanks = record::OverRanks::Mean;
  record::RecordRow a;
  a.bytes = 28;
  a.count = 7;
  a.dtype = "float32";
  a.op = "sum";
  a.algorithm = "ring";
  a.predictedUs = 12.5;
  a.outOfPlace = record::Timing{10.25,
                                9.5,
                                30.125,
                                14.0,
                                11.5,
                                3,
                                0,
                                {9.5, 10.25, 30.125},
                                {{9.5, 10.25, 30.0}, {9.0, 10.0, 30.125}, {9.5, 10.0, 30.0}}};
  a.inPlace = timing(11, 0);
  a.peer = timing(13, std::nullopt);
  a.peerLibrary = "Open MPI v4.1";
  record::RecordRow b;
  b.bytes = 4096;
  b.count = 1024;
  b.dtype = "float32";
  b.op = "sum";
  b.algorithm = "rabenseifner";
  b.outOfPlace = timing(40, 0);
  b.inPlace = timing(41.5, 2);
  r.rows = {a, b};
  return r;
}

TEST(MeasureRecord, JsonRoundTripKeepsEveryField) {
  const record::RunRecord record = sampleRecord();
  const nlohmann::json j = record::toJson(record);
  const record::RunRecord back = record::recordFromJson(nlohmann::json::parse(j.dump(2)), "r.json");
  EXPECT_TRUE(back == record) << j.dump(2);
  // The names older readers and tools use stay.
  EXPECT_EQ(j["run"]["p"], 3);
  EXPECT_EQ(j["rows"][0]["size_bytes"], 28);
  EXPECT_DOUBLE_EQ(j["rows"][0]["out_of_place"]["time_us"].get<double>(), 10.25);
  EXPECT_DOUBLE_EQ(j["rows"][0]["out_of_place"]["loop_mean_us"].get<double>(), 11.5);
  EXPECT_DOUBLE_EQ(j["rows"][0]["out_of_place"]["measured_over_predicted"].get<double>(),
                   10.25 / 12.5);
  EXPECT_TRUE(j["rows"][0]["peer_mpi"]["wrong"].is_null());
  EXPECT_EQ(j["rows"][0]["peer_mpi"]["library"], "Open MPI v4.1");
  EXPECT_TRUE(j["rows"][1]["peer_mpi"].is_null());
  EXPECT_TRUE(j["rows"][1]["predicted_us"].is_null());
  // Samples only where they were kept.
  EXPECT_TRUE(j["rows"][0]["out_of_place"].contains("samples_us"));
  EXPECT_FALSE(j["rows"][0]["in_place"].contains("samples_us"));
  // Priced apart out of place (a profile with an out-of-place gamma): each mode against its own.
  record::RunRecord apart = sampleRecord();
  apart.rows[0].predictedOutOfPlaceUs = 20.5;
  const nlohmann::json k = record::toJson(apart);
  EXPECT_TRUE(record::recordFromJson(nlohmann::json::parse(k.dump()), "r.json") == apart);
  EXPECT_DOUBLE_EQ(k["rows"][0]["out_of_place"]["measured_over_predicted"].get<double>(),
                   10.25 / 20.5);
  EXPECT_DOUBLE_EQ(k["rows"][0]["in_place"]["measured_over_predicted"].get<double>(), 11 / 12.5);
  EXPECT_TRUE(j["rows"][0]["predicted_out_of_place_us"].is_null());
}

TEST(MeasureRecord, ReadsAFrameworksShapeAndNamesBadRecords) {
  const record::RunRecord r = record::parseRecord(
      R"({"run": {"p": 4, "transport": "tcp"}, "rows": [{"size_bytes": 4, "in_place": {"time_us": 10}},
          {"size_bytes": 64, "out_of_place": {"time_us": 12}}]})",
      "b.json");
  EXPECT_EQ(r.run.ranks, 4);
  EXPECT_EQ(r.rows.size(), 2u);
  const model::MeasuredAllReduce m = record::measuredAllReduce(r, "b.json");
  EXPECT_EQ(m.ranks, 4);
  EXPECT_EQ(m.transport, "tcp");
  EXPECT_DOUBLE_EQ(m.curve.seconds(64), 12e-6);
  const auto invalid = [](const std::string& text, const std::string& needle) {
    expectError([&] { record::parseRecord(text, "b.json"); }, ErrorCode::InvalidArgument, needle);
  };
  invalid("{}", "b.json: no \"run\" object");
  invalid(R"({"run": {"p": 0}, "rows": []})", "run.p = 0: must be a whole number in 1..1048576");
  invalid(R"({"run": {"p": 2}})", "no \"rows\" array");
  invalid(R"({"run": {"p": 2}, "rows": [{"in_place": {}}]})", "row 0: no size_bytes");
  invalid(R"({"run": {"p": 2}, "rows": [{"size_bytes": 8, "in_place": {}}]})",
          "row 0: no in_place.time_us");
  invalid("   ", "b.json: empty file");
  invalid("hello", "neither a ringlab bench JSON record nor an nccl-tests log");
  expectError(
      [] {
        record::measuredAllReduce(
            record::parseRecord(R"({"run": {"p": 2}, "rows": [{"size_bytes": 8}]})", "b.json"),
            "b.json");
      },
      ErrorCode::InvalidArgument, "row 0: no in_place.time_us or out_of_place.time_us");
}

TEST(MeasureRecord, ReadsAnNcclTestsLog) {
  const record::RunRecord r = record::readRecord(
      std::string(RINGLAB_TEST_DATA) + "/nccl_all_reduce_perf_16ranks.log", "log");
  EXPECT_EQ(r.source, "nccl-tests all_reduce_perf");
  EXPECT_EQ(r.run.ranks, 16);
  EXPECT_EQ(r.run.dtype, "float32");
  EXPECT_EQ(r.run.op, "sum");
  EXPECT_TRUE(r.run.algorithm.empty());
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[0].bytes, 8u);
  EXPECT_EQ(r.rows[0].count, 2u);
  EXPECT_DOUBLE_EQ(r.rows[0].outOfPlace->timeUs, 135.8);
  EXPECT_DOUBLE_EQ(r.rows[0].inPlace->timeUs, 123.5);
  EXPECT_EQ(r.rows[4].bytes, 8589934592ull);
  expectError(
      [] {
        record::readRecord(std::string(RINGLAB_TEST_DATA) + "/nccl_all_gather_perf_8ranks.log",
                           "log");
      },
      ErrorCode::InvalidArgument, "another collective");
  // A log without its trailer reads its rows (run_logs_test.cpp holds the note that says so).
  EXPECT_EQ(record::readRecord(
                std::string(RINGLAB_TEST_DATA) + "/nccl_all_reduce_perf_truncated.log", "log")
                .rows.size(),
            3u);
}

TEST(MeasureRecord, TcpRanksAreNotSaidToShareAHost) {
  EXPECT_EQ(describeLaunch("tcp").topology, "as launched: tcp ranks may span hosts");
  EXPECT_EQ(describeLaunch("shm").topology, "single host");
  EXPECT_EQ(describeLaunch("inproc").placement, "ranks as threads of one process");
  EXPECT_EQ(describeLaunch("mpi").topology, "as mpirun placed the ranks");
}

// The preamble is rendered from what benchSettings takes of the configuration: every value it
// states reaches the text.
TEST(MeasureBench, PreambleStatesTheSettingsTakenFromTheConfiguration) {
  BenchConfig config;
  config.collective.exec.segmentBytes = 65536;
  config.iterations = 7;
  config.secondsPerSize = 0.5;
  config.warmup = 3;
  config.check = 0;
  config.peer = [](const void*, void*, std::uint64_t, DataType, ReduceOp) {};
  config.peerLibrary = "Open MPI 4.1";
  config.overRanks = record::OverRanks::Mean;
  config.collective.algorithm.name = model::kAutoAlgorithm;
  config.profile = model::Profile{};
  config.profile->transport = "shm";
  config.profile->host = "h1";
  const record::BenchSettings settings = benchSettings(config);
  EXPECT_EQ(settings.segmentBytes, 65536u);
  EXPECT_EQ(settings.iterations, 7);
  EXPECT_EQ(settings.secondsPerSize, 0.5);
  EXPECT_EQ(settings.warmup, 3);
  EXPECT_EQ(settings.check, 0);
  EXPECT_TRUE(settings.peer);
  EXPECT_EQ(settings.overRanks, record::OverRanks::Mean);
  const std::string text =
      report::benchPreamble(settings, record::RunInfo{}, {record::Statistic::Median}, "", "p.json");
  EXPECT_NE(text.find("iters ~0.5s per size  warmup 3"), std::string::npos) << text;
  EXPECT_NE(text.find("# peer: MPI_Allreduce of Open MPI 4.1, out of place"), std::string::npos);
  EXPECT_NE(
      text.find("# auto: each size runs the algorithm chosen by the model with profile p.json"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("# model: profile p.json (transport shm, host h1)"), std::string::npos);
  config.secondsPerSize = 0;
  EXPECT_NE(report::benchPreamble(benchSettings(config), record::RunInfo{},
                                  {record::Statistic::Median}, "", "p.json")
                .find("iters 7  warmup 3"),
            std::string::npos);
}

TEST(MeasureStatistics, MedianMinMaxMeanOfKnownSamples) {
  const record::Timing odd = record::summarise({3e-6, 1e-6, 4e-6, 1e-6, 6e-6}, false);
  EXPECT_DOUBLE_EQ(odd.timeUs, 3);
  EXPECT_DOUBLE_EQ(odd.minUs, 1);
  EXPECT_DOUBLE_EQ(odd.maxUs, 6);
  EXPECT_DOUBLE_EQ(odd.meanUs, 3);
  EXPECT_EQ(odd.iterations, 5);
  EXPECT_TRUE(odd.samplesUs.empty());
  const record::Timing even = record::summarise({4e-6, 1e-6, 2e-6, 10e-6}, true);
  EXPECT_DOUBLE_EQ(even.timeUs, 3);  // the mean of the middle two
  EXPECT_DOUBLE_EQ(even.meanUs, 4.25);
  EXPECT_EQ(even.samplesUs, (std::vector<double>{4, 1, 2, 10}));
  expectError([] { record::summarise({}, false); }, ErrorCode::InvalidArgument, "no iterations");
}

TEST(MeasureStatistics, StudentTQuantilesMatchTheTablesAtAnyLevel) {
  // Two-sided 95%: t(0.975, df) from any table (to 10 digits).
  EXPECT_NEAR(studentTQuantile(0.975, 1), 12.7062047362, 1e-9);
  EXPECT_NEAR(studentTQuantile(0.975, 2), 4.30265272975, 1e-9);  // closed form: sqrt(2/(1/p-1))
  EXPECT_NEAR(studentTQuantile(0.975, 4), 2.7764451052, 1e-9);
  EXPECT_NEAR(studentTQuantile(0.975, 30), 2.0422724563, 1e-9);
  EXPECT_NEAR(studentTQuantile(0.975, 200), 1.971896, 1e-6);
  EXPECT_NEAR(studentTQuantile(0.975, 201), 1.971808, 1e-4);  // Cornish-Fisher from here
  EXPECT_NEAR(studentTQuantile(0.975, 1'000'000), 1.959966, 1e-5);
  // Other levels, in closed form: df = 1 is Cauchy, t = tan(pi (p - 1/2)); df = 2,
  // t = (2p - 1) sqrt(2 / (1 - (2p - 1)^2)).
  const double p = 1 - 0.05 / 6;  // Bonferroni's two-sided level for three challengers
  EXPECT_NEAR(studentTQuantile(p, 1), std::tan(std::numbers::pi * (p - 0.5)), 1e-8);
  const double a = 2 * p - 1;
  EXPECT_NEAR(studentTQuantile(p, 2), a * std::sqrt(2 / (1 - a * a)), 1e-9);
  EXPECT_NEAR(studentTQuantile(0.995, 4), 4.604095, 1e-6);  // the tables' 99% two-sided
  EXPECT_NEAR(studentTQuantile(0.995, 3), 5.840909, 1e-6);
  expectError([] { studentTQuantile(0.975, 0); }, ErrorCode::InvalidArgument, "0");
  expectError([] { studentTQuantile(0.5, 4); }, ErrorCode::InvalidArgument, "(0.5, 1), not 0.5");
  expectError([] { studentTQuantile(1, 4); }, ErrorCode::InvalidArgument, "not 1");
}

TEST(MeasureStatistics, PairedRatioIntervalInClosedForm) {
  // Equal ratios in every round: no spread, the interval is the ratio itself.
  const record::RatioInterval same = record::pairedRatioInterval({2, 4, 6}, {1, 2, 3});
  EXPECT_DOUBLE_EQ(same.ratio, 2);
  EXPECT_DOUBLE_EQ(same.low, 2);
  EXPECT_DOUBLE_EQ(same.high, 2);
  // Log ratios ln(0.5) +- d over two rounds: mean ln(0.5), standard error d, t(1) = 12.706.
  const double d = 0.01;
  const record::RatioInterval two =
      record::pairedRatioInterval({0.5 * std::exp(d) * 10, 0.5 * std::exp(-d) * 20}, {10, 20});
  EXPECT_NEAR(two.ratio, 0.5, 1e-12);
  EXPECT_NEAR(two.low, 0.5 * std::exp(-12.7062047362 * d), 1e-10);
  EXPECT_NEAR(two.high, 0.5 * std::exp(12.7062047362 * d), 1e-10);
  EXPECT_TRUE(two.below1());
  // At 99%, t(0.995, 1) = 63.657.
  const record::RatioInterval wider = record::pairedRatioInterval(
      {0.5 * std::exp(d) * 10, 0.5 * std::exp(-d) * 20}, {10, 20}, 0.99);
  EXPECT_NEAR(wider.high, 0.5 * std::exp(63.656741 * d), 1e-6);
  expectError(
      [] {
        record::pairedRatioInterval({1, 2}, {1, 2}, 1);
      },
      ErrorCode::InvalidArgument, "(0, 1), not 1");
  // One round cannot tell a lead from noise.
  const record::RatioInterval one = record::pairedRatioInterval({1}, {2});
  EXPECT_DOUBLE_EQ(one.ratio, 0.5);
  EXPECT_FALSE(one.below1());
  expectError(
      [] {
        record::pairedRatioInterval({1, 2}, {1});
      },
      ErrorCode::InvalidArgument, "2 and 1");
  expectError([] { record::pairedRatioInterval({}, {}); }, ErrorCode::InvalidArgument,
              "at least one");
  expectError(
      [] {
        record::pairedRatioInterval({1, 0}, {1, 1});
      },
      ErrorCode::InvalidArgument, "round 1");
}

// Rounds of ring and another algorithm at one size, the other `factor` times ring's with
// round-to-round noise of about +-4% in the ratio (an interval of about +-5% over five rounds).
std::map<std::string, std::vector<double>> rounds(const std::string& other, double factor) {
  const std::vector<double> ring = {100, 103, 98, 101, 99};
  const std::vector<double> wobble = {1.04, 0.96, 1.04, 0.97, 0.99};
  std::vector<double> them;
  for (std::size_t r = 0; r < ring.size(); ++r) them.push_back(ring[r] * factor * wobble[r]);
  return {{"ring", ring}, {other, them}};
}

TEST(MeasureTuneDecision, KeepsTheDefaultOnATie) {
  // Ahead by 3% on the median of the rounds, but within the rounds' noise: no winner.
  const record::SizeDecision tie = record::decideSize(rounds("recursive_doubling", 0.97), "ring");
  EXPECT_EQ(tie.chosen, "ring");
  ASSERT_TRUE(tie.margin);
  EXPECT_EQ(tie.margin->algorithm, "recursive_doubling");
  EXPECT_LT(tie.margin->low, 1);
  EXPECT_GT(tie.margin->high, 1);
  // The same measurements taken as the default keep recursive_doubling just as well.
  EXPECT_EQ(record::decideSize(rounds("recursive_doubling", 0.97), "recursive_doubling").chosen,
            "recursive_doubling");
  // Only the default measured: it is kept, with no margin.
  const record::SizeDecision alone = record::decideSize({{"ring", {1, 2}}}, "ring");
  EXPECT_EQ(alone.chosen, "ring");
  EXPECT_FALSE(alone.margin);
}

TEST(MeasureTuneDecision, SeveralChallengersAreHeldToACorrectedLevel) {
  // Bonferroni over the challengers of a size: 95%, 97.5%, 98.33% each for 1, 2, 3.
  EXPECT_DOUBLE_EQ(record::comparisonLevel(1), 0.95);
  EXPECT_DOUBLE_EQ(record::comparisonLevel(2), 0.975);
  EXPECT_NEAR(record::comparisonLevel(3), 1 - 0.05 / 3, 1e-15);
  // Three challengers; recursive_doubling ~5.5% ahead: beyond the noise at 95% alone, not at
  // 98.33%. The other two tie with ring.
  auto three = rounds("recursive_doubling", 0.945);
  three["binomial_tree"] = rounds("binomial_tree", 1.0)["binomial_tree"];
  three["rabenseifner"] = rounds("rabenseifner", 1.01)["rabenseifner"];
  const auto& lead = three.at("recursive_doubling");
  const auto& ring = three.at("ring");
  ASSERT_TRUE(record::pairedRatioInterval(lead, ring, 0.95).below1())
      << "uncorrected, it would win";
  ASSERT_FALSE(record::pairedRatioInterval(lead, ring, record::comparisonLevel(3)).below1());
  const record::SizeDecision kept = record::decideSize(three, "ring");
  EXPECT_EQ(kept.chosen, "ring");
  ASSERT_TRUE(kept.margin);
  EXPECT_EQ(kept.margin->algorithm, "recursive_doubling");
  EXPECT_NEAR(kept.margin->level, 1 - 0.05 / 3, 1e-15);
  EXPECT_GT(kept.margin->high, 1);
  // Alone against ring (one challenger, 95%), the same lead wins.
  EXPECT_EQ(record::decideSize(rounds("recursive_doubling", 0.945), "ring").chosen,
            "recursive_doubling");
  // Clearly ahead (x0.8) among the same three: it wins at the corrected level.
  three["recursive_doubling"] = rounds("recursive_doubling", 0.8)["recursive_doubling"];
  const record::SizeDecision clear = record::decideSize(three, "ring");
  EXPECT_EQ(clear.chosen, "recursive_doubling");
  EXPECT_LT(clear.margin->high, 1);
  EXPECT_NEAR(clear.margin->level, 1 - 0.05 / 3, 1e-15);
}

TEST(MeasureTuneDecision, ChoosesAWinnerClearlyAheadAndTheFastestOfSeveral) {
  const record::SizeDecision clear = record::decideSize(rounds("recursive_doubling", 0.5), "ring");
  EXPECT_EQ(clear.chosen, "recursive_doubling");
  ASSERT_TRUE(clear.margin);
  EXPECT_NEAR(clear.margin->ratio, 0.5, 0.01);
  EXPECT_LT(clear.margin->high, 1);
  auto both = rounds("recursive_doubling", 0.8);
  both["binomial_tree"] = rounds("binomial_tree", 0.6)["binomial_tree"];
  EXPECT_EQ(record::decideSize(both, "ring").chosen, "binomial_tree");
  // Clearly slower than the default: kept, the margin above 1.
  const record::SizeDecision slower = record::decideSize(rounds("rabenseifner", 1.5), "ring");
  EXPECT_EQ(slower.chosen, "ring");
  EXPECT_GT(slower.margin->low, 1);
  expectError([] { record::decideSize(rounds("rabenseifner", 1), "binomial_tree"); },
              ErrorCode::InvalidArgument, "'binomial_tree' was not measured");
  expectError(
      [] {
        record::decideSize({{"ring", {1, 2}}, {"rabenseifner", {1}}}, "ring");
      },
      ErrorCode::InvalidArgument, "1 and 2");
}

TEST(MeasureTuneDecision, TwoWinnersWithinNoiseOfEachOtherKeepTheSizeBelowsChoice) {
  auto two = rounds("recursive_doubling", 0.5);
  two["binomial_tree"] = rounds("binomial_tree", 0.49)["binomial_tree"];  // the same wobble
  two["binomial_tree"][0] *= 1.06;  // so that the two differ by noise, not by a constant
  // Within the noise of each other: the registry's order settles it, not the faster on the rounds.
  EXPECT_EQ(record::decideSize(two, "ring").chosen, "recursive_doubling");
  EXPECT_EQ(record::decideSize(two, "ring", "binomial_tree").chosen, "binomial_tree");
  const record::SizeDecision kept = record::decideSize(two, "ring", "recursive_doubling");
  EXPECT_EQ(kept.chosen, "recursive_doubling");
  EXPECT_EQ(kept.margin->algorithm, "recursive_doubling");
  EXPECT_LT(kept.margin->high, 1);
  // Beaten beyond the noise, or not ahead of the default at all: the size below's choice goes.
  two["binomial_tree"] = rounds("binomial_tree", 0.25)["binomial_tree"];
  EXPECT_EQ(record::decideSize(two, "ring", "recursive_doubling").chosen, "binomial_tree");
  EXPECT_EQ(record::decideSize(rounds("rabenseifner", 0.5), "ring", "binomial_tree").chosen,
            "rabenseifner");
}

TEST(MeasureTuneDecision, BandsWithTheSameChoiceMerge) {
  // The issue's table: leads of a few percent that flip back and forth within the noise, and
  // one clear winner at the small sizes.
  model::DecisionTable table;
  table.defaultAlgorithm = "ring";
  const double factors[] = {0.5, 0.5, 0.97, 1.03, 0.98, 1.02, 0.97};
  std::uint64_t bytes = 8;
  for (double f : factors) {
    model::MeasuredSize m;
    m.bytes = bytes;
    bytes *= 8;
    m.roundsUs = rounds(f < 1 ? "recursive_doubling" : "rabenseifner", f);
    for (const auto& [name, r] : m.roundsUs) m.timeUs[name] = model::median(r);
    table.measured.push_back(m);
  }
  record::decide(table);
  const std::vector<model::DecisionRule> rules = table.rules();
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].fromBytes, 0u);
  EXPECT_EQ(rules[0].algorithm, "recursive_doubling");
  EXPECT_EQ(rules[1].fromBytes, 8u * 64);
  EXPECT_EQ(rules[1].algorithm, "ring");
  EXPECT_EQ(table.choose(1 << 30), "ring");
  // Without the noise test every size would take its fastest: five rules, four flips.
  std::size_t flips = 0;
  for (std::size_t i = 1; i < table.measured.size(); ++i)
    flips += table.measured[i].fastest() != table.measured[i - 1].fastest();
  EXPECT_EQ(flips, 4u);
}

TEST(MeasureTuneDecision, AKeptDefaultThatAnotherLookedFasterThanIsUndecided) {
  model::MeasuredSize m;
  m.bytes = 64;
  m.roundsUs = rounds("recursive_doubling", 0.97);
  const record::SizeDecision d = record::decideSize(m.roundsUs, "ring");
  m.chosen = d.chosen;
  m.margin = d.margin;
  EXPECT_EQ(m.chosen, "ring");
  EXPECT_TRUE(m.undecided());
  m.roundsUs = rounds("recursive_doubling", 1.03);
  const record::SizeDecision slower = record::decideSize(m.roundsUs, "ring");
  m.margin = slower.margin;
  EXPECT_FALSE(m.undecided());
}

TEST(MeasureTuneDecision, TheTableKeepsTheDecisionAndItsMarginsThroughJson) {
  model::DecisionTable table;
  table.ranks = 4;
  table.transport = "shm";
  table.placement = "one process per rank";
  table.defaultAlgorithm = "ring";
  model::MeasuredSize m;
  m.bytes = 64;
  m.roundsUs = rounds("recursive_doubling", 0.5);
  for (const auto& [name, r] : m.roundsUs) m.timeUs[name] = model::median(r);
  table.measured = {m};
  record::decide(table);
  const nlohmann::json j = model::toJson(table);
  EXPECT_EQ(j["default_algorithm"], "ring");
  EXPECT_EQ(j["confidence"], 0.95);
  EXPECT_EQ(j["multiple_comparisons"], "bonferroni");
  EXPECT_EQ(j["measured"][0]["chosen"], "recursive_doubling");
  EXPECT_EQ(j["measured"][0]["margin"]["level"], 0.95);  // one challenger: no correction
  const model::DecisionTable back = model::decisionTableFromJson(j, "t.json");
  EXPECT_EQ(back.placement, "one process per rank");
  EXPECT_EQ(back.defaultAlgorithm, "ring");
  ASSERT_EQ(back.measured.size(), 1u);
  EXPECT_EQ(back.measured[0].roundsUs, m.roundsUs);
  EXPECT_EQ(back.measured[0].chosen, "recursive_doubling");
  ASSERT_TRUE(back.measured[0].margin);
  EXPECT_DOUBLE_EQ(back.measured[0].margin->high, table.measured[0].margin->high);
  // A table from before the correction: its margins were at 95%.
  nlohmann::json old = j;
  old["measured"][0]["margin"].erase("level");
  EXPECT_DOUBLE_EQ(model::decisionTableFromJson(old, "t.json").measured[0].margin->level, 0.95);
  // A choice that names an algorithm the size did not measure is refused.
  nlohmann::json bad = j;
  bad["measured"][0]["chosen"] = "binomial_tree";
  expectError([&] { model::decisionTableFromJson(bad, "t.json"); }, ErrorCode::InvalidArgument,
              "chosen 'binomial_tree' at 64 bytes has no time_us");
  bad["measured"][0]["chosen"] = "warp";
  expectError([&] { model::decisionTableFromJson(bad, "t.json"); }, ErrorCode::InvalidArgument,
              "unknown algorithm 'warp'");
}

TEST(MeasureBandwidth, ClosedForms) {
  EXPECT_DOUBLE_EQ(model::algbwGBps(1'000'000'000, 1e6), 1.0);  // 1 GB in 1 s
  EXPECT_DOUBLE_EQ(model::allReduceBusbwGBps(1'000'000'000, 1e6, 4), 1.5);
  EXPECT_DOUBLE_EQ(model::allReduceBusFactor(2), 1.0);
  EXPECT_DOUBLE_EQ(model::allReduceBusFactor(1), 0.0);
  EXPECT_DOUBLE_EQ(model::algbwGBps(4096, 0), 0.0);
}

BenchConfig smallBench(int ranks, DataType type, std::uint64_t bytes) {
  BenchConfig c;
  c.ranks = ranks;
  c.types = {type};
  c.minBytes = c.maxBytes = bytes;
  c.iterations = 3;
  c.warmup = 1;
  return c;
}

TEST(MeasureBench, OddSizesAtThreeRanksAreRight) {
  for (const auto& [type, bytes] : {std::pair{DataType::Float32, std::uint64_t{28}},
                                    std::pair{DataType::Int8, std::uint64_t{13}}}) {
    std::vector<record::RecordRow> rows;
    runBenchThreads(smallBench(3, type, bytes),
                    [&](const record::RecordRow& r) { rows.push_back(r); });
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].bytes, bytes);
    EXPECT_EQ(rows[0].count, bytes / dataTypeSize(type));
    EXPECT_EQ(rows[0].algorithm, "ring");
    EXPECT_EQ(rows[0].outOfPlace->wrong, std::uint64_t{0});
    EXPECT_EQ(rows[0].inPlace->wrong, std::uint64_t{0});
    EXPECT_EQ(rows[0].outOfPlace->iterations, 3);
    EXPECT_LE(rows[0].outOfPlace->minUs, rows[0].outOfPlace->timeUs);
    EXPECT_LE(rows[0].outOfPlace->timeUs, rows[0].outOfPlace->maxUs);
    EXPECT_FALSE(rows[0].peer.has_value());
    EXPECT_FALSE(rows[0].predictedUs.has_value());
  }
}

TEST(MeasureBench, SamplesOnlyOnRequestAndNoWrongCountWithoutCheck) {
  for (bool keep : {false, true}) {
    BenchConfig c = smallBench(2, DataType::Float32, 64);
    c.keepSamples = keep;
    c.check = keep;  // unchecked: no wrong count at all, not 0
    c.profile = model::defaultProfile();
    record::RunRecord record = startRecord(c, record::currentRunInfo());
    runBenchThreads(c, [&](const record::RecordRow& r) { record.rows.push_back(r); });
    ASSERT_EQ(record.rows.size(), 1u);
    const record::RecordRow& row = record.rows[0];
    EXPECT_EQ(row.outOfPlace->samplesUs.size(), keep ? 3u : 0u);
    EXPECT_EQ(row.outOfPlace->wrong.has_value(), keep);
    ASSERT_TRUE(row.predictedUs.has_value());
    EXPECT_GT(*row.predictedUs, 0);
    const nlohmann::json j = record::toJson(record);
    EXPECT_EQ(j["rows"][0]["in_place"].contains("samples_us"), keep);
    EXPECT_EQ(j["iterations"], 3);
    EXPECT_EQ(j["run"]["p"], 2);
    EXPECT_EQ(j["run"]["dtype"], "float32");
  }
}

// CPU time per call: each rank's thread CPU clock over its timed loop, the slowest rank's and the
// sum over ranks (between the most and p times it), written to the record and read back.
TEST(MeasureBench, CpuTimePerCallOfEveryRankReadsBack) {
  BenchConfig c = smallBench(3, DataType::Float32, 64 << 10);
  c.iterations = 10;
  record::RunRecord record = startRecord(c, record::currentRunInfo());
  runBenchThreads(c, [&](const record::RecordRow& r) { record.rows.push_back(r); });
  ASSERT_EQ(record.rows.size(), 1u);
  for (const record::Timing& t : {*record.rows[0].outOfPlace, *record.rows[0].inPlace}) {
    EXPECT_GT(t.cpuMaxUs, 0);
    EXPECT_GE(t.cpuSumUs, t.cpuMaxUs);
    EXPECT_LE(t.cpuSumUs, 3 * t.cpuMaxUs);
  }
  const nlohmann::json j = record::toJson(record);
  EXPECT_EQ(j["rows"][0]["out_of_place"]["cpu_max_us"].get<double>(),
            record.rows[0].outOfPlace->cpuMaxUs);
  EXPECT_EQ(j["rows"][0]["in_place"]["cpu_sum_us"].get<double>(), record.rows[0].inPlace->cpuSumUs);
  EXPECT_TRUE(record::recordFromJson(j, "x.json") == record);
  // Older records have none: 0, not recorded. A negative one is refused by name.
  nlohmann::json old = j;
  old["rows"][0]["out_of_place"].erase("cpu_max_us");
  EXPECT_EQ(record::recordFromJson(old, "x.json").rows[0].outOfPlace->cpuMaxUs, 0);
  old["rows"][0]["in_place"]["cpu_sum_us"] = -1;
  expectError([&] { record::recordFromJson(old, "x.json"); }, ErrorCode::InvalidArgument,
              "x.json: row 0: in_place.cpu_sum_us = -1: must be a number >= 0");
}

// -c N as nccl-tests: the wrong elements over all ranks of the first checked run that has any, and
// no further checked runs after it. A peer that leaves zeros is wrong wherever the closed form is
// not 0.
TEST(MeasureBench, CheckCountsWrongElementsAndStopsAtTheFirstWrongRun) {
  BenchConfig c = smallBench(3, DataType::Int32, 64);
  c.check = 3;
  std::atomic<int> peerCalls = 0;
  c.peer = [&](const void*, void* recv, std::uint64_t count, DataType type, ReduceOp) {
    std::memset(recv, 0, count * dataTypeSize(type));
    ++peerCalls;
  };
  std::vector<record::RecordRow> rows;
  runBenchThreads(c, [&](const record::RecordRow& r) { rows.push_back(r); });
  ASSERT_EQ(rows.size(), 1u);
  const std::vector<std::int32_t> zeros(16, 0);
  const std::uint64_t wrongPerRank =
      countWrong(DataType::Int32, ReduceOp::Sum, 3, zeros.data(), 16);
  ASSERT_GT(wrongPerRank, 0u);
  EXPECT_EQ(rows[0].peer->wrong, 3 * wrongPerRank);
  EXPECT_EQ(rows[0].outOfPlace->wrong, 0u);
  EXPECT_EQ(peerCalls, 3 * (1 + 3 + 1));  // per rank: warm-up, 3 timed, 1 checked run of 3
}

// -a: the reported per-iteration times are each rank's times reduced as asked (kept with
// --samples), and the statistics are over those.
TEST(MeasureBench, OverRanksReducesEachIterationAsAsked) {
  for (record::OverRanks over : {record::OverRanks::Rank0, record::OverRanks::Mean,
                                 record::OverRanks::Min, record::OverRanks::Max}) {
    SCOPED_TRACE(record::overRanksName(over));
    BenchConfig c = smallBench(3, DataType::Float32, 256);
    c.overRanks = over;
    c.keepSamples = true;
    std::vector<record::RecordRow> rows;
    runBenchThreads(c, [&](const record::RecordRow& r) { rows.push_back(r); });
    ASSERT_EQ(rows.size(), 1u);
    const record::Timing& t = *rows[0].inPlace;
    ASSERT_EQ(t.rankSamplesUs.size(), 3u);
    ASSERT_EQ(t.samplesUs.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      const double r0 = t.rankSamplesUs[0][i], r1 = t.rankSamplesUs[1][i],
                   r2 = t.rankSamplesUs[2][i];
      const double expected = over == record::OverRanks::Rank0  ? r0
                              : over == record::OverRanks::Mean ? (r0 + r1 + r2) / 3
                              : over == record::OverRanks::Min  ? std::min({r0, r1, r2})
                                                                : std::max({r0, r1, r2});
      EXPECT_NEAR(t.samplesUs[i], expected, 1e-9 * expected);
    }
    EXPECT_EQ(t.minUs, *std::min_element(t.samplesUs.begin(), t.samplesUs.end()));
    EXPECT_EQ(record::toJson(startRecord(c, record::currentRunInfo()))["over_ranks"],
              record::overRanksName(over));
  }
}

// -d all, -o all: every case in nccl-tests' order, each row naming its own; the record reads
// back with them, and compare's and plan's one-curve readers refuse it.
TEST(MeasureBench, EveryCaseInNcclTestsOrderNamedPerRow) {
  BenchConfig c = smallBench(2, DataType::Float32, 8);
  c.types = parseDataTypes("all");
  c.ops = parseReduceOps("all");
  record::RunRecord record = startRecord(c, record::currentRunInfo());
  runBenchThreads(c, [&](const record::RecordRow& r) { record.rows.push_back(r); });
  ASSERT_EQ(record.rows.size(), 50u);
  EXPECT_EQ(record.rows[0].dtype, "int8");
  EXPECT_EQ(record.rows[0].op, "sum");
  EXPECT_EQ(record.rows[2].op, "max");  // nccl-tests: sum prod max min avg
  EXPECT_EQ(record.rows[35].dtype, "float32");
  EXPECT_EQ(record.rows[49].dtype, "bfloat16");  // nccl-tests puts it after double
  EXPECT_EQ(record.rows[49].op, "avg");
  for (const record::RecordRow& row : record.rows)
    EXPECT_EQ(row.outOfPlace->wrong, 0u) << row.dtype;
  EXPECT_EQ(record.run.op, "sum,prod,max,min,avg");
  const record::RunRecord back = record::recordFromJson(record::toJson(record), "x.json");
  EXPECT_EQ(back.rows[49].dtype, "bfloat16");
  expectError([&] { record::requireOneCase(back, "x.json"); }, ErrorCode::InvalidArgument,
              "x.json: the rows hold several cases (int8 sum, int8 prod");
}

// A record written before -d all and -a: rows name no case (the run's), over_ranks is the max.
TEST(MeasureRecord, OlderRecordsReadWithTheRunsCaseAndTheMax) {
  nlohmann::json j = record::toJson(sampleRecord());
  j.erase("over_ranks");
  for (auto& row : j["rows"]) {
    row.erase("dtype");
    row.erase("op");
  }
  const record::RunRecord old = record::recordFromJson(j, "old.json");
  EXPECT_EQ(old.overRanks, record::OverRanks::Max);
  EXPECT_EQ(old.rows[0].dtype, old.run.dtype);
  EXPECT_EQ(old.rows[0].op, old.run.op);
  record::requireOneCase(old, "old.json");
  j["over_ranks"] = "median";
  expectError([&] { record::recordFromJson(j, "bad.json"); }, ErrorCode::InvalidArgument,
              "bad.json: over_ranks");
}

// An nccl-tests log of -d all (here two types): each case a run of its own, named.
TEST(MeasureRecord, NcclTestsLogOfSeveralTypesKeepsThemApart) {
  const std::string log =
      "#  Rank  0 Group  0 Pid 1 on a device  0 [0x1a] GPU\n"
      "#  Rank  1 Group  0 Pid 2 on a device  1 [0x1b] GPU\n"
      "#       size   count   type   redop    root     time   algbw   busbw #wrong     time   "
      "algbw   busbw #wrong\n"
      "          64      16  float     sum      -1    10.00    0.01    0.01      0    10.00    "
      "0.01    0.01      0\n"
      "          64       8 double     max      -1    10.00    0.01    0.01      0    10.00    "
      "0.01    0.01      0\n"
      "# Avg bus bandwidth    : 0.01\n";
  const std::vector<record::LoggedRun> r = record::runsFromNcclTests(log, "all.log", {});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "float32 sum");
  EXPECT_EQ(r[1].name, "float64 max");
  ASSERT_EQ(r[1].record.rows.size(), 1u);
  EXPECT_EQ(r[1].record.rows[0].dtype, "float64");
  EXPECT_EQ(r[1].record.run.dtype, "float64");
  EXPECT_EQ(r[1].record.run.op, "max");
  EXPECT_FALSE(r[0].record.overRanks.has_value());  // the log does not say which -a ran
  expectError([&] { record::parseRecord(log, "all.log"); }, ErrorCode::InvalidArgument,
              "all.log: holds several runs or cases (float32 sum; float64 max)");
}

TEST(MeasureBench, ValidateNamesTheOption) {
  BenchConfig c = smallBench(2, DataType::Float32, 64);
  c.minBytes = 6;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument,
              "the smallest size 6 is not a multiple of the float32 size");
  c = smallBench(2, DataType::Float32, 64);
  c.iterations = 0;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "the iterations 0: must be >= 1");
  // A front end's own name for the input leads the message.
  c.labels.iterations = "iters=";
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "iters= 0: must be >= 1");
}

// A rank thread that fails (here with Timeout) ends the run with its Error, after the other
// ranks, stopped by the abort, have been joined: never in std::terminate.
TEST(MeasureCalibrate, RankThreadTimeoutBecomesAnError) {
  transport::InprocWorld world(2);
  expectError(
      [&] {
        runRankThreads(world, [&](int rank) {
          if (rank == 0) throw Error(ErrorCode::Timeout, "rank 0: no answer from rank 1");
          // Rank 1 waits for a message rank 0 never sends; the abort ends the wait.
          int value = 0;
          transport::Transport& t = world.transport(1);
          t.wait(t.irecv(0, &value, sizeof value, 7), std::chrono::seconds(30));
        });
      },
      ErrorCode::Timeout, "rank 0: no answer");
}

TEST(MeasureCalibrate, NoisyFitIsUnreliableNotInternal) {
  record::Calibration c;
  c.link.sizes = {8, 32, 128};
  c.link.seconds = {3e-6, 2e-6, 1e-6};
  c.link.fit.slope = -1e-9;
  c.reduce.sizes = {65536, 262144, 1048576};
  c.reduce.seconds = {1e-5, 4e-5, 1.6e-4};
  c.reduce.fit.slope = 1.5e-10;
  expectError([&] { calibratedProfile(c, "inproc", record::currentRunInfo()); },
              ErrorCode::Unreliable, "too noisy");
  EXPECT_STREQ(errorCodeName(ErrorCode::Unreliable), "unreliable measurement");
  c.link.fit.slope = 2e-10;
  c.link.fit.intercept = 2e-6;
  c.fusedReduceFromBytes = 131072;
  const model::Profile p = calibratedProfile(c, "inproc", record::currentRunInfo());
  EXPECT_DOUBLE_EQ(p.params.link.alpha_s, 2e-6);
  EXPECT_EQ(p.transport, "inproc");
  EXPECT_EQ(p.params.fusion.fused_reduce_from_bytes, 131072);
}

// Beyond the knee (16 MiB of working set, a cache both of 2 cores share), the memory regime's
// per-byte times are those of the sizes whose own working set is beyond it: ping-pongs from 8 MiB
// (two ranks' buffers), kernels from 8 MiB in place (two inputs) and 16/3 MiB out of place. Where
// no size reaches beyond, beta and gamma plus what the probes' copy and reduction cost more there.
TEST(MeasureCalibrate, TheMemoryRegimeIsPricedBeyondTheWorkingSetKnee) {
  record::Calibration c;
  c.cores = 2;
  c.cacheCores = 2;
  c.cacheKneeBytes = 16 << 20;
  const auto sizes = [](double inCache, double beyond, double from) {
    record::FittedSizes f;
    for (std::uint64_t b : {1ull << 20, 4ull << 20, 16ull << 20, 64ull << 20}) {
      f.sizes.push_back(b);
      f.seconds.push_back(static_cast<double>(b) *
                          (static_cast<double>(b) > from ? beyond : inCache));
    }
    f.fit.slope = inCache;
    return f;
  };
  c.link = sizes(0.04e-9, 0.12e-9, 8 << 20);
  c.reduce = sizes(0.03e-9, 0.09e-9, 8 << 20);
  c.reduceOutOfPlace = sizes(0.045e-9, 0.15e-9, (16 << 20) / 3.0);
  for (std::uint64_t b = 4 << 20; b <= 64 << 20; b *= 2)
    c.workingSets.push_back(
        {b, b > (16 << 20) ? 0.07e-9 : 0.02e-9, b > (16 << 20) ? 0.05e-9 : 0.03e-9});
  c.hostCaches = {{2, 1 << 20, 0}, {3, 32 << 20, 0}};
  const model::Profile p = calibratedProfile(c, "shm", record::currentRunInfo());
  EXPECT_DOUBLE_EQ(p.params.memory.cache_bytes, 16 << 20);
  EXPECT_DOUBLE_EQ(p.params.memory.cache_cores, 2);
  EXPECT_DOUBLE_EQ(p.params.host.cores, 2);
  EXPECT_DOUBLE_EQ(p.params.memory.beta_mem_s_per_byte, 0.12e-9);
  EXPECT_DOUBLE_EQ(p.params.memory.gamma_mem_s_per_byte, 0.09e-9);
  EXPECT_DOUBLE_EQ(p.params.memory.gamma_mem_out_of_place_s_per_byte, 0.15e-9);
  EXPECT_EQ(p.hostCaches, c.hostCaches);
  EXPECT_EQ(p.workingSetRates, c.workingSets);  // the roofline's rates, as probed
  // No ping-pong or kernel size beyond the knee: the probes' extra cost (0.05 and 0.02 ns/B).
  c.link = sizes(0.04e-9, 0.04e-9, 1e300);
  c.link.sizes.resize(2);
  c.link.seconds.resize(2);
  c.reduce.sizes.resize(2);
  c.reduce.seconds.resize(2);
  c.reduceOutOfPlace.sizes.resize(2);
  c.reduceOutOfPlace.seconds.resize(2);
  const model::Profile fallback = calibratedProfile(c, "shm", record::currentRunInfo());
  EXPECT_NEAR(fallback.params.memory.beta_mem_s_per_byte, 0.09e-9, 1e-24);
  EXPECT_NEAR(fallback.params.memory.gamma_mem_s_per_byte, 0.05e-9, 1e-24);
  EXPECT_NEAR(fallback.params.memory.gamma_mem_out_of_place_s_per_byte, 0.065e-9, 1e-24);
  // No knee: one regime.
  c.cacheKneeBytes = 0;
  EXPECT_EQ(calibratedProfile(c, "shm", record::currentRunInfo()).params.memory.cache_bytes, 0);
}

// The lines are fitted through the sizes in cache: 0.04 ns/B there, 0.12 ns/B beyond 8 MiB, a
// line through the first only. Where the sizes in cache slope down (a busy moment at the small
// sizes), the line goes through all.
TEST(MeasureCalibrate, TheLineGoesThroughTheSizesInCache) {
  std::map<std::uint64_t, std::vector<double>> bySize;
  for (std::uint64_t b : {1ull << 20, 4ull << 20, 16ull << 20, 64ull << 20})
    bySize[b] = {static_cast<double>(b) * (b > (8 << 20) ? 0.12e-9 : 0.04e-9)};
  const record::FittedSizes inCache = fitInCache(bySize, 8 << 20);
  EXPECT_NEAR(inCache.fit.slope, 0.04e-9, 1e-20);
  EXPECT_EQ(inCache.sizes.size(), 4u);                  // every point kept for the report
  EXPECT_GT(fitInCache(bySize, 0).fit.slope, 0.05e-9);  // no knee: through all
  bySize[1 << 20] = {300e-6};  // slower than 4 MiB: the in-cache line slopes down
  const record::FittedSizes all = fitInCache(bySize, 8 << 20);
  EXPECT_GT(all.fit.slope, 0);
  EXPECT_DOUBLE_EQ(all.fit.slope, fitInCache(bySize, 0).fit.slope);
}

// Which cache a knee belongs to: up to twice the largest private cache (level 1 or 2 where the
// host does not say who shares it) it is one core's; beyond, the shared cache's cores as reported,
// else every core.
TEST(MeasureCalibrate, AKneeBelongsToThePrivateOrTheSharedCache) {
  const std::vector<model::Profile::ReportedCache> unsaid = {
      {1, 49152, 0}, {2, 1 << 20, 0}, {3, 32 << 20, 0}};
  EXPECT_DOUBLE_EQ(privateCacheBytes(unsaid), 1 << 20);
  EXPECT_EQ(cacheCoresOf(1 << 20, unsaid, 2), 1);
  EXPECT_EQ(cacheCoresOf(2 << 20, unsaid, 2), 1);
  EXPECT_EQ(cacheCoresOf(16 << 20, unsaid, 2), 2);
  EXPECT_EQ(cacheCoresOf(16 << 20, {}, 4), 4);
  const std::vector<model::Profile::ReportedCache> said = {{2, 2 << 20, 1}, {3, 32 << 20, 8}};
  EXPECT_EQ(cacheCoresOf(16 << 20, said, 16), 8);
  EXPECT_EQ(cacheCoresOf(16 << 20, said, 4), 4);  // the cores this job may use
  EXPECT_EQ(cacheCoresOf(256 << 20, said, 16), 16);
  EXPECT_GE(hostCores(), 1);
}

// Where a reducing receive is one pass, read from the transport: shm from its single-copy size,
// inproc and tcp never (inproc measured closer without it; tcp copies off the socket).
TEST(MeasureCalibrate, FusedReceivesFollowTheTransport) {
  transport::InprocWorld inproc(2);
  EXPECT_EQ(fusedReduceFromBytes(inproc.transport(0)), 0u);
  for (const auto& [kind, expected] : std::map<std::string, std::uint64_t>{
           {"shm", 131072}, {"shm_single_copy", 1000}, {"tcp", 0}}) {
    auto store = bootstrap::makeMemoryStore();
    std::vector<std::unique_ptr<transport::Transport>> ranks(2);
    std::vector<std::thread> connecting;
    for (int r = 0; r < 2; ++r)
      connecting.emplace_back([&, r] { ranks[r] = test::connectRank(kind, r, 2, *store); });
    for (auto& t : connecting) t.join();
    for (const auto& t : ranks) EXPECT_EQ(fusedReduceFromBytes(*t), expected) << kind;
  }
}

// The concurrency figure: the best ratio to one pair, never below 1, never above the pairs that
// produced it (the figures of docs/MODEL_VS_MEASURED.md: one pair slowed to 3.05 GB/s, two pairs
// 19.57 GB/s, 6.41x on two cores), and not measured with one pair only.
TEST(MeasureCalibrate, ConcurrencyFigureIsCappedAtItsPairs) {
  ConcurrencyFigure f = concurrencyFigure({{1, 3.05e9, 1}, {2, 19.57e9, 19.57 / 3.05}});
  EXPECT_DOUBLE_EQ(f.transfers, 2);
  EXPECT_TRUE(f.capped);
  f = concurrencyFigure({{1, 10e9, 1}, {2, 17e9, 1.7}, {4, 12e9, 1.2}});
  EXPECT_DOUBLE_EQ(f.transfers, 1.7);
  EXPECT_FALSE(f.capped);
  f = concurrencyFigure({{1, 10e9, 1}, {2, 5e9, 0.5}});
  EXPECT_DOUBLE_EQ(f.transfers, 1);  // two pairs slower than one: still one transfer at a time
  EXPECT_FALSE(f.capped);
  f = concurrencyFigure({{1, 10e9, 1}});
  EXPECT_DOUBLE_EQ(f.transfers, 0);  // p < 4: unlimited, not measured
}

TEST(MeasureCalibrate, ValidateNamesTheOption) {
  CalibrateConfig c;
  c.transport = "udp";
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument,
              "transport 'udp': valid are inproc, shm, tcp and mpi");
  c = CalibrateConfig{};
  c.ranks = 1;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "p 1: calibration needs");
  c = CalibrateConfig{};
  c.rounds = 0;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "the rounds 0: must be >= 1");
  c = CalibrateConfig{};
  c.iterations = 2;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "the iterations 2: must be >= 3");
  c = CalibrateConfig{};
  c.maxBytes = 16;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "at least 3 sizes");
}

TEST(MeasureTune, MeasuresEveryCandidateAtEverySize) {
  EXPECT_EQ(tuneCandidates(), model::candidateAlgorithms());
  TuneConfig c;
  c.ranks = 3;
  c.minBytes = 12;
  c.maxBytes = 768;
  c.stepFactor = 8;
  c.iterations = 1;
  c.warmup = 0;
  c.rounds = 2;
  const model::DecisionTable table = tune(c, record::currentRunInfo());
  EXPECT_EQ(table.transport, "inproc");
  EXPECT_EQ(table.defaultAlgorithm, "ring");
  ASSERT_EQ(table.measured.size(), 3u);
  for (const model::MeasuredSize& m : table.measured) {
    for (const std::string& name : c.algorithms) {
      EXPECT_GT(m.timeUs.at(name), 0) << name;
      EXPECT_EQ(m.roundsUs.at(name).size(), 2u) << name;
    }
    EXPECT_FALSE(m.chosen.empty());
  }
  // Every rank returns the table, the same to the last bit (rank 0's rounds, decided on each).
  transport::InprocWorld world(c.ranks);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < c.ranks; ++r)
    comms.push_back(std::make_unique<Communicator>(world.transport(r)));
  std::vector<std::string> tables(c.ranks);
  const record::RunInfo info = record::currentRunInfo();
  runRankThreads(world,
                 [&](int r) { tables[r] = model::toJson(tuneRank(c, info, *comms[r])).dump(); });
  for (int r = 1; r < c.ranks; ++r) EXPECT_EQ(tables[r], tables[0]) << "rank " << r;
  EXPECT_EQ(nlohmann::json::parse(tables[0])["measured"].size(), 3u);
  c.rounds = 1;
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "the rounds 1: must be >= 2");
  c.rounds = 2;
  c.defaultAlgorithm = "rabenseifner";
  c.algorithms = {"ring", "binomial_tree"};
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument,
              "the default algorithm rabenseifner is not among the candidate algorithms "
              "ring,binomial_tree");
  c.labels.defaultAlgorithm = "--default";
  c.labels.algorithms = "--algos";
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument,
              "--default rabenseifner is not among --algos ring,binomial_tree");
  c.algorithms = {"warp_drive"};
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "warp_drive");
  c.algorithms.clear();
  expectError([&] { validate(c); }, ErrorCode::InvalidArgument, "at least one algorithm");
}

TEST(MeasureCompare, RowsAgainstTheModelAndTheirMedianError) {
  record::RunRecord r = sampleRecord();
  const model::Profile profile = model::defaultProfile();
  const record::Comparison c =
      record::compare(r, record::comparedAlgorithm(r, ""), profile, "r.json");
  EXPECT_EQ(c.label, "ring, p = 3");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(c.rows[0].predictedUs,
                   record::predictedMicros(record::comparedAlgorithm(r, ""), 3, 28,
                                           DataType::Float32, profile.params));
  EXPECT_DOUBLE_EQ(c.rows[0].predictedInPlaceUs, c.rows[0].predictedUs);  // no out-of-place gamma
  model::Profile outOfPlace = profile;
  outOfPlace.params.reduce.gamma_out_of_place_s_per_byte =
      3 * profile.params.reduce.gamma_s_per_byte;
  const record::ComparedRow apart =
      record::compare(r, record::comparedAlgorithm(r, ""), outOfPlace, "r.json").rows[1];
  EXPECT_DOUBLE_EQ(apart.predictedInPlaceUs, c.rows[1].predictedUs);
  EXPECT_DOUBLE_EQ(
      apart.predictedUs,
      record::predictedMicros(record::comparedAlgorithm(r, ""), 3, r.rows[1].bytes,
                              DataType::Float32, model::forOutOfPlace(outOfPlace.params)));
  EXPECT_GT(apart.predictedUs, apart.predictedInPlaceUs);
  EXPECT_EQ(record::comparedAlgorithm(r, "rabenseifner").name, "rabenseifner");
  EXPECT_TRUE(std::isnan(record::medianAbsoluteError(c, 1 << 20)));
  record::Comparison known;
  known.rows = {{1 << 20, 10, 11, 8, 9.6}, {1 << 21, 10, 10, 10, 9}};  // errors .1 .2 0 .1
  EXPECT_NEAR(record::medianAbsoluteError(known, 1 << 20), 0.1, 1e-12);
  r.rows[1].inPlace.reset();  // OSU has none: compared without
  EXPECT_FALSE(
      record::compare(r, record::comparedAlgorithm(r, ""), profile, "r.json").rows[1].inPlaceUs);
  r.rows[1].outOfPlace.reset();
  expectError([&] { record::compare(r, record::comparedAlgorithm(r, ""), profile, "r.json"); },
              ErrorCode::InvalidArgument, "r.json: row 1 lacks its out_of_place time");
}

// compare says per row which regime priced it, and prices it there: p = 2 on 2 cores sharing a
// cache whose knee is 24 MiB of working set. 4 MiB fits both ways (8 and 16 MiB); 8 MiB fits in
// place (16 MiB), not out of place (32 MiB with the outputs).
TEST(MeasureCompare, EachRowIsPricedInTheRegimeOfItsWorkingSet) {
  record::RunRecord r = sampleRecord();
  r.run.ranks = 2;
  r.rows.resize(2);
  r.rows[0].bytes = 4 << 20;
  r.rows[1].bytes = 8 << 20;
  model::Profile profile = model::defaultProfile();
  profile.params = {
      {2e-6, 0.04e-9}, {0.03e-9, 0}, {0, 2}, {24 << 20, 0.11e-9, 0.09e-9, 0, 2}, {0, 0}};
  const record::Comparison c =
      record::compare(r, record::comparedAlgorithm(r, ""), profile, "r.json");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].regime, model::Regime::Cache);
  EXPECT_EQ(c.rows[0].inPlaceRegime, model::Regime::Cache);
  EXPECT_EQ(c.rows[1].regime, model::Regime::Memory);
  EXPECT_EQ(c.rows[1].inPlaceRegime, model::Regime::Cache);
  // Ring at p = 2: 2 alpha + 2 (n/2) beta + (n/2) gamma, each in its regime.
  const double n = 8 << 20;
  EXPECT_DOUBLE_EQ(c.rows[1].predictedInPlaceUs,
                   (2 * 2e-6 + 2 * (n / 2) * 0.04e-9 + (n / 2) * 0.03e-9) * 1e6);
  EXPECT_DOUBLE_EQ(c.rows[1].predictedUs,
                   (2 * 2e-6 + 2 * (n / 2) * 0.11e-9 + (n / 2) * 0.09e-9) * 1e6);
  const std::string table = report::comparisonTable(c);
  EXPECT_NE(table.find("regime oop/ip"), std::string::npos) << table;
  EXPECT_NE(table.find("cache/cache\n"), std::string::npos) << table;
  EXPECT_NE(table.find("memory/cache\n"), std::string::npos) << table;
  const nlohmann::json rows = report::comparisonJson(c, "profile")["rows"];
  EXPECT_EQ(rows[1]["regime"], "memory");
  EXPECT_EQ(rows[1]["in_place_regime"], "cache");
}

TEST(MeasureReport, BenchTableFitsMeasuredAndSimulatedRows) {
  const std::string header = report::benchTableHeader({});
  EXPECT_EQ(std::count(header.begin(), header.end(), '\n'), 3);
  EXPECT_NE(header.find("#wrong"), std::string::npos);
  EXPECT_EQ(header.find(" \n"), std::string::npos) << "trailing blanks";
  record::RecordRow simulated;
  simulated.bytes = 1024;
  simulated.count = 256;
  simulated.outOfPlace = simulated.inPlace = timing(2, std::nullopt);
  const std::string row = report::benchTableRow(simulated, 4, "float32", "sum", {});
  EXPECT_EQ(
      row,
      "          1024          256  float32    sum       2.0    0.51    0.77    N/A       2.0 "
      "   0.51    0.77    N/A\n");
  const record::RunRecord r = sampleRecord();
  const std::string full =
      report::benchTableRow(r.rows[0], 3, "float32", "sum", {true, true, true});
  EXPECT_NE(full.find("  ring\n"), std::string::npos) << full;
  EXPECT_NE(full.find("12.5"), std::string::npos) << full;
}

// The plot of the same comparison is held in pictures_test.cpp.
TEST(MeasureReport, CompareTableSummarisesTheBandwidthRange) {
  record::Comparison c;
  c.label = "ring, p = 4";
  c.rows = {{8, 20, 25, 26}, {1 << 20, 900, 1000, 1100}, {64 << 20, 30000, 40000, 41000}};
  const std::string table = report::comparisonTable(c);
  EXPECT_NE(table.find("median |measured/predicted - 1| over rows >= 1 MiB"), std::string::npos);
}

}  // namespace
}  // namespace ringlab::measure
