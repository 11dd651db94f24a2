// `ringlab plan` end to end: the real binary (RINGLAB_BINARY) as a child process. Good inputs print
// every plan; each bad input exits non-zero with one stderr line naming the record.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_ringlab.hpp"

namespace {

using Result = ringlab::test::CliResult;

Result run(const std::string& args) {
  return ringlab::test::runRinglab(ringlab::test::splitWords("plan " + args), 30);
}

std::string data(const std::string& name) {
  return std::string(RINGLAB_TEST_DATA) + "/" + name;
}

std::vector<std::string> lines(const std::string& path) {
  std::istringstream in(ringlab::test::slurpFile(path));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

TEST(PlanCli, PlansEveryBaselineAndTheDdpCap) {
  const Result r = run("--timeline " + data("plan_timeline.csv") +
                       " -p 8 --alpha 30us --bw 1GB/s --ddp-caps 0.5,25");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* name :
       {"optimal", "ddp-default", "ddp-best-cap", "horovod-default", "per-tensor", "single",
        "mg-wfbp", "ddp-cap-0.5", "bucket_cap_mb=", "back after the last bucket at 8.00 GB/s"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
  }
}

TEST(PlanCli, JsonAgreesWithEvaluateOfTheOptimum) {
  const std::string base =
      "--timeline " + data("plan_timeline.json") + " -p 4 --alpha 20us --bw 2GB/s --json -";
  const Result r = run(base);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& optimal = j["plans"][0];
  ASSERT_EQ(optimal["name"], "optimal");
  std::string starts;
  for (const auto& s : optimal["starts"]) {
    if (!starts.empty()) starts += ',';
    starts += std::to_string(s.get<int>());
  }
  const Result e = run(base + " --evaluate " + starts);
  ASSERT_EQ(e.status, 0) << e.err;
  const auto ej = nlohmann::json::parse(e.out);
  EXPECT_DOUBLE_EQ(ej["plans"].back()["iteration_us"].get<double>(),
                   optimal["iteration_us"].get<double>());
  for (const auto& p : j["plans"]) EXPECT_GE(p["vs_optimal"].get<double>(), -1e-12) << p["name"];
}

TEST(PlanCli, SaysWhenTheBackwardHidesTheCommunicationAndPicksTheFewestBuckets) {
  // 24 gradients of 1 MiB, one every 0.5 ms, at 10 GB/s: every plan that keeps up predicts the
  // same iteration, one bucket per gradient among them.
  const std::string base = "--timeline " + data("plan_hidden.csv") +
                           " -p 8 --alpha 20us --bw 10GB/s --views --json " + ::testing::TempDir() +
                           "plan_hidden.json";
  const Result r = run(base);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# communication is hidden: every plan whose last bucket is done by the "
                       "backward's end (13000.0 us) predicts the same iteration; the optimum "
                       "above has the fewest buckets of them"),
            std::string::npos)
      << r.out;
  const auto j =
      nlohmann::json::parse(ringlab::test::slurpFile(::testing::TempDir() + "plan_hidden.json"));
  EXPECT_TRUE(j["communication_hidden"].get<bool>());
  EXPECT_TRUE(j["optimal_has_fewest_buckets"].get<bool>());
  std::map<std::string, nlohmann::json> plans;
  for (const auto& p : j["plans"]) plans[p["name"]] = p;
  const double best = plans["optimal"]["iteration_us"].get<double>();
  EXPECT_DOUBLE_EQ(plans["per-tensor"]["iteration_us"].get<double>(), best);  // a tie...
  EXPECT_LT(plans["optimal"]["bucket_count"].get<int>(),
            plans["per-tensor"]["bucket_count"].get<int>());  // ...broken toward fewer buckets
  // Every DDP cap up to the one to pass is as good, and the line says so with the same number.
  const auto& range = j["ddp_bucket_caps_as_good_mb"];
  ASSERT_EQ(range.size(), 2u) << j.dump();
  EXPECT_DOUBLE_EQ(range[1].get<double>(), j["ddp_bucket_cap_mb"].get<double>());
  const std::string cap = r.out.substr(r.out.find("pass bucket_cap_mb=") + 19);
  const std::string capText = cap.substr(0, cap.find(' '));
  EXPECT_NE(r.out.find("; any bucket_cap_mb up to " + capText + " is as good\n"), std::string::npos)
      << r.out;
  EXPECT_DOUBLE_EQ(plans["ddp-best-cap"]["iteration_us"].get<double>(), best);
}

TEST(PlanCli, SaysNothingOfHiddenCommunicationWhenItShows) {
  const Result r = run("--timeline " + data("plan_timeline.csv") + " -p 8 --alpha 30us --bw 1GB/s");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("communication is hidden"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("is as good"), std::string::npos) << r.out;
}

TEST(PlanCli, WritesAGantt) {
  const std::string svg = ::testing::TempDir() + "plan_gantt.svg";
  const Result r = run("--timeline " + data("plan_timeline.csv") + " -p 8 --svg " + svg);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = ringlab::test::slurpFile(svg);
  EXPECT_NE(text.find("<svg"), std::string::npos);
  EXPECT_NE(text.find("backward (compute)"), std::string::npos);
}

