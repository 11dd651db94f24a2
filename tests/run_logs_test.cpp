// The log readers on real third-party logs (tests/data/nccl_tests, tests/data/osu; where each came
// from: tests/data/README.md). Every expected figure was read off the file by hand: row counts,
// first and last sizes, a chosen row's times, and its busbw recomputed from size, time and p
// (busbw = size / time x 2(p-1)/p, nccl-tests' doc/PERFORMANCE.md), which holds p and the time
// together.
#include <gtest/gtest.h>

#include <string>

#include "expect_error.hpp"
#include "ringlab/core/file.hpp"
#include "ringlab/gpu/system_spec.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/record/comparison.hpp"
#include "ringlab/record/gpu_comparison.hpp"
#include "ringlab/record/run_logs.hpp"

namespace ringlab::record {
namespace {

std::string data(const std::string& file) {
  return std::string(RINGLAB_TEST_DATA) + "/" + file;
}

std::vector<LoggedRun> runs(const std::string& file, std::optional<int> ranks = std::nullopt) {
  return readRuns(data(file), "log", LogOptions{ranks});
}

LoggedRun one(const std::string& file, std::optional<int> ranks = std::nullopt) {
  const std::vector<LoggedRun> all = runs(file, ranks);
  EXPECT_EQ(all.size(), 1u) << file;
  return all.at(0);
}

const RecordRow& rowOf(const RunRecord& r, std::uint64_t bytes) {
  for (const RecordRow& row : r.rows)
    if (row.bytes == bytes) return row;
  throw std::runtime_error("no row of " + std::to_string(bytes) + " B");
}

// nccl-tests' busbw column from the record's size and out-of-place time.
double busbwGBps(const RunRecord& r, std::uint64_t bytes) {
  const double p = r.run.ranks;
  return bytes / (rowOf(r, bytes).outOfPlace->timeUs * 1e3) * 2 * (p - 1) / p;
}

bool hasNote(const LoggedRun& run, const std::string& needle) {
  for (const std::string& note : run.notes)
    if (note.find(needle) != std::string::npos) return true;
  return false;
}

void expectSameRows(const RunRecord& a, const RunRecord& b) {
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t k = 0; k < a.rows.size(); ++k) {
    EXPECT_EQ(a.rows[k].bytes, b.rows[k].bytes);
    EXPECT_EQ(a.rows[k].count, b.rows[k].count);
    EXPECT_EQ(a.rows[k].dtype, b.rows[k].dtype);
    EXPECT_DOUBLE_EQ(a.rows[k].outOfPlace->timeUs, b.rows[k].outOfPlace->timeUs);
    EXPECT_DOUBLE_EQ(a.rows[k].inPlace->timeUs, b.rows[k].inPlace->timeUs);
  }
  EXPECT_EQ(a.run.ranks, b.run.ranks);
}

// ---------------------------------------------------------------------------------------------
// nccl-tests text, complete logs

// 2 nodes x 8 H100, mpirun, a version without the "# nccl-tests version" line.
TEST(NcclTestsLogs, H100SixteenRanksMpirun) {
  const LoggedRun run = one("nccl_tests/h100_16ranks_mpirun.log");
  const RunRecord& r = run.record;
  EXPECT_EQ(r.run.ranks, 16);
  ASSERT_EQ(r.rows.size(), 31u);
  EXPECT_EQ(r.rows.front().bytes, 8u);
  EXPECT_EQ(r.rows.back().bytes, 8589934592ull);
  EXPECT_DOUBLE_EQ(rowOf(r, 1073741824).outOfPlace->timeUs, 6759.0);
  EXPECT_DOUBLE_EQ(rowOf(r, 1073741824).inPlace->timeUs, 6737.4);
  EXPECT_NEAR(busbwGBps(r, 1073741824), 297.86, 0.01);
  EXPECT_EQ(r.run.dtype, "float32");
  EXPECT_EQ(r.run.op, "sum");
  EXPECT_EQ(r.source, "nccl-tests all_reduce_perf");
  EXPECT_EQ(run.device, "GPUs (NVIDIA H100 80GB HBM3)");
  EXPECT_TRUE(run.name.empty());
  EXPECT_TRUE(run.notes.empty()) << run.notes.front();
}

// 2 x GH200 under srun, nccl-tests 2.18.2 with its version and "concluded" lines.
TEST(NcclTestsLogs, GH200TwoRanksSrunVersion2182) {
  const LoggedRun run = one("nccl_tests/gh200_2ranks_v2.18.2_srun.log");
  const RunRecord& r = run.record;
  EXPECT_EQ(r.run.ranks, 2);
  ASSERT_EQ(r.rows.size(), 8u);
  EXPECT_EQ(r.rows.front().bytes, 1048576u);
  EXPECT_EQ(r.rows.back().bytes, 134217728u);
  EXPECT_DOUBLE_EQ(rowOf(r, 33554432).outOfPlace->timeUs, 1537.62);
  EXPECT_DOUBLE_EQ(rowOf(r, 33554432).inPlace->timeUs, 1538.74);
  EXPECT_NEAR(busbwGBps(r, 33554432), 21.82, 0.01);  // p = 2: busbw = algbw
  EXPECT_EQ(r.source, "nccl-tests 2.18.2 all_reduce_perf");
  EXPECT_TRUE(run.notes.empty());
}

// 8 GH200 on 2 nodes, nccl-tests 2.17.1: a documentation page's paste, indented four spaces,
// rows indented unevenly, a linker warning per rank before the output.
TEST(NcclTestsLogs, GH200EightRanksIndentedVersion2171) {
  const LoggedRun run = one("nccl_tests/gh200_8ranks_v2.17.1_indented.log");
  const RunRecord& r = run.record;
  EXPECT_EQ(r.run.ranks, 8);
  ASSERT_EQ(r.rows.size(), 25u);
  EXPECT_EQ(r.rows.front().bytes, 8u);
  EXPECT_EQ(r.rows.back().bytes, 134217728u);
  EXPECT_DOUBLE_EQ(rowOf(r, 67108864).outOfPlace->timeUs, 1090.5);
  EXPECT_DOUBLE_EQ(rowOf(r, 67108864).inPlace->timeUs, 1083.5);
  EXPECT_NEAR(busbwGBps(r, 67108864), 107.69, 0.01);
  EXPECT_EQ(run.device, "GPUs (NVIDIA GH200 120GB)");
}

// 2 nodes x 8 A100, one 10 GiB row, the shell prompt after the trailer.
TEST(NcclTestsLogs, A100SixteenRanksOneRow) {
  const LoggedRun run = one("nccl_tests/a100_16ranks_one_row.log");
  ASSERT_EQ(run.record.rows.size(), 1u);
  EXPECT_EQ(run.record.run.ranks, 16);
  EXPECT_EQ(run.record.rows[0].bytes, 10737418240ull);
  EXPECT_EQ(run.record.rows[0].count, 2684354560ull);
  EXPECT_DOUBLE_EQ(run.record.rows[0].outOfPlace->timeUs, 90330);
  EXPECT_DOUBLE_EQ(run.record.rows[0].inPlace->timeUs, 91945);
  EXPECT_NEAR(busbwGBps(run.record, 10737418240ull), 222.88, 0.01);
}

// ---------------------------------------------------------------------------------------------
// nccl-tests text, as pasted

// NCCL INFO lines between the row and the trailer, no header, no rank lines: p from "nranks 2".
TEST(NcclTestsLogs, InfoLinesAfterTheRowGiveP) {
  const LoggedRun run = one("nccl_tests/info_after_row_nccl1706.log");
  ASSERT_EQ(run.record.rows.size(), 1u);
  EXPECT_EQ(run.record.run.ranks, 2);
  EXPECT_EQ(run.record.rows[0].bytes, 134217728u);
  EXPECT_DOUBLE_EQ(run.record.rows[0].outOfPlace->timeUs, 5190.8);
  EXPECT_DOUBLE_EQ(run.record.rows[0].inPlace->timeUs, 5186.6);
  EXPECT_NEAR(busbwGBps(run.record, 134217728), 25.86, 0.01);
  EXPECT_TRUE(hasNote(run, "p = 2 from the NCCL INFO lines ('nranks 2')"));
  EXPECT_TRUE(hasNote(run, "no column header"));
  EXPECT_FALSE(hasNote(run, "Avg bus bandwidth"));  // the trailer is there
  test::expectInvalid([] { runs("nccl_tests/info_after_row_nccl1706.log", 4); },
                      {"-p 4 but the log says p = 2 ('nranks 2' in its NCCL INFO lines)"});
}

// mpirun --tag-output: every line "[1,0]<stdout>:", the paste cut in the fourth row, no rank lines.
TEST(NcclTestsLogs, TagOutputPrefixAndACutRow) {
  test::expectInvalid([] { runs("nccl_tests/tag_output_p5_k8s_tester503.log"); },
                      {"no '#  Rank N ...' lines", "give the number of ranks with -p N"});
  const LoggedRun run = one("nccl_tests/tag_output_p5_k8s_tester503.log", 8);
  const RunRecord& r = run.record;
  EXPECT_EQ(r.run.ranks, 8);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows.front().bytes, 8u);
  EXPECT_EQ(r.rows.back().bytes, 32u);
  EXPECT_DOUBLE_EQ(rowOf(r, 32).outOfPlace->timeUs, 22.25);
  EXPECT_DOUBLE_EQ(rowOf(r, 32).inPlace->timeUs, 13.34);
  EXPECT_TRUE(hasNote(run, "line 7 is a row cut short or malformed, left out: '64 16'"));
  EXPECT_TRUE(hasNote(run, "no '# Avg bus bandwidth' line"));
  EXPECT_TRUE(hasNote(run, "p = 8 from -p"));
}

