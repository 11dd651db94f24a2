#pragma once
// Helpers that more than one test file needs: running ranks as threads over the in-process
// transport, running a list of AllReduce cases on them, and checking a result exactly against a
// serial fold or within a stated bound of a float64 reference. They live here, once, so that the
// executor tests (exec_test.cpp) and the algorithm tests (algorithms_test.cpp) run and judge their
// cases the same way, and a fix to one is a fix to both.
//
// What stays in each test file is what differs on purpose: how it draws its inputs (the executor
// tests cover every dtype and op, the algorithm tests int32 and float32), how it names a case,
// and the error bound it allows a floating result.
//
// Header-only; every function is inline, as several test files of one binary include it.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ringlab/communicator.hpp"
#include "ringlab/core/half.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab::test {

using Bytes = std::vector<std::byte>;

// Runs fn(rank, communicator) on p threads; a failing rank aborts the world so no peer hangs.
inline void runRanks(int p, const std::function<void(int, Communicator&)>& fn) {
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

// Ranks 0..p-1 in a random order.
inline std::vector<int> shuffledOrder(int p, std::mt19937& rng) {
  std::vector<int> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

// One AllReduce to run on every rank: rank r's input is drawn from seed * 131 + r.
struct Case {
  DataType type;
  ReduceOp op;
  std::uint64_t count;
  bool inPlace;
  CollectiveOptions options;
  std::uint32_t seed;
};

// Element value as double, whatever the type.
inline double loadValue(DataType type, const Bytes& data, std::uint64_t i) {
  const std::byte* at = data.data() + i * dataTypeSize(type);
  auto get = [&](auto v) {
    std::memcpy(&v, at, sizeof v);
    return v;
  };
  switch (type) {
    case DataType::Float16:
      return halfToFloat(get(std::uint16_t{}));
    case DataType::Bfloat16:
      return bfloat16ToFloat(get(std::uint16_t{}));
    case DataType::Float32:
      return get(float{});
    case DataType::Float64:
      return get(double{});
    default:
      break;
  }
  ADD_FAILURE() << "loadValue is for floating types";
  return 0;
}

// Unit roundoff of each floating type.
inline double unitRoundoff(DataType type) {
  switch (type) {
    case DataType::Float16:
      return std::ldexp(1.0, -11);
    case DataType::Bfloat16:
      return std::ldexp(1.0, -8);
    case DataType::Float32:
      return std::ldexp(1.0, -24);
    default:
      return std::ldexp(1.0, -53);
  }
}

// Checks the output bytewise, element by element, against the serial fold over ranks 0..p-1 (then
// divided by p for avg). Exact wherever any order of combining gives the same bits: integer
// reduction with wrap-around is associative and commutative, and so are min and max.
inline void checkExact(const Case& c, int p, const std::vector<Bytes>& inputs, const Bytes& out,
                       const std::string& what) {
  Bytes ref = inputs[0];
  for (int r = 1; r < p; ++r)
    reduce({c.type, c.op}, ref.data(), ref.data(), inputs[r].data(), c.count);
  if (c.op == ReduceOp::Avg) divideBy(c.type, ref.data(), c.count, p);
  const std::size_t es = dataTypeSize(c.type);
  for (std::uint64_t i = 0; i < c.count; ++i) {
    ASSERT_EQ(std::memcmp(ref.data() + i * es, out.data() + i * es, es), 0)
        << what << " element " << i;
  }
}

// One element of the float64 reference: the op over every rank's value in rank order (avg: the
// sum divided by p), and the sum of the values' magnitudes, which bounds the rounding error of a
// sum in any order.
struct Float64Element {
  double exact;
  double magnitude;
};

// Checks every element of a floating output against the float64 reference, within
// bound(element) of it; the caller states the bound.
inline void checkAgainstFloat64(const Case& c, int p, const std::vector<Bytes>& inputs,
                                const Bytes& out,
                                const std::function<double(const Float64Element&)>& bound,
                                const std::string& what) {
  for (std::uint64_t i = 0; i < c.count; ++i) {
    double exact = loadValue(c.type, inputs[0], i), magnitude = std::fabs(exact);
    for (int r = 1; r < p; ++r) {
      const double v = loadValue(c.type, inputs[r], i);
      magnitude += std::fabs(v);
      switch (c.op) {
        case ReduceOp::Sum:
        case ReduceOp::Avg:
          exact += v;
          break;
        case ReduceOp::Prod:
          exact *= v;
          break;
        case ReduceOp::Min:
          exact = std::min(exact, v);
          break;
        case ReduceOp::Max:
          exact = std::max(exact, v);
          break;
        case ReduceOp::PreMulSum:  // needs the factor, which a Case does not carry
          FAIL() << "premultiplied sums are checked in premul_sum_test.cpp";
      }
    }
    if (c.op == ReduceOp::Avg) exact /= p;
    const double got = loadValue(c.type, out, i);
    ASSERT_LE(std::fabs(got - exact), bound({exact, magnitude}))
        << what << " element " << i << " got " << got << " exact " << exact;
  }
}

// Runs a list of cases on one world of p ranks. Every rank draws all p inputs with
// input(case, seed), runs the AllReduce (in place or not, as the case says), and checks its own
// output with check(case, p, inputs, output); rank 0 then checks that all ranks ended bitwise
// identical. describe(case, p) names a case in failure messages.
inline void runCases(
    int p, const std::vector<Case>& cases,
    const std::function<Bytes(const Case&, std::uint32_t seed)>& input,
    const std::function<void(const Case&, int, const std::vector<Bytes>&, const Bytes&)>& check,
    const std::function<std::string(const Case&, int)>& describe) {
  std::vector<Bytes> outputs(p);
  std::barrier sync(p);
  runRanks(p, [&](int rank, Communicator& comm) {
    for (const Case& c : cases) {
      std::vector<Bytes> inputs;
      for (int r = 0; r < p; ++r) inputs.push_back(input(c, c.seed * 131 + r));
      Bytes out(c.count * dataTypeSize(c.type), std::byte{0xAB});
      if (c.inPlace) {
        out = inputs[rank];
        comm.allreduce(out.data(), out.data(), c.count, c.type, c.op, c.options);
      } else {
        comm.allreduce(inputs[rank].data(), out.data(), c.count, c.type, c.op, c.options);
      }
      check(c, p, inputs, out);
      outputs[rank] = std::move(out);
      sync.arrive_and_wait();
      if (rank == 0) {
        for (int r = 1; r < p; ++r) {
          EXPECT_TRUE(outputs[r] == outputs[0])
              << "rank " << r << " differs from rank 0: " << describe(c, p);
        }
      }
      sync.arrive_and_wait();
    }
  });
}

}  // namespace ringlab::test
