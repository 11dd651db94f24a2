// Prints where each rank runs, for rank_placement_test.py: "rank R host H cpus C,C,...", the
// host as MPI names it and the CPUs the launcher bound the process to (sched_getaffinity).
#include <mpi.h>
#include <sched.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, length = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(host, &length);
  cpu_set_t set;
  CPU_ZERO(&set);
  std::string cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
    }
  }
  std::printf("rank %d host %s cpus %s\n", rank, host, cpus.c_str());
  MPI_Finalize();
  return 0;
}
