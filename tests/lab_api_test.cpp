// The lab's JSON endpoints as functions (apps/lab/api.hpp): what the page draws for the seed's
// scenarios, and a 400-style ApiError naming the field for every bad parameter. The same
// endpoints over HTTP, with status codes, are tested by tests/browser/api.test.mjs.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "api.hpp"
#include "host_check.hpp"
#include "params.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/gpu/system_spec.hpp"
#include "ringlab/model/model_json.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/record/gpu_comparison.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/run_logs.hpp"
#include "ringlab/report/chart.hpp"
#include "ringlab/schedule/holdings.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::lab {
namespace {

Params query(std::initializer_list<std::pair<const std::string, std::string>> pairs) {
  return Params::fromPairs(std::multimap<std::string, std::string>(pairs));
}

// The field an endpoint blames, or "" when it accepted the query.
template <typename Endpoint>
std::string rejectedField(Endpoint endpoint,
                          std::initializer_list<std::pair<const std::string, std::string>> pairs) {
  try {
    endpoint(query(pairs));
  } catch (const ApiError& e) {
    EXPECT_NE(std::string(e.what()), "") << "an error must say what is wrong";
    return e.field();
  }
  return "";
}

TEST(LabOrbit, SeedScenarioStrideOneVisitsAllEight) {
  const nlohmann::json j = orbitApi(query({{"m", "8"}, {"a", "1"}}));
  EXPECT_EQ(j["period"], 8);
  EXPECT_EQ(j["orbit"], nlohmann::json({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(j["covers_all"]);
}

TEST(LabOrbit, SeedScenarioStrideTwoVisitsHalf) {
  const nlohmann::json j = orbitApi(query({{"m", "8"}, {"a", "2"}}));
  EXPECT_EQ(j["period"], 4);
  EXPECT_EQ(j["gcd"], 2);
  EXPECT_EQ(j["orbit"], nlohmann::json({0, 2, 4, 6}));
  EXPECT_FALSE(j["covers_all"]);
}

TEST(LabOrbit, NegativeZeroAndLargeStepsAreTakenModM) {
  EXPECT_EQ(orbitApi(query({{"m", "8"}, {"a", "-3"}}))["a_mod_m"], 5);
  EXPECT_EQ(orbitApi(query({{"m", "8"}, {"a", "-3"}}))["period"], 8);
  const nlohmann::json zero = orbitApi(query({{"m", "8"}, {"a", "0"}}));
  EXPECT_EQ(zero["period"], 1);
  EXPECT_EQ(zero["gcd"], 8);
  EXPECT_EQ(orbitApi(query({{"m", "8"}, {"a", "10"}}))["period"], 4);
  EXPECT_EQ(orbitApi(query({{"m", "1"}, {"a", "5"}}))["period"], 1);
}

TEST(LabOrbit, BadParametersNameTheField) {
  for (const char* m : {"0", "-1", "65", "abc", "2.5", "", "8 ", "1e3", "99999999999999999999"}) {
    EXPECT_EQ(rejectedField(orbitApi, {{"m", m}, {"a", "1"}}), "m") << "m = '" << m << "'";
  }
  EXPECT_EQ(rejectedField(orbitApi, {{"m", "8"}}), "a");
  EXPECT_EQ(rejectedField(orbitApi, {{"m", "8"}, {"a", "x"}}), "a");
  EXPECT_EQ(rejectedField(orbitApi, {{"m", "8"}, {"a", "2000000000"}}), "a");
  EXPECT_EQ(rejectedField(orbitApi, {{"m", "8"}, {"a", "1"}, {"b", "1"}}), "b");
  EXPECT_THROW(Params::fromPairs({{"m", "8"}, {"m", "9"}}), ApiError);
}

TEST(LabSchedule, FourRanksTakeSixStepsAndStepOneMovesTheRightChunks) {
  const nlohmann::json j = scheduleApi(query({{"p", "4"}}));
  ASSERT_TRUE(j["valid"]);
  ASSERT_EQ(j["steps"].size(), 6u);
  // Step 1 as `ringlab verify -p 4` prints it: 0->1 b3 reduce | 1->2 b0 | 2->3 b1 | 3->0 b2.
  const nlohmann::json& first = j["steps"][0]["transfers"];
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0]["src"], 0);
  EXPECT_EQ(first[0]["dst"], 1);
  EXPECT_EQ(first[0]["first_block"], 3);
  EXPECT_EQ(first[0]["mode"], "reduce");
  EXPECT_EQ(j["steps"][3]["transfers"][0]["mode"], "copy");
  // After step 1 rank 1's block 3 holds the contributions of ranks 0 and 1.
  EXPECT_EQ(j["holds"][1][1][3], 0b0011);
  // At the end every rank holds every block reduced over all four.
  for (const auto& rank : j["holds"][6]) {
    for (const auto& block : rank) EXPECT_EQ(block, 0b1111);
  }
  // Running volume ends at the closed form 2(p-1)n/p, send convention, n = 1 MiB by default.
  const double closedForm = j["closed_form_send_bytes"];
  EXPECT_DOUBLE_EQ(closedForm, 2.0 * 3 * (1 << 20) / 4);
  for (const auto& rank : j["volume"][6]) {
    EXPECT_EQ(rank["send"].get<double>(), closedForm);
    EXPECT_EQ(rank["send+recv"].get<double>(), 2 * closedForm);
  }
  for (const auto& rank : j["volume"][0]) EXPECT_EQ(rank["send"], 0);
}

TEST(LabSchedule, StrideTwoAtEightRanksIsTheShortCycleNotASchedule) {
  const nlohmann::json j = scheduleApi(query({{"p", "8"}, {"order", "stride"}, {"stride", "2"}}));
  EXPECT_FALSE(j["valid"]);
  EXPECT_EQ(j["short_cycle"], nlohmann::json({0, 2, 4, 6}));
  EXPECT_NE(j["error"].get<std::string>().find("shares the factor 2"), std::string::npos)
      << j["error"];
  EXPECT_FALSE(j.contains("steps"));
  // a = 0 and a = -6 are the same kind of short cycle; a = -3 is the valid stride 5.
  EXPECT_EQ(scheduleApi(query({{"p", "8"}, {"order", "stride"}, {"stride", "0"}}))["short_cycle"],
            nlohmann::json({0}));
  EXPECT_FALSE(scheduleApi(query({{"p", "8"}, {"order", "stride"}, {"stride", "-6"}}))["valid"]);
  EXPECT_EQ(scheduleApi(query({{"p", "8"}, {"order", "stride"}, {"stride", "-3"}}))["ring_order"],
            nlohmann::json({0, 5, 2, 7, 4, 1, 6, 3}));
}

TEST(LabSchedule, OrdersAndCollectives) {
  const nlohmann::json stride =
      scheduleApi(query({{"p", "8"}, {"order", "stride"}, {"stride", "3"}}));
  EXPECT_EQ(stride["ring_order"], nlohmann::json({0, 3, 6, 1, 4, 7, 2, 5}));
  EXPECT_EQ(stride["steps"].size(), 14u);
  const nlohmann::json list =
      scheduleApi(query({{"p", "4"}, {"order", "list"}, {"list", "0,2,1,3"}}));
  EXPECT_EQ(list["ring_order"], nlohmann::json({0, 2, 1, 3}));
  EXPECT_EQ(list["steps"][0]["transfers"][0]["dst"], 2);
  const nlohmann::json rs = scheduleApi(query({{"p", "5"}, {"collective", "reduce_scatter"}}));
  EXPECT_EQ(rs["steps"].size(), 4u);
  EXPECT_TRUE(rs["closed_form_send_bytes"].is_null());
  const nlohmann::json ag = scheduleApi(query({{"p", "3"}, {"collective", "allgather"}}));
  EXPECT_EQ(ag["steps"].size(), 2u);
  // AllGather starts with each block complete at its owner and nowhere else.
  for (int b = 0; b < 3; ++b) {
    const int owner = ag["block_owner"][b];
    for (int r = 0; r < 3; ++r) EXPECT_EQ(ag["holds"][0][r][b], r == owner ? 0b111 : 0);
  }
  EXPECT_EQ(scheduleApi(query({{"p", "16"}}))["steps"].size(), 30u);
}

TEST(LabSchedule, BadParametersNameTheField) {
  EXPECT_EQ(rejectedField(scheduleApi, {}), "p");
  for (const char* p : {"1", "17", "0", "-4", "four", "4.0", "1024"}) {
    EXPECT_EQ(rejectedField(scheduleApi, {{"p", p}}), "p") << p;
  }
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"collective", "broadcast"}}), "collective");
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"order", "random"}}), "order");
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"order", "stride"}}), "stride");
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"order", "stride"}, {"stride", "1.5"}}),
            "stride");
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"order", "list"}}), "list");
  for (const char* list : {"0,1,1,3", "0,1,2", "0,1,2,4", "a,b,c,d", "0,1,2,3,", "", "-1,0,1,2"}) {
    EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"order", "list"}, {"list", list}}), "list")
        << list;
  }
  for (const char* size : {"3", "1.5K", "2T", "lots", "-8"}) {
    EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"size", size}}), "size") << size;
  }
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"dtype", "float128"}}), "dtype");
  EXPECT_EQ(rejectedField(scheduleApi, {{"p", "4"}, {"algo", "ring"}}), "algo");
}