// Four rows, then the paste stops: read, with the missing trailer said.
TEST(NcclTestsLogs, V100FourRanksWithoutTrailer) {
  const LoggedRun run = one("nccl_tests/v100_4ranks_no_trailer_nccl1039.log");
  EXPECT_EQ(run.record.run.ranks, 4);
  ASSERT_EQ(run.record.rows.size(), 4u);
  EXPECT_EQ(run.record.rows.front().bytes, 8u);
  EXPECT_EQ(run.record.rows.back().bytes, 64u);
  EXPECT_DOUBLE_EQ(rowOf(run.record, 64).outOfPlace->timeUs, 18.59);
  EXPECT_DOUBLE_EQ(rowOf(run.record, 64).inPlace->timeUs, 17.65);
  EXPECT_EQ(run.device, "GPUs (Tesla V100-PCIE-16GB)");
  ASSERT_EQ(run.notes.size(), 1u);
  EXPECT_NE(run.notes[0].find("no '# Avg bus bandwidth' line"), std::string::npos);
}

// The same run as CRLF text and under `srun -l` (each line "0: "): the same record.
TEST(NcclTestsLogs, CrlfAndSrunLabelsReadTheSame) {
  const std::string text = readTextFile(data("nccl_tests/gh200_2ranks_v2.18.2_srun.log"), "log");
  std::string crlf, labelled;
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    crlf += line + "\r\n";
    labelled += "0: " + line + "\n";
  }
  const RunRecord plain = parseRuns(text, "a", {}).at(0).record;
  expectSameRows(parseRuns(crlf, "b", {}).at(0).record, plain);
  expectSameRows(parseRuns(labelled, "c", {}).at(0).record, plain);
}

