/* MPI_Allreduce timed the way `ringlab bench` times its own allreduce, so that the two columns
 * of bench/peers/run.sh can be compared. Built once per MPI implementation (mpicc.openmpi,
 * mpicc.mpich) and started by the matching mpirun.
 *
 * Method, per size (float32, sum, out of place):
 *   - buffers for the largest size are allocated and touched once, before the sweep;
 *   - warm-up calls, untimed;
 *   - one timed call; its slowest rank's time sizes the run: ceil(T / time) iterations,
 *     at least 3 and at most 100000, the same count on every rank;
 *   - barrier, then back-to-back calls, each one timed on every rank;
 *   - an iteration's time is the maximum over ranks (MPI_Allreduce MAX of the time array);
 *     the median iteration is reported, and beside it the loop statistic of `ringlab bench
 *     --stats loop`: each rank's mean over its own iterations, the maximum over ranks (ringlab's
 *     -a 3), which does not pick every iteration's slowest rank when ranks run out of phase;
 *   - check: the receive buffer is poisoned with NaN, one more call, and every element is
 *     compared with the closed form. Inputs are small integers, so the float sum is exact.
 *
 * Output: one CSV row per size on rank 0's stdout, in the columns of run.sh:
 *   peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,loop_us
 * busbw follows nccl-tests: size / time x 2(p-1)/p.
 *
 * Usage: mpi_allreduce_bench [-b MIN] [-e MAX] [-f FACTOR] [-T SECONDS] [-w WARMUP]
 *                            [--peer NAME] [--variant NAME]
 * Sizes accept K, M, G suffixes (powers of 1024). Exit status 1 when any element was wrong. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxIterations = 100000 };

static void fail(const char* what) {
  fprintf(stderr, "mpi_allreduce_bench: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static uint64_t parse_size(const char* text) {
  char* end = NULL;
  double value = strtod(text, &end);
  uint64_t scale = 1;
  if (*end == 'K' || *end == 'k')
    scale = 1ull << 10, ++end;
  else if (*end == 'M' || *end == 'm')
    scale = 1ull << 20, ++end;
  else if (*end == 'G' || *end == 'g')
    scale = 1ull << 30, ++end;
  if (*end == 'i') ++end;
  if (*end == 'B') ++end;
  if (end == text || *end != '\0' || !(value > 0)) fail("sizes look like 4, 64K, 16M, 1G");
  return (uint64_t)(value * (double)scale);
}

/* Rank r's input at element i; the sum over ranks stays a small integer, exact in float. */
static float input_value(uint64_t i, int r) {
  return (float)((int)((i * 7 + (uint64_t)r * 13) % 31) - 15);
}

static float expected_value(uint64_t i, int p) {
  int sum = 0;
  for (int r = 0; r < p; ++r) sum += (int)((i * 7 + (uint64_t)r * 13) % 31) - 15;
  return (float)sum;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* The library's own version string, cut to its first line and first clause, without commas. */
static void library_version(char* out, size_t size) {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  size_t n = 0;
  for (const char* c = text; *c && *c != '\n' && *c != ',' && n + 1 < size; ++c) {
    const int space = *c == ' ' || *c == '\t';
    if (space && (n == 0 || out[n - 1] == ' ')) continue;
    out[n++] = space ? ' ' : *c;
  }
  while (n > 0 && out[n - 1] == ' ') --n;
  out[n] = '\0';
  /* MPICH says "MPICH Version: 4.0.2": keep "MPICH 4.0.2". */
  char* label = strstr(out, " Version: ");
  if (label) memmove(label + 1, label + 10, strlen(label + 10) + 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);

  uint64_t min_bytes = 4, max_bytes = 256ull << 20, factor = 4;
  double seconds = 0.3;
  int warmup = 2;
  const char* peer = "mpi";
  const char* variant = "MPI_Allreduce";
  for (int a = 1; a < argc; ++a) {
    const char* flag = argv[a];
    if (a + 1 >= argc) fail("every option takes a value");
    const char* value = argv[++a];
    if (!strcmp(flag, "-b"))
      min_bytes = parse_size(value);
    else if (!strcmp(flag, "-e"))
      max_bytes = parse_size(value);
    else if (!strcmp(flag, "-f"))
      factor = strtoull(value, NULL, 10);
    else if (!strcmp(flag, "-T"))
      seconds = atof(value);
    else if (!strcmp(flag, "-w"))
      warmup = atoi(value);
    else if (!strcmp(flag, "--peer"))
      peer = value;
    else if (!strcmp(flag, "--variant"))
      variant = value;
    else
      fail("unknown option; see the comment at the top of mpi_allreduce_bench.c");
  }
  if (factor < 2 || min_bytes > max_bytes || min_bytes % 4 || max_bytes % 4 || warmup < 0 ||
      !(seconds > 0)) {
    fail("need -f >= 2, -b <= -e, sizes that are multiples of 4 (float32), -w >= 0, -T > 0");
  }

  char version[256];
  library_version(version, sizeof version);

  const uint64_t max_count = max_bytes / 4;
  float* send = malloc(max_bytes);
  float* recv = malloc(max_bytes);
  double* times = malloc(sizeof(double) * kMaxIterations);
  if (!send || !recv || !times) fail("out of memory for the buffers");
  for (uint64_t i = 0; i < max_count; ++i) send[i] = input_value(i, rank), recv[i] = 0;

  unsigned long long total_wrong = 0;
  for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= factor) {
    const int count = (int)(bytes / 4);
    for (int i = 0; i < warmup; ++i)
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);

    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double first = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double wanted = ceil(seconds / (first > 1e-9 ? first : 1e-9));
    const int iterations = wanted < 3 ? 3 : wanted > kMaxIterations ? kMaxIterations : (int)wanted;

    MPI_Barrier(MPI_COMM_WORLD);
    double last = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) {
      MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      const double now = MPI_Wtime();
      times[i] = now - last;
      last = now;
    }
    double loop = 0;
    for (int i = 0; i < iterations; ++i) loop += times[i];
    loop /= iterations;
    MPI_Allreduce(MPI_IN_PLACE, &loop, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, times, iterations, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double time_us = median(times, iterations) * 1e6;

    for (int i = 0; i < count; ++i) recv[i] = NAN;
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    unsigned long long wrong = 0;
    for (int i = 0; i < count; ++i) wrong += recv[i] != expected_value((uint64_t)i, p);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total_wrong += wrong;

    if (rank == 0) {
      const double busbw = (double)bytes / (time_us * 1e3) * (p > 1 ? 2.0 * (p - 1) / p : 0.0);
      printf("%s,%s,%d,%llu,%.3f,%.6g,%llu,%s,%d,,%.3f\n", peer, variant, p,
             (unsigned long long)bytes, time_us, busbw, wrong, version, iterations, loop * 1e6);
      fflush(stdout);
    }
    if (bytes > max_bytes / factor) break; /* the next step would pass the largest size */
  }

  free(send);
  free(recv);
  free(times);
  MPI_Finalize();
  return total_wrong == 0 ? 0 : 1;
}
