// `--svg` of bench, tune and sim end to end: the real binary (RINGLAB_BINARY) writes a picture
// that reads as XML with the series the run produced, the model's line only with a profile,
// other runs overlaid; bad --svg and --overlay values are refused before anything is measured.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_ringlab.hpp"
#include "svg_xml.hpp"

namespace {

using ringlab::test::CliResult;
using ringlab::test::parseXml;
using ringlab::test::XmlElement;

std::string data(const std::string& name) {
  return std::string(RINGLAB_TEST_DATA) + "/" + name;
}

std::string scratch(const std::string& name) {
  return ::testing::TempDir() + "pictures_cli_" + name;
}

CliResult run(const std::string& line) {
  return ringlab::test::runRinglab(ringlab::test::splitWords(line), 120);
}

std::unique_ptr<XmlElement> picture(const std::string& path) {
  return parseXml(ringlab::test::slurpFile(path));
}

std::vector<std::string> legend(const XmlElement& svg) {
  std::vector<std::string> names;
  for (const XmlElement* e : svg.byClass("legend-entry")) names.push_back(e->attr("data-name"));
  return names;
}

const std::string kSmallBench = "bench -p 2 -b 1K -e 16K -n 2 -w 1";  // 5 sizes

TEST(PicturesCli, BenchDrawsBusbwAndTheModelOnlyWithAProfile) {
  const std::string plain = scratch("bench.svg"), modelled = scratch("bench_model.svg");
  const CliResult a = run(kSmallBench + " --svg " + plain);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("# busbw plot written to " + plain), std::string::npos) << a.out;
  const auto svg = picture(plain);
  ASSERT_EQ(svg->byClass("series").size(), 1u);
  EXPECT_EQ(svg->byClass("measured")[0]->byName("circle").size(), 5u);
  EXPECT_EQ(svg->byClass("model").size(), 0u);
  EXPECT_EQ(legend(*svg), std::vector<std::string>{"this run: ring, p 2"});

  const CliResult b = run(kSmallBench + " --profile " + data("plan_profile_p2.json") +
                          " --profile-any-transport --svg " + modelled);
  ASSERT_EQ(b.status, 0) << b.err;
  const auto withModel = picture(modelled);
  ASSERT_EQ(withModel->byClass("model").size(), 1u);
  EXPECT_EQ(withModel->byClass("model")[0]->attr("data-points"), "5");
  EXPECT_EQ(legend(*withModel),
            (std::vector<std::string>{"this run: ring, p 2", "model: ring, p 2"}));
}

TEST(PicturesCli, BenchOverlaysRunsAndNcclTestsLogs) {
  const std::string json = scratch("overlay.json"), svg = scratch("overlay.svg");
  ASSERT_EQ(run(kSmallBench + " --algo recursive_doubling --json " + json).status, 0);
  const CliResult r = run(kSmallBench + " --svg " + svg + " --overlay " + json + "," +
                          data("nccl_all_reduce_perf_16ranks.log"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = picture(svg);
  const auto overlays = doc->byClass("overlay");
  ASSERT_EQ(overlays.size(), 2u);
  EXPECT_EQ(overlays[0]->attr("data-points"), "5");
  EXPECT_EQ(overlays[1]->attr("data-points"), "5");  // the log's five rows
  const std::vector<std::string> names = legend(*doc);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1], "pictures_cli_overlay.json: recursive_doubling, p 2");
  EXPECT_EQ(names[2], "nccl_all_reduce_perf_16ranks.log: nccl-tests all_reduce_perf, p 16");
}

void expectRefused(const std::string& line, const std::string& needle) {
  const CliResult r = run(line);
  EXPECT_EQ(r.status, 2) << line << "\n" << r.out << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("wrong elements"), std::string::npos) << "measured before refusing";
}

TEST(PicturesCli, BadPictureOptionsAreRefusedBeforeMeasuring) {
  expectRefused(kSmallBench + " --overlay " + data("nccl_all_reduce_perf_16ranks.log"),
                "--overlay draws other runs into the --svg picture: add --svg FILE");
  expectRefused(kSmallBench + " --svg " + scratch("x.svg") + " --overlay " + data("plain_text.txt"),
                "--overlay " + data("plain_text.txt"));
  expectRefused(kSmallBench + " --svg /nonexistent-dir/x.svg", "--svg /nonexistent-dir/x.svg");
  expectRefused(
      "tune -p 2 -b 8 -e 64 --json " + scratch("t.json") + " --svg /nonexistent-dir/t.svg",
      "--svg /nonexistent-dir/t.svg");
}

TEST(PicturesCli, TuneDrawsEveryAlgorithmAndTheFastestPerSize) {
  const std::string svg = scratch("tune.svg");
  const CliResult r =
      run("tune -p 2 -b 8 -e 512 -f 4 -n 2 -w 1 --rounds 2 --algos "
          "ring,recursive_doubling,binomial_tree --json " +
          scratch("tune.json") + " --svg " + svg);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = picture(svg);
  EXPECT_EQ(legend(*doc),
            (std::vector<std::string>{"ring", "recursive_doubling", "binomial_tree"}));
  for (const XmlElement* s : doc->byClass("series")) EXPECT_EQ(s->attr("data-points"), "4");
  // One band per rule the table printed.
  std::size_t rules = 0;
  for (std::size_t at = r.out.find("# rules");
       (at = r.out.find("\n#   ", at + 1)) != std::string::npos;)
    ++rules;
  EXPECT_GE(rules, 1u) << r.out;
  EXPECT_EQ(doc->byClass("band").size(), rules) << r.out;
}

TEST(PicturesCli, SimDrawsTheSimulatedBusbw) {
  const std::string svg = scratch("sim.svg");
  const CliResult r = run("sim --topo nodes=2 -b 1K -e 1M -f 4 --svg " + svg);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = picture(svg);
  ASSERT_EQ(doc->byClass("simulated").size(), 1u);
  EXPECT_EQ(doc->byClass("simulated")[0]->attr("data-points"), "6");
  EXPECT_EQ(legend(*doc), std::vector<std::string>{"ring, p 2 (simulated)"});
}

}  // namespace