// Two runs in one file (two pastes one after the other): two runs of their own p, not one of 6.
TEST(NcclTestsLogs, TwoRunsInOneFileKeptApart) {
  const std::string both =
      readTextFile(data("nccl_tests/gh200_2ranks_v2.18.2_srun.log"), "log") +
      readTextFile(data("nccl_tests/v100_4ranks_no_trailer_nccl1039.log"), "log");
  const std::vector<LoggedRun> r = parseRuns(both, "two.log", {});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "run 1 of 2");
  EXPECT_EQ(r[0].record.run.ranks, 2);
  EXPECT_EQ(r[0].record.rows.size(), 8u);
  EXPECT_TRUE(r[0].notes.empty());
  EXPECT_EQ(r[1].name, "run 2 of 2");
  EXPECT_EQ(r[1].record.run.ranks, 4);
  EXPECT_EQ(r[1].record.rows.size(), 4u);
  test::expectInvalid([&] { parseRecord(both, "two.log"); },
                      {"two.log: holds several runs or cases (run 1 of 2; run 2 of 2)"});
}

// NCCL_ALGO and NCCL_PROTO as a log shows them set: on the mpirun line that opens a public log,
// and from NCCL_DEBUG=INFO, each run keeping what was set before its rows.
TEST(NcclTestsLogs, TheRunsNcclAlgoAndProtoAreRead) {
  const LoggedRun h200 = one("gpu_logs/h200_2node_dgx_sockets_schmaustech.log");
  EXPECT_EQ(h200.ncclAlgo, "ring");  // "-x NCCL_ALGO=ring"
  EXPECT_EQ(h200.ncclProto, "");
  const std::string gh200 = readTextFile(data("nccl_tests/gh200_2ranks_v2.18.2_srun.log"), "log");
  const std::vector<LoggedRun> r = parseRuns(
      "host:1:2 [0] NCCL INFO NCCL_ALGO set by environment to Ring,Tree\n"
      "export NCCL_PROTO=\"^LL128\"\n" +
          gh200 + "NCCL_ALGO=NVLS ./all_reduce_perf -b 8\n" + gh200,
      "two.log", {});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].ncclAlgo, "Ring+Tree");
  EXPECT_EQ(r[0].ncclProto, "^LL128");
  EXPECT_EQ(r[1].ncclAlgo, "NVLS");
  EXPECT_TRUE(one("nccl_tests/gh200_2ranks_v2.18.2_srun.log").ncclAlgo.empty());
}

