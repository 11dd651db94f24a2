#pragma once
// The transport contract suite's cases: what every transport (inproc, shm, tcp, mpi) must run
// correctly through the Communicator. One list and one checker, shared by the threaded harness
// (transport_contract_test.cpp) and the MPI harness (one process per rank), so every transport
// is judged by the same cases.
//
// Inputs are the check data of core/check_data.hpp: integer-valued, small enough that the
// reduction over p ranks is exact in every dtype, so the expected output has a closed form and
// every element is compared bitwise with it (and therefore every rank with every other).
//
// Header-only; functions are inline because several test binaries include it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ringlab/communicator.hpp"
#include "ringlab/core/check_data.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::test {

struct ContractCase {
  std::string name;  // for failure messages and test names
  schedule::Collective collective = schedule::Collective::AllReduce;
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  std::uint64_t count =
      0;  // allreduce: elements; reduce-scatter: per rank out; allgather: per rank in
  bool inPlace = false;
  CollectiveOptions options;
};

// The algorithm specs that build at p, each with a readable label.
inline std::vector<std::pair<std::string, schedule::AlgorithmSpec>> contractAlgorithms(int p) {
  std::vector<std::pair<std::string, schedule::AlgorithmSpec>> out;
  for (const std::string& name : model::algorithmNames()) {
    schedule::AlgorithmSpec spec;
    spec.name = name;
    if (name == "multi_ring") spec.channels = 2;
    if (name == "hierarchical") {
      if (p < 4 || p % 2 != 0) continue;
      spec.ranksPerNode = 2;
    }
    try {
      model::buildSchedule(schedule::Collective::AllReduce, p, spec);
    } catch (const Error&) {
      continue;  // not defined at this p
    }
    out.emplace_back(name == "multi_ring" ? "multi_ring2" : name, spec);
  }
  return out;
}

inline std::vector<ContractCase> contractCases(int p) {
  std::vector<ContractCase> cases;
  auto add = [&](ContractCase c) {
    c.name = std::string(schedule::collectiveName(c.collective)) + "_" + c.name + "_" +
             dataTypeName(c.type) + "_" + reduceOpName(c.op) + "_n" + std::to_string(c.count) +
             (c.inPlace ? "_inplace" : "_outofplace");
    cases.push_back(std::move(c));
  };
  const auto pu = static_cast<std::uint64_t>(p);
  // Every dtype and op, on the ring, with a count that does not divide by p.
  for (int t = 0; t < 10; ++t) {
    for (int o = 0; o < 5; ++o) {
      ContractCase c;
      c.name = "ring";
      c.type = static_cast<DataType>(t);
      c.op = static_cast<ReduceOp>(o);
      c.count = 2 * pu + 3;
      c.inPlace = (t + o) % 2 == 0;
      add(c);
    }
  }
  // Every algorithm: awkward counts, in and out of place, and many small segments.
  for (const auto& [label, spec] : contractAlgorithms(p)) {
    for (std::uint64_t count :
         {std::uint64_t{0}, std::uint64_t{1}, pu - 1, 1000 * pu + 7, std::uint64_t{50001}}) {
      for (bool inPlace : {false, true}) {
        ContractCase c;
        c.name = label;
        c.options.algorithm = spec;
        c.count = count;
        c.inPlace = inPlace;
        c.type = inPlace ? DataType::Int64 : DataType::Float32;
        c.op = inPlace ? ReduceOp::Max : ReduceOp::Sum;
        if (count == 50001) c.options.exec.segmentBytes = 4096;
        add(c);
      }
    }
  }
  // Reduce-scatter and allgather (ring), NCCL's layout.
  for (auto collective : {schedule::Collective::ReduceScatter, schedule::Collective::AllGather}) {
    for (std::uint64_t count :
         {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1001}}) {
      for (bool inPlace : {false, true}) {
        ContractCase c;
        c.name = "ring";
        c.collective = collective;
        c.type = DataType::Int32;
        c.count = count;
        c.inPlace = inPlace;
        add(c);
      }
    }
  }
  return cases;
}

// Runs one case on this rank and checks its output against the closed form, every element.
inline void runContractCase(Communicator& comm, const ContractCase& c) {
  const int p = comm.size(), rank = comm.rank();
  const std::size_t es = dataTypeSize(c.type);
  const std::uint64_t n = c.count, pu = static_cast<std::uint64_t>(p);
  using Bytes = std::vector<std::byte>;
  switch (c.collective) {
    case schedule::Collective::AllReduce: {
      Bytes in(n * es), out(n * es, std::byte{0xAB});
      fillCheckInput(c.type, c.op, rank, in.data(), n);
      if (c.inPlace) {
        out = in;
        comm.allreduce(out.data(), out.data(), n, c.type, c.op, c.options);
      } else {
        comm.allreduce(in.data(), out.data(), n, c.type, c.op, c.options);
      }
      EXPECT_EQ(countWrong(c.type, c.op, p, out.data(), n), 0u) << c.name << " on rank " << rank;
      break;
    }
    case schedule::Collective::ReduceScatter: {
      Bytes in(n * pu * es);
      fillCheckInput(c.type, c.op, rank, in.data(), n * pu);
      Bytes separate(n * es, std::byte{0xAB});
      std::byte* out = c.inPlace ? in.data() + rank * n * es : separate.data();
      comm.reduceScatter(in.data(), out, n, c.type, c.op, c.options);
      EXPECT_EQ(countWrong(c.type, c.op, p, out, n, rank * n), 0u) << c.name << " on rank " << rank;
      break;
    }
    case schedule::Collective::AllGather: {
      // Rank r contributes block r of a rank-0 check vector; everyone ends with all of it.
      Bytes expected(n * pu * es), out(n * pu * es, std::byte{0xAB});
      fillCheckInput(c.type, ReduceOp::Sum, 0, expected.data(), n * pu);
      Bytes block(expected.begin() + rank * n * es, expected.begin() + (rank + 1) * n * es);
      if (c.inPlace) {
        std::memcpy(out.data() + rank * n * es, block.data(), block.size());
        comm.allgather(out.data() + rank * n * es, out.data(), n, c.type, c.options);
      } else {
        comm.allgather(block.data(), out.data(), n, c.type, c.options);
      }
      EXPECT_TRUE(out == expected) << c.name << " on rank " << rank;
      break;
    }
    default:
      ADD_FAILURE() << c.name
                    << ": the contract cases cover allreduce, reduce_scatter and "
                       "allgather only";
      break;
  }
}

}  // namespace ringlab::test
