// Four ranks as threads, each contributing rank+1 to every element: every rank ends with 1+2+3+4.
#include <cstdio>
#include <thread>
#include <vector>

#include "ringlab/communicator.hpp"
#include "ringlab/transport/inproc.hpp"

int main() {
  constexpr int kRanks = 4;
  constexpr std::uint64_t kCount = 1'000'003;  // not a multiple of 4: chunks differ by one element
  ringlab::transport::InprocWorld world(kRanks);
  std::vector<float> results(kRanks);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      ringlab::Communicator comm(world.transport(r));
      std::vector<float> data(kCount, static_cast<float>(r + 1));
      comm.allreduce(data.data(), data.data(), kCount, ringlab::DataType::Float32,
                     ringlab::ReduceOp::Sum);  // in place, ring in rank order
      results[r] = data[kCount - 1];
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < kRanks; ++r)
    std::printf("rank %d: last element = %g (expected 10)\n", r, results[r]);
  return 0;
}
