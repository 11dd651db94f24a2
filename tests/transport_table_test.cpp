// The transport table (job/transports.hpp) as a new transport sees it: a fake one registered here
// is offered, chosen, measured over by bench, tune and calibrate, described in the record, priced
// by the roofline and picked by the torch backend's choice for a process group, with no other file
// touched, as tests/registry_test.cpp shows for a toy algorithm.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/job/launch_environment.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/job/transports.hpp"
#include "ringlab/measure/bench.hpp"
#include "ringlab/measure/calibrate.hpp"
#include "ringlab/measure/launch_description.hpp"
#include "ringlab/measure/tune.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab::job {
namespace {

using test::expectInvalid;

constexpr const char* kThreads = "counted";
constexpr const char* kProcesses = "counted-procs";

// Every byte a rank sends, counted on its way to the in-process transport underneath.
class CountingTransport : public transport::Transport {
 public:
  CountingTransport(transport::Transport& inner, std::string name, std::atomic<std::uint64_t>& sent)
      : inner_(inner), name_(std::move(name)), sent_(sent) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  std::string name() const override { return name_; }
  void setCallStamp(const transport::CallStamp& stamp) override {
    Transport::setCallStamp(stamp);
    inner_.setCallStamp(stamp);
  }
  transport::Request isend(int peer, const void* data, std::size_t bytes,
                           std::uint32_t tag) override {
    sent_ += bytes;
    return inner_.isend(peer, data, bytes, tag);
  }
  transport::Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) override {
    return inner_.irecv(peer, data, bytes, tag);
  }
  void wait(transport::Request request, std::chrono::milliseconds timeout) override {
    inner_.wait(request, timeout);
  }
  void abort(const Error& cause, const transport::WaitPoint& at) override {
    inner_.abort(cause, at);
  }

 private:
  transport::Transport& inner_;
  std::string name_;
  std::atomic<std::uint64_t>& sent_;
};

// `ranks` threads, each rank's transport counting into `sent`.
class CountingWorld : public transport::ThreadWorld {
 public:
  CountingWorld(int ranks, std::atomic<std::uint64_t>& sent) : inner_(ranks) {
    for (int r = 0; r < ranks; ++r)
      ranks_.push_back(std::make_unique<CountingTransport>(inner_.transport(r), kThreads, sent));
  }
  int size() const override { return inner_.size(); }
  transport::Transport& transport(int rank) override { return *ranks_.at(rank); }
  void abort(const std::string& reason) override { inner_.abort(reason); }

 private:
  transport::InprocWorld inner_;
  std::vector<std::unique_ptr<CountingTransport>> ranks_;
};

// A job of one process: its own world of one rank, counted.
class CountingRank : public CountingTransport {
 public:
  explicit CountingRank(std::atomic<std::uint64_t>& sent,
                        std::unique_ptr<transport::InprocWorld> world)
      : CountingTransport(world->transport(0), kProcesses, sent), world_(std::move(world)) {}

 private:
  std::unique_ptr<transport::InprocWorld> world_;
};

std::atomic<std::uint64_t> sentByThreads{0}, sentByRanks{0};

class TransportTable : public ::testing::Test {
 protected:
  void SetUp() override {
    registerTransport({
        .name = kThreads,
        .ranksAre = "counted threads",
        .start = RankStart::Threads,
        .threads = [](int ranks) { return std::make_unique<CountingWorld>(ranks, sentByThreads); },
        .traffic = model::TransportTraffic{.network = false, .copies = 1},
        .topology = "a counted host",
        .placement = "ranks as counted threads",
    });
    registerTransport({
        .name = kProcesses,
        .ranksAre = "counted processes",
        .start = RankStart::Launched,
        .spansHosts = true,
        .connect =
            [](const RankConnection& c) {
              EXPECT_EQ(c.size, 1);
              return std::make_unique<CountingRank>(sentByRanks,
                                                    std::make_unique<transport::InprocWorld>(1));
            },
        .topology = "counted hosts",
        .placement = "one counted process per rank",
    });
  }
  void TearDown() override {
    unregisterTransport(kThreads);
    unregisterTransport(kProcesses);
  }
};

TEST_F(TransportTable, ARegisteredTransportIsChosenAndDescribed) {
  const auto names = transportNameList();
  EXPECT_EQ(names, (std::vector<std::string>{"inproc", "shm", "tcp", "mpi", kThreads, kProcesses}));
  EXPECT_EQ(chooseTransport(std::string(kThreads), {}, "", "bench", names, "--transport"),
            kThreads);
  const Participation part = join({.transport = kThreads, .command = "bench", .ranks = 3});
  EXPECT_EQ(part.transport->name, kThreads);
  EXPECT_EQ(part.role, Participation::Role::Threads);
  EXPECT_EQ(part.ranks, 3);
  // Processes launched for it, as for shm and tcp, when the rank environment is not set.
  EXPECT_EQ(join({.transport = kProcesses, .command = "bench"}).role,
            Participation::Role::Launcher);
  EXPECT_EQ(measure::describeLaunch(kThreads).placement, "ranks as counted threads");
  EXPECT_EQ(measure::describeLaunch(kProcesses).topology, "counted hosts");
  EXPECT_EQ(ranksOnThisHost(kThreads, 5, {}), 5);
  EXPECT_EQ(transportTraffic(kThreads).copies, 1);
  expectInvalid([] { transportTraffic(kProcesses); },
                {kProcesses, "known for inproc, shm, tcp and counted"});
  expectInvalid([] { findTransport("udp", "--transport"); },
                {"--transport 'udp'", "inproc, shm, tcp, mpi, counted and counted-procs"});
}

