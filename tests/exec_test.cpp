// The executor and Communicator on real buffers over the in-process transport: every dtype and op,
// p = 1..17, awkward counts, random ring orders and ownership offsets, tiny forced segments,
// in place and out of place. Integers are compared exactly with a serial reference; floats
// bitwise across ranks and within a stated bound of a float64 reference.
#include <gtest/gtest.h>

#include <barrier>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <thread>

#include "ringlab/communicator.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/half.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/exec/executor.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab {
namespace {

using Bytes = std::vector<std::byte>;

// Runs fn(rank, communicator) on p threads; a failing rank aborts the world so no peer hangs.
void runRanks(int p, const std::function<void(int, Communicator&)>& fn) {
  transport::InprocWorld world(p);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < p; ++r) comms.push_back(std::make_unique<Communicator>(world.transport(r)));
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(r, *comms[r]);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << r << ": " << e.what();
        world.abort(e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
}

// Element value as double, whatever the type.
double loadValue(DataType type, const Bytes& data, std::uint64_t i) {
  const std::byte* at = data.data() + i * dataTypeSize(type);
  auto get = [&](auto v) { std::memcpy(&v, at, sizeof v); return v; };
  switch (type) {
    case DataType::Float16: return halfToFloat(get(std::uint16_t{}));
    case DataType::Bfloat16: return bfloat16ToFloat(get(std::uint16_t{}));
    case DataType::Float32: return get(float{});
    case DataType::Float64: return get(double{});
    default: break;
  }
  ADD_FAILURE() << "loadValue is for floating types";
  return 0;
}

// Unit roundoff of each floating type.
double unitRoundoff(DataType type) {
  switch (type) {
    case DataType::Float16: return std::ldexp(1.0, -11);
    case DataType::Bfloat16: return std::ldexp(1.0, -8);
    case DataType::Float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

Bytes randomInput(DataType type, ReduceOp op, std::uint64_t count, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  Bytes data(count * dataTypeSize(type));
  for (std::uint64_t i = 0; i < count; ++i) {
    std::byte* at = data.data() + i * dataTypeSize(type);
    if (!isFloating(type)) {
      const std::uint64_t bits = rng();
      std::memcpy(at, &bits, dataTypeSize(type));  // any bit pattern: wrapping is exercised
      continue;
    }
    // Products stay in range for p <= 17 even in float16.
    std::uniform_real_distribution<double> dist(op == ReduceOp::Prod ? 0.8 : -4.0,
                                                op == ReduceOp::Prod ? 1.25 : 4.0);
    const double v = dist(rng);
    switch (type) {
      case DataType::Float16: { const auto h = floatToHalf(static_cast<float>(v)); std::memcpy(at, &h, 2); break; }
      case DataType::Bfloat16: { const auto b = floatToBfloat16(static_cast<float>(v)); std::memcpy(at, &b, 2); break; }
      case DataType::Float32: { const auto f = static_cast<float>(v); std::memcpy(at, &f, 4); break; }
      default: std::memcpy(at, &v, 8); break;
    }
  }
  return data;
}

struct Case {
  DataType type;
  ReduceOp op;
  std::uint64_t count;
  bool inPlace;
  CollectiveOptions options;
  std::uint32_t seed;
};

// Checks one rank's AllReduce output against the inputs of all ranks.
void checkAgainstReference(const Case& c, int p, const std::vector<Bytes>& inputs, const Bytes& out) {
  const std::size_t es = dataTypeSize(c.type);
  if (!isFloating(c.type)) {
    // Integer reduction with wrap-around is associative and commutative: any order gives the
    // same bits, so the serial fold over ranks 0..p-1 is an exact reference.
    Bytes ref = inputs[0];
    for (int r = 1; r < p; ++r) reduce(c.type, c.op, ref.data(), ref.data(), inputs[r].data(), c.count);
    if (c.op == ReduceOp::Avg) divideBy(c.type, ref.data(), c.count, p);
    for (std::uint64_t i = 0; i < c.count; ++i) {
      ASSERT_EQ(std::memcmp(ref.data() + i * es, out.data() + i * es, es), 0)
          << dataTypeName(c.type) << " " << reduceOpName(c.op) << " p=" << p << " count=" << c.count
          << " element " << i;
    }
    return;
  }
  // The float64 reference itself rounds: allow its own (p-1) roundings on top of the result's.
  const double u = unitRoundoff(c.type) + std::ldexp(1.0, -53);
  for (std::uint64_t i = 0; i < c.count; ++i) {
    double exact = loadValue(c.type, inputs[0], i), magnitude = std::fabs(exact);
    for (int r = 1; r < p; ++r) {
      const double v = loadValue(c.type, inputs[r], i);
      magnitude += std::fabs(v);
      switch (c.op) {
        case ReduceOp::Sum: case ReduceOp::Avg: exact += v; break;
        case ReduceOp::Prod: exact *= v; break;
        case ReduceOp::Min: exact = std::min(exact, v); break;
        case ReduceOp::Max: exact = std::max(exact, v); break;
      }
    }
    const double got = loadValue(c.type, out, i);
    double bound = 0;  // min and max round nothing: exact
    if (c.op == ReduceOp::Sum) bound = (p - 1) * u * magnitude;
    if (c.op == ReduceOp::Avg) { exact /= p; bound = (p - 1) * u * magnitude / p + u * std::fabs(exact); }
    if (c.op == ReduceOp::Prod) bound = 1.01 * (p - 1) * u * std::fabs(exact);
    ASSERT_LE(std::fabs(got - exact), bound)
        << dataTypeName(c.type) << " " << reduceOpName(c.op) << " p=" << p << " count=" << c.count
        << " element " << i << " got " << got << " exact " << exact;
  }
}

// Runs a list of cases on one world of p ranks; every rank checks its own output and rank 0
// checks that all ranks ended bitwise identical.
void runCases(int p, const std::vector<Case>& cases) {
  std::vector<Bytes> outputs(p);
  std::barrier sync(p);
  runRanks(p, [&](int rank, Communicator& comm) {
    for (const Case& c : cases) {
      std::vector<Bytes> inputs;
      for (int r = 0; r < p; ++r) inputs.push_back(randomInput(c.type, c.op, c.count, c.seed * 131 + r));
      Bytes out(c.count * dataTypeSize(c.type), std::byte{0xAB});
      if (c.inPlace) {
        out = inputs[rank];
        comm.allreduce(out.data(), out.data(), c.count, c.type, c.op, c.options);
      } else {
        comm.allreduce(inputs[rank].data(), out.data(), c.count, c.type, c.op, c.options);
      }
      checkAgainstReference(c, p, inputs, out);
      outputs[rank] = std::move(out);
      sync.arrive_and_wait();
      if (rank == 0) {
        for (int r = 1; r < p; ++r) {
          EXPECT_EQ(outputs[r], outputs[0]) << "rank " << r << " differs from rank 0: "
                                            << dataTypeName(c.type) << " " << reduceOpName(c.op)
                                            << " p=" << p << " count=" << c.count;
        }
      }
      sync.arrive_and_wait();
    }
  });
}

std::vector<int> shuffledOrder(int p, std::mt19937& rng) {
  std::vector<int> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

class ExecAllReduce : public ::testing::TestWithParam<int> {};

TEST_P(ExecAllReduce, EveryDtypeOpCountOrderAndSegment) {
  const int p = GetParam();
  std::mt19937 rng(1000 + p);
  const auto n = static_cast<std::uint64_t>(p);
  // Fewer counts at large p: every case costs 2(p-1) steps on p threads sharing two cores.
  const std::vector<std::uint64_t> counts =
      p <= 8 ? std::vector<std::uint64_t>{0, 1, n - 1, n, n + 1, 97, 1031}
             : std::vector<std::uint64_t>{1, n - 1, n + 1, 97};
  std::vector<Case> cases;
  std::uint32_t seed = 0;
  for (DataType type : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      for (std::uint64_t count : counts) {
        Case c{type, op, count, (seed % 2) == 1, {}, ++seed};
        c.options.algorithm.ringOrder = shuffledOrder(p, rng);
        c.options.algorithm.ownershipOffset = static_cast<int>(rng() % 7) - 3;
        // Tiny forced segments (one or three elements) on some cases, default on the rest.
        const std::uint64_t segmentChoices[] = {1, 3 * dataTypeSize(type), exec::kDefaultSegmentBytes};
        c.options.exec.segmentBytes = segmentChoices[seed % 3];
        c.options.exec.pipelineDepth = 1 + static_cast<int>(seed % 4);
        cases.push_back(c);
      }
    }
  }
  runCases(p, cases);
}

INSTANTIATE_TEST_SUITE_P(Ranks, ExecAllReduce,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17));

TEST(ExecAllReduceLarge, FewMebibytesWithSmallSegments) {
  // A few MiB, count not divisible by p, segments much smaller than a chunk: the pipelined path.
  for (int p : {3, 4}) {
    std::vector<Case> cases;
    for (DataType type : {DataType::Int32, DataType::Float32, DataType::Bfloat16}) {
      Case c{type, ReduceOp::Sum, (3u << 20) / 4 + 7, p == 3, {}, static_cast<std::uint32_t>(p)};
      c.options.exec.segmentBytes = 64 * 1024;
      cases.push_back(c);
    }
    runCases(p, cases);
  }
}

TEST(ExecCommunicator, ReduceScatterAndAllgatherFollowNcclLayout) {
  for (int p : {1, 2, 5, 8}) {
    const std::uint64_t block = 37;
    runRanks(p, [&](int rank, Communicator& comm) {
      std::vector<std::int64_t> send(block * p), recv(block, -1);
      for (std::uint64_t i = 0; i < send.size(); ++i) send[i] = static_cast<std::int64_t>(i * 1000 + rank);
      comm.reduceScatter(send.data(), recv.data(), block, DataType::Int64, ReduceOp::Sum);
      const std::int64_t rankSum = static_cast<std::int64_t>(p) * (p - 1) / 2;
      for (std::uint64_t i = 0; i < block; ++i) {
        const std::uint64_t global = rank * block + i;
        ASSERT_EQ(recv[i], static_cast<std::int64_t>(global * 1000) * p + rankSum) << "rank " << rank;
      }
      std::vector<std::int64_t> mine(block, rank + 1), gathered(block * p, -1);
      comm.allgather(mine.data(), gathered.data(), block, DataType::Int64);
      for (std::uint64_t i = 0; i < gathered.size(); ++i) ASSERT_EQ(gathered[i], static_cast<std::int64_t>(i / block) + 1);
      // In place, as NCCL allows: the send block already sits at offset rank*block of recv.
      std::vector<std::int64_t> inPlace(block * p, -1);
      std::fill_n(inPlace.begin() + rank * block, block, 10 * rank);
      comm.allgather(inPlace.data() + rank * block, inPlace.data(), block, DataType::Int64);
      for (std::uint64_t i = 0; i < inPlace.size(); ++i) ASSERT_EQ(inPlace[i], static_cast<std::int64_t>(10 * (i / block)));
    });
  }
}

TEST(ExecCommunicator, ReduceScatterRejectsOffset) {
  runRanks(2, [&](int, Communicator& comm) {
    CollectiveOptions options;
    options.algorithm.ownershipOffset = 1;
    std::vector<float> send(4), recv(2);
    EXPECT_THROW(comm.reduceScatter(send.data(), recv.data(), 2, DataType::Float32, ReduceOp::Sum, options), Error);
  });
}

TEST(ExecExecutor, StepThatReducesWhatItSendsIsBuffered) {
  // Both ranks send their whole vector and reduce the peer's into it in the same step (recursive
  // doubling at p = 2): sends must read the values from before the step.
  schedule::Schedule s;
  s.algorithm = "exchange";
  s.ranks = 2;
  s.blocks = 2;
  s.steps.push_back({"exchange", {{0, 1, 0, 2, schedule::RecvMode::Reduce}, {1, 0, 0, 2, schedule::RecvMode::Reduce}}});
  transport::InprocWorld world(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      exec::Executor executor(world.transport(r));
      const exec::RankPlan plan = exec::planForRank(s, r, 1001);
      EXPECT_TRUE(plan.steps.at(0).writesWhatItSends);
      std::vector<std::int32_t> data(1001);
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::int32_t>(i + 100000 * r);
      exec::ExecOptions options;
      options.segmentBytes = 40;  // many segments in flight
      options.pipelineDepth = 2;
      executor.run(plan, DataType::Int32, ReduceOp::Sum, data.data(), data.data(), options);
      for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], static_cast<std::int32_t>(2 * i + 100000));
    });
  }
  for (auto& t : threads) t.join();
}