// -o all pasted without its header: the max rows and the min rows, each a run of its own.
TEST(NcclTestsLogs, OpAllRowsKeptApartAndPCheckedByBusbw) {
  const std::vector<LoggedRun> r = runs("nccl_tests/op_all_rows_issue167.log", 16);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "float32 max");
  EXPECT_EQ(r[0].record.run.op, "max");
  ASSERT_EQ(r[0].record.rows.size(), 6u);
  EXPECT_EQ(r[0].record.rows.front().bytes, 199680u);
  EXPECT_EQ(r[0].record.rows.back().bytes, 204800u);
  EXPECT_DOUBLE_EQ(rowOf(r[0].record, 200704).outOfPlace->timeUs, 125.3);
  EXPECT_NEAR(busbwGBps(r[0].record, 200704), 3.00, 0.01);
  EXPECT_EQ(r[1].name, "float32 min");
  ASSERT_EQ(r[1].record.rows.size(), 5u);
  EXPECT_EQ(r[1].record.rows.front().bytes, 196608u);
  EXPECT_EQ(r[1].record.rows.back().bytes, 200704u);
  EXPECT_TRUE(hasNote(r[1], "line 12 is a row cut short"));
  // busbw/algbw = 3.02/1.61 = 1.876 allows p >= 16 only, and 2.99/1.60 = 1.869 p <= 16 only.
  test::expectInvalid([] { runs("nccl_tests/op_all_rows_issue167.log", 4); },
                      {"-p 4 but the log says p = 16 by line 2 (size 200704): busbw/algbw = "
                       "3.02/1.61 = 1.876 and line 1 (size 199680)"});
}

// ---------------------------------------------------------------------------------------------
// nccl-tests text: what the figures prove

// fp8 rows (microsoft/mscclpp PR 646: nccl-tests' f8e5m2 on H100, and fp8_e4m3 as rccl-tests names
// it): measurements of a type ringlab does not run, read with its one-byte elements and the log's
// name. No rank lines: p = 8 by busbw/algbw (59.36/33.92 = 1.750); the last row is cut.
TEST(NcclTestsLogs, Fp8RowsAreMeasurements) {
  const LoggedRun e5m2 = one("nccl_tests/fp8_e5m2_h100_rows_mscclpp646.log");
  const RunRecord& r = e5m2.record;
  EXPECT_EQ(r.run.dtype, "f8e5m2");
  EXPECT_EQ(r.run.ranks, 8);
  ASSERT_EQ(r.rows.size(), 11u);
  EXPECT_EQ(r.rows.front().bytes, 1024u);
  EXPECT_EQ(r.rows.front().count, 1024u);
  EXPECT_EQ(r.rows.back().bytes, 1048576u);
  EXPECT_DOUBLE_EQ(rowOf(r, 1048576).outOfPlace->timeUs, 30.91);
  EXPECT_DOUBLE_EQ(rowOf(r, 1048576).inPlace->timeUs, 30.88);
  EXPECT_NEAR(busbwGBps(r, 1048576), 59.36, 0.01);
  EXPECT_TRUE(hasNote(e5m2, "p = 8 from the figures (p = 8 by line"));
  EXPECT_TRUE(hasNote(e5m2, "line 12 is a row cut short"));
  const LoggedRun e4m3 = one("nccl_tests/fp8_e4m3_rows_mscclpp646.log");
  EXPECT_EQ(e4m3.record.run.dtype, "fp8_e4m3");
  EXPECT_EQ(e4m3.record.run.ranks, 8);
  ASSERT_EQ(e4m3.record.rows.size(), 11u);
  EXPECT_NEAR(busbwGBps(e4m3.record, 1048576), 34.92, 0.01);

  // Every consumer keeps working: the record as the lab's record API and Python's read_record
  // read it, and the GPU verdict, which prices bytes.
  const RunRecord again = parseRecord(toJson(r).dump(), "record.json");
  EXPECT_EQ(again.rows.front().dtype, "f8e5m2");
  EXPECT_EQ(
      parseRecord(readTextFile(data("nccl_tests/fp8_e5m2_h100_rows_mscclpp646.log"), "log"), "log")
          .run.dtype,
      "f8e5m2");
  const GpuComparison gpu = compareGpu(e5m2, gpu::parseSystem("dgx-h100"), "log");
  EXPECT_EQ(gpu.verdict.rows.size(), 11u);
  // The CPU model cannot price an fp8 reduction, and says so.
  test::expectInvalid(
      [&] { compare(r, comparedAlgorithm(r, ""), model::defaultProfile(), "log"); },
      {"log: the rows reduce f8e5m2, which ringlab neither runs nor prices", "GPU system"});
  // A type no log prints is refused naming it and the names a log may use.
  std::string text = readTextFile(data("nccl_tests/fp8_e5m2_h100_rows_mscclpp646.log"), "log");
  for (std::size_t at; (at = text.find("f8e5m2")) != std::string::npos;)
    text.replace(at, 6, "f7e5m2");
  test::expectInvalid([&] { parseRuns(text, "f7.log", {}); },
                      {"line 1 (size 1024): unknown datatype 'f7e5m2'", "f8e4m3, f8e5m2"});
}