TEST(LabModel, SizeSweepHasEveryAlgorithmAndConsistentCrossovers) {
  const nlohmann::json j = modelSizesApi(query({{"p", "8"}}));
  ASSERT_EQ(j["rows"].size(), 28u);  // 8 B .. 1 GiB, x2
  EXPECT_EQ(j["rows"][0]["size_bytes"], 8);
  EXPECT_EQ(j["algorithms"].size(), j["rows"][0]["algorithms"].size());
  ASSERT_FALSE(j["crossovers"].empty())
      << "with the default parameters the fastest algorithm changes";
  std::string before = j["rows"][0]["fastest"];
  for (const auto& c : j["crossovers"]) {
    // The shape `ringlab model --sweep --json` gives (model/sweep.hpp).
    EXPECT_EQ(c["size_bytes"], c["count"].get<std::uint64_t>() * 4);
    EXPECT_EQ(c.size(), 4u);
    EXPECT_EQ(c["from"], before);
    EXPECT_NE(c["to"], before);
    before = c["to"];
  }
  EXPECT_EQ(j["rows"].back()["fastest"], before);
  // Startup grows with alpha alone.
  const nlohmann::json slow =
      modelSizesApi(query({{"p", "8"}, {"alpha", "20us"}, {"min", "8"}, {"max", "8"}}));
  ASSERT_EQ(slow["rows"].size(), 1u);
  const nlohmann::json ring = slow["rows"][0]["algorithms"][0];
  EXPECT_EQ(ring["algorithm"], "ring");
  EXPECT_NEAR(ring["startup_us"].get<double>(), 14 * 20.0, 1e-9);
}

