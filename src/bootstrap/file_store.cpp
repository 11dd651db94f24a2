// A rendezvous store in a directory that every rank sees. Each key is one file, written under a
// temporary name and renamed into place, so a reader sees either nothing or the whole value
// (rename is atomic on POSIX file systems, NFS included).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bootstrap/net.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::bootstrap {
namespace {

namespace fs = std::filesystem;

// Keys hold '/' and other characters a file name cannot; letters, digits, '-' and '_' stay as
// they are and everything else becomes %XX, so no key maps to a temporary (".tmp...") name.
std::string fileNameFor(const std::string& key) {
  static const char* hex = "0123456789ABCDEF";
  std::string name;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '_') {
      name += static_cast<char>(c);
    } else {
      name += '%';
      name += hex[c >> 4];
      name += hex[c & 15];
    }
  }
  return name;
}

class FileStore final : public Store {
 public:
  explicit FileStore(fs::path directory) : directory_(std::move(directory)) {}

  void set(const std::string& key, const std::string& value) override {
    static std::atomic<unsigned> counter{0};
    const fs::path target = directory_ / fileNameFor(key);
    const fs::path temporary = directory_ / (".tmp-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(counter++) + "-" + fileNameFor(key));
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(value.data(), static_cast<std::streamsize>(value.size()));
      out.close();
      if (!out) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw Error(ErrorCode::Transport, "file store: cannot write " + temporary.string() +
                                              "; is the rendezvous directory writable?");
      }
    }
    std::error_code ec;
    fs::rename(temporary, target, ec);
    if (ec) {
      fs::remove(temporary, ec);
      throw Error(ErrorCode::Transport,
                  "file store: cannot rename into " + target.string() + ": " + ec.message());
    }
  }

  std::string get(const std::string& key, std::chrono::milliseconds timeout) override {
    const fs::path target = directory_ / fileNameFor(key);
    const auto deadline = net::Clock::now() + timeout;
    // Poll the file system: 1 ms at first (ranks on one host meet fast), backing off to 50 ms so
    // that ranks waiting on a network file system do not hammer its server.
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
      std::ifstream in(target, std::ios::binary);
      if (in) {
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
      }
      if (net::Clock::now() >= deadline) {
        throw Error(ErrorCode::Timeout, "rendezvous key '" + key + "' not set in " +
                                            directory_.string() + " within " +
                                            std::to_string(timeout.count()) +
                                            " ms; are all ranks started with the same directory?");
      }
      std::this_thread::sleep_for(std::min(
          pause,
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - net::Clock::now()) +
              std::chrono::milliseconds(1)));
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }

 private:
  fs::path directory_;
};

}  // namespace

std::unique_ptr<Store> openFileStore(const std::string& directory) {
  if (directory.empty())
    throwInvalid("file store: empty directory; give a directory every rank sees");
  // Only the directory itself is made, never its parents: a mistyped path must not grow a tree
  // of directories wherever the user can write. Every rank may make it; the first one does.
  const fs::path parent = fs::path(directory).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw Error(ErrorCode::Transport, "file store: directory '" + directory +
                                          "': its parent does not exist (only the last part of "
                                          "the path is created); give a directory every rank sees");
  }
  fs::create_directory(directory, ec);
  if (ec || !fs::is_directory(directory)) {
    throw Error(ErrorCode::Transport, "file store: cannot create directory '" + directory + "': " +
                                          (ec ? ec.message() : "a file of that name exists"));
  }
  return std::make_unique<FileStore>(fs::path(directory));
}

}  // namespace ringlab::bootstrap