// Pastes that keep some of the rank lines: p from the evidence, a given p held to it.
TEST(NcclTestsLogs, PartialRankLinesAndTheFigures) {
  // GB200 NVL72 (coreweave's README): only rank 71's line; busbw/algbw = 586.06/297.16 = 1.9722
  // is 2(p-1)/p for p = 72 alone within its rounding.
  const LoggedRun gb200 = one("gpu_logs/gb200_nvl72_rack_coreweave.log");
  EXPECT_EQ(gb200.record.run.ranks, 72);
  ASSERT_EQ(gb200.record.rows.size(), 5u);
  EXPECT_NEAR(busbwGBps(gb200.record, 536870912), 586.06, 0.01);
  EXPECT_TRUE(hasNote(gb200, "p = 72 from the figures"));
  EXPECT_TRUE(hasNote(gb200, "the log shows 1 of the '#  Rank' lines, up to rank 71"));
  EXPECT_EQ(one("gpu_logs/gb200_nvl72_rack_coreweave.log", 72).record.run.ranks, 72);
  test::expectInvalid([] { runs("gpu_logs/gb200_nvl72_rack_coreweave.log", 71); },
                      {"-p 71 but the log says p >= 72 (a '#  Rank' line for rank 71)"});
  test::expectInvalid([] { runs("gpu_logs/gb200_nvl72_rack_coreweave.log", 73); },
                      {"-p 73 but the log says p = 72 by line 6 (size 536870912): busbw/algbw = "
                       "586.06/297.16 = 1.972"});

  // Ranks 7 and 15 of the 16 of a real log, the others cut out: p = 16, as the figures say.
  std::string h100;
  for (const std::string& line : [] {
         std::vector<std::string> lines;
         std::string text = readTextFile(data("nccl_tests/h100_16ranks_mpirun.log"), "log");
         for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
           end = text.find('\n', start);
           lines.push_back(text.substr(start, end - start));
         }
         return lines;
       }()) {
    const bool rankLine = line.rfind("#  Rank", 0) == 0;
    if (!rankLine || line.find("Rank  7 ") != std::string::npos ||
        line.find("Rank 15 ") != std::string::npos)
      h100 += line + "\n";
  }
  const LoggedRun two = parseRuns(h100, "two.log", {}).at(0);
  EXPECT_EQ(two.record.run.ranks, 16);
  EXPECT_TRUE(hasNote(two, "the log shows 2 of the '#  Rank' lines, up to rank 15"));
  EXPECT_EQ(parseRuns(h100, "two.log", {16}).at(0).record.run.ranks, 16);
  test::expectInvalid([&] { parseRuns(h100, "two.log", {8}); },
                      {"-p 8 but the log says p >= 16 (a '#  Rank' line for rank 15)"});

  // p5 on EKS (awsome-distributed-training): '[1,0]<stdout>:' behind an indent, '...' for the rows
  // below 64 MiB, no rank lines: p = 16 by busbw/algbw = 437.79/233.49 = 1.875.
  const LoggedRun eks = one("gpu_logs/h100_p5_2node_efa_eks_awsome.log");
  EXPECT_EQ(eks.record.run.ranks, 16);
  ASSERT_EQ(eks.record.rows.size(), 7u);
  EXPECT_EQ(eks.record.rows.front().bytes, 0u);
  EXPECT_DOUBLE_EQ(rowOf(eks.record, 67108864).outOfPlace->timeUs, 996.0);
  EXPECT_NEAR(busbwGBps(eks.record, 67108864), 126.33, 0.01);
  EXPECT_TRUE(hasNote(eks, "p = 16 from the figures"));

  // L40S over RoCE (schmaustech): 4 rank lines; the 2 KiB row's 0.10/0.14 is too coarse to tell
  // p (0.135/0.105 .. 0.145/0.095 holds 1.5) and decides nothing; the large rows say p = 4.
  const LoggedRun l40s = one("gpu_logs/l40s_2node_2gpu_roce_schmaustech.log");
  EXPECT_EQ(l40s.record.run.ranks, 4);
  ASSERT_EQ(l40s.record.rows.size(), 31u);
  EXPECT_DOUBLE_EQ(rowOf(l40s.record, 8589934592ull).outOfPlace->timeUs, 1338003);
  EXPECT_NEAR(busbwGBps(l40s.record, 8589934592ull), 9.63, 0.01);
  EXPECT_TRUE(l40s.notes.empty()) << l40s.notes.front();
  test::expectInvalid([] { runs("gpu_logs/l40s_2node_2gpu_roce_schmaustech.log", 8); },
                      {"-p 8 but the log says p = 4 by line"});
}