// One dialect: the lab's documents are the model's own (`ringlab model --sweep|--vs-p --json`,
// predict_sweep, predict_vs_p), with the lab's parameters added.
TEST(LabModel, SweepAndRanksDocumentsAreTheModelsOwn) {
  const model::ModelParams m = model::defaultModelParams();
  nlohmann::json sizes = modelSizesApi(query({{"p", "8"}, {"min", "8"}, {"max", "64K"}}));
  EXPECT_EQ(sizes["params"], paramsJson(model::defaultProfile().params));
  sizes.erase("params");
  EXPECT_EQ(sizes, model::sweepJson(model::sweepSizes(8, 2, 16384, DataType::Float32, m, false), 8,
                                    DataType::Float32));
  nlohmann::json ranks = modelRanksApi(query({{"size", "1M"}, {"max_p", "16"}}));
  ranks.erase("params");
  std::vector<int> ps;
  for (int p = 2; p <= 16; ++p) ps.push_back(p);
  EXPECT_EQ(ranks,
            model::ranksJson(model::ringVersusRanks(ps, 1 << 18, DataType::Float32, m), 1 << 20,
                             DataType::Float32, model::ringBandwidthLimit_s(1 << 20, m)));
  EXPECT_EQ(ranks["algorithm"], "ring");
  EXPECT_EQ(ranks["size_bytes"], 1 << 20);
}

