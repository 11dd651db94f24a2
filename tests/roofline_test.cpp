// The roofline's traffic count and time on closed-form cases (model/roofline.hpp), and the
// rates it is priced at (measure/machine_rates.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "expect_error.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/machine_rates.hpp"
#include "ringlab/measure/roofline_rows.hpp"
#include "ringlab/model/profile.hpp"
#include "ringlab/model/roofline.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/volume.hpp"
#include "ringlab/transport/inproc.hpp"
#include "ringlab/transport/shm.hpp"

namespace ringlab::model {
namespace {

using job::transportTraffic;
using schedule::RingOrder;
using test::expectInvalid;

// Ring AllReduce at p = 4 on 1024 float32 (n = 4096 bytes): each rank sends and receives
// 2(p-1)/p n = 6144 bytes, of which it reduces (p-1)/p n = 3072 (the reduce-scatter half).
constexpr int kP = 4;
constexpr std::uint64_t kCount = 1024;
const schedule::Schedule& ring4() {
  static const schedule::Schedule s = schedule::ringAllReduce(RingOrder::identity(kP));
  return s;
}
constexpr MachineRates kRates{.copyBytesPerSecond = 1e9,
                              .reduceBytesPerSecond = 2e9,
                              .slotCopyInBytesPerSecond = 4e9,
                              .slotCopyOutBytesPerSecond = 5e9,
                              .slotReduceBytesPerSecond = 8e9,
                              .loopbackBytesPerSecond = 1e9,
                              .loopbackTwoWayBytesPerSecond = 0.5e9,
                              .cores = kP};

TEST(Roofline, RingVolumeCountsTheReducedHalf) {
  const auto v = schedule::countVolume(ring4(), kCount, DataType::Float32);
  for (const auto& rank : v.perRank) {
    EXPECT_EQ(rank.sentBytes, 6144u);
    EXPECT_EQ(rank.receivedBytes, 6144u);
    EXPECT_EQ(rank.reducedBytes, 3072u);
  }
}

// Two copies through slots, each slot side at its slot rate: 6144 B into slots at 4 GB/s, 3072 B
// copied out at 5 GB/s, 3072 B reduced out at 8 GB/s.
constexpr double kRing4ThroughSlots = 6144 / 4e9 + 3072 / 5e9 + 3072 / 8e9;

TEST(Roofline, SharedMemoryTwoCopies) {
  // shm's traffic until told its single-copy size: every message through the slots.
  const Roofline r = roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), kRates);
  EXPECT_DOUBLE_EQ(r.copyBytes, 9216);
  EXPECT_DOUBLE_EQ(r.reduceBytes, 3072);
  EXPECT_DOUBLE_EQ(r.slotBytes, 12288);
  EXPECT_DOUBLE_EQ(r.wireBytes, 0);
  EXPECT_NEAR(r.seconds, kRing4ThroughSlots, 1e-15);
}

// p = 2 ring on `blockBytes` x 2 of float32: each rank sends one block in each phase, reduces the
// one it receives first and copies the second.
Roofline ring2(std::uint64_t blockBytes, std::uint64_t singleCopyBytes,
               std::uint64_t segmentBytes = 256 * 1024) {
  static const schedule::Schedule s = schedule::ringAllReduce(RingOrder::identity(2));
  TransportTraffic shm = transportTraffic("shm");
  shm.singleCopyBytes = singleCopyBytes;
  shm.segmentBytes = segmentBytes;
  return roofline(s, blockBytes * 2 / 4, DataType::Float32, shm, kRates);
}

TEST(Roofline, ShmCopiesOnceFromItsSingleCopySizeUp) {
  constexpr std::uint64_t kThreshold = 128 * 1024;
  // A block of exactly the threshold: one pass, the reduce and the copy from the peer's buffer.
  const Roofline at = ring2(kThreshold, kThreshold);
  EXPECT_DOUBLE_EQ(at.slotBytes, 0);
  EXPECT_NEAR(at.seconds, 131072 / 2e9 + 131072 / 1e9, 1e-15);
  // One element less: every message through the slots, 2 x 131068 in, one out by each pass.
  const Roofline below = ring2(kThreshold - 4, kThreshold);
  EXPECT_DOUBLE_EQ(below.slotBytes, 4 * 131068.0);
  EXPECT_NEAR(below.seconds, 2 * 131068 / 4e9 + 131068 / 8e9 + 131068 / 5e9, 1e-15);
  // Off (RINGLAB_SHM_SINGLE_COPY=off): the slots at every size.
  const Roofline off = ring2(1 << 20, kNeverSingleCopy);
  EXPECT_DOUBLE_EQ(off.slotBytes, 4.0 * (1 << 20));
  EXPECT_NEAR(off.seconds, 2.0 * (1 << 20) / 4e9 + (1 << 20) / 8e9 + (1 << 20) / 5e9, 1e-15);
}