// NCCL 1.x's all_reduce_test (NVIDIA/nccl's README at v1.3.4): times in ms, a res column, device
// lines instead of rank lines. Every row's algbw = size / time holds in ms only (10000000 bytes in
// 1.628 ms = 6.14 GB/s), so its times are read in ms and the notes say so; p = 4 by busbw/algbw.
TEST(NcclTestsLogs, TimesInTheUnitTheirFiguresProve) {
  const std::vector<LoggedRun> r = runs("nccl_tests/nccl1_all_reduce_test_ms_readme.log");
  ASSERT_EQ(r.size(), 20u);  // one row per (type, op) case
  const LoggedRun& charSum = r.front();
  EXPECT_EQ(charSum.name, "int8 sum");
  EXPECT_EQ(charSum.record.run.ranks, 4);
  EXPECT_EQ(charSum.record.source, "NCCL 1.x all_reduce_test");
  ASSERT_EQ(charSum.record.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(charSum.record.rows[0].outOfPlace->timeUs, 1628.0);
  EXPECT_DOUBLE_EQ(charSum.record.rows[0].inPlace->timeUs, 1932.0);
  EXPECT_NEAR(busbwGBps(charSum.record, 10000000), 9.21, 0.01);
  EXPECT_FALSE(charSum.record.rows[0].outOfPlace->wrong);  // res is an error, not a count
  EXPECT_TRUE(hasNote(charSum, "times read in ms, as NCCL 1.x's tests print them"));
  EXPECT_TRUE(hasNote(charSum, "p = 4 from the figures"));
  const LoggedRun& doubleMin = r.back();
  EXPECT_EQ(doubleMin.name, "float64 min");
  EXPECT_DOUBLE_EQ(doubleMin.record.rows[0].outOfPlace->timeUs, 1622.0);

  // A row whose time fits its algbw in neither unit is refused, naming the row and its figures:
  // the H100 log with one time written 100x too small.
  std::string text = readTextFile(data("nccl_tests/h100_16ranks_mpirun.log"), "log");
  text.replace(text.find("6759.0"), 6, "67.590");
  test::expectInvalid([&] { parseRuns(text, "cut.log", {}); },
                      {"cut.log: line",
                       "(size 1073741824): time 67.59 and algbw 158.86 GB/s "
                       "disagree in either unit"});
}

TEST(NcclTestsLogs, RefusedWithTheReason) {
  // Two processes printing at once (nccl-tests without MPI under mpirun): sizes go back to 8.
  test::expectInvalid([] { runs("nccl_tests/interleaved_rows_issue182.log"); },
                      {"line 8: size 8 after 256", "interleaved"});
  // broadcast_perf of an older version: no redop column, root 0; NCCL WARN lines before.
  test::expectInvalid([] { runs("nccl_tests/broadcast_warn_issue82.log"); },
                      {"line 16 (size 8)", "root '0'", "another collective"});
  // The paste stops inside the first row.
  test::expectInvalid([] { runs("nccl_tests/rtx4090_cut_row_nccl1530.log"); },
                      {"no complete row; line 17 is a row cut short"});
}

// Ours: -I's per-iteration columns, printed as src/util.cu of nccl-tests 2.19.6 prints them
// (writeResultHeader, writeBenchmarkLineBody, writePerIterReport): the times are found by the
// header, not by position.
TEST(NcclTestsLogs, PerIterationColumns) {
  const std::string log =
      "# nccl-tests version 2.19.6 nccl-headers=22903 nccl-library=22903\n"
      "# Collective test starting: all_reduce_perf\n"
      "#  Rank  0 Group  0 Pid      1 on          h device  0 [0000:01:00] GPU A\n"
      "#  Rank  1 Group  0 Pid      1 on          h device  1 [0000:02:00] GPU A\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong    "
      "i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    "
      "i_p99    i_cv%\n"
      "     1048576        262144     float     sum      -1   100.00   10.49   10.49       0    "
      "98.00   104.00   103.00     1.50   101.00   10.38   10.38       0    99.00   105.00   "
      "104.00     1.60\n"
      "# Avg bus bandwidth    : 10.435 \n";
  const LoggedRun run = parseRuns(log, "i.log", {}).at(0);
  ASSERT_EQ(run.record.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(run.record.rows[0].outOfPlace->timeUs, 100.0);
  EXPECT_DOUBLE_EQ(run.record.rows[0].inPlace->timeUs, 101.0);
  EXPECT_EQ(run.record.source, "nccl-tests 2.19.6 all_reduce_perf");
  EXPECT_TRUE(run.notes.empty());
}

// Ours, from a finding of the file-format fuzzer: a header cut after the in-place "time" still
// makes a row complete only with that pass's four words; a shorter row is a row cut short.
TEST(NcclTestsLogs, AHeaderCutInsideThePassNeedsTheWholePass) {
  const std::string head =
      "#  Rank  0 Group  0 Pid      1 on          h device  0 [0000:01:00] GPU A\n"
      "#  Rank  1 Group  0 Pid      1 on          h device  1 [0000:02:00] GPU A\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong  "
      "   time\n";
  test::expectInvalid(
      [&] {
        parseRuns(head +
                      "     1048576        262144     float     sum      -1   100.00   "
                      "10.49   10.49       0   101.00\n",
                  "cut.log", {});
      },
      {"no complete row; line 4 is a row cut short"});
  const LoggedRun run =
      parseRuns(head +
                    "     1048576        262144     float     sum      -1   100.00   10.49   "
                    "10.49       0   101.00   10.38   10.38       0\n",
                "cut.log", {})
          .at(0);
  ASSERT_EQ(run.record.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(run.record.rows[0].inPlace->timeUs, 101.0);
}

// ---------------------------------------------------------------------------------------------
// nccl-tests -J

// Ours: the GH200 run above written as src/util.cu of nccl-tests 2.19.6 writes -J output.
TEST(NcclTestsJson, ReadsTheSameRowsAsTheText) {
  const LoggedRun json = one("nccl_tests/ours_json_v3_from_gh200_srun.json");
  const LoggedRun text = one("nccl_tests/gh200_2ranks_v2.18.2_srun.log");
  expectSameRows(json.record, text.record);
  EXPECT_EQ(json.record.source, "nccl-tests -J (format 3) all_reduce_perf");
  EXPECT_EQ(json.device, "GPUs (NVIDIA GH200 120GB)");
  EXPECT_TRUE(json.notes.empty());
}

TEST(NcclTestsJson, FormatOneAndUnfinishedAndOtherCollectives) {
  nlohmann::json j = nlohmann::json::parse(
      readTextFile(data("nccl_tests/ours_json_v3_from_gh200_srun.json"), "json"));
  j["average_bus_bandwidith"] = j["average_bus_bandwidth"];  // format 1's spelling
  j.erase("average_bus_bandwidth");
  EXPECT_TRUE(runsFromNcclTestsJson(j, "v1.json", {}).at(0).notes.empty());
  j.erase("average_bus_bandwidith");
  EXPECT_TRUE(hasNote(runsFromNcclTestsJson(j, "cut.json", {}).at(0), "did not finish"));
  j["results"][3]["in_place"]["time"] = "nan";
  EXPECT_FALSE(runsFromNcclTestsJson(j, "nan.json", {}).at(0).record.rows[3].inPlace);
  j["config"].erase("devices");
  test::expectInvalid([&] { runsFromNcclTestsJson(j, "p.json", {}); }, {"p.json", "-p N"});
  EXPECT_EQ(runsFromNcclTestsJson(j, "p.json", {2}).at(0).record.run.ranks, 2);
  j["args"][0] = "./build/all_gather_perf";
  test::expectInvalid([&] { runsFromNcclTestsJson(j, "ag.json", {2}); },
                      {"all_gather_perf", "not all_reduce_perf"});
}

// ---------------------------------------------------------------------------------------------
// OSU osu_allreduce

// OMB 7.5, MPI_INT, 144 ranks on 4 nodes (the command line says so; the output does not).
TEST(OsuLogs, Version75IntOneHundredFortyFourRanks) {
  test::expectInvalid([] { runs("osu/allreduce_v7.5_int_oci.log"); },
                      {"OSU output does not print p", "-p N"});
  const LoggedRun run = one("osu/allreduce_v7.5_int_oci.log", 144);
  const RunRecord& r = run.record;
  EXPECT_EQ(r.run.ranks, 144);
  EXPECT_EQ(r.run.dtype, "int32");
  EXPECT_EQ(r.run.op, "sum");
  ASSERT_EQ(r.rows.size(), 27u);
  EXPECT_EQ(r.rows.front().bytes, 4u);
  EXPECT_EQ(r.rows.front().count, 1u);
  EXPECT_EQ(r.rows.back().bytes, 268435456u);
  EXPECT_DOUBLE_EQ(rowOf(r, 32768).outOfPlace->timeUs, 3214.49);
  EXPECT_FALSE(rowOf(r, 32768).inPlace);
  EXPECT_EQ(r.overRanks, OverRanks::Mean);
  EXPECT_EQ(r.source, "OSU MPI Allreduce Latency Test v7.5");
  EXPECT_EQ(run.device, "CPU ranks (OSU MPI)");
}

TEST(OsuLogs, Version71Char) {
  const LoggedRun run = one("osu/allreduce_v7.1_char_ompi13082.log", 4);
  EXPECT_EQ(run.record.run.dtype, "int8");
  ASSERT_EQ(run.record.rows.size(), 25u);
  EXPECT_EQ(run.record.rows.front().bytes, 1u);
  EXPECT_EQ(run.record.rows.back().bytes, 16777216u);
  EXPECT_DOUBLE_EQ(rowOf(run.record, 1048576).outOfPlace->timeUs, 2602.08);
  EXPECT_FALSE(hasNote(run, "Datatype"));
}

// OMB 5.7.1: no datatype line, the paste cut after the size of the ninth row.
TEST(OsuLogs, Version571CutRow) {
  const LoggedRun run = one("osu/allreduce_v5.7.1_cut_ompi9062.log", 128);
  EXPECT_EQ(run.record.run.dtype, "float32");
  ASSERT_EQ(run.record.rows.size(), 8u);
  EXPECT_EQ(run.record.rows.front().bytes, 4u);
  EXPECT_EQ(run.record.rows.back().bytes, 512u);
  EXPECT_DOUBLE_EQ(rowOf(run.record, 4).outOfPlace->timeUs, 599.60);
  EXPECT_TRUE(hasNote(run, "no '# Datatype' line: float32 assumed"));
  EXPECT_TRUE(hasNote(run, "line 14 is a row cut short or malformed, left out: '1024'"));
}

// Two runs of OMB 5.6.2 on Intel GPUs (-d ze) in one paste, MPICH's module messages between.
TEST(OsuLogs, TwoZeRunsKeptApart) {
  const std::vector<LoggedRun> r = runs("osu/allreduce_ze_two_runs_mpich7448.log", 6);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "run 1 of 2");
  EXPECT_EQ(r[1].name, "run 2 of 2");
  ASSERT_EQ(r[0].record.rows.size(), 1u);
  ASSERT_EQ(r[1].record.rows.size(), 1u);
  EXPECT_EQ(r[0].record.rows[0].bytes, 2048u);
  EXPECT_DOUBLE_EQ(r[0].record.rows[0].outOfPlace->timeUs, 17.74);
  EXPECT_DOUBLE_EQ(r[1].record.rows[0].outOfPlace->timeUs, 61.02);
  EXPECT_EQ(r[0].device, "GPUs (OSU MPI-ZE)");
  EXPECT_EQ(r[0].notes.size(), r[1].notes.size());  // nothing of the module lines
}

TEST(OsuLogs, XcclOnSixteenGpus) {
  const LoggedRun run = one("osu/xccl_allreduce_v7.5_16gpu_oci.log", 16);
  ASSERT_EQ(run.record.rows.size(), 1u);
  EXPECT_EQ(run.record.rows[0].bytes, 1073741824u);
  EXPECT_DOUBLE_EQ(run.record.rows[0].outOfPlace->timeUs, 13482.19);
  EXPECT_EQ(run.device, "GPUs (OSU NCCL-CUDA)");
}

// osu_reduce -f (the Min, Max and Iterations columns): another collective.
TEST(OsuLogs, ReduceRefused) {
  test::expectInvalid([] { runs("osu/reduce_full_v7.3_cuda_ompi12318.log", 192); },
                      {"'OSU MPI-CUDA Reduce Latency Test v7.3' is not osu_allreduce output"});
}

// -f's columns on an allreduce: Iterations kept (ours: the reduce log's rows under an allreduce
// title).
TEST(OsuLogs, FullColumnsKeepIterations) {
  const std::string text =
      "# OSU MPI Allreduce Latency Test v7.3\n# Datatype: MPI_CHAR.\n"
      "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  "
      "Iterations\n1                      53.34             24.80            "
      "158.96        1000\n";
  const LoggedRun run = parseRuns(text, "f.log", {192}).at(0);
  ASSERT_EQ(run.record.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(run.record.rows[0].outOfPlace->timeUs, 53.34);
  EXPECT_EQ(run.record.rows[0].outOfPlace->iterations, 1000);
}

// ---------------------------------------------------------------------------------------------
// setups

TEST(SetupDifferences, GpuLogAgainstACpuProfileOfAnotherPAndType) {
  LoggedRun run = one("osu/allreduce_v7.1_char_ompi13082.log", 4);
  ModelSetup setup{"inproc", "box", 2, true};
  std::vector<std::string> d = setupDifferences(run, setup);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], "the profile was measured for p = 2, the log ran p = 4");
  EXPECT_EQ(d[1], "the profile's gamma was measured on float32 sums, the log reduces int8");
  run = one("nccl_tests/h100_16ranks_mpirun.log");
  d = setupDifferences(run, setup);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0],
            "the log ran on GPUs (NVIDIA H100 80GB HBM3), the profile was measured over inproc "
            "between CPU ranks on box: its parameters describe another machine");
  EXPECT_TRUE(setupDifferences(run, ModelSetup{}).empty());  // parameters typed as flags
  EXPECT_NE(setupDifferences(run, ModelSetup{"default (not calibrated)", "-", {}, false})
                .at(0)
                .find("the model uses the stated defaults"),
            std::string::npos);
}

}  // namespace
}  // namespace ringlab::record