TEST(PlanCli, PlansFromMeasuredAllReduceTimes) {
  const Result r = run("--timeline " + data("plan_timeline.csv") + " -p 2 --measured " +
                       data("plan_measured_p2.json") + " --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["model"].get<std::string>().find("measured AllReduce times over gloo"),
            std::string::npos)
      << j["model"];
  for (const auto& bucket : j["plans"][0]["buckets"]) EXPECT_EQ(bucket["algorithm"], "measured");
}

// Real torch 1.13 traces of stock models (tests/data/torch_traces, from
// tests/torch/make_torch_traces.py): the reading puts, at every ready position, the name and size
// that autograd's tensor hooks saw in the same iterations (not reverse parameter order, which gets
// 16 of the transformer's 27 names wrong).
TEST(PlanCli, ReadsRealTorchTracesInTheOrderAutogradHooksSaw) {
  for (const std::string model : {"transformer", "conv_bn", "tied_embedding"}) {
    const std::string dir = "torch_traces/" + model;
    const std::string out = ::testing::TempDir() + "plan_trace_" + model + ".json";
    const Result r = run("--trace " + data(dir + "_marked.json") + " --params " +
                         data(dir + "_params.csv") + " -p 2 --write-timeline " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> truth = lines(data(dir + "_ready_order.txt"));
    std::map<std::string, std::uint64_t> count;  // name,count,dtype after the header
    for (const std::string& line : lines(data(dir + "_params.csv"))) {
      const auto c1 = line.find(','), c2 = line.rfind(',');
      if (line != "name,count,dtype")
        count[line.substr(0, c1)] = std::stoull(line.substr(c1 + 1, c2 - c1 - 1));
    }
    const auto tensors = nlohmann::json::parse(ringlab::test::slurpFile(out))["tensors"];
    ASSERT_EQ(tensors.size(), truth.size()) << model;
    for (std::size_t k = 0; k < truth.size(); ++k) {
      EXPECT_EQ(tensors[k]["name"], truth[k]) << model << " position " << k;
      EXPECT_EQ(tensors[k]["count"].get<std::uint64_t>(), count[truth[k]])
          << model << " position " << k;
    }
  }
}

void expectOneLineError(const std::string& args, const std::string& needle) {
  const Result r = run(args);
  EXPECT_NE(r.status, 0) << args;
  EXPECT_EQ(r.err.rfind("ringlab: error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
}

TEST(PlanCli, BadInputIsNamed) {
  expectOneLineError("--timeline " + data("plan_bad_zero_size.csv"),
                     "tensor 1 ('fc.bias'): element count 0");
  expectOneLineError("--timeline " + data("plan_bad_negative_size.csv"),
                     "'fc.weight'): element count -100");
  expectOneLineError("--timeline " + data("plan_bad_order.csv"),
                     "tensor 1 ('fc.bias'): ready at 20 us, before");
  expectOneLineError("--timeline " + data("plan_bad_after_end.csv"),
                     "tensor 1 ('fc.bias'): ready at 120 us, after");
  expectOneLineError("--timeline " + data("plan_bad_duplicate.csv"),
                     "tensor 1 ('fc.weight'): duplicate name");
  expectOneLineError(
      "--trace " + data("plan_trace_no_accumulate.json") + " --params " + data("plan_params.csv"),
      "no \"torch::autograd::AccumulateGrad\" events");
  // What this torch writes without markers: no shapes, so no event can be told from another.
  expectOneLineError("--trace " + data("torch_traces/conv_bn_unmarked.json") + " --params " +
                         data("torch_traces/conv_bn_params.csv"),
                     "carry no shapes (\"Input Dims\", written with record_shapes=True by torch "
                     "builds with kineto), so the trace cannot tell which parameter each gradient "
                     "is: ready positions 0,1,2,3,4,5,6,7,8,9 (no shape) could be any of 0.weight");
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " --profile " +
                         data("plan_profile_p2.json") + " -p 8",
                     "measured for p = 2, not -p 8");
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " --measured " +
                         data("plan_measured_p2.json") + " -p 8",
                     "measured at p = 2, not -p 8");
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " -p 2 --measured " +
                         data("plan_measured_p2.json") + " --alpha 3us",
                     "or --measured (measured AllReduce times), not both");
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " -p 2 --measured " +
                         data("plan_measured_bad_row.json"),
                     "row 1: no in_place.time_us");
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " --evaluate 0,40",
                     "bucket start 40 is out of range");
  expectOneLineError("--timeline " + data("missing.csv"), "missing.csv: cannot be read");
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " --ddp-caps 1,-2",
                     "'-2' is not a bucket_cap_mb");
  // A directory where a file belongs: named as such, not a stream library's message.
  expectOneLineError("--timeline " + data("plan_timeline.csv") + " --profile " + data(""),
                     "profile " + data("") + ": is a directory, not a file");
  expectOneLineError("--timeline " + data(""), ": is a directory, not a file");
}

}  // namespace