TEST(Roofline, ASlotPassIsNoSlowerThanTheSamePassBetweenBuffers) {
  // Slot rates measured below the buffer rates (noise where all is in cache) give way to them.
  MachineRates slow = kRates;
  slow.slotCopyInBytesPerSecond = slow.slotCopyOutBytesPerSecond = 0.5e9;
  slow.slotReduceBytesPerSecond = 1e9;
  const Roofline r = roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), slow);
  EXPECT_NEAR(r.seconds, 6144 / 1e9 + 3072 / 1e9 + 3072 / 2e9, 1e-15);
}

TEST(Roofline, TheSegmentIsTheMessageThatDecides) {
  // A 1 MiB block is above the threshold, but cut into 64 KiB segments every message is below.
  const Roofline cut = ring2(1 << 20, 128 * 1024, 64 * 1024);
  EXPECT_DOUBLE_EQ(cut.slotBytes, 4.0 * (1 << 20));
  // 200 KiB in 96 KiB segments with a 64 KiB threshold: 96 + 96 go direct, the 8 KiB tail
  // through the slots.
  const Roofline tail = ring2(200 * 1024, 64 * 1024, 96 * 1024);
  constexpr double kDirect = 192 * 1024, kTail = 8 * 1024;
  EXPECT_DOUBLE_EQ(tail.slotBytes, 4 * kTail);
  EXPECT_NEAR(tail.seconds,
              2 * kTail / 4e9 + kTail / 8e9 + kTail / 5e9 + kDirect / 2e9 + kDirect / 1e9, 1e-15);
  // A segment that is not whole elements is cut at whole elements (as the executor does): 6 B of
  // float32 is one element, below any threshold of more.
  EXPECT_DOUBLE_EQ(ring2(64, 8, 6).slotBytes, 4 * 64.0);
}

TEST(Roofline, SingleCopyIsTheCountsParameter) {
  const Roofline r = roofline(ring4(), kCount, DataType::Float32, {.copies = 1}, kRates);
  EXPECT_DOUBLE_EQ(r.copyBytes, 3072);
  EXPECT_NEAR(r.seconds, 3.072e-6 + 1.536e-6, 1e-15);
  // inproc moves each byte once too.
  EXPECT_EQ(transportTraffic("inproc").copies, 1);
}

TEST(Roofline, FewerCoresThanRanksShareTheWork) {
  MachineRates two = kRates;
  two.cores = 2;  // four ranks' equal work on two cores: twice one rank's time
  const Roofline r = roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), two);
  EXPECT_NEAR(r.seconds, 2 * kRing4ThroughSlots, 1e-15);
  EXPECT_TRUE(r.coresShared);
  EXPECT_FALSE(
      roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), kRates).coresShared);
}

// tcp: four ranks' reductions on two cores each get half a core. With the reduce slower than the
// wire (3072 B at 0.1 GB/s against 6144 B at the two-way 0.5 GB/s), the busiest rank's 30.72 us
// on a core of its own becomes all four ranks' 4 x 3072 B over two cores' 0.1 GB/s: 61.44 us.
TEST(Roofline, TcpReductionsOfMoreRanksThanCoresShareTheCores) {
  MachineRates slowReduce = kRates;
  slowReduce.reduceBytesPerSecond = 1e8;
  const TransportTraffic tcp = transportTraffic("tcp");
  const Roofline own = roofline(ring4(), kCount, DataType::Float32, tcp, slowReduce);
  EXPECT_NEAR(own.seconds, 3072 / 1e8, 1e-15);
  EXPECT_FALSE(own.coresShared);
  slowReduce.cores = 2;
  const Roofline shared = roofline(ring4(), kCount, DataType::Float32, tcp, slowReduce);
  EXPECT_NEAR(shared.seconds, 4 * 3072 / 1e8 / 2, 1e-15);
  EXPECT_TRUE(shared.coresShared);
  EXPECT_EQ(shared.loopbackLimit, LoopbackLimit::BusiestRank);
}

