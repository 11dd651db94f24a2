#pragma once
// The API other programs link: one Communicator per rank, over any Transport. Collectives follow
// NCCL's buffer conventions (reduce-scatter: rank r receives block r of p equal blocks; allgather:
// rank r contributes block r; alltoall: block d of rank s's send lands as block s of rank d's
// recv). send == recv means in place. reduce, broadcast and alltoall run their own schedules
// (binomial trees, pairwise exchange: the registry's default for each, whatever `auto` would
// choose for allreduce), so they move no more than they must. A call blocks until this rank's part
// is done. Ranks that disagree on the call (count, dtype, op, algorithm) fail with Mismatch, all of
// them: before any data moves where it is the first call of its kind on each rank, else as soon as
// the data meets (a rank's buffer may then hold a partial result).
// After an exception (mismatch, timeout, lost peer) the communicator must not be used again.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"
#include "ringlab/exec/executor.hpp"
#include "ringlab/exec/rank_plan.hpp"
#include "ringlab/model/params.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/transport/transport.hpp"

// Declared, not included: the table's header brings its JSON format, which a program that links
// the Communicator need not parse.
namespace ringlab::model {
struct DecisionTable;
}

namespace ringlab {

struct CollectiveOptions {
  // ring, in rank order, by default (for reduce, broadcast and alltoall: their own default,
  // model::defaultAlgorithm); "auto" chooses per call
  schedule::AlgorithmSpec algorithm;
  // Whether the caller named `algorithm`: then a ring is run where it builds the collective and
  // refused elsewhere (reduce with the ring), as every other name is. Left false, a default
  // `algorithm` stands for each collective's own default.
  bool algorithmNamed = false;
  exec::ExecOptions exec;  // segment size, pipeline depth, timeout
  // The model "auto" chooses with: a calibrated profile's parameters, or the stated defaults.
  model::ModelParams autoModel = model::defaultModelParams();
  // A measured decision table (`ringlab tune`); "auto" prefers it to the model when its p matches.
  std::shared_ptr<const model::DecisionTable> autoTable;
};

class Communicator {
 public:
  explicit Communicator(transport::Transport& transport);

  int rank() const { return transport_.rank(); }
  int size() const { return transport_.size(); }
  // Buffers the peers on this host read in place (Transport::allocateShared), or null.
  void* allocateShared(std::size_t bytes) { return transport_.allocateShared(bytes); }

  // recv[i] = op over ranks of send[i], for i < count, on every rank.
  void allreduce(const void* send, void* recv, std::uint64_t count, DataType type, ReduceOp op,
                 const CollectiveOptions& options = {});
  // recv[i] = the sum over ranks of factor x send[i], on every rank (NCCL's premultiplied sum):
  // each rank's element is multiplied by `factor` as it enters the sum, rounded to the element
  // type as torch's `tensor.mul_(factor)` rounds it (reduce.hpp's PreMultiply). The bits are those
  // of scaling every rank's buffer first and summing it with allreduce, without the scaling pass.
  // Floating types only; every rank passes the same factor.
  void allreducePreMulSum(const void* send, void* recv, std::uint64_t count, DataType type,
                          double factor, const CollectiveOptions& options = {});
  // send holds recvCount * p elements; recv gets block `rank` of the reduction.
  void reduceScatter(const void* send, void* recv, std::uint64_t recvCount, DataType type,
                     ReduceOp op, const CollectiveOptions& options = {});
  // send holds sendCount elements; recv (sendCount * p) gets every rank's block in rank order.
  void allgather(const void* send, void* recv, std::uint64_t sendCount, DataType type,
                 const CollectiveOptions& options = {});
  // recv[i] = op over ranks of send[i], for i < count, at rank `root` only; the other ranks' recv
  // is not written (it may be null there). Every rank names the same root.
  void reduce(const void* send, void* recv, std::uint64_t count, DataType type, ReduceOp op,
              int root, const CollectiveOptions& options = {});
  // buffer[i] = the root's buffer[i], for i < count, on every rank; the root's bits arrive as
  // they are (whatever the type, NaN payloads included).
  void broadcast(void* buffer, std::uint64_t count, DataType type, int root,
                 const CollectiveOptions& options = {});
  // send and recv hold blockCount * p elements: block d of send goes to rank d, and block s of
  // recv comes from rank s (block `rank` is this rank's own, copied).
  void allToAll(const void* send, void* recv, std::uint64_t blockCount, DataType type,
                const CollectiveOptions& options = {});

  // The algorithm the latest call ran: its options' spec with "auto" (and the default options'
  // ring, for a collective ring does not build) resolved, as every rank resolved it. A caller that
  // reports what ran reads it here rather than choosing again. Throws InvalidArgument before the
  // first call.
  const schedule::AlgorithmSpec& resolvedAlgorithm() const;

 private:
  // `root`: reduce's and broadcast's, 0 for the other collectives (the algorithm spec's root).
  const exec::RankPlan& planFor(schedule::Collective collective, std::uint64_t count,
                                const Reduction& how, const CollectiveOptions& options,
                                int root = 0);
  // On the first call with this rank's current call stamp, checks with every rank that they all
  // make the same call, before any data moves. Later calls rely on the stamp every message carries.
  void agreeOnFirstCall(std::chrono::steady_clock::time_point deadline);
  // Runs the plan by the call's deadline; on failure aborts the transport (so peers stop too) and
  // throws the error naming the rank to blame (exec/attribution.hpp).
  void execute(const exec::RankPlan& plan, const Reduction& how, const void* input, void* output,
               const exec::ExecOptions& options);

  // The test-only fault of RINGLAB_FAULT around the transport, when one is planned for this rank.
  std::unique_ptr<transport::Transport> faulty_;
  transport::Transport& transport_;
  exec::Executor executor_;
  // Reused working buffer: reduce-scatter's full-size output, a reduce's partial results at the
  // ranks other than the root, an in-place alltoall's input.
  std::vector<std::byte> work_;
  std::map<std::string, exec::RankPlan> plans_;
  std::vector<transport::CallStamp> agreed_;  // stamps all ranks have agreed on
  // Collective calls begun, modulo 2^32: an abort says in which call this rank stood.
  std::uint32_t calls_ = 0;
  // The previous call: a loop of identical calls (the common case) skips choosing, keying and
  // stamping, which cost more than a small message's whole exchange on shared memory.
  struct PreviousCall {
    // Null before the first call. It points into plans_, which is cleared only on the way to
    // caching a new plan, and this pointer is then set to that new plan: it never dangles.
    const exec::RankPlan* plan = nullptr;
    schedule::Collective collective{};
    std::uint64_t count = 0;
    DataType type{};
    ReduceOp op{};
    double factor = 1;  // a premultiplied sum's
    int root = 0;
    schedule::AlgorithmSpec requested;
    bool requestedNamed = false;
    schedule::AlgorithmSpec resolved;  // what `requested` ran as
    model::ModelParams autoModel;
    const model::DecisionTable* autoTable = nullptr;
    transport::CallStamp stamp;
  } previous_;
};

}  // namespace ringlab
