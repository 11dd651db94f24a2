#include "progress_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "ringlab/report/progress_text.hpp"

namespace ringlab::cli {
namespace {

constexpr std::chrono::milliseconds kRedraw{100};

// Columns of the terminal on stderr; a line as wide as the terminal would wrap, and a wrapped line
// cannot be redrawn with "\r".
std::size_t terminalColumns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1) return size.ws_col;
  return 80;
}

}  // namespace

ProgressLine::ProgressLine(std::string command)
    : command_(std::move(command)), drawing_(isatty(STDERR_FILENO) == 1) {
  if (drawing_) thread_ = std::thread([this] { drawLoop(); });
}

ProgressLine::~ProgressLine() {
  finish();
}

ProgressCallback ProgressLine::callback() {
  if (!drawing_) return {};
  return [this](const Progress& progress) { update(progress); };
}

void ProgressLine::update(const Progress& progress) {
  std::lock_guard lock(mutex_);
  if (stop_) return;
  const bool first = !latest_;
  latest_ = progress;
  if (first) drawLocked();  // at once, so that even a short run shows where it is
}

void ProgressLine::print(const std::string& text) {
  std::lock_guard lock(mutex_);
  eraseLocked();
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

void ProgressLine::finish() {
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
    eraseLocked();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressLine::drawLoop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kRedraw);
    if (!stop_ && latest_) drawLocked();
  }
}

void ProgressLine::drawLocked() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string text = report::progressText(command_, *latest_, elapsed);
  const std::size_t width = terminalColumns() - 1;
  if (text.size() > width) text.resize(width);
  if (text == shown_) return;
  std::fprintf(stderr, "\r%s\033[K", text.c_str());
  std::fflush(stderr);
  shown_ = std::move(text);
}

void ProgressLine::eraseLocked() {
  if (shown_.empty()) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_.clear();
}

}  // namespace ringlab::cli