TEST_F(TransportTable, BenchTuneAndCalibrateMeasureOverIt) {
  measure::BenchConfig bench;
  bench.transport = kThreads;
  bench.ranks = 3;
  bench.minBytes = bench.maxBytes = 1000;  // not a multiple of p: blocks of unequal size
  bench.iterations = 2;
  bench.warmup = 0;
  sentByThreads = 0;
  std::vector<record::RecordRow> rows;
  measure::runBenchThreads(bench, [&](const record::RecordRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].outOfPlace && rows[0].outOfPlace->wrong);
  EXPECT_EQ(*rows[0].outOfPlace->wrong, 0u);
  EXPECT_GT(sentByThreads.load(), 0u) << "bench measured another transport";

  measure::TuneConfig tune;
  tune.transport = kThreads;
  tune.ranks = 2;
  tune.minBytes = tune.maxBytes = 64;
  tune.iterations = 1;
  tune.warmup = 0;
  tune.rounds = 2;
  tune.algorithms = {"ring", "recursive_doubling"};
  sentByThreads = 0;
  record::RunInfo info;
  info.transport = kThreads;
  EXPECT_EQ(measure::tune(tune, info).transport, kThreads);
  EXPECT_GT(sentByThreads.load(), 0u) << "tune measured another transport";

  measure::CalibrateConfig calibrate;
  calibrate.transport = kThreads;
  calibrate.ranks = 2;
  calibrate.minBytes = 8;
  calibrate.maxBytes = 512;
  calibrate.iterations = 3;
  calibrate.rounds = 1;
  sentByThreads = 0;
  const record::Calibration c = measure::calibrate(calibrate);
  EXPECT_GT(sentByThreads.load(), 0u) << "calibrate measured another transport";
  EXPECT_EQ(c.fusedReduceFromBytes, 0u) << "the fake reads no sender's buffer in place";
}

TEST_F(TransportTable, TheTorchBackendsChoiceForAGroupOffersAndConnectsIt) {
  const std::vector<std::string> offered = groupTransportNames();
  EXPECT_NE(std::find(offered.begin(), offered.end(), kProcesses), offered.end());
  EXPECT_EQ(std::find(offered.begin(), offered.end(), kThreads), offered.end())
      << "a group's ranks are processes";
  const TransportEntry& chosen = transportForGroup(kProcesses, false, "ringlab transport");
  EXPECT_EQ(chosen.name, kProcesses);
  // auto keeps the table's own: shm on one host, tcp across hosts, ahead of those registered.
  EXPECT_EQ(transportForGroup(kAutoTransport, true, "ringlab transport").name, "shm");
  EXPECT_EQ(transportForGroup(kAutoTransport, false, "ringlab transport").name, "tcp");
  expectInvalid([] { transportForGroup(kThreads, true, "ringlab transport"); },
                {"ringlab transport 'counted'", "auto, shm, tcp and counted-procs"});
  expectInvalid([] { transportForGroup("shm", false, "ringlab transport"); },
                {"ringlab transport shm", "more than one host", "use tcp or auto"});

  // Connected as the backend connects it, then measured over as one rank of a job.
  const std::unique_ptr<bootstrap::Store> store = bootstrap::makeMemoryStore();
  const std::unique_ptr<transport::Transport> rank = chosen.connect({.store = store.get()});
  Communicator comm(*rank);
  measure::BenchConfig bench;
  bench.ranks = 1;
  bench.minBytes = bench.maxBytes = 64;
  bench.iterations = 1;
  bench.warmup = 0;
  std::vector<record::RecordRow> rows;
  measure::runBenchRank(bench, comm, [&](const record::RecordRow& row) { rows.push_back(row); });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rank->name(), kProcesses);
}

TEST(TransportTableEntries, RefusedRegistrations) {
  expectInvalid([] { registerTransport({.name = ""}); }, {"needs a name"});
  expectInvalid([] { registerTransport({.name = "shm", .connect = {}}); },
                {"transport 'shm'", "need a connect function"});
  expectInvalid(
      [] {
        registerTransport({.name = "shm", .connect = [](const RankConnection&) {
                             return std::unique_ptr<transport::Transport>();
                           }});
      },
      {"transport 'shm' is registered already"});
  expectInvalid([] { registerTransport({.name = "x", .start = RankStart::Threads}); },
                {"transport 'x'", "need a world"});
  expectInvalid([] { unregisterTransport("inproc"); }, {"'inproc' was not registered"});
  EXPECT_EQ(transportNames(), "inproc, shm, tcp and mpi");
  expectInvalid([] { threadWorld("tcp", 2); }, {"transport tcp", "not threads of this process"});
}

}  // namespace
}  // namespace ringlab::job
