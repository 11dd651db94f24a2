// The premultiplied sum (Communicator::allreducePreMulSum): every rank's input multiplied by the
// factor as it enters the sum gives the bits of scaling every input first and summing after, for
// every AllReduce algorithm, transport, floating type and awkward size, in place and out of place,
// with no pass over the buffer of its own. A step that scaled a partial sum again, or forgot a raw
// input, would be off by the factor and fail the bitwise comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/core/half.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/streaming_stores.hpp"
#include "ringlab/exec/rank_plan.hpp"
#include "ringlab/model/registry.hpp"
#include "test_support.hpp"
#include "transport_worlds.hpp"

namespace ringlab::test {
namespace {

using schedule::AlgorithmSpec;

constexpr DataType kFloatingTypes[] = {DataType::Float32, DataType::Float64, DataType::Float16,
                                       DataType::Bfloat16};

// Closed form, factor 0.5, a = 3, b = 5: the flags say which operand is multiplied.
TEST(PreMulSumKernel, OnlyTheRawOperandsAreMultiplied) {
  const struct {
    bool a, b;
    float want;
  } cases[] = {{true, true, 4.0f}, {true, false, 6.5f}, {false, true, 5.5f}, {false, false, 8.0f}};
  for (const auto& c : cases) {
    for (std::size_t n : {std::size_t{1}, std::size_t{37}, std::size_t{1000}}) {
      std::vector<float> a(n, 3.0f), b(n, 5.0f), out(n, -1.0f), streamed(n + 16, -1.0f);
      const Reduction how{DataType::Float32, ReduceOp::PreMulSum, PreMultiply{0.5, c.a, c.b}};
      reduce(how, out.data(), a.data(), b.data(), n);
      reduceStreaming(how, streamed.data() + 3, a.data(), b.data(), n);  // unaligned destination
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], c.want) << "a raw " << c.a << ", b raw " << c.b << ", element " << i;
        ASSERT_EQ(streamed[i + 3], c.want) << "streaming, element " << i;
      }
    }
  }
}

// A 16-bit float is multiplied as torch's mul_ multiplies it: the factor rounded to the type, the
// product in float, rounded back before the sum. torch 1.13 gives 2.5234375 x 0.37 as
// 0.93408203125 in float16 and 0.93359375 in bfloat16; with the factor kept in float it would be
// 0.93359375 and 0.9375.
TEST(PreMulSumKernel, SixteenBitOperandsAreMultipliedAsTorchMultipliesThem) {
  const struct {
    DataType type;
    std::uint16_t (*from)(float);
    float (*to)(std::uint16_t);
    float want;
  } cases[] = {{DataType::Float16, floatToHalf, halfToFloat, 0.93408203125f},
               {DataType::Bfloat16, floatToBfloat16, bfloat16ToFloat, 0.93359375f}};
  for (const auto& c : cases) {
    std::vector<std::uint16_t> a(9, c.from(2.5234375f)), b(9, c.from(0.0f)), out(9);
    reduce({c.type, ReduceOp::PreMulSum, PreMultiply{0.37, true, false}}, out.data(), a.data(),
           b.data(), a.size());
    for (std::uint16_t h : out) EXPECT_EQ(c.to(h), c.want) << dataTypeName(c.type);
    multiplyBy(c.type, a.data(), a.size(), 0.37);
    for (std::uint16_t h : a) EXPECT_EQ(c.to(h), c.want) << dataTypeName(c.type) << " alone";
  }
}

TEST(PreMulSumKernel, ScalingAloneMultipliesInTheElementType) {
  std::vector<double> d = {3.0, -1.5, 1e-300};
  multiplyBy(DataType::Float64, d.data(), d.size(), 0.25);
  EXPECT_EQ(d, (std::vector<double>{0.75, -0.375, 0.25e-300}));
  std::vector<float> f = {1.0f};
  multiplyBy(DataType::Float32, f.data(), f.size(), 1.0 / 3);
  EXPECT_EQ(f[0], 1.0f * static_cast<float>(1.0 / 3));
}

