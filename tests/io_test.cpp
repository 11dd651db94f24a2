// The io layer (profiles, decision tables, topologies, timelines as files, model resolution) and
// the library halves of `ringlab plan` and `ringlab topo`: the plans compared, the rings priced
// (searched, or k given), their link loads and exports.
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "expect_error.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/io/files.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/io/timeline_files.hpp"
#include "ringlab/io/topology_files.hpp"
#include "ringlab/model/describe.hpp"
#include "ringlab/plan/compare.hpp"
#include "ringlab/plan/plan_json.hpp"
#include "ringlab/report/gantt.hpp"
#include "ringlab/schedule/multi_ring.hpp"
#include "ringlab/topo/generators.hpp"
#include "ringlab/topo/ring_export.hpp"
#include "ringlab/topo/ring_report.hpp"

namespace ringlab {
namespace {

using test::errorOf;
using test::expectInvalid;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_io_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(IoFiles, ADirectoryAsAProfileIsOneClearLine) {
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(std::string(errorOf([&] { io::readProfile(dir); }).what()).find('\n'),
            std::string::npos);
  expectInvalid([&] { io::readProfile(dir); }, "profile " + dir + ": is a directory");
  expectInvalid([&] { io::readDecisionTable(dir); }, "decision table " + dir + ": is a directory");
  expectInvalid([] { io::readProfile("no/such/profile.json"); }, "cannot be read");
  const std::string bad = writeTemp("bad.json", "{\"format\": ");
  expectInvalid([&] { io::readJsonFile(bad, "profile"); }, "not valid JSON");
  expectInvalid([&] { io::writeTextFile(dir, "x", "-o"); }, "-o " + dir);
}

TEST(IoFiles, ProfileRoundTripsAndStatesItsRanks) {
  model::Profile p = model::defaultProfile();
  p.params.link.alpha_s = 7e-6;
  nlohmann::json j = model::toJson(p);
  const std::string path = writeTemp("profile.json", j.dump());
  EXPECT_EQ(io::readProfile(path).params.link.alpha_s, 7e-6);
  io::checkProfileRanks(path, 8);  // no "ranks": holds for any p
  j["ranks"] = 2;
  const std::string two = writeTemp("profile_p2.json", j.dump());
  expectInvalid([&] { io::checkProfileRanks(two, 8); },
                "measured for p = 2, not p = 8; calibrate for this p or pass p = 2");
  // A front end names p its own way: the CLI's -p.
  expectInvalid([&] { io::checkProfileRanks(two, 8, "-p"); }, "measured for p = 2, not -p 8");
}

// Where receives are fused, the model's description says from which message size; else nothing.
TEST(IoModel, FusedReceivesAreSaid) {
  model::Profile p = model::defaultProfile();
  EXPECT_EQ(model::describeModel(p).find("fused"), std::string::npos);
  p.params.fusion.fused_reduce_from_bytes = 131072;
  EXPECT_CONTAINS(model::describeModel(p), "reducing receives fused (gamma only) from 128 KiB");
}

// A profile's out-of-place gamma is kept and said; --gamma replaces both gammas with one.
TEST(IoModel, GammaFlagPricesBothModesAlike) {
  model::Profile p = model::defaultProfile();
  p.params.reduce.gamma_out_of_place_s_per_byte = 3e-10;
  io::ModelSource s;
  s.profilePath = writeTemp("profile_oop.json", model::toJson(p).dump());
  const io::ResolvedModel kept = io::resolveModel(s);
  EXPECT_EQ(kept.profile.params.reduce.gamma_out_of_place_s_per_byte, 3e-10);
  EXPECT_CONTAINS(model::describeModel(kept.profile), "(out of place 0.3000 ns/B)");
  s.gamma_s_per_byte = 1e-10;
  const model::ModelParams given = io::resolveModel(s).profile.params;
  EXPECT_DOUBLE_EQ(given.reduce.gamma_s_per_byte, 1e-10);
  EXPECT_EQ(given.reduce.gamma_out_of_place_s_per_byte, 0);
}

TEST(IoModel, FlagsOverrideTheProfileAndConventionsWarn) {
  io::ModelText s;
  io::ResolvedModel r = io::resolveModel(io::parseModelSource(s));
  EXPECT_EQ(r.source, "stated defaults (not calibrated)");
  EXPECT_TRUE(r.warnings.empty());
  s.alpha = "5us";
  s.bandwidth = "10GB/s";
  s.concurrency = "2";
  s.volume = "send+recv";
  r = io::resolveModel(io::parseModelSource(s));
  EXPECT_EQ(r.source, "stated defaults (not calibrated), overridden by given parameters");
  EXPECT_DOUBLE_EQ(r.profile.params.link.alpha_s, 5e-6);
  EXPECT_DOUBLE_EQ(r.profile.params.link.beta_s_per_byte, 1e-10);
  EXPECT_EQ(r.profile.params.host.concurrent_transfers, 2);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_CONTAINS(r.warnings[0], "counts every byte twice");
  EXPECT_CONTAINS(model::describeModel(r.profile), "alpha 5.000 us");
  s.bandwidthCounts = "send+recv";
  s.volume = "send";
  EXPECT_DOUBLE_EQ(io::resolveModel(io::parseModelSource(s)).profile.params.link.beta_s_per_byte,
                   2e-10);
  // Errors name each input by the caller's label: the library's words, or a front end's.
  s.concurrency = "-1";
  expectInvalid([&] { io::parseModelSource(s); }, "the concurrency '-1'");
  expectInvalid([&] { io::parseModelSource(s, {.concurrency = "--concurrency"}); },
                "--concurrency '-1'");
  s.concurrency = "";
  s.volume = "both";
  expectInvalid([&] { io::parseModelSource(s); },
                "the volume 'both': valid are send and send+recv");
  expectInvalid([&] { io::parseModelSource(s, {.volume = "--volume"}); }, "--volume 'both'");
}

// The typed source holds what was given, in base units; nothing given, nothing overridden.
TEST(IoModel, ParsedSourceIsTyped) {
  const io::ModelSource none = io::parseModelSource({});
  EXPECT_FALSE(none.overridden());
  const io::ModelSource s = io::parseModelSource(
      {.alpha = "5us", .bandwidth = "25GB/s", .gamma = "20GB/s", .bandwidthCounts = "send+recv"});
  EXPECT_DOUBLE_EQ(*s.alpha_s, 5e-6);
  EXPECT_DOUBLE_EQ(*s.bandwidth_Bps, 25e9);
  EXPECT_DOUBLE_EQ(*s.gamma_s_per_byte, 0.05e-9);
  EXPECT_FALSE(s.concurrency);
  EXPECT_EQ(s.bandwidthCounts, io::VolumeCount::SendRecv);
  EXPECT_EQ(s.volume, io::VolumeCount::Send);
  expectInvalid([] { io::parseModelSource({.alpha = "5"}, {.alpha = "alpha"}); }, "alpha 5");
}

TEST(IoTopology, LoadsPlacesAndNamesTheSource) {
  io::TopologySource s;
  s.generated = topo::parseTopologySpec("nodes=2,ranks=2");
  s.placement = "rr";
  const io::PlacedTopology placed = io::loadTopology(s);
  EXPECT_EQ(placed.placement->ranks(), 4);
  EXPECT_CONTAINS(placed.placementText(), "round-robin");
  const std::string path = writeTemp("topology.json", "");
  io::writeTopologyFile(*placed.topology, path, "--save-topology");
  io::TopologySource fromFile;
  fromFile.file = path;
  EXPECT_EQ(io::loadTopology(fromFile).topology->slotCount(), 4);
  expectInvalid([] { io::loadTopology({}); }, "give a topology");
  fromFile.file = ::testing::TempDir();
  expectInvalid([&] { io::loadTopology(fromFile); }, "the topology file");
  fromFile.labels.file = "--topo-file";  // a front end's name for it
  expectInvalid([&] { io::loadTopology(fromFile); }, "--topo-file");
  s.ranks = 5;
  expectInvalid([&] { io::loadTopology(s); }, "more ranks than slots");
}

TEST(IoTimeline, NeedsOneSourceAndParamsForATrace) {
  expectInvalid([] { io::loadTimeline({}); }, "give one of a timeline");
  expectInvalid([] { io::loadTimeline({"t.csv", "t.json", ""}); }, "give one of a timeline");
  expectInvalid([] { io::loadTimeline({"", "t.json", ""}); }, "needs its parameter list");
  expectInvalid(
      [] {
        io::loadTimeline({"", "t.json", ""}, {.trace = "--trace", .params = "--params"});
      },
      "--trace t.json needs --params");
  const std::string csv = writeTemp(
      "timeline.csv", "# backward_end_us = 100\nname,count,dtype,ready_us\nw,1000,float32,40\n");
  EXPECT_EQ(io::loadTimeline({csv, "", ""}).tensors.size(), 1u);
}

plan::Timeline fourTensors() {
  plan::Timeline t;
  t.source = "test";
  for (int i = 0; i < 4; ++i) {
    t.tensors.push_back(
        {"g" + std::to_string(i), 250000u * (i + 1), DataType::Float32, 100e-6 * (i + 1), {}});
  }
  t.backwardEnd_s = 450e-6;
  return t;
}

TEST(PlanCompare, PricesEveryPlanTheCommandShows) {
  const plan::Timeline t = fourTensors();
  const plan::BucketCost cost(8, DataType::Float32, model::defaultProfile().params);
  plan::CompareOptions options;
  options.ddpCapBytes = plan::parseDdpCaps("0.5,25");
  const plan::PlanComparison first = plan::comparePlans(t, cost, options);
  std::vector<std::string> names;
  for (const plan::NamedPlan& p : first.plans) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"optimal", "ddp-default", "ddp-best-cap",
                                             "horovod-default", "per-tensor", "single", "mg-wfbp",
                                             "ddp-cap-0.5", "ddp-cap-25"}));
  for (const plan::NamedPlan& p : first.plans) {
    EXPECT_GE(p.prediction.iteration_s, first.best().iteration_s * (1 - 1e-12)) << p.name;
  }
  // The optimum's starts, evaluated, price the same as the optimum.
  options.evaluate = first.optimal.starts;
  const plan::PlanComparison again = plan::comparePlans(t, cost, options);
  EXPECT_EQ(again.plans.back().name, "evaluated");
  EXPECT_DOUBLE_EQ(again.plans.back().prediction.iteration_s, first.best().iteration_s);
  const nlohmann::json doc = plan::comparisonJson(t, again, {8, "model", "source", "copy"});
  EXPECT_EQ(doc["plans"][0]["name"], "optimal");
  EXPECT_EQ(doc["plans"].size(), again.plans.size());
  EXPECT_EQ(doc["p"], 8);
  EXPECT_CONTAINS(report::planGanttSvg(t, again, 8), "backward (compute)");
}