TEST(Roofline, TcpRingAtTheTwoWayLoopbackRateOrTheReduceWhicheverIsSlower) {
  // A ring rank sends and receives 1024 B in each of its 6 steps: all 6144 B at the two-way rate.
  const TransportTraffic tcp = transportTraffic("tcp");
  const Roofline wire = roofline(ring4(), kCount, DataType::Float32, tcp, kRates);
  EXPECT_DOUBLE_EQ(wire.wireBytes, 6144);
  EXPECT_DOUBLE_EQ(wire.twoWayWireBytes, 6144);
  EXPECT_NEAR(wire.seconds, 6144 / 0.5e9, 1e-15);
  MachineRates slowReduce = kRates;
  slowReduce.reduceBytesPerSecond = 1e8;
  EXPECT_NEAR(roofline(ring4(), kCount, DataType::Float32, tcp, slowReduce).seconds, 30.72e-6,
              1e-15);
  // A ring needs no one-way rate, nor a schedule that never sends and receives at once a two-way
  // one (below); a needed rate that is missing is named.
  MachineRates noTwoWay = kRates;
  noTwoWay.loopbackTwoWayBytesPerSecond = 0;
  expectInvalid([&] { roofline(ring4(), kCount, DataType::Float32, tcp, noTwoWay); },
                {"two-way loopback rate", "0"});
  MachineRates noOneWay = kRates;
  noOneWay.loopbackBytesPerSecond = 0;
  EXPECT_NEAR(roofline(ring4(), kCount, DataType::Float32, tcp, noOneWay).seconds, 6144 / 0.5e9,
              1e-15);
}

TEST(Roofline, TcpStepsThatOnlySendOrOnlyReceiveGoAtTheOneWayRate) {
  // p = 2 on 2 blocks of 512 B: rank 0 sends both blocks to rank 1 (reduce), then rank 1 sends
  // block 0 back while rank 0 sends both again (an exchange of unequal parts), then rank 1 sends
  // both back (broadcast). Per rank, the bytes sent while it receives go two-way, the rest one-way.
  schedule::Schedule s;
  s.ranks = 2;
  s.blocks = 2;
  s.steps.push_back({"reduce", {{0, 1, 0, 2, schedule::RecvMode::Reduce}}});
  s.steps.push_back(
      {"exchange",
       {{1, 0, 0, 1, schedule::RecvMode::Copy}, {0, 1, 0, 2, schedule::RecvMode::Copy}}});
  s.steps.push_back({"broadcast", {{1, 0, 0, 2, schedule::RecvMode::Copy}}});
  // Each rank: 1024 one-way in step 1, 512 two-way + 512 one-way in step 2, 1024 one-way in 3.
  const Roofline r = roofline(s, 256, DataType::Float32, transportTraffic("tcp"), kRates);
  EXPECT_DOUBLE_EQ(r.wireBytes, 3072);
  EXPECT_DOUBLE_EQ(r.twoWayWireBytes, 512);
  EXPECT_NEAR(r.seconds, 512 / 0.5e9 + 2560 / 1e9, 1e-15);
}

// Four ranks on two cores: the ring's connections share the cores, and the loopback's total rate
// (the most of one way, the pair both ways and the ring of four at once) bounds all ranks' bytes.
MachineRates withRing(double perConnection) {
  MachineRates rates = kRates;  // one way 1 GB/s, two-way 0.5 GB/s per direction: 1 GB/s in all
  rates.cores = 2;
  rates.loopbackRingBytesPerSecond = perConnection;
  rates.loopbackRingConnections = kP;
  return rates;
}

