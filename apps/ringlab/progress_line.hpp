#pragma once
// The one place the CLI draws progress: one line on standard error, only when standard error is a
// terminal, redrawn in place ("\r", erase to the end of the line) at most 10 times a second by a
// drawing thread (so its clock moves while a long step runs), and erased when done. Elsewhere
// (logs, pipes, tests) it draws nothing and callback() is empty, so the library skips reporting.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ringlab/core/progress.hpp"

namespace ringlab::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string command);  // "tune": the line's first word
  ~ProgressLine();                             // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // What the library calls; empty when nothing is drawn.
  ProgressCallback callback();

  // Writes `text` to stdout with the line out of its way (erased, then redrawn by the next tick).
  void print(const std::string& text);

  // Stops drawing and erases the line; later updates are ignored.
  void finish();

 private:
  void update(const Progress& progress);
  void drawLoop();
  void drawLocked();
  void eraseLocked();

  std::string command_;
  bool drawing_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Progress> latest_;
  std::string shown_;  // what the terminal shows now ("" when erased)
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ringlab::cli