TEST(ExecFaults, MissingPeerTimesOut) {
  transport::InprocWorld world(2);
  Communicator comm(world.transport(0));
  CollectiveOptions options;
  options.exec.timeout = std::chrono::milliseconds(200);
  std::vector<float> data(64, 1.0f);
  try {
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum, options);
    FAIL() << "rank 1 never joins: rank 0 must time out";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Timeout) << e.what();
  }
}

TEST(ExecFaults, AbortWakesWaitingRanksWithPeerLost) {
  transport::InprocWorld world(2);
  std::thread aborter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    world.abort("rank 1 crashed");
  });
  Communicator comm(world.transport(0));
  std::vector<float> data(64, 1.0f);
  try {
    comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum);
    FAIL() << "abort must end the wait";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::PeerLost) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 1 crashed"), std::string::npos);
  }
  aborter.join();
}

TEST(ExecFaults, RanksDisagreeingOnCountGetMismatch) {
  transport::InprocWorld world(2);
  std::vector<ErrorCode> codes(2, ErrorCode::Internal);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      Communicator comm(world.transport(r));
      CollectiveOptions options;
      options.exec.timeout = std::chrono::milliseconds(2000);
      std::vector<float> data(100 + r, 1.0f);
      try {
        comm.allreduce(data.data(), data.data(), data.size(), DataType::Float32, ReduceOp::Sum, options);
      } catch (const Error& e) {
        codes[r] = e.code();
        world.abort(e.what());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(codes[0] == ErrorCode::Mismatch || codes[1] == ErrorCode::Mismatch);
}

}  // namespace
}  // namespace ringlab