TEST(Roofline, TcpRingOfMoreRanksThanCoresAtTheRingsRate) {
  const TransportTraffic tcp = transportTraffic("tcp");
  // The ring carries 4 x 0.3 = 1.2 GB/s, the most: all 4 x 6144 B at it, which is each rank's
  // 6144 B at the ring's 0.3 GB/s per connection, slower than the pair's 0.5.
  const Roofline ring = roofline(ring4(), kCount, DataType::Float32, tcp, withRing(0.3e9));
  EXPECT_DOUBLE_EQ(ring.allRanksWireBytes, 4 * 6144);
  EXPECT_EQ(ring.loopbackLimit, LoopbackLimit::AllRanksRing);
  EXPECT_NEAR(ring.seconds, 6144 / 0.3e9, 1e-15);
  // The ring carries 4 x 0.2 = 0.8 GB/s, less than the pair both ways (2 x 0.5): the pair's total
  // is the bound (the ring's ranks need not all be busy at every moment).
  const Roofline pair = roofline(ring4(), kCount, DataType::Float32, tcp, withRing(0.2e9));
  EXPECT_EQ(pair.loopbackLimit, LoopbackLimit::AllRanksTwoWay);
  EXPECT_NEAR(pair.seconds, 4 * 6144 / 1e9, 1e-15);
  // One way faster than the pair's total: it is the total.
  MachineRates oneWay = withRing(0.2e9);
  oneWay.loopbackBytesPerSecond = 1.5e9;
  const Roofline one = roofline(ring4(), kCount, DataType::Float32, tcp, oneWay);
  EXPECT_EQ(one.loopbackLimit, LoopbackLimit::AllRanksOneWay);
  EXPECT_NEAR(one.seconds, 4 * 6144 / 1.5e9, 1e-15);
  // With cores enough, the ring's connections go as fast as the pair's: the busiest rank's time.
  const Roofline fast = roofline(ring4(), kCount, DataType::Float32, tcp, withRing(0.6e9));
  EXPECT_EQ(fast.loopbackLimit, LoopbackLimit::BusiestRank);
  EXPECT_NEAR(fast.seconds, 6144 / 0.5e9, 1e-15);
  // Shared memory ignores the loopback.
  EXPECT_NEAR(roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), withRing(0.3e9))
                  .seconds,
              2 * kRing4ThroughSlots, 1e-15);
}

TEST(Roofline, TcpTreeStepsAreBoundByTheLoopbacksTotalRateToo) {
  // Four ranks, one block of 1024 B: 1 -> 0 and 3 -> 2, then 2 -> 0 (a reduce), 0 -> 2, then
  // 0 -> 1 and 2 -> 3 (a broadcast). Ranks 0 and 2 each move 4 x 1024 B one way; six transfers
  // cross the loopback, 6144 B in all.
  schedule::Schedule s;
  s.ranks = kP;
  s.blocks = 1;
  using schedule::RecvMode;
  s.steps.push_back({"reduce", {{1, 0, 0, 1, RecvMode::Reduce}, {3, 2, 0, 1, RecvMode::Reduce}}});
  s.steps.push_back({"reduce", {{2, 0, 0, 1, RecvMode::Reduce}}});
  s.steps.push_back({"broadcast", {{0, 2, 0, 1, RecvMode::Copy}}});
  s.steps.push_back({"broadcast", {{0, 1, 0, 1, RecvMode::Copy}, {2, 3, 0, 1, RecvMode::Copy}}});
  const TransportTraffic tcp = transportTraffic("tcp");
  // Without a ring measured: the busiest rank's 4096 B at the one-way 1 GB/s.
  const Roofline alone = roofline(s, 256, DataType::Float32, tcp, kRates);
  EXPECT_DOUBLE_EQ(alone.wireBytes, 4096);
  EXPECT_EQ(alone.loopbackLimit, LoopbackLimit::BusiestRank);
  EXPECT_NEAR(alone.seconds, 4096 / 1e9, 1e-15);
  // With the ring's 1.2 GB/s total: 6144 B over it, slower than the busiest rank.
  const Roofline shared = roofline(s, 256, DataType::Float32, tcp, withRing(0.3e9));
  EXPECT_DOUBLE_EQ(shared.allRanksWireBytes, 6144);
  EXPECT_EQ(shared.loopbackLimit, LoopbackLimit::AllRanksRing);
  EXPECT_NEAR(shared.seconds, 6144 / 1.2e9, 1e-15);
}

