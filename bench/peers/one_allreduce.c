/* One MPI_Allreduce of N bytes of float32 (sum, out of place) and nothing else, so that Open MPI's
 * pml monitoring counts the messages of that one call: which peers, how many messages, how many
 * bytes tell which algorithm ran (bench/peers/openmpi_algorithm.py).
 *
 * Usage: one_allreduce BYTES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long count = argc == 2 ? atol(argv[1]) / (long)sizeof(float) : 0;
  if (count < 1) {
    fprintf(stderr, "one_allreduce: give a size in bytes, at least %zu\n", sizeof(float));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  float* in = calloc((size_t)count, sizeof(float));
  float* out = calloc((size_t)count, sizeof(float));
  if (in == NULL || out == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
