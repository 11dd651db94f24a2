// The roofline's traffic count and time on closed-form cases (model/roofline.hpp), and the
// rates it is priced at (measure/machine_rates.hpp).
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/measure/machine_rates.hpp"
#include "ringlab/model/roofline.hpp"
#include "ringlab/schedule/ring.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::model {
namespace {

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
                              .loopbackBytesPerSecond = 1e9,
                              .cores = kP};

TEST(Roofline, RingVolumeCountsTheReducedHalf) {
  const auto v = schedule::countVolume(ring4(), kCount, DataType::Float32);
  for (const auto& rank : v.perRank) {
    EXPECT_EQ(rank.sentBytes, 6144u);
    EXPECT_EQ(rank.receivedBytes, 6144u);
    EXPECT_EQ(rank.reducedBytes, 3072u);
  }
}

TEST(Roofline, SharedMemoryTwoCopies) {
  // The sender's copy of all 6144 bytes into slots, the receiver's copy of the 3072 allgathered
  // ones (9216 bytes at 1 GB/s), and its reduce of 3072 at 2 GB/s.
  const Roofline r = roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), kRates);
  EXPECT_DOUBLE_EQ(r.copyBytes, 9216);
  EXPECT_DOUBLE_EQ(r.reduceBytes, 3072);
  EXPECT_DOUBLE_EQ(r.wireBytes, 0);
  EXPECT_NEAR(r.seconds, 9.216e-6 + 1.536e-6, 1e-15);
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
  EXPECT_NEAR(r.seconds, 2 * (9.216e-6 + 1.536e-6), 1e-15);
}

TEST(Roofline, TcpAtTheLoopbackRateOrTheReduceWhicheverIsSlower) {
  const TransportTraffic tcp = transportTraffic("tcp");
  const Roofline wire = roofline(ring4(), kCount, DataType::Float32, tcp, kRates);
  EXPECT_DOUBLE_EQ(wire.wireBytes, 6144);
  EXPECT_NEAR(wire.seconds, 6.144e-6, 1e-15);
  MachineRates slowReduce = kRates;
  slowReduce.reduceBytesPerSecond = 1e8;
  EXPECT_NEAR(roofline(ring4(), kCount, DataType::Float32, tcp, slowReduce).seconds, 30.72e-6,
              1e-15);
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
  expectInvalid(
      [&] { roofline(ring4(), kCount, DataType::Float32, transportTraffic("shm"), noCopy); },
      {"copy rate", "0"});
  expectInvalid([&] { roofline(ring4(), kCount, DataType::Float32, {.copies = 0}, kRates); },
                {"copies = 0", ">= 1"});
  expectInvalid([] { transportTraffic("mpi"); }, {"mpi", "inproc, shm and tcp"});
  // A rate a row does not need is not asked for: a single rank moves nothing.
  const auto one = schedule::ringAllReduce(RingOrder::identity(1));
  EXPECT_EQ(roofline(one, kCount, DataType::Float32, transportTraffic("shm"), {}).seconds, 0);
}

TEST(MachineRates, PositiveAtAwkwardSizes) {
  // 3 bytes of float16 is less than an element: measured on one.
  const auto rates = measure::measureSizeRates({3, 4096, 100'000}, DataType::Float16);
  ASSERT_EQ(rates.size(), 3u);
  for (const auto& r : rates) {
    EXPECT_GT(r.copyBytesPerSecond, 0) << r.bytes;
    EXPECT_GT(r.reduceBytesPerSecond, 0) << r.bytes;
  }
  EXPECT_GT(measure::measureLoopbackRate(), 0);
}

}  // namespace
}  // namespace ringlab::model