TEST(Roofline, RingAtTwoRanksSendsTheWholeBuffer) {
  // p = 2: 2(p-1)/p n = n. An odd count splits 4 + 3 doubles: the rank that copies the larger
  // block (copies are slower here than reductions) is the busiest: 32 B copied, 24 B reduced.
  const auto s = schedule::ringAllReduce(RingOrder::identity(2));
  const Roofline r = roofline(s, 7, DataType::Float64, {.copies = 1}, kRates);
  EXPECT_DOUBLE_EQ(r.copyBytes, 32);
  EXPECT_DOUBLE_EQ(r.reduceBytes, 24);
  EXPECT_NEAR(r.seconds, 32e-9 + 12e-9, 1e-18);
}

TEST(Roofline, BadRatesAndTransportsAreNamed) {
  MachineRates noCopy = kRates;
  noCopy.copyBytesPerSecond = 0;
  expectInvalid([&] { roofline(ring4(), kCount, DataType::Float32, {.copies = 1}, noCopy); },
                {"copy rate", "0"});
  MachineRates noSlot = kRates;
  noSlot.slotReduceBytesPerSecond = std::nan("");
  expectInvalid(
      [&] { roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), noSlot); },
      {"slot reduce rate", "nan"});
  expectInvalid([&] { roofline(ring4(), kCount, DataType::Float32, {.copies = 0}, kRates); },
                {"copies = 0", "1 (in place) or 2"});
  expectInvalid(
      [&] {
        roofline(ring4(), kCount, DataType::Float32, {.copies = 2, .segmentBytes = 0}, kRates);
      },
      {"segment size 0"});
  expectInvalid([] { transportTraffic("mpi"); }, {"mpi", "inproc, shm and tcp"});
  MachineRates noRing = withRing(std::nan(""));
  expectInvalid(
      [&] { roofline(ring4(), kCount, DataType::Float32, transportTraffic("tcp"), noRing); },
      {"ring loopback rate", "nan", "4 connections"});
  // A rate a row does not need is not asked for: a single rank moves nothing.
  const auto one = schedule::ringAllReduce(RingOrder::identity(1));
  EXPECT_EQ(roofline(one, kCount, DataType::Float32, transportTraffic("shm"), {}).seconds, 0);
}