TEST(PlanCompare, ParsesStartsAndCapsStrictly) {
  EXPECT_EQ(plan::parseBucketStarts("0,12,40"), (std::vector<std::size_t>{0, 12, 40}));
  expectInvalid([] { plan::parseBucketStarts("0,x"); }, "'x' is not a bucket start index");
  expectInvalid([] { plan::parseBucketStarts("0,,3"); }, "'' is not a bucket");
  EXPECT_EQ(plan::parseDdpCaps("1"), (std::vector<std::uint64_t>{1048576}));
  expectInvalid([] { plan::parseDdpCaps("1,-2"); }, "'-2' is not a bucket_cap_mb");
  expectInvalid([] { plan::parseDdpCaps("1MB"); }, "'1MB' is not a bucket_cap_mb");
  EXPECT_EQ(plan::capMiB(512 << 10), "0.5");
}

struct TwoNodes {
  topo::Topology topology = topo::generateTopology("nodes=2,ranks=2,inter=400Mbit/s");
  topo::Placement placement = topo::Placement::roundRobin(topology, 4);
};

TEST(RingReport, GivenKRingsArePricedAsKChannels) {
  const TwoNodes w;
  const double bytes = 16 << 20;
  const topo::RingLabels flags{.order = "--order", .channels = "--channels"};
  const topo::RingSearchResult r =
      topo::searchOrGiven(w.topology, w.placement, bytes, 0, "0,1,2,3|0,2,1,3", {}, flags);
  ASSERT_EQ(r.rings.size(), 2u);
  EXPECT_EQ(r.rings[1].toString(), "0,2,1,3");
  EXPECT_EQ(r.method, "given by --order");
  EXPECT_EQ(topo::searchOrGiven(w.topology, w.placement, bytes, 0, "0,1,2,3").method,
            "given by the ring orders");
  EXPECT_DOUBLE_EQ(r.cost.time_s, topo::ringCost(w.topology, w.placement, r.rings, bytes).time_s);
  const auto rankOrder = schedule::multiRingOrders(4, 2, {}, {});
  EXPECT_DOUBLE_EQ(r.rankOrderCost.time_s,
                   topo::ringCost(w.topology, w.placement, rankOrder, bytes).time_s);
  EXPECT_DOUBLE_EQ(r.lowerBound_s, topo::ringLowerBound(w.topology, w.placement, bytes, 2));
  // --channels, when given, must agree with the rings given.
  EXPECT_EQ(topo::searchOrGiven(w.topology, w.placement, bytes, 2, "0,1,2,3|0,2,1,3").rings.size(),
            2u);
  expectInvalid(
      [&] { topo::searchOrGiven(w.topology, w.placement, bytes, 2, "0,1,2,3", {}, flags); },
      "--channels 2 with --order '0,1,2,3' of 1 ring");
  expectInvalid([&] { topo::searchOrGiven(w.topology, w.placement, bytes, 2, "0,1,2,3"); },
                "the number of rings 2 with the ring orders '0,1,2,3' of 1 ring");
  expectInvalid([&] { topo::searchOrGiven(w.topology, w.placement, bytes, 0, "0,1,2,3|0,1"); },
                "ring order '0,1'");
  EXPECT_EQ(topo::searchOrGiven(w.topology, w.placement, bytes, 0, "").rings.size(), 1u);
  EXPECT_EQ(topo::searchOrGiven(w.topology, w.placement, bytes, 2, "").rings.size(), 2u);
}