// The plan marks a raw operand on the first combining step of each block only: at p = 4 the
// ring's first reduce-scatter step combines two raw inputs, the later ones a sum and a raw input,
// and the allgather copies sums. Nothing is left raw in the result.
TEST(PreMulSumPlan, RingMarksRawInputsOnlyWhereTheyEnterTheSum) {
  const schedule::Schedule s =
      model::buildSchedule(schedule::Collective::AllReduce, 4, AlgorithmSpec{});
  for (int r = 0; r < 4; ++r) {
    const exec::RankPlan plan = exec::planForRank(s, r, 1000, true);
    int reduces = 0;
    for (const exec::PlannedStep& step : plan.steps) {
      for (const exec::PlannedRecv& recv : step.recvs) {
        if (recv.mode != schedule::RecvMode::Reduce) {
          EXPECT_FALSE(recv.mineRaw || recv.theirsRaw) << "a copy combines nothing";
          continue;
        }
        EXPECT_TRUE(recv.mineRaw) << "this rank's own input enters each block's sum once";
        EXPECT_EQ(recv.theirsRaw, reduces == 0) << "step " << step.index;
        ++reduces;
      }
    }
    EXPECT_EQ(reduces, 3);
    EXPECT_TRUE(plan.rawResult.empty());
    // Without marking, nothing is raw.
    for (const exec::PlannedStep& step : exec::planForRank(s, r, 1000).steps) {
      for (const exec::PlannedRecv& recv : step.recvs) EXPECT_FALSE(recv.mineRaw || recv.theirsRaw);
    }
  }
}

// Every AllReduce algorithm the registry builds at p, with parameters where it takes them.
std::vector<AlgorithmSpec> allReduceSpecs(int p) {
  std::vector<AlgorithmSpec> specs;
  for (const std::string& name : model::algorithmNames()) {
    AlgorithmSpec s;
    s.name = name;
    if (name == "multi_ring") s.channels = 3;
    if (name == "hierarchical") {
      s.ranksPerNode = p;
      for (int l = 2; l < p; ++l) {
        if (p % l == 0) {
          s.ranksPerNode = l;
          break;
        }
      }
    }
    specs.push_back(s);
  }
  AlgorithmSpec shifted;  // the ring whose blocks are owned one rank further on
  shifted.ownershipOffset = 1;
  specs.push_back(shifted);
  return specs;
}

// Random values of either sign across several binades, in the element type.
Bytes randomInput(DataType type, std::uint64_t count, std::mt19937& rng) {
  std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
  std::uniform_int_distribution<int> exponent(-6, 6);
  Bytes data(count * dataTypeSize(type));
  for (std::uint64_t i = 0; i < count; ++i) {
    const double v = std::ldexp(mantissa(rng), exponent(rng));
    switch (type) {
      case DataType::Float32: {
        const auto f = static_cast<float>(v);
        std::memcpy(data.data() + i * 4, &f, 4);
        break;
      }
      case DataType::Float64:
        std::memcpy(data.data() + i * 8, &v, 8);
        break;
      case DataType::Float16:
      case DataType::Bfloat16: {
        const auto f = static_cast<float>(v);
        const std::uint16_t h = type == DataType::Float16 ? floatToHalf(f) : floatToBfloat16(f);
        std::memcpy(data.data() + i * 2, &h, 2);
        break;
      }
      default:
        ADD_FAILURE() << "not a floating type";
    }
  }
  return data;
}

