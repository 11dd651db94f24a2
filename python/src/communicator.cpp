// ringlab.Communicator: one rank's collectives on numpy arrays and torch tensors, over inproc
// (ranks as Python threads of this process), shm, tcp and mpi (this process as one rank of a job).
// The GIL is released while a collective runs, so p ranks on p Python threads run at once.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "algorithm_args.hpp"
#include "bindings.hpp"
#include "buffers.hpp"
#include "ringlab/communicator.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/io/model_files.hpp"
#include "ringlab/job/rank_world.hpp"
#include "ringlab/measure/rank_threads.hpp"
#include "ringlab/transport/inproc.hpp"

namespace ringlab::python {
namespace {

// Seconds as a number, or a time with its unit as the CLI takes it ("500ms").
std::chrono::milliseconds timeoutOf(const py::object& timeout) {
  const double seconds = py::isinstance<py::str>(timeout)
                             ? parseSeconds(timeout.cast<std::string>())
                             : timeout.cast<double>();
  return exec::timeoutFromSeconds(seconds, "timeout");
}

class PyCommunicator {
 public:
  // `owner` keeps the transport alive (the world of an inproc rank, a job's store and transport).
  PyCommunicator(std::shared_ptr<void> owner, transport::Transport& transport,
                 CollectiveOptions options)
      : owner_(std::move(owner)),
        transport_(transport),
        communicator_(transport),
        options_(std::move(options)) {}

  int rank() const { return communicator_.rank(); }
  int size() const { return communicator_.size(); }
  std::string transport() const { return transport_.name(); }

  // `bytes` of zeroed memory as a numpy uint8 array: where the transport has memory its peers read
  // in place (shm), from there, so that large collectives on it go single-copy; else ordinary
  // memory. The array keeps the transport alive.
  py::array sharedBuffer(std::size_t bytes) {
    void* shared = transport_.allocateShared(bytes);
    if (!shared) {
      py::array_t<std::uint8_t> plain(static_cast<py::ssize_t>(bytes));
      std::memset(plain.mutable_data(), 0, bytes);
      return plain;
    }
    auto* keep = new std::shared_ptr<void>(owner_);
    const py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
    return py::array_t<std::uint8_t>({static_cast<py::ssize_t>(bytes)}, {1},
                                     static_cast<std::uint8_t*>(shared), base);
  }

  void allreduce(const py::handle& send, const py::handle& out, const std::string& op,
                 const AlgorithmArgs& algorithm) {
    const auto [in, result] = sameCountBuffers(send, out);
    const ReduceOp reduceOp = parseReduceOp(op);
    const CollectiveOptions options = withAlgorithm(algorithm);
    py::gil_scoped_release released;
    communicator_.allreduce(in.data, result.data, in.count, in.type, reduceOp, options);
  }

  // In place as NCCL's: `out` is this rank's block of `send` (send[rank*n:(rank+1)*n]).
  void reduceScatter(const py::handle& send, const py::handle& out, const std::string& op,
                     const AlgorithmArgs& algorithm) {
    const BufferView in = viewBuffer(send, "send", false);
    const BufferView result = viewBuffer(out, "out", true);
    requireSameType(in, result);
    const std::uint64_t p = static_cast<std::uint64_t>(size());
    if (result.count * p != in.count) mismatch(in, result, "send = p x out elements");
    if (result.data != in.data + rank() * result.bytes()) requireDisjoint(in, result);
    const ReduceOp reduceOp = parseReduceOp(op);
    const CollectiveOptions options = withAlgorithm(algorithm);
    py::gil_scoped_release released;
    communicator_.reduceScatter(in.data, result.data, result.count, in.type, reduceOp, options);
  }

  // In place as NCCL's: `send` is this rank's block of `out`.
  void allgather(const py::handle& send, const py::handle& out, const AlgorithmArgs& algorithm) {
    const BufferView in = viewBuffer(send, "send", false);
    const BufferView result = viewBuffer(out, "out", true);
    requireSameType(in, result);
    const std::uint64_t p = static_cast<std::uint64_t>(size());
    if (in.count * p != result.count) mismatch(in, result, "out = p x send elements");
    if (in.data != result.data + rank() * in.bytes()) requireDisjoint(in, result);
    const CollectiveOptions options = withAlgorithm(algorithm);
    py::gil_scoped_release released;
    communicator_.allgather(in.data, result.data, in.count, in.type, options);
  }