TEST(LabModel, RingTermsAgainstP) {
  const nlohmann::json j =
      modelRanksApi(query({{"size", "1M"}, {"max_p", "64"}, {"alpha", "2us"}, {"bw", "5GB/s"}}));
  const double limit = j["limit_2n_beta_us"];
  EXPECT_NEAR(limit, 2.0 * (1 << 20) / 5e9 * 1e6, 1e-9);
  ASSERT_EQ(j["rows"].size(), 63u);
  double previous = 0;
  for (const auto& row : j["rows"]) {
    const int p = row["p"];
    EXPECT_NEAR(row["startup_us"].get<double>(), 2.0 * (p - 1) * 2, 1e-9) << p;  // linear in p
    const double bw = row["bandwidth_us"];
    EXPECT_LE(bw, limit * (1 + 1e-12)) << p;
    EXPECT_GE(bw, previous * (1 - 1e-12)) << p;  // approaches 2 n beta from below
    previous = bw;
  }
  EXPECT_GT(previous, 0.95 * limit);
}

// The quantities carry their units, read by the CLI's parser: a bare number is refused as
// `--alpha 5` is, and the same values in other units give the same parameters.
TEST(LabModel, QuantitiesCarryTheirUnitsAsOnTheCommandLine) {
  try {
    modelSizesApi(query({{"p", "8"}, {"alpha", "5"}}));
    ADD_FAILURE() << "a bare alpha was accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.field(), "alpha");
    EXPECT_EQ(std::string(e.what()), "alpha: 5: a time needs a unit, e.g. 5us, 5ms, 5s");
  }
  const auto params = [](std::initializer_list<std::pair<const std::string, std::string>> q) {
    return modelSizesApi(query(q))["params"];
  };
  const nlohmann::json a =
      params({{"p", "8"}, {"alpha", "2us"}, {"bw", "5GB/s"}, {"gamma", "0.2ns/B"}, {"max", "8"}});
  const nlohmann::json b = params(
      {{"p", "8"}, {"alpha", "0.002ms"}, {"bw", "40Gb/s"}, {"gamma", "5GB/s"}, {"max", "8"}});
  for (const char* key : {"alpha_us", "bw_GBps", "gamma_ns_per_byte"})
    EXPECT_DOUBLE_EQ(a[key].get<double>(), b[key].get<double>()) << key;
  EXPECT_DOUBLE_EQ(a["alpha_us"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(a["bw_GBps"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(a["gamma_ns_per_byte"].get<double>(), 0.2);
}

TEST(LabModel, BadParametersNameTheField) {
  EXPECT_EQ(rejectedField(modelSizesApi, {}), "p");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "1"}}), "p");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "1025"}}), "p");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"bw", "0GB/s"}}), "bw");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"bw", "infGB/s"}}), "bw");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"alpha", "-1us"}}), "alpha");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"alpha", "nan"}}), "alpha");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"gamma", "1e9ns/B"}}), "gamma");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"min", "1G"}, {"max", "1K"}}), "min");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"max", "2T"}}), "max");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"min", "0"}}), "min");
  EXPECT_EQ(rejectedField(modelSizesApi, {{"p", "8"}, {"min", "6"}}), "min");  // not whole float32
  EXPECT_EQ(rejectedField(modelRanksApi, {{"max_p", "2000"}}), "max_p");
  EXPECT_EQ(rejectedField(modelRanksApi, {{"size", "0"}}), "size");
  EXPECT_EQ(rejectedField(modelRanksApi, {{"p", "8"}}), "p");
}

TEST(LabReplay, RefusesMoreRanksThanAMaskHolds) {
  const schedule::Schedule s = model::buildSchedule(schedule::Collective::AllReduce, 33, {});
  EXPECT_THROW(schedule::holdingsAfterEachStep(s), Error);
}

}  // namespace
}  // namespace ringlab::lab