class PreMulSumOnWorld : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(PreMulSumOnWorld, HasTheBitsOfScalingFirstThenSumming) {
  const auto [kind, p] = GetParam();
  const std::vector<AlgorithmSpec> specs = allReduceSpecs(p);
  runOnWorld(kind, p, [&](Communicator& comm) {
    std::mt19937 rng(1234 + comm.rank());
    int variant = 0;
    for (const AlgorithmSpec& spec : specs) {
      CollectiveOptions options;
      options.algorithm = spec;
      for (DataType type : kFloatingTypes) {
        for (std::uint64_t count : {0, 1, 7, 1001}) {
          // DDP's average (1 / p, a double) and a factor that no power of two is.
          const double factor = variant % 2 ? 1.0 / p : 0.37;
          const bool inPlace = ++variant % 3 == 0;
          SCOPED_TRACE(kind + " p=" + std::to_string(p) + " " + spec.name + " offset " +
                       std::to_string(spec.ownershipOffset) + " " + dataTypeName(type) + " x " +
                       std::to_string(count) + " factor " + std::to_string(factor) +
                       (inPlace ? " in place" : ""));
          const Bytes input = randomInput(type, count, rng);
          Bytes scaled = input;
          multiplyBy(type, scaled.data(), count, factor);
          Bytes want(input.size());
          comm.allreduce(scaled.data(), want.data(), count, type, ReduceOp::Sum, options);
          Bytes got(input.size());
          if (inPlace) {
            got = input;
            comm.allreducePreMulSum(got.data(), got.data(), count, type, factor, options);
          } else {
            comm.allreducePreMulSum(input.data(), got.data(), count, type, factor, options);
          }
          ASSERT_EQ(got, want);
        }
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(AllTransports, PreMulSumOnWorld,
                         ::testing::Combine(::testing::ValuesIn(worldKinds()),
                                            ::testing::Values(1, 2, 3, 4, 5, 8)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
                           return std::get<0>(info.param) + "_p" +
                                  std::to_string(std::get<1>(info.param));
                         });

// Closed form: integer inputs and a factor of 0.25 are exact in every type, so the result is
// 0.25 x (the sum over ranks) whatever the order.
TEST(PreMulSumClosedForm, QuarterOfTheSumOnEveryRank) {
  constexpr int p = 5;
  runRanks(p, [&](int r, Communicator& comm) {
    std::vector<float> in(1001), out(1001, -1.0f);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7 + r) % 13);
    comm.allreducePreMulSum(in.data(), out.data(), in.size(), DataType::Float32, 0.25);
    for (std::size_t i = 0; i < out.size(); ++i) {
      float sum = 0;
      for (int q = 0; q < p; ++q) sum += static_cast<float>((i * 7 + q) % 13);
      ASSERT_EQ(out[i], 0.25f * sum) << "rank " << r << " element " << i;
    }
  });
}

TEST(PreMulSumErrors, IntegerTypesAndNonFiniteFactorsAreRefusedByName) {
  runRanks(1, [&](int, Communicator& comm) {
    std::vector<std::int32_t> ints(4);
    expectInvalid(
        [&] { comm.allreducePreMulSum(ints.data(), ints.data(), 4, DataType::Int32, 0.5); },
        "a premultiplied sum of int32: its factor multiplies floating types only");
    std::vector<float> floats(4);
    expectInvalid(
        [&] {
          comm.allreducePreMulSum(floats.data(), floats.data(), 4, DataType::Float32, INFINITY);
        },
        "a premultiplied sum's factor inf: must be finite");
  });
}

// Ranks that disagree on the factor fail with Mismatch, as for any other part of the call.
TEST(PreMulSumErrors, RanksThatDisagreeOnTheFactorAllFailWithMismatch) {
  constexpr int p = 3;
  std::vector<std::string> errors(p);
  runOnWorldCatching("inproc", p, [&](Communicator& comm) {
    std::vector<float> data(100, 1.0f);
    const double factor = comm.rank() == 2 ? 0.5 : 0.25;
    try {
      comm.allreducePreMulSum(data.data(), data.data(), data.size(), DataType::Float32, factor);
    } catch (const Error& e) {
      errors[comm.rank()] = errorCodeName(e.code());
    }
  });
  for (int r = 0; r < p; ++r) EXPECT_EQ(errors[r], "mismatch") << "rank " << r;
}

}  // namespace
}  // namespace ringlab::test