  // `out` gets the reduction at the root only; the other ranks' `out` is left as it was, as is
  // their `send` when reduced in place.
  void reduce(const py::handle& send, const py::handle& out, const std::string& op, int root,
              const AlgorithmArgs& algorithm) {
    const auto [in, result] = sameCountBuffers(send, out);
    const ReduceOp reduceOp = parseReduceOp(op);
    const CollectiveOptions options = withAlgorithm(algorithm);
    std::byte* recv = checkedRoot(root) == rank() ? result.data : nullptr;
    py::gil_scoped_release released;
    communicator_.reduce(in.data, recv, in.count, in.type, reduceOp, root, options);
  }

  // In place: every rank's `buffer` becomes the root's, bit for bit.
  void broadcast(const py::handle& buffer, int root, const AlgorithmArgs& algorithm) {
    const BufferView data = viewBuffer(buffer, "buffer", true);
    checkedRoot(root);
    const CollectiveOptions options = withAlgorithm(algorithm);
    py::gil_scoped_release released;
    communicator_.broadcast(data.data, data.count, data.type, root, options);
  }

  // Block d of `send` goes to rank d; block s of `out` comes from rank s (p equal blocks). In
  // place when out is send.
  void allToAll(const py::handle& send, const py::handle& out, const AlgorithmArgs& algorithm) {
    const auto [in, result] = sameCountBuffers(send, out);
    const std::uint64_t p = static_cast<std::uint64_t>(size());
    if (in.count % p != 0) mismatch(in, result, "a count that is a multiple of p");
    const CollectiveOptions options = withAlgorithm(algorithm);
    py::gil_scoped_release released;
    communicator_.allToAll(in.data, result.data, in.count / p, in.type, options);
  }

 private:
  CollectiveOptions withAlgorithm(const AlgorithmArgs& algorithm) const {
    CollectiveOptions options = options_;
    options.algorithm = algorithm.spec(size());
    options.algorithmNamed = true;  // every call's algo is named: its default is in its signature
    return options;
  }

  // send and out of one dtype and count (allreduce, reduce, alltoall): one buffer (in place), or
  // two apart.
  std::pair<BufferView, BufferView> sameCountBuffers(const py::handle& send,
                                                     const py::handle& out) const {
    BufferView in = viewBuffer(send, "send", false);
    BufferView result = viewBuffer(out, "out", true);
    requireSameType(in, result);
    if (result.count != in.count) mismatch(in, result, "the same count");
    if (in.data != result.data) requireDisjoint(in, result);
    return {std::move(in), std::move(result)};
  }

  int checkedRoot(int root) const {
    if (root < 0 || root >= size()) {
      throwInvalid("root " + std::to_string(root) + ": this communicator has ranks 0.." +
                   std::to_string(size() - 1));
    }
    return root;
  }

  static void requireSameType(const BufferView& send, const BufferView& out) {
    if (send.type != out.type) {
      throwInvalid("out: " + out.description + " for a " + send.description +
                   ": send and out must have the same dtype");
    }
  }

  [[noreturn]] void mismatch(const BufferView& send, const BufferView& out,
                             const std::string& rule) const {
    throwInvalid("send " + send.description + " and out " + out.description +
                 " at p = " + std::to_string(size()) + ": need " + rule);
  }

  // Overlapping buffers other than the in-place layout would be read after being written.
  static void requireDisjoint(const BufferView& send, const BufferView& out) {
    if (send.data < out.data + out.bytes() && out.data < send.data + send.bytes()) {
      throwInvalid("send " + send.description + " and out " + out.description +
                   " overlap without being the in-place layout: use separate buffers");
    }
  }

  std::shared_ptr<void> owner_;
  transport::Transport& transport_;
  Communicator communicator_;
  CollectiveOptions options_;
};

// What every call of a communicator shares: the timeout, the segment size, and what `auto` chooses
// with (a calibrated profile's model, a tuned decision table), as the CLI's --timeout,
// --segment, --profile and --tuned give them.
CollectiveOptions baseOptions(const py::object& timeout, const py::object& segmentSize,
                              const std::string& profile, const std::string& tuned) {
  CollectiveOptions options;
  options.exec.timeout = timeoutOf(timeout);
  if (!segmentSize.is_none()) {
    options.exec.segmentBytes = py::isinstance<py::str>(segmentSize)
                                    ? parseSize(segmentSize.cast<std::string>())
                                    : segmentSize.cast<std::uint64_t>();
  }
  exec::validate(options.exec);
  if (!profile.empty()) options.autoModel = io::readProfile(profile).params;
  if (!tuned.empty()) {
    options.autoTable = std::make_shared<const model::DecisionTable>(io::readDecisionTable(tuned));
  }
  return options;
}

// p ranks of this process, for threads the caller runs.
class PyInprocWorld {
 public:
  PyInprocWorld(int ranks, const CollectiveOptions& options)
      : world_(std::make_shared<transport::InprocWorld>(ranks)) {
    for (int r = 0; r < ranks; ++r) {
      communicators_.push_back(
          std::make_shared<PyCommunicator>(world_, world_->transport(r), options));
    }
  }
  int size() const { return world_->size(); }
  std::shared_ptr<PyCommunicator> communicator(int rank) const {
    if (rank < 0 || rank >= size()) {
      throwInvalid("rank " + std::to_string(rank) + ": this world has ranks 0.." +
                   std::to_string(size() - 1));
    }
    return communicators_[static_cast<std::size_t>(rank)];
  }
  void abort(const std::string& reason) { world_->abort(reason); }