TEST(RingReport, LinkLoadsExportsAndJson) {
  const TwoNodes w;
  const auto rankOrder = schedule::multiRingOrders(4, 1, {}, {});
  const auto chosen = topo::parseRings("0,2,1,3", 4);
  const topo::LinkLoadComparison c =
      topo::compareLinkLoads(w.topology, w.placement, rankOrder, chosen, 1 << 20);
  ASSERT_FALSE(c.busiest.empty());
  for (std::size_t i = 1; i < c.busiest.size(); ++i) {
    const auto busiest = [&](int l) {
      return std::max(c.busy_s(w.topology, c.rankOrder, l), c.busy_s(w.topology, c.chosen, l));
    };
    EXPECT_GE(busiest(c.busiest[i - 1]), busiest(c.busiest[i]));
  }
  EXPECT_EQ(topo::exportRings("ring-order", w.topology, w.placement, chosen), "0,2,1,3\n");
  EXPECT_CONTAINS(topo::exportRings("rankfile", w.topology, w.placement, chosen), "rank 0=");
  expectInvalid([&] { topo::exportRings("hostfile", w.topology, w.placement, chosen); },
                "valid are ring-order, rankfile, machinefile, nccl-graph");
  const topo::RingSearchResult r =
      topo::searchOrGiven(w.topology, w.placement, 1 << 20, 0, "0,2,1,3");
  nlohmann::json doc = topo::ringsJson({"t", "p", 4, 1 << 20}, r, rankOrder, w.topology);
  topo::addLinkLoadsJson(doc, c, w.topology);
  EXPECT_EQ(doc["chosen"]["rings"][0], (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(doc["link_hop_bytes"]["chosen"], c.chosen.linkHopBytes);
  EXPECT_EQ(doc["links"].size(), c.busiest.size());
}

}  // namespace
}  // namespace ringlab