namespace ringlab::lab {
namespace {

// Panel 3's overlay reads measurements with measure's one reader: the same rows `ringlab compare`
// reads from a real nccl-tests log, and its error for a file that is neither format.
TEST(LabRecord, ReadsAnNcclTestsLogAsCompareDoes) {
  const std::string log =
      readTextFile(RINGLAB_TEST_DATA "/nccl_all_reduce_perf_16ranks.log", "log");
  const nlohmann::json j = recordApi(log, query({{"name", "run.log"}}));
  const record::RunRecord direct = record::parseRecord(log, "run.log");
  EXPECT_EQ(j["run"]["p"], 16);
  ASSERT_EQ(j["rows"].size(), direct.rows.size());
  EXPECT_EQ(j["rows"][0]["size_bytes"], direct.rows[0].bytes);
  EXPECT_DOUBLE_EQ(j["rows"][0]["out_of_place"]["time_us"].get<double>(),
                   direct.rows[0].outOfPlace->timeUs);
  EXPECT_EQ(j["valid"], true);
  const nlohmann::json refused = recordApi("{\"hello\": 1}", query({{"name", "junk.json"}}));
  EXPECT_EQ(refused["valid"], false);
  EXPECT_NE(refused["error"].get<std::string>().find("junk.json: no \"run\" object"),
            std::string::npos)
      << refused;
  EXPECT_EQ(rejectedField([](const Params& p) { return recordApi("", p); }, {{"nam", "x"}}), "nam");
}

// Panel 3 loads a `ringlab calibrate` profile through the same endpoint: read by the reader behind
// --profile, its parameters in the page's units, and what it was measured on.
TEST(LabRecord, ReadsACalibrateProfileWithWhatItWasMeasuredOn) {
  const std::string text = readTextFile(RINGLAB_TEST_DATA "/plan_profile_p2.json", "profile");
  const nlohmann::json j = recordApi(text, query({{"name", "p.json"}}));
  ASSERT_EQ(j["valid"], true) << j;
  EXPECT_EQ(j["kind"], "profile");
  EXPECT_DOUBLE_EQ(j["params"]["alpha_us"].get<double>(), 30);  // alpha_s 3e-05
  EXPECT_DOUBLE_EQ(j["params"]["bw_GBps"].get<double>(), 1);    // beta 1e-09 s/B
  EXPECT_DOUBLE_EQ(j["params"]["gamma_ns_per_byte"].get<double>(), 0.2);
  EXPECT_EQ(j["profile"]["transport"], "gloo (torch.distributed), 2 processes");
  EXPECT_EQ(j["profile"]["host"], "test");
  EXPECT_EQ(j["dtype"], "float32");
  EXPECT_EQ(j["ranks"], 2);
  // The stated defaults as a profile hold for any p: no ranks.
  const nlohmann::json any =
      recordApi(model::toJson(model::defaultProfile()).dump(), query({{"name", "d.json"}}));
  EXPECT_TRUE(any["ranks"].is_null()) << any;
  // A profile the reader refuses is refused with its message, not read as measurements.
  const nlohmann::json bad =
      recordApi(readTextFile(RINGLAB_TEST_DATA "/profile_no_beta.json", "profile"),
                query({{"name", "b.json"}}));
  EXPECT_EQ(bad["valid"], false);
  EXPECT_NE(bad["error"].get<std::string>().find("profile file b.json: "), std::string::npos)
      << bad;
  EXPECT_NE(bad["error"].get<std::string>().find("beta_s_per_byte"), std::string::npos) << bad;
}

// A real nccl-tests log of 16 H100s on two hosts (tests/data/gpu_logs/corpus.json).
const char* const kGpuLog = RINGLAB_TEST_DATA "/gpu_logs/h100_a3mega_2node_tcpxo.log";

record::LoggedRun gpuRunOf(const std::string& text, const std::string& name) {
  std::vector<record::LoggedRun> runs = record::parseRuns(text, name, {});
  EXPECT_EQ(runs.size(), 1u);
  return runs.front();
}

// A GPU log with no system says what ran it and what to give, in the lab's words; it is never
// priced by the alpha-beta model, and its record is the same as before.
TEST(LabRecord, GpuLogWithoutASystemSaysWhatRanItAndWhatToGive) {
  const std::string log = readTextFile(kGpuLog, "log");
  const nlohmann::json j = recordApi(log, query({{"name", "h100.log"}}));
  ASSERT_EQ(j["valid"], true) << j;
  EXPECT_EQ(j["kind"], "record");
  EXPECT_EQ(j["rows"].size(), record::parseRecord(log, "h100.log").rows.size());
  const nlohmann::json& gpu = j["gpu"];
  EXPECT_EQ(gpu["device"], "GPUs (NVIDIA H100 80GB HBM3)");
  EXPECT_EQ(gpu["p"], 16);
  EXPECT_FALSE(gpu.contains("verdict")) << gpu;
  const std::string sentence = gpu["sentence"].get<std::string>();
  EXPECT_EQ(sentence.rfind("the log ran p = 16 on GPUs (NVIDIA H100 80GB HBM3): ", 0), 0u)
      << sentence;
  EXPECT_NE(sentence.find("in the GPU system field"), std::string::npos) << sentence;
  EXPECT_NE(sentence.find("presets include dgx-h100"), std::string::npos) << sentence;
  EXPECT_EQ(sentence.find("--"), std::string::npos)
      << "the lab has fields, not flags: " << sentence;
  // An empty field is no system.
  EXPECT_EQ(recordApi(log, query({{"name", "h100.log"}, {"system", ""}}))["gpu"], gpu);
}

// With a system, the verdict is compare's: the same JSON `ringlab compare --json` writes for the
// same log and system, whether the system is a preset or its keys.
TEST(LabRecord, GpuLogWithASystemIsJudgedAsCompareJudgesIt) {
  const std::string log = readTextFile(kGpuLog, "log");
  const record::LoggedRun run = gpuRunOf(log, "h100.log");
  for (const char* spec : {"dgx-h100", "gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s"}) {
    const nlohmann::json j = recordApi(log, query({{"name", "h100.log"}, {"system", spec}}));
    ASSERT_EQ(j["valid"], true) << j;
    const nlohmann::json& gpu = j["gpu"];
    EXPECT_EQ(gpu["device"], "GPUs (NVIDIA H100 80GB HBM3)");
    EXPECT_EQ(gpu["p"], 16);
    EXPECT_FALSE(gpu.contains("sentence")) << spec;
    const nlohmann::json expected =
        record::toJson(record::compareGpu(run, gpu::parseSystem(spec), "h100.log"));
    EXPECT_EQ(gpu["verdict"], expected) << spec;
  }
  // The figures of the log itself, as its rows print them, and what the model named.
  const nlohmann::json v =
      recordApi(log, query({{"name", "h100.log"}, {"system", "dgx-h100"}}))["gpu"]["verdict"];
  ASSERT_EQ(v["rows"].size(), 31u);
  EXPECT_EQ(v["rows"][0]["size_bytes"], 8);
  EXPECT_DOUBLE_EQ(v["rows"][0]["measured_us"].get<double>(), 135.8);
  EXPECT_EQ(v["rows"][30]["size_bytes"], 8589934592ull);
  EXPECT_DOUBLE_EQ(v["rows"][30]["measured_us"].get<double>(), 47535);
  EXPECT_GT(v["rows"][30]["predicted_us"].get<double>(), 0);
  EXPECT_EQ(v["system"]["name"], "dgx-h100");
  EXPECT_EQ(v["nccl_figures"], gpu::kNcclFigures);
  EXPECT_EQ(v["p"], 16);
  EXPECT_FALSE(v["bands"].empty());
}

// A system the library refuses, or one too small for the log's p, blames the GPU system field
// with the library's message (no flag in it); a long one is refused before it is read.
TEST(LabRecord, ABadGpuSystemNamesTheField) {
  const std::string log = readTextFile(kGpuLog, "log");
  const auto refused = [&](const std::string& spec) {
    try {
      recordApi(log, query({{"name", "h100.log"}, {"system", spec}}));
    } catch (const ApiError& e) {
      EXPECT_EQ(e.field(), "system") << spec;
      EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
      return std::string(e.what());
    }
    ADD_FAILURE() << spec << " was accepted";
    return std::string();
  };
  EXPECT_EQ(refused("dgx-h1000").rfind("system: the GPU system 'dgx-h1000': no preset", 0), 0u);
  EXPECT_NE(refused("gpu=h100,gpus=x").find("gpus=x: must be a whole number from 1 to 1024"),
            std::string::npos);
  EXPECT_NE(refused("gpu=h100,gpus=8,nodes=1").find("p = 16 does not fit the GPU system"),
            std::string::npos);
  EXPECT_NE(refused(std::string(kMaxSystemSpecChars + 1, 'a')).find("at most 512"),
            std::string::npos);
}

// A CPU record is answered exactly as before: no gpu, and the GPU system field is not read.
TEST(LabRecord, ACpuRecordIgnoresTheGpuSystem) {
  const std::string text = readTextFile(RINGLAB_TEST_DATA "/plan_measured_p2.json", "record");
  const nlohmann::json plain = recordApi(text, query({{"name", "m.json"}}));
  ASSERT_EQ(plain["valid"], true) << plain;
  EXPECT_FALSE(plain.contains("gpu"));
  EXPECT_EQ(recordApi(text, query({{"name", "m.json"}, {"system", "dgx-h100"}})), plain);
  EXPECT_EQ(recordApi(text, query({{"name", "m.json"}, {"system", "no-such-system"}})), plain);
}

// An nccl-tests log of `rows` sizes at p = 16, after `padLines` comment lines.
std::string logOfRows(std::size_t rows, std::size_t padLines = 0) {
  const std::string log = readTextFile(kGpuLog, "log");
  std::string big;
  for (std::size_t at = 0, end = 0; at < log.size(); at = end + 1) {
    end = log.find('\n', at);
    const std::string line = log.substr(at, end - at);
    if (line.rfind("#  Rank", 0) == 0 || line.rfind("# nThread", 0) == 0) big += line + "\n";
    if (end == std::string::npos) break;
  }
  for (std::size_t i = 0; i < padLines; ++i) big += "# padding\n";
  big +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong"
      "     time   algbw   busbw #wrong\n";
  for (std::size_t i = 1; i <= rows; ++i) {
    const double bytes = 4096.0 * static_cast<double>(i), us = 10 + bytes / 3e4;
    const double algbw = bytes / us / 1e3, busbw = algbw * 2 * 15 / 16;
    char row[200];
    std::snprintf(row, sizeof row,
                  "%12.0f %12.0f float sum -1 %8.1f %6.2f %6.2f 0 %8.1f %6.2f %6.2f 0\n", bytes,
                  bytes / 4, us, algbw, busbw, us, algbw, busbw);
    big += row;
  }
  return big;
}

std::string refusal(const nlohmann::json& answer) {
  EXPECT_EQ(answer["valid"], false) << answer.dump().substr(0, 400);
  return answer.value("error", "");
}

// What one file makes the lab allocate grows with its sizes (rows): kMaxRecordRows are read and
// judged, one more is refused, as an answer, with or without a system.
TEST(LabRecord, ARecordIsBoundedInSizes) {
  const std::string most = logOfRows(kMaxRecordRows);
  const nlohmann::json read = recordApi(most, query({{"name", "big.log"}}));
  ASSERT_EQ(read["valid"], true) << read.dump().substr(0, 400);
  EXPECT_EQ(read["rows"].size(), kMaxRecordRows);
  EXPECT_TRUE(read["gpu"].contains("sentence"));
  const std::string tooMany = logOfRows(kMaxRecordRows + 1);
  for (const char* system : {"", "dgx-h100"}) {
    EXPECT_NE(refusal(recordApi(tooMany, query({{"name", "big.log"}, {"system", system}})))
                  .find("big.log: 4097 sizes; the lab shows at most 4096"),
              std::string::npos)
        << system;
  }
}

// Before any reader sees it: a log of more than kMaxRecordLines lines, a JSON file of more than
// kMaxRecordJsonValues values or deeper than kMaxRecordJsonDepth.
TEST(LabRecord, AFileIsBoundedBeforeItIsRead) {
  EXPECT_EQ(recordApi(logOfRows(10, kMaxRecordLines - 40), query({}))["valid"], true);
  EXPECT_NE(refusal(recordApi(logOfRows(10, kMaxRecordLines), query({{"name", "l.log"}})))
                .find("lines; the lab reads logs of at most 65536"),
            std::string::npos);
  std::string values = "[0";  // the array and its elements: kMaxRecordJsonValues values
  for (std::size_t i = 2; i < kMaxRecordJsonValues; ++i) values += ",0";
  EXPECT_EQ(refusal(recordApi(values + "]", query({}))).find("JSON values"), std::string::npos)
      << "one value fewer than the limit is for the record reader to judge";
  EXPECT_NE(refusal(recordApi(values + ",0]", query({}))).find("more than 1048576 JSON values"),
            std::string::npos);
  const std::string deep =
      std::string(kMaxRecordJsonDepth + 1, '[') + std::string(kMaxRecordJsonDepth + 1, ']');
  EXPECT_NE(refusal(recordApi(deep, query({}))).find("deeper than 64 levels"), std::string::npos);
}

// The reader's refusals reach the page in the library's words: a lab visitor is not told to pass a
// command-line flag (the reader once said "ringlab bench --json FILE").
TEST(LabRecord, AnUnreadableFileIsRefusedWithoutACommandLineFlag) {
  const std::string table = "# ringlab bench: allreduce\n#  size count type redop\n";
  const std::string tableRefusal = refusal(recordApi(table, query({{"name", "bench.txt"}})));
  EXPECT_NE(tableRefusal.find("bench.txt: the table of `ringlab bench`: compare reads the JSON "
                              "record bench writes, not its table"),
            std::string::npos)
      << tableRefusal;
  const std::string junk = refusal(recordApi("hello", query({{"name", "junk.txt"}})));
  EXPECT_NE(junk.find("junk.txt: neither a ringlab bench JSON record nor an nccl-tests log"),
            std::string::npos)
      << junk;
  for (const std::string& message : {tableRefusal, junk})
    EXPECT_EQ(message.find("--"), std::string::npos) << message;
}

// The Host a browser sends names the lab; a rebound name (another site's, resolving here), another
// port or a malformed value does not.
TEST(LabHost, OnlyTheLabsOwnAddressesAreAllowed) {
  const LabAddress lab{"127.0.0.1", 8642};
  for (const char* host : {"127.0.0.1:8642", "localhost:8642", "LOCALHOST:8642", "[::1]:8642"})
    EXPECT_TRUE(hostAllowed(host, lab)) << host;
  for (const char* host :
       {"", "evil.example:8642", "127.0.0.1.evil.example:8642", "127.0.0.1:8643", "127.0.0.1",
        "localhost:", "[::1]", "[::1:8642", "[::1]x8642", "10.0.0.1:8642", "::1:8642", ":8642"})
    EXPECT_FALSE(hostAllowed(host, lab)) << host;
  EXPECT_TRUE(hostAllowed("localhost", LabAddress{"127.0.0.1", 80}));
  EXPECT_TRUE(hostAllowed("Lab-Box:9000", LabAddress{"lab-box", 9000}));
  // Listening on every address: any address names the lab, a name still does not.
  EXPECT_TRUE(hostAllowed("10.0.0.1:8642", LabAddress{"0.0.0.0", 8642}));
  EXPECT_TRUE(hostAllowed("[fe80::1]:8642", LabAddress{"::", 8642}));
  EXPECT_FALSE(hostAllowed("evil.example:8642", LabAddress{"0.0.0.0", 8642}));
}

TEST(LabHost, APostMustComeFromTheLabsOwnOrigin) {
  EXPECT_TRUE(sameOrigin("http://127.0.0.1:8642", "127.0.0.1:8642"));
  EXPECT_TRUE(sameOrigin("HTTP://LOCALHOST:8642", "localhost:8642"));
  for (const char* origin : {"null", "", "http://evil.example", "http://127.0.0.1:8643",
                             "https://127.0.0.1:8642", "http://127.0.0.1:8642/"})
    EXPECT_FALSE(sameOrigin(origin, "127.0.0.1:8642")) << origin;
  EXPECT_FALSE(sameOrigin("http://", ""));
}

// One colour per algorithm, the CLI pictures' (the registry's order in Okabe and Ito's palette).
TEST(LabInfo, PaletteGivesEveryAlgorithmItsPictureColour) {
  const nlohmann::json palette = infoApi(query({}))["palette"];
  const std::vector<std::string> names = model::algorithmNames();
  ASSERT_EQ(palette.size(), names.size());
  EXPECT_EQ(palette["ring"], "#0072B2");
  EXPECT_EQ(palette["recursive_doubling"], "#D55E00");
  std::set<std::string> colours;
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(palette[names[i]], report::paletteColour(i)) << names[i];
    colours.insert(palette[names[i]].get<std::string>());
  }
  EXPECT_EQ(colours.size(), names.size()) << "two algorithms share a colour";
}

}  // namespace
}  // namespace ringlab::lab
