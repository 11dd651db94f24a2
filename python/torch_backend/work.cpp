#include "work.hpp"

#include <pybind11/pybind11.h>

#include <ATen/core/ivalue.h>

#include <stdexcept>

#include "ringlab/core/error.hpp"

namespace ringlab::torch_backend {

RinglabWork::RinglabWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs)
    : c10d::Work(rank, type),
      outputs_(std::move(outputs)),
      future_(
          c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {
}

bool RinglabWork::wait(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout == kNoTimeout) {
    cv_.wait(lock, [this] { return completed_; });
  } else if (!cv_.wait_for(lock, timeout, [this] { return completed_; })) {
    throw std::runtime_error("ringlab: work " + c10d::opTypeToString(opType_) + " on rank " +
                             std::to_string(rank_) + " not done within " +
                             std::to_string(timeout.count()) + " ms");
  }
  if (exception_) std::rethrow_exception(exception_);
  return true;
}

void RinglabWork::complete(std::exception_ptr failure) {
  finish(failure);
  if (failure) {
    future_->setError(failure);
  } else {
    future_->markCompleted(c10::IValue(outputs_));
  }
}

ProgressThread::ProgressThread(std::string describe) : describe_(std::move(describe)) {
  for (int i = 0; i < kThreads; ++i) threads_.emplace_back([this] { loop(); });
}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  // The last reference to a group may go on a Python thread that holds the GIL (DDP's Reducer,
  // destroyed at exit), while the progress thread releases a finished task's tensors, which takes
  // the GIL to free their Python objects: joining with the GIL held deadlocks (seen about one run
  // in three of examples/python/ddp_ringlab.py), so the join lets it go.
  const auto join = [this] {
    for (std::thread& thread : threads_) thread.join();
  };
  if (Py_IsInitialized() && PyGILState_Check()) {
    pybind11::gil_scoped_release release;
    join();
  } else {
    join();
  }
}

void ProgressThread::enqueue(c10::intrusive_ptr<RinglabWork> work, std::string what,
                             std::function<void()> run) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({std::move(work), std::move(what), std::move(run)});
  }
  ready_.notify_one();
}

void ProgressThread::loop() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_.wait(
          lock, [this] { return (stopping_ && queue_.empty()) || (!running_ && !queue_.empty()); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
    }
    std::exception_ptr failure;
    if (!failure_.empty()) {
      failure = std::make_exception_ptr(
          std::runtime_error("ringlab: " + task.what + " on " + describe_ +
                             " not run: the process group failed earlier: " + failure_));
    } else {
      try {
        task.run();
      } catch (const Error& e) {
        // "timeout reached" is the wording torch users match on (gloo's "Timed out").
        failure_ = task.what + " failed (" + errorCodeName(e.code()) +
                   "): " + (e.code() == ErrorCode::Timeout ? "timeout reached: " : "") + e.what();
      } catch (const std::exception& e) {
        failure_ = task.what + " failed: " + e.what();
      }
      if (!failure_.empty()) {
        failure =
            std::make_exception_ptr(std::runtime_error("ringlab: " + describe_ + ": " + failure_));
      }
    }
    bool wake = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = false;
      wake = !queue_.empty() || stopping_;
    }
    // The other thread may take the next collective while this one runs the Future's callbacks.
    if (wake) ready_.notify_all();
    task.work->complete(failure);
  }
}

}  // namespace ringlab::torch_backend
