// The pictures (report/chart.hpp, report/pictures.hpp, report/gantt.hpp), read back as XML: every
// SVG well-formed, the series and points expected, axis labels in units, the legend naming every
// series, ticks that keep apart, and the Gantt bounded in size with every bucket still drawn.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/plan/baselines.hpp"
#include "ringlab/plan/execution.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/report/chart.hpp"
#include "ringlab/report/comparison.hpp"
#include "ringlab/report/gantt.hpp"
#include "ringlab/report/pictures.hpp"
#include "svg_xml.hpp"

namespace ringlab::report {
namespace {

using test::parseXml;
using test::XmlElement;

std::vector<std::string> texts(const std::vector<const XmlElement*>& elements) {
  std::vector<std::string> out;
  for (const XmlElement* e : elements) out.push_back(e->text);
  return out;
}

// The tick labels of one axis ("x-axis" or "y-axis").
std::vector<std::string> tickLabels(const XmlElement& svg, const std::string& axis) {
  const auto axes = svg.byClass(axis);
  EXPECT_EQ(axes.size(), 1u) << axis;
  return axes.empty() ? std::vector<std::string>{} : texts(axes[0]->byClass("tick"));
}

void expectAllMatch(const std::vector<std::string>& labels, const std::string& pattern) {
  EXPECT_GE(labels.size(), 2u) << pattern;
  const std::regex re(pattern);
  for (const std::string& l : labels)
    EXPECT_TRUE(std::regex_match(l, re)) << l << " !~ " << pattern;
}

const char* kSizeLabel = R"(\d+ (B|KiB|MiB|GiB|TiB))";
const char* kTimeLabel = R"([0-9.]+ (us|ms|s))";
const char* kBandwidthLabel = R"([0-9.]+ (GB/s|MB/s|KB/s))";

const XmlElement& seriesNamed(const XmlElement& svg, const std::string& name) {
  for (const XmlElement* s : svg.byClass("series"))
    if (s->attr("data-name") == name) return *s;
  throw std::runtime_error("no series named " + name);
}

record::Timing timing(double us) {
  record::Timing t;
  t.timeUs = t.minUs = t.maxUs = t.meanUs = us;
  t.iterations = 5;
  return t;
}

// p = 4, ring: 16 B to 4 MiB by 4 (10 sizes); 1 MiB takes 1000 us, so its busbw is 1048576 B / 1000
// us x 2(4-1)/4 = 1.572864 GB/s.
record::RunRecord benchRun(bool withModel) {
  record::RunRecord r;
  r.run.algorithm = "ring";
  r.run.ranks = 4;
  r.run.dtype = "float32";
  r.run.op = "sum";
  r.run.transport = "inproc";
  for (std::uint64_t b = 16; b <= (4u << 20); b *= 4) {
    record::RecordRow row;
    row.bytes = b;
    row.count = b / 4;
    row.algorithm = "ring";
    row.outOfPlace = timing(b == (1u << 20) ? 1000.0 : 20 + b / 1000.0);
    row.inPlace = timing(30);
    if (withModel) row.predictedUs = 10 + b / 2000.0;
    r.rows.push_back(row);
  }
  return r;
}

TEST(Chart, BenchWithoutProfileHasNoModelLine) {
  const Chart chart = benchChart(benchRun(false), {});
  ASSERT_EQ(chart.series.size(), 1u);
  ASSERT_EQ(chart.series[0].points.size(), 10u);
  EXPECT_EQ(chart.series[0].points[8].first, double(1 << 20));
  EXPECT_DOUBLE_EQ(chart.series[0].points[8].second, 1.572864);
  const auto svg = parseXml(chartSvg(chart));
  EXPECT_EQ(svg->name, "svg");
  EXPECT_EQ(svg->byClass("series").size(), 1u);
  EXPECT_EQ(svg->byClass("model").size(), 0u);
  EXPECT_EQ(seriesNamed(*svg, "this run: ring, p 4").byName("circle").size(), 10u);
  expectAllMatch(tickLabels(*svg, "x-axis"), kSizeLabel);
  expectAllMatch(tickLabels(*svg, "y-axis"), kBandwidthLabel);
  EXPECT_EQ(texts(svg->byClass("legend-entry")), std::vector<std::string>{"this run: ring, p 4"});
}

TEST(Chart, BenchWithProfileDrawsTheModelDashedInTheRunsColour) {
  const auto svg = parseXml(chartSvg(benchChart(benchRun(true), {})));
  ASSERT_EQ(svg->byClass("model").size(), 1u);
  const XmlElement& model = *svg->byClass("model")[0];
  EXPECT_EQ(model.attr("data-points"), "10");
  EXPECT_EQ(model.byName("circle").size(), 0u);  // a line, no markers
  ASSERT_EQ(model.byName("polyline").size(), 1u);
  EXPECT_EQ(model.byName("polyline")[0]->attr("stroke-dasharray"), "6 4");
  EXPECT_EQ(model.attr("fill"), seriesNamed(*svg, "this run: ring, p 4").attr("fill"));
  EXPECT_EQ(model.attr("fill"), paletteColour(0));  // ring is the registry's first algorithm
}

TEST(Chart, BenchOverlaysANcclTestsLogAtItsOwnP) {
  const record::RunRecord log =
      record::readRecord(std::string(RINGLAB_TEST_DATA) + "/nccl_all_reduce_perf_16ranks.log", "x");
  const Chart chart = benchChart(benchRun(false), {{"nccl.log", log}});
  ASSERT_EQ(chart.series.size(), 2u);
  const Series& overlay = chart.series[1];
  EXPECT_EQ(overlay.role, "overlay");
  ASSERT_EQ(overlay.points.size(), log.rows.size());
  // The log's 1 MiB row: 203.2 us out of place at p = 16.
  EXPECT_NEAR(overlay.points[1].second, 1048576 / 203.2e3 * 2 * 15 / 16, 1e-9);
  const auto svg = parseXml(chartSvg(chart));
  EXPECT_EQ(svg->byClass("overlay").size(), 1u);
  const auto legend = svg->byClass("legend-entry");
  ASSERT_EQ(legend.size(), 2u);
  EXPECT_EQ(legend[1]->attr("data-name"), "nccl.log: nccl-tests all_reduce_perf, p 16");
  EXPECT_NE(svg->byClass("overlay")[0]->attr("fill"),
            seriesNamed(*svg, "this run: ring, p 4").attr("fill"));
}

model::DecisionTable tuneTable() {
  model::DecisionTable t;
  t.ranks = 4;
  t.transport = "inproc";
  t.dtype = "float32";
  // The fastest: recursive_doubling at 8 and 64 B, rabenseifner at 512 B, ring from 4 KiB.
  t.measured = {{8, {{"ring", 30}, {"recursive_doubling", 10}, {"rabenseifner", 20}}},
                {64, {{"ring", 31}, {"recursive_doubling", 11}, {"rabenseifner", 21}}},
                {512, {{"ring", 40}, {"recursive_doubling", 45}, {"rabenseifner", 35}}},
                {4096, {{"ring", 90}, {"recursive_doubling", 200}, {"rabenseifner", 95}}}};
  return t;
}

TEST(Chart, TuneDrawsEveryAlgorithmUnderABandPerRule) {
  const Chart chart = tuneChart(tuneTable());
  ASSERT_EQ(chart.series.size(), 3u);
  // The registry's order, not the map's.
  EXPECT_EQ(chart.series[0].name, "ring");
  EXPECT_EQ(chart.series[1].name, "recursive_doubling");
  EXPECT_EQ(chart.series[2].name, "rabenseifner");
  ASSERT_EQ(chart.bands.size(), 3u);
  EXPECT_EQ(chart.bands[0].key, "recursive_doubling");
  EXPECT_EQ(chart.bands[0].from, 0);
  EXPECT_DOUBLE_EQ(chart.bands[0].to, std::sqrt(64.0 * 512));  // halfway on the log scale
  EXPECT_EQ(chart.bands[1].key, "rabenseifner");
  EXPECT_DOUBLE_EQ(chart.bands[1].to, std::sqrt(512.0 * 4096));
  EXPECT_EQ(chart.bands[2].key, "ring");
  const auto svg = parseXml(chartSvg(chart));
  EXPECT_EQ(svg->byClass("band").size(), 3u);
  for (const XmlElement* s : svg->byClass("series")) EXPECT_EQ(s->byName("circle").size(), 4u);
  EXPECT_EQ(texts(svg->byClass("legend-entry")),
            (std::vector<std::string>{"ring", "recursive_doubling", "rabenseifner"}));
  // A band is drawn in the colour of its algorithm's line.
  for (const XmlElement* band : svg->byClass("band"))
    EXPECT_EQ(band->attr("fill"), seriesNamed(*svg, band->attr("data-key")).attr("fill"));
  expectAllMatch(tickLabels(*svg, "y-axis"), kTimeLabel);
}

TEST(Chart, SimDrawsTheSimulatedBusbw) {
  record::RunInfo info;
  info.algorithm = "ring";
  info.ranks = 8;
  std::vector<sim::SimRow> rows;
  for (std::uint64_t b = 1024; b <= (1u << 30); b *= 4)
    rows.push_back({b, b / 4, 0, 0, b / 1e9, 0});
  const auto svg = parseXml(chartSvg(simChart({{info, rows}}, "t")));
  ASSERT_EQ(svg->byClass("simulated").size(), 1u);
  EXPECT_EQ(svg->byClass("simulated")[0]->byName("circle").size(), rows.size());
  expectAllMatch(tickLabels(*svg, "x-axis"), kSizeLabel);
  expectAllMatch(tickLabels(*svg, "y-axis"), kBandwidthLabel);
}

TEST(Chart, CompareLabelsSizesAndTimesInUnits) {
  record::Comparison c;
  c.label = "ring, p = 4";
  c.source = "ringlab bench";
  c.rows = {{8, 20, 25, 26}, {1 << 20, 900, 1000, 1100}, {64 << 20, 30000, 40000, 41000}};
  const auto svg = parseXml(comparisonSvg({c}, "t"));
  expectAllMatch(tickLabels(*svg, "x-axis"), kSizeLabel);
  expectAllMatch(tickLabels(*svg, "y-axis"), kTimeLabel);
  EXPECT_EQ(svg->byClass("measured").size(), 1u);
  EXPECT_EQ(svg->byClass("model").size(), 1u);
  EXPECT_EQ(svg->byClass("measured")[0]->byName("circle").size(), 3u);
  test::expectInvalid([] { comparisonSvg({}, "t"); }, {"nothing to plot"});
}

TEST(Chart, UnitLabels) {
  EXPECT_EQ(unitLabel(Unit::Bytes, 1), "1 B");
  EXPECT_EQ(unitLabel(Unit::Bytes, 1 << 10), "1 KiB");
  EXPECT_EQ(unitLabel(Unit::Bytes, 64 << 20), "64 MiB");
  EXPECT_EQ(unitLabel(Unit::Bytes, double(1ull << 30)), "1 GiB");
  EXPECT_EQ(unitLabel(Unit::Micros, 0.5), "0.5 us");
  EXPECT_EQ(unitLabel(Unit::Micros, 2500), "2.5 ms");
  EXPECT_EQ(unitLabel(Unit::Micros, 3e6), "3 s");
  EXPECT_EQ(unitLabel(Unit::GBps, 12.5), "12.5 GB/s");
  EXPECT_EQ(unitLabel(Unit::GBps, 0.2), "200 MB/s");
  EXPECT_EQ(unitLabel(Unit::GBps, 5e-5), "50 KB/s");
}

// Consecutive labels of a horizontal axis are further apart than half their widths together
// (at 0.64 em per character, wider than the font draws), on every range and length tried.
TEST(Chart, TicksThinUntilLabelsKeepApart) {
  const Axis sizes{.title = "", .unit = Unit::Bytes};
  for (double length : {120.0, 300.0, 520.0, 2000.0}) {
    for (double hi : {64.0, 1048576.0, 8589934592.0, 1.1e15}) {
      const std::vector<Tick> ticks = axisTicks(sizes, 1, hi, length, true);
      ASSERT_FALSE(ticks.empty());
      const double octaves = std::log2(hi);
      for (std::size_t i = 1; i < ticks.size(); ++i) {
        const double px = std::log2(ticks[i].value / ticks[i - 1].value) / octaves * length;
        const double need = (ticks[i].label.size() + ticks[i - 1].label.size()) * 0.64 * 11 / 2;
        EXPECT_GT(px, need) << ticks[i - 1].label << " " << ticks[i].label << " on " << length;
      }
    }
  }
  // Long enough: a label every octave; 520 px for 8 B .. 8 GiB: every 5 or 10 octaves.
  EXPECT_EQ(axisTicks(sizes, 1, 64, 2000, true).size(), 7u);
  const std::vector<Tick> wide = axisTicks(sizes, 8, 8589934592.0, 520, true);
  EXPECT_LE(wide.size(), 8u);
  EXPECT_GE(wide.size(), 3u);
  // A vertical time axis: 1-2-5 when tall enough, decades when not.
  const Axis times{.title = "", .unit = Unit::Micros};
  EXPECT_EQ(axisTicks(times, 10, 1000, 400, false).size(), 7u);  // 10 20 50 100 200 500 1000
  EXPECT_EQ(axisTicks(times, 10, 1e7, 200, false).size(), 7u);   // every decade
  EXPECT_EQ(axisTicks(times, 10, 1e7, 100, false).size(), 3u);   // 100 us, 10 ms, 1 s
}

TEST(Chart, KeysShareAColourAndAlgorithmsKeepTheirs) {
  Chart chart;
  chart.x = {.title = "", .unit = Unit::Bytes};
  chart.y = {.title = "", .unit = Unit::Micros};
  chart.series = {{.name = "a", .key = "run.json", .points = {{8, 1}}},
                  {.name = "b", .key = "rabenseifner", .points = {{8, 2}}},
                  {.name = "c", .key = "run.json", .points = {{16, 3}}}};
  const auto svg = parseXml(chartSvg(chart));
  EXPECT_EQ(seriesNamed(*svg, "a").attr("fill"), seriesNamed(*svg, "c").attr("fill"));
  EXPECT_EQ(seriesNamed(*svg, "b").attr("fill"), paletteColour(2));  // its place in the registry
  EXPECT_EQ(seriesNamed(*svg, "a").attr("fill"), paletteColour(0));  // the first free colour
  chart.series[0].name = "<&\"'>";
  EXPECT_EQ(parseXml(chartSvg(chart))->byClass("legend-entry")[0]->attr("data-name"), "<&\"'>");
}

// A timeline of `n` tensors of 4 KiB, one every 10 us, and its per-tensor and single-bucket plans.
struct BigPlan {
  plan::Timeline timeline;
  std::vector<GanttRow> rows;
  explicit BigPlan(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      timeline.tensors.push_back(
          {"t" + std::to_string(i), 1024, DataType::Float32, 10e-6 * (i + 1), std::nullopt});
    timeline.backwardEnd_s = 10e-6 * n;
    model::ModelParams params;
    params.link = {5e-6, 1e-10};
    const plan::BucketCost cost(8, DataType::Float32, params);
    rows.push_back({"per-tensor", plan::predict(timeline, plan::perTensorBuckets(timeline), cost)});
    rows.push_back({"single", plan::predict(timeline, plan::singleBucket(timeline), cost)});
  }
};

// Reads each plan's bars back ("bucket i", "buckets a-b (n merged)") and checks that they cover
// every bucket once, in order; returns how many bars were merged ranges.
std::size_t expectEveryBucketDrawn(const XmlElement& svg, const BigPlan& big) {
  std::size_t ranges = 0;
  const auto plans = svg.byClass("plan");
  EXPECT_EQ(plans.size(), big.rows.size());
  for (std::size_t p = 0; p < plans.size(); ++p) {
    std::size_t next = 0;
    for (const XmlElement* rect : plans[p]->byName("rect")) {
      std::smatch m;
      const std::string title = rect->text;
      if (std::regex_search(title, m, std::regex(R"(^buckets (\d+)-(\d+) \((\d+) merged\))"))) {
        EXPECT_EQ(std::stoul(m[1]), next) << title;
        EXPECT_EQ(std::stoul(m[3]), std::stoul(m[2]) - std::stoul(m[1]) + 1) << title;
        EXPECT_TRUE(rect->hasClass("range"));
        next = std::stoul(m[2]) + 1;
        ++ranges;
      } else if (std::regex_search(title, m, std::regex(R"(^bucket (\d+):)"))) {
        EXPECT_EQ(std::stoul(m[1]), next) << title;
        next += 1;
      } else {
        ADD_FAILURE() << "a bar without its buckets: " << title;
      }
    }
    EXPECT_EQ(next, big.rows[p].prediction.buckets.size()) << big.rows[p].label;
  }
  return ranges;
}

TEST(Gantt, TwentyThousandTensorsStayUnder300KBWithEveryBucketDrawn) {
  const BigPlan big(20000);
  const std::string text = ganttSvg(big.timeline, big.rows, "t");
  EXPECT_LT(text.size(), 300u * 1000) << "was 9 MB before bars were merged";
  const auto svg = parseXml(text);
  const std::size_t ranges = expectEveryBucketDrawn(*svg, big);
  EXPECT_GT(ranges, 0u);
  // At most about two bars per kMergePx = 3 pixels of the 900-pixel row.
  EXPECT_LE(svg->byClass("plan")[0]->byName("rect").size(), 601u);
  const auto notes = texts(svg->byClass("note"));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[1].find(std::to_string(ranges) + " ranges of adjacent buckets"),
            std::string::npos)
      << notes[1];
  expectAllMatch(tickLabels(*svg, "x-axis"), kTimeLabel);
}

TEST(Gantt, FewTensorsKeepABarPerBucket) {
  const BigPlan small(12);
  const auto svg = parseXml(ganttSvg(small.timeline, small.rows, "t <&>"));
  EXPECT_EQ(expectEveryBucketDrawn(*svg, small), 0u);
  EXPECT_EQ(svg->byClass("plan")[0]->byName("rect").size(), 12u);
  EXPECT_EQ(svg->byClass("range").size(), 0u);
  EXPECT_EQ(svg->byClass("note").size(), 1u);  // no merged ranges to explain
}

}  // namespace
}  // namespace ringlab::report
