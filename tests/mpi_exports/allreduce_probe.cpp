// One MPI_Allreduce (float32, sum, in place) per size given on the command line, each result
// checked, for the export tests (mpi_export_test.py), which watch what the MPI library sends
// inside each call: Open MPI through its own monitoring (pml_monitoring), MPICH through
// ucx_send_counter.cpp, which this program asks to count from just before each call to just
// after it (found with dlsym; absent, nothing is counted).
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  using Mark = void (*)(int, const char*);
  const auto mark = reinterpret_cast<Mark>(dlsym(RTLD_DEFAULT, "ringlab_send_counter_mark"));
  int wrong = 0;
  for (int a = 1; a < argc; ++a) {
    const long bytes = std::atol(argv[a]);
    std::vector<float> data(bytes / sizeof(float), static_cast<float>(rank + 1));
    if (mark) mark(rank, nullptr);  // start counting
    MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    char label[64];
    std::snprintf(label, sizeof label, "size %ld", bytes);
    if (mark) mark(rank, label);  // report what this call sent
    const float expected = static_cast<float>(size * (size + 1) / 2);
    for (float x : data) wrong += x != expected;
  }
  if (wrong) std::printf("rank %d: %d wrong elements\n", rank, wrong);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
