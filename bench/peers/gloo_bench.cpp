// Gloo's allreduce timed the way `ringlab bench` times its own, for bench/peers/run.sh.
//
// The program forks p rank processes (before any thread exists). They meet through a
// gloo::rendezvous::FileStore in the directory given with --store and connect a full mesh of
// gloo::transport::tcp pairs on the loopback interface. Three variants, float32 sum:
//   ring          gloo::AllreduceRing<float>, built once per size and run repeatedly (its
//                 intended use: the constructor allocates and registers buffers);
//   ring_chunked  gloo::AllreduceRingChunked<float>, likewise;
//   allreduce     the gloo::allreduce(AllreduceOptions) API, options built for every call, with
//                 an incrementing tag: what torch.distributed's gloo backend does.
// All three reduce in place, as Gloo (and torch) use them.
//
// Method, per size and variant (the same as ringlab's and mpi_allreduce_bench.c's):
//   buffers allocated and touched once for the largest size; warm-up calls; one timed call
//   whose slowest rank's time sizes the run to about T seconds (3 to 100000 iterations);
//   barrier; back-to-back timed calls; per-iteration time = maximum over ranks (a Gloo
//   allreduce of the time array); the median iteration is reported, and beside it the loop
//   statistic of `ringlab bench --stats loop` (each rank's mean over its own iterations, the
//   maximum over ranks). Then the check: the
//   buffer is refilled with small-integer inputs, one more call, and every element is compared
//   with the closed-form sum (exact in float).
// While timing, the in-place buffer holds zeros, so that repeated in-place sums cannot grow
// into infinities or NaNs; the values a call adds do not change its speed otherwise.
//
// Output: one CSV row per size and variant on rank 0's stdout:
//   peer,variant,p,size_bytes,time_us,busbw_GBps,wrong,version,iterations,note,loop_us
// Usage: gloo_bench -p P --store DIR [-b MIN] [-e MAX] [-f FACTOR] [-T SECONDS] [-w WARMUP]
//                   [--version TEXT] [--variants ring,ring_chunked,allreduce]
// Exit status: 0 when every rank finished and every element was right, 1 when an element was
// wrong, 2 when a rank failed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gloo/allreduce.h>
#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kMaxIterations = 100000;

struct Options {
  int ranks = 2;
  std::string store;
  std::uint64_t minBytes = 4, maxBytes = 256ull << 20, factor = 4;
  double seconds = 0.3;
  int warmup = 2;
  std::string version = "unknown";
  std::string variants = "ring,ring_chunked,allreduce";
};

std::uint64_t parseSize(const std::string& text) {
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  std::string unit = text.substr(used);
  std::uint64_t scale = 1;
  if (!unit.empty() && std::strchr("KkMmGg", unit[0])) {
    scale = 1ull << (unit[0] == 'K' || unit[0] == 'k'   ? 10
                     : unit[0] == 'M' || unit[0] == 'm' ? 20
                                                        : 30);
    unit.erase(0, 1);
  }
  if (unit == "iB" || unit == "B") unit.clear();
  if (!unit.empty() || !(value > 0))
    throw std::invalid_argument("size " + text + ": use 4, 64K, 16M, 1G");
  return static_cast<std::uint64_t>(value * static_cast<double>(scale));
}

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
    const std::string value = argv[++a];
    if (flag == "-p")
      o.ranks = std::stoi(value);
    else if (flag == "--store")
      o.store = value;
    else if (flag == "-b")
      o.minBytes = parseSize(value);
    else if (flag == "-e")
      o.maxBytes = parseSize(value);
    else if (flag == "-f")
      o.factor = std::stoull(value);
    else if (flag == "-T")
      o.seconds = std::stod(value);
    else if (flag == "-w")
      o.warmup = std::stoi(value);
    else if (flag == "--version")
      o.version = value;
    else if (flag == "--variants")
      o.variants = value;
    else
      throw std::invalid_argument("unknown option " + flag +
                                  "; see the comment at the top of gloo_bench.cpp");
  }
  if (o.ranks < 1 || o.store.empty() || o.factor < 2 || o.minBytes > o.maxBytes || o.minBytes % 4 ||
      o.maxBytes % 4 || o.warmup < 0 || !(o.seconds > 0)) {
    throw std::invalid_argument(
        "need -p >= 1, --store DIR, -f >= 2, -b <= -e, multiples of 4 bytes, -w >= 0, -T > 0");
  }
  std::replace(o.version.begin(), o.version.end(), ',', ';');
  return o;
}

float inputValue(std::uint64_t i, int r) {
  return static_cast<float>(static_cast<int>((i * 7 + r * 13ull) % 31) - 15);
}

