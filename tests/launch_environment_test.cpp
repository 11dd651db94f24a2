// Which launcher started a process, from its variables, and the transport a command that measures
// takes then (job/launch_environment.hpp): every launcher, every MPI this ringlab may be built
// for, and each refusal naming the variable it saw and the flag to add.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <map>
#include <string>

#include "expect_error.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/launch_environment.hpp"
#include "ringlab/job/launcher.hpp"

namespace ringlab::job {
namespace {

using test::expectInvalid;

LaunchEnvironment detect(const std::map<std::string, std::string>& vars) {
  return detectLaunchEnvironment([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

const std::vector<std::string> kBench{"inproc", "shm", "tcp", "mpi"};

std::string choose(const std::map<std::string, std::string>& vars, std::string_view mpi) {
  return chooseTransport(std::nullopt, detect(vars), mpi, "bench", kBench, "--transport");
}

TEST(LaunchEnvironment, RecognisesEachLauncherByItsVariables) {
  EXPECT_EQ(detect({}).launcher, Launcher::None);
  const LaunchEnvironment ompi = detect({{"OMPI_COMM_WORLD_SIZE", "4"},
                                         {"OMPI_COMM_WORLD_RANK", "1"},
                                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                         {"PMIX_RANK", "1"}});
  EXPECT_EQ(ompi.launcher, Launcher::OpenMpi);
  EXPECT_EQ(ompi.evidence, "OMPI_COMM_WORLD_SIZE=4");
  EXPECT_EQ(ompi.ranksOnThisHost, 2);
  const LaunchEnvironment hydra =
      detect({{"PMI_RANK", "0"}, {"PMI_SIZE", "3"}, {"MPI_LOCALNRANKS", "3"}});
  EXPECT_EQ(hydra.launcher, Launcher::Pmi);
  EXPECT_EQ(hydra.evidence, "PMI_SIZE=3");
  EXPECT_EQ(hydra.ranksOnThisHost, 3);
  EXPECT_EQ(detect({{"PMIX_RANK", "0"}}).launcher, Launcher::Pmix);
  const LaunchEnvironment torch = detect({{"RANK", "1"},
                                          {"WORLD_SIZE", "8"},
                                          {"LOCAL_WORLD_SIZE", "4"},
                                          {"MASTER_ADDR", "h0"},
                                          {"MASTER_PORT", "29500"}});
  EXPECT_EQ(torch.launcher, Launcher::Torchrun);
  EXPECT_TRUE(torch.rankKnown);
  EXPECT_EQ(torch.ranksOnThisHost, 4);
  EXPECT_EQ(detect({{"TORCHELASTIC_RUN_ID", "x"}}).evidence, "TORCHELASTIC_RUN_ID=x");
  EXPECT_FALSE(detect({{"LOCAL_RANK", "0"}}).rankKnown);
  EXPECT_EQ(detect({{"RINGLAB_RANK", "0"}, {"RANK", "0"}}).launcher, Launcher::Ringlab);
  // Job-wide variables alone are no launcher: shells export them.
  EXPECT_EQ(detect({{"MASTER_ADDR", "h0"}, {"MASTER_PORT", "29500"}}).launcher, Launcher::None);
  EXPECT_EQ(
      detect({{"OMPI_COMM_WORLD_LOCAL_SIZE", "x"}, {"OMPI_COMM_WORLD_RANK", "0"}}).ranksOnThisHost,
      0);
}

TEST(ChooseTransport, GivenWinsThenTheLaunchersThenInproc) {
  EXPECT_EQ(chooseTransport(std::string("shm"), detect({{"OMPI_COMM_WORLD_SIZE", "2"}}), "mpich",
                            "bench", kBench, "--transport"),
            "shm");
  EXPECT_EQ(choose({}, "openmpi"), "inproc");
  EXPECT_EQ(choose({{"OMPI_COMM_WORLD_SIZE", "2"}}, "openmpi"), "mpi");
  EXPECT_EQ(choose({{"PMIX_RANK", "0"}}, "openmpi"), "mpi");
  EXPECT_EQ(choose({{"PMI_SIZE", "2"}, {"PMI_RANK", "0"}}, "mpich"), "mpi");
  EXPECT_EQ(choose({{"RANK", "0"}, {"WORLD_SIZE", "2"}}, ""), "tcp");
}

TEST(ChooseTransport, RefusesWhatWouldRunSeparateJobsAndNamesTheFlag) {
  expectInvalid(
      [] {
        choose({{"OMPI_COMM_WORLD_SIZE", "2"}}, "mpich");
      },
      {"Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=2)", "built for MPICH", "MPICH's mpiexec",
       "--transport inproc", "separate bench"});
  expectInvalid(
      [] {
        choose({{"PMI_SIZE", "4"}}, "openmpi");
      },
      {"PMI_SIZE=4", "built for Open MPI", "--transport mpi", "--transport inproc"});
  expectInvalid(
      [] {
        choose({{"OMPI_COMM_WORLD_RANK", "0"}}, "");
      },
      {"built without MPI", "libopenmpi-dev", "--transport inproc"});
  expectInvalid(
      [] {
        choose({{"RINGLAB_RANK", "0"}}, "openmpi");
      },
      {"ringlab launch (RINGLAB_RANK=0)", "--transport shm", "--transport tcp"});
  expectInvalid(
      [] {
        choose({{"LOCAL_RANK", "0"}}, "openmpi");
      },
      {"torchrun (LOCAL_RANK=0)", "RANK and WORLD_SIZE", "--transport inproc"});
  // A command whose ranks are threads only (calibrate) under any launcher.
  expectInvalid(
      [] {
        chooseTransport(std::nullopt, detect({{"OMPI_COMM_WORLD_SIZE", "2"}}), "openmpi",
                        "calibrate", {"inproc"}, "--transport");
      },
      {"OMPI_COMM_WORLD_SIZE=2", "calibrate runs its ranks as threads", "--transport inproc"});
  expectInvalid(
      [] {
        chooseTransport(std::nullopt, detect({{"RANK", "0"}, {"WORLD_SIZE", "2"}}), "", "probe",
                        {"inproc", "mpi"}, "--transport");
      },
      {"--transport tcp", "probe does not have"});
  // A command of processes only (Python's connect) offers no separate run of threads, and without
  // a launcher asks for a transport.
  const std::vector<std::string> processes{"shm", "tcp", "mpi"};
  try {
    chooseTransport(std::nullopt, detect({{"RINGLAB_RANK", "0"}}), "", "connect", processes,
                    "transport");
    ADD_FAILURE() << "no transport chosen under ringlab launch";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "under ringlab launch (RINGLAB_RANK=0): add transport shm (processes on one host) or "
              "transport tcp (processes on any hosts)");
  }
  expectInvalid(
      [&] { chooseTransport(std::nullopt, {}, "", "connect", processes, "transport"); },
      {"transport: none given, and no launcher started this process: name one of shm, tcp, mpi"});
}

TEST(RanksOnThisHost, AllForThreadsAndSharedMemoryElseWhatTheLauncherSays) {
  const LaunchEnvironment ompi =
      detect({{"OMPI_COMM_WORLD_SIZE", "16"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "8"}});
  EXPECT_EQ(ranksOnThisHost("inproc", 6, {}), 6);
  EXPECT_EQ(ranksOnThisHost("shm", 6, detect({{"RINGLAB_RANK", "0"}})), 6);
  EXPECT_EQ(ranksOnThisHost("mpi", 16, ompi), 8);
  EXPECT_EQ(ranksOnThisHost("tcp", 16, detect({{"RANK", "0"}, {"WORLD_SIZE", "16"}})), 0);
}

TEST(UsableCores, ProcessesCountTheHostsCoresNotTheirOwnPinning) {
  cpu_set_t one;
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  const int online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(usableCores("mpi"), online);
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  // Pinned to one core as a launcher pins a rank: threads see one core, processes the host's.
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const int threads = usableCores("inproc");
  const int processes = usableCores("shm");
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(threads, 1);
  EXPECT_EQ(processes, online);
}

// The launcher's own checks speak of its values, not of a front end's flags: every front end has
// checked its input already, in its own words.
TEST(Launcher, RefusesNoRanksAndNoCommandInItsOwnWords) {
  expectInvalid([] { launch({0, {"true"}}); }, "the launch's ranks 0: need at least 1");
  expectInvalid([] { launch({2, {}}); }, "the launch's command is empty: nothing to run");
}

}  // namespace
}  // namespace ringlab::job