TEST(MachineRates, PositiveAtAwkwardSizes) {
  // 3 bytes of float16 is less than an element: measured on one.
  const auto rates = measure::measureSizeRates({{3, 12}, {4096, 4096}, {100'000, 1'000'000}},
                                               DataType::Float16, job::probedSlotRing());
  ASSERT_EQ(rates.size(), 3u);
  for (const auto& r : rates) {
    EXPECT_GT(r.copyBytesPerSecond, 0) << r.pass.bytes;
    EXPECT_GT(r.reduceBytesPerSecond, 0) << r.pass.bytes;
    EXPECT_GT(r.slotCopyInBytesPerSecond, 0) << r.pass.bytes;
    EXPECT_GT(r.slotCopyOutBytesPerSecond, 0) << r.pass.bytes;
    EXPECT_GT(r.slotReduceBytesPerSecond, 0) << r.pass.bytes;
  }
  const measure::LoopbackRates loopback = measure::measureLoopbackRates(3);
  EXPECT_GT(loopback.oneWayBytesPerSecond, 0);
  EXPECT_GT(loopback.twoWayBytesPerSecond, 0);
  EXPECT_GT(loopback.ringBytesPerSecond, 0);
  EXPECT_EQ(loopback.ringConnections, 3);
  // A ring of two is the pair: not measured again.
  EXPECT_EQ(measure::measureLoopbackRates(2).ringConnections, 0);
}

// The size the roofline asks shm for is the one its sends use: the default, or
// RINGLAB_SHM_SINGLE_COPY's size or "off", read where the transport reads it.
TEST(Roofline, ShmSaysItsSingleCopySize) {
  const auto sizeWith = [](const char* value) {
    if (value)
      ::setenv("RINGLAB_SHM_SINGLE_COPY", value, 1);
    else
      ::unsetenv("RINGLAB_SHM_SINGLE_COPY");
    auto store = bootstrap::makeMemoryStore();
    const auto shm = transport::connectShm(0, 1, *store, {"", std::chrono::seconds(10)});
    ::unsetenv("RINGLAB_SHM_SINGLE_COPY");
    return shm->singleCopyBytes();
  };
  EXPECT_EQ(sizeWith(nullptr), transport::kDefaultSingleCopyBytes);
  EXPECT_EQ(sizeWith("64K"), 65536u);
  EXPECT_EQ(sizeWith("off"), kNeverSingleCopy);
  // inproc moves every message in one pass: it has no slots to skip.
  transport::InprocWorld inproc(1);
  EXPECT_EQ(inproc.transport(0).singleCopyBytes(), kNeverSingleCopy);
}

// A profile's working-set probes price the float32 rows exactly: each row at the probe of the
// largest working set not above its own (the smallest below them all), its reduction at the
// profile's gamma as the model prices it; nothing is measured for them. A row of another datatype,
// whose reduce the probes did not time, is measured.
TEST(RooflineRows, FromAProfileAtExactlyItsProbedRates) {
  measure::BenchConfig config;
  config.ranks = 2;
  Profile profile = defaultProfile();  // gamma 0.2 ns/B, one regime
  profile.workingSetRates = {{64 << 10, 1 / 10e9, 1 / 20e9, 1 / 30e9, 1 / 40e9, 1 / 50e9},
                             {1 << 20, 1 / 5e9, 1 / 6e9, 1 / 7e9, 1 / 8e9, 1 / 9e9}};
  config.profile = profile;
  record::RunRecord record;
  const auto row = [](std::uint64_t bytes, const char* dtype) {
    record::RecordRow r;
    r.bytes = bytes;
    r.count = bytes / 4;
    r.dtype = dtype;
    r.op = "sum";
    r.algorithm = "ring";
    r.outOfPlace.emplace().timeUs = 1000;
    return r;
  };
  // Working sets, two ranks' inputs and outputs over two cores: 16 KiB, 512 KiB and 1 MiB.
  record.rows = {row(8 << 10, "float32"), row(256 << 10, "float32"), row(512 << 10, "float32"),
                 row(512 << 10, "int32")};
  const record::RooflineReport report = measure::priceRows(record, config, "inproc", nullptr, 2);
  ASSERT_EQ(report.rows.size(), 4u);
  EXPECT_TRUE(report.copyFromProfile);
  EXPECT_TRUE(report.reduceFromProfile);
  const std::uint64_t probed[] = {64 << 10, 64 << 10, 1 << 20};
  const double copy[] = {10e9, 10e9, 5e9}, slotIn[] = {30e9, 30e9, 7e9};
  for (int i = 0; i < 3; ++i) {
    const record::RooflineRow& r = report.rows[i];
    SCOPED_TRACE(r.bytes);
    EXPECT_TRUE(r.ratesFromProfile);
    EXPECT_EQ(r.probedWorkingSetBytes, probed[i]);
    EXPECT_EQ(r.pass, measure::workingSetPass(2 * r.bytes));
    EXPECT_DOUBLE_EQ(r.rates.copyBytesPerSecond, copy[i]);
    EXPECT_DOUBLE_EQ(r.rates.slotCopyInBytesPerSecond, slotIn[i]);
    EXPECT_DOUBLE_EQ(r.rates.reduceBytesPerSecond, 5e9);  // the profile's gamma
    // inproc at p = 2: each rank copies half the vector and reduces the other half.
    const double half = static_cast<double>(r.bytes) / 2;
    EXPECT_NEAR(r.roof.seconds, half / copy[i] + half / 5e9, 1e-15);
  }
  EXPECT_FALSE(report.rows[3].ratesFromProfile);
  EXPECT_EQ(report.rows[3].probedWorkingSetBytes, 1u << 20);
  EXPECT_GT(report.rows[3].rates.copyBytesPerSecond, 0);
  // Without the probes (an older profile), every row is measured.
  config.profile->workingSetRates.clear();
  const record::RooflineReport measured =
      measure::priceRows({.rows = {record.rows[0]}}, config, "inproc", nullptr, 2);
  EXPECT_FALSE(measured.copyFromProfile);
  EXPECT_FALSE(measured.rows[0].ratesFromProfile);
}

}  // namespace
}  // namespace ringlab::model