float expectedValue(std::uint64_t i, int p) {
  int sum = 0;
  for (int r = 0; r < p; ++r) sum += static_cast<int>((i * 7 + r * 13ull) % 31) - 15;
  return static_cast<float>(sum);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

class Rank {
 public:
  Rank(const Options& o, int rank) : o_(o), rank_(rank) {
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    gloo::rendezvous::FileStore files(o.store);
    gloo::rendezvous::PrefixStore store("gloo_bench", files);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, o.ranks);
    context->connectFullMesh(store, device);
    context_ = context;
    data_.assign(o.maxBytes / 4, 0.0f);
    times_.resize(kMaxIterations);
  }

  bool sweep() {
    bool allRight = true;
    std::vector<std::string> variants;
    for (std::size_t start = 0; start <= o_.variants.size();) {
      const std::size_t comma = std::min(o_.variants.find(',', start), o_.variants.size());
      variants.push_back(o_.variants.substr(start, comma - start));
      start = comma + 1;
    }
    for (std::uint64_t bytes = o_.minBytes; bytes <= o_.maxBytes; bytes *= o_.factor) {
      const int count = static_cast<int>(bytes / 4);
      for (const std::string& variant : variants) {
        std::function<void()> once;
        std::unique_ptr<gloo::Algorithm> algorithm;
        std::vector<float*> ptrs{data_.data()};
        if (variant == "ring") {
          algorithm = std::make_unique<gloo::AllreduceRing<float>>(context_, ptrs, count);
        } else if (variant == "ring_chunked") {
          algorithm = std::make_unique<gloo::AllreduceRingChunked<float>>(context_, ptrs, count);
        } else if (variant == "allreduce") {
          once = [this, count] {
            gloo::AllreduceOptions opts(context_);
            opts.setOutput(data_.data(), static_cast<std::size_t>(count));
            opts.setReduceFunction(
                static_cast<void (*)(void*, const void*, const void*, std::size_t)>(
                    &gloo::sum<float>));
            opts.setTag(nextTag());
            gloo::allreduce(opts);
          };
        } else {
          throw std::invalid_argument("unknown variant " + variant +
                                      " (ring, ring_chunked, allreduce)");
        }
        if (algorithm) once = [&algorithm] { algorithm->run(); };
        allRight &= measure(variant, bytes, count, once);
      }
      if (bytes > o_.maxBytes / o_.factor) break;  // the next step would pass the largest size
    }
    return allRight;
  }

 private:
  std::uint32_t nextTag() { return tag_++; }

  void barrier() {
    gloo::BarrierOptions opts(context_);
    opts.setTag(nextTag());
    gloo::barrier(opts);
  }

  template <typename T>
  void allreduceInPlace(T* values, std::size_t n,
                        void (*fn)(void*, const void*, const void*, std::size_t)) {
    gloo::AllreduceOptions opts(context_);
    opts.setOutput(values, n);
    opts.setReduceFunction(fn);
    opts.setTag(nextTag());
    gloo::allreduce(opts);
  }

  bool measure(const std::string& variant, std::uint64_t bytes, int count,
               const std::function<void()>& once) {
    std::fill_n(data_.begin(), count, 0.0f);
    for (int i = 0; i < o_.warmup; ++i) once();

    barrier();
    auto start = std::chrono::steady_clock::now();
    once();
    double first = seconds(std::chrono::steady_clock::now() - start);
    allreduceInPlace(&first, 1, &gloo::max<double>);
    const int iterations = static_cast<int>(std::clamp(
        std::ceil(o_.seconds / std::max(first, 1e-9)), 3.0, static_cast<double>(kMaxIterations)));

    barrier();
    auto last = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      once();
      const auto now = std::chrono::steady_clock::now();
      times_[i] = seconds(now - last);
      last = now;
    }
    // Each rank's mean over its own loop, the maximum over ranks: `ringlab bench --stats loop`.
    double loop = std::accumulate(times_.begin(), times_.begin() + iterations, 0.0) / iterations;
    allreduceInPlace(&loop, 1, &gloo::max<double>);
    allreduceInPlace(times_.data(), static_cast<std::size_t>(iterations), &gloo::max<double>);
    const double timeUs =
        median(std::vector<double>(times_.begin(), times_.begin() + iterations)) * 1e6;

    for (int i = 0; i < count; ++i) data_[i] = inputValue(static_cast<std::uint64_t>(i), rank_);
    once();
    std::uint64_t wrong = 0;
    for (int i = 0; i < count; ++i)
      wrong += data_[i] != expectedValue(static_cast<std::uint64_t>(i), o_.ranks);
    allreduceInPlace(&wrong, 1, &gloo::sum<std::uint64_t>);

    if (rank_ == 0) {
      const int p = o_.ranks;
      const double busbw = bytes / (timeUs * 1e3) * (p > 1 ? 2.0 * (p - 1) / p : 0.0);
      std::printf("gloo,%s,%d,%llu,%.3f,%.6g,%llu,%s,%d,,%.3f\n", variant.c_str(), p,
                  static_cast<unsigned long long>(bytes), timeUs, busbw,
                  static_cast<unsigned long long>(wrong), o_.version.c_str(), iterations,
                  loop * 1e6);
      std::fflush(stdout);
    }
    return wrong == 0;
  }

  const Options& o_;
  const int rank_;
  std::shared_ptr<gloo::Context> context_;
  std::vector<float> data_;
  std::vector<double> times_;
  std::uint32_t tag_ = 1;
};

int runRank(const Options& o, int rank) {
  try {
    Rank r(o, rank);
    return r.sweep() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gloo_bench rank %d: %s\n", rank, e.what());
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parseOptions(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gloo_bench: %s\n", e.what());
    return 2;
  }
  std::fflush(stdout);
  std::vector<pid_t> children;
  for (int r = 0; r < o.ranks; ++r) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("gloo_bench: fork");
      for (pid_t c : children) kill(c, SIGKILL);
      return 2;
    }
    if (pid == 0) _exit(runRank(o, r));
    children.push_back(pid);
  }
  // Wait for every rank; when one fails, the others cannot finish: stop them.
  int worst = 0;
  for (std::size_t left = children.size(); left > 0; --left) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) break;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    if (code >= 2) {
      std::fprintf(stderr, "gloo_bench: a rank (pid %d) failed; stopping the others\n",
                   static_cast<int>(pid));
      for (pid_t c : children)
        if (c != pid) kill(c, SIGTERM);
    }
    worst = std::max(worst, code);
  }
  return worst;
}
