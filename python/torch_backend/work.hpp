#pragma once
// The asynchronous side of the backend. Every collective a ProcessGroupRinglab is asked for is
// checked on the caller's thread, then queued with a Work object and returned at once; the
// process group's progress threads run the queue in order, one collective at a time (ringlab's
// Communicator is one rank's sequence of calls, the same on every rank), and complete each Work
// and its Future.
// As ProcessGroupGloo's AsyncWork does, a Work's Future completes with the output tensors, which
// is what DDP's reducer waits on.
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ringlab::torch_backend {

class RinglabWork final : public c10d::Work {
 public:
  RinglabWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs);

  // Waits for completion; throws the collective's failure, or a timeout error when `timeout`
  // (non-zero) passes first: the collective itself goes on, bounded by the group's timeout.
  bool wait(std::chrono::milliseconds timeout) override;
  std::vector<at::Tensor> result() override { return outputs_; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  // A receive's sender (a receive from any source learns it when the message is taken).
  int sourceRank() const override { return sourceRank_; }
  void setSourceRank(int rank) { sourceRank_ = rank; }

  // Called once, by the progress thread.
  void complete(std::exception_ptr failure);

 private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::atomic<int> sourceRank_{-1};
};

// Two threads take turns: whichever is free runs the next queued collective, and then completes
// its Work outside its turn, so that the other may run the next one meanwhile. A Future's callbacks
// run on the thread that completes it, and a callback may queue a collective and wait for it:
// torch's PowerSGD hook does, inside the callback of the AllReduce before. With one thread that
// wait would never end; with two the other runs the collective waited for (gloo runs its work on
// two threads by default, and has the same depth).
class ProgressThread {
 public:
  // `describe` names this rank for error messages ("rank 1 of 2 (shm)").
  explicit ProgressThread(std::string describe);
  ~ProgressThread();  // runs what is queued, then stops

  // Queues `run`; `work` completes when it has run. After a failure the group is unusable (the
  // Communicator's contract): every later collective fails at once with the first failure.
  void enqueue(c10::intrusive_ptr<RinglabWork> work, std::string what, std::function<void()> run);

 private:
  struct Task {
    c10::intrusive_ptr<RinglabWork> work;
    std::string what;
    std::function<void()> run;
  };
  static constexpr int kThreads = 2;
  void loop();

  std::string describe_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Task> queue_;
  bool running_ = false;  // a thread is running a collective: the others wait their turn
  bool stopping_ = false;
  std::string failure_;  // the first failure's message; only the thread whose turn it is touches it
  std::vector<std::thread> threads_;
};

}  // namespace ringlab::torch_backend