  // body(communicator) on one thread per rank (measure::runRankThreads: the first rank to fail
  // stops the others, and its exception is raised here); returns each rank's result.
  py::list run(const py::function& body) {
    std::vector<py::object> results(static_cast<std::size_t>(size()));
    {
      py::gil_scoped_release released;
      measure::runRankThreads(*world_, [&](int rank) {
        py::gil_scoped_acquire acquired;
        results[static_cast<std::size_t>(rank)] = body(communicator(rank));
      });
    }
    py::list list;
    for (py::object& result : results) list.append(std::move(result));
    return list;
  }

 private:
  std::shared_ptr<transport::InprocWorld> world_;
  std::vector<std::shared_ptr<PyCommunicator>> communicators_;
};

// This process as one rank of the job the rank environment (shm, tcp) or mpirun (mpi) describes:
// over `kind`, else the transport the launcher's ranks take (job::connectThisRank).
std::shared_ptr<PyCommunicator> connect(const std::optional<std::string>& kind,
                                        const CollectiveOptions& options) {
  std::shared_ptr<job::RankWorld> world;
  {
    py::gil_scoped_release released;
    world = std::make_shared<job::RankWorld>(
        job::connectThisRank(kind, "ringlab.connect", "transport", options.exec.timeout));
  }
  transport::Transport& transport = *world->transport;
  return std::make_shared<PyCommunicator>(std::move(world), transport, options);
}

}  // namespace

void bindCommunicator(py::module_& module) {
  bindAlgorithmArgs(module);
  py::class_<PyCommunicator, std::shared_ptr<PyCommunicator>>(module, "Communicator")
      .def_property_readonly("rank", &PyCommunicator::rank)
      .def_property_readonly("size", &PyCommunicator::size)
      .def_property_readonly("transport", &PyCommunicator::transport)
      .def("shared_buffer", &PyCommunicator::sharedBuffer, py::arg("bytes"))
      .def("allreduce", &PyCommunicator::allreduce, py::arg("send"), py::arg("out"), py::arg("op"),
           py::arg("algorithm"))
      .def("reduce_scatter", &PyCommunicator::reduceScatter, py::arg("send"), py::arg("out"),
           py::arg("op"), py::arg("algorithm"))
      .def("allgather", &PyCommunicator::allgather, py::arg("send"), py::arg("out"),
           py::arg("algorithm"))
      .def("reduce", &PyCommunicator::reduce, py::arg("send"), py::arg("out"), py::arg("op"),
           py::arg("root"), py::arg("algorithm"))
      .def("broadcast", &PyCommunicator::broadcast, py::arg("buffer"), py::arg("root"),
           py::arg("algorithm"))
      .def("alltoall", &PyCommunicator::allToAll, py::arg("send"), py::arg("out"),
           py::arg("algorithm"));
  py::class_<CollectiveOptions>(module, "CollectiveOptions")
      .def(py::init(&baseOptions), py::arg("timeout"), py::arg("segment_size"), py::arg("profile"),
           py::arg("tuned"));
  py::class_<PyInprocWorld>(module, "InprocWorld")
      .def(py::init<int, const CollectiveOptions&>(), py::arg("ranks"), py::arg("options"))
      .def_property_readonly("size", &PyInprocWorld::size)
      .def("communicator", &PyInprocWorld::communicator, py::arg("rank"))
      .def("abort", &PyInprocWorld::abort, py::arg("reason"))
      .def("run", &PyInprocWorld::run, py::arg("body"));
  module.def("connect", &connect, py::arg("transport").none(true), py::arg("options"));
}

}  // namespace ringlab::python
