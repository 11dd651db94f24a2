#include "intake.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ringlab::lab {

ErrorBody errorBody(std::string_view path, const std::string& what) {
  if (path.rfind("/api/", 0) == 0) {
    return {"application/json", nlohmann::json{{"error", what}, {"field", nullptr}}.dump()};
  }
  return {"text/plain; charset=utf-8", what + "\n"};
}

namespace {

using Clock = std::chrono::steady_clock;

const char* reasonPhrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Service Unavailable";
  }
}

// An answer the intake gives itself, whole, with the connection closed after it.
std::string errorResponse(int status, std::string_view path, const std::string& what,
                          const std::string& extraHeaders = "", bool head = false) {
  const ErrorBody body = errorBody(path, what);
  return "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) +
         "\r\nContent-Type: " + body.contentType +
         "\r\nContent-Length: " + std::to_string(body.text.size()) +
         "\r\nCache-Control: no-store\r\nConnection: close\r\n" + extraHeaders + "\r\n" +
         (head ? "" : body.text);
}

// Best effort on a non-blocking socket: an error answer is small enough for the socket's buffer.
void sendNow(int fd, const std::string& text) {
  [[maybe_unused]] const ssize_t n = ::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
}

// Complete requests, each with its connection, served by a fixed set of threads.
class Workers {
 public:
  Workers(int count, std::function<void(int, std::string)> serve) : serve_(std::move(serve)) {
    for (int i = 0; i < count; ++i) threads_.emplace_back([this] { work(); });
  }
  ~Workers() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
      for (auto& [fd, request] : queue_) ::close(fd);
      queue_.clear();
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // False when kMaxRequestsQueued requests already wait: the caller answers 503.
  bool push(int fd, std::string request) {
    {
      const std::lock_guard lock(mutex_);
      if (queue_.size() >= kMaxRequestsQueued) return false;
      queue_.emplace_back(fd, std::move(request));
    }
    ready_.notify_one();
    return true;
  }

 private:
  void work() {
    for (;;) {
      std::pair<int, std::string> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      serve_(job.first, std::move(job.second));
      ::shutdown(job.first, SHUT_WR);
      ::close(job.first);
    }
  }

  std::function<void(int, std::string)> serve_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<int, std::string>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

struct Connection {
  int fd = -1;
  Clock::time_point deadline;
  std::string data;
  bool refused = false;       // answered; drained until the client closes or the deadline
  std::size_t headBytes = 0;  // 0 until the head is complete and checked
  std::size_t bodyBytes = 0;
  std::string path;
};

// "GET /api/info?x=1 HTTP/1.1" -> method, target, version.
bool splitRequestLine(std::string_view line, std::string& method, std::string& target,
                      std::string& version) {
  const auto first = line.find(' ');
  const auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos)
    return false;
  method = line.substr(0, first);
  target = line.substr(first + 1, second - first - 1);
  version = line.substr(second + 1);
  return !method.empty() && !target.empty() && version.rfind("HTTP/1.", 0) == 0;
}

std::string lowerCase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

bool methodAllowed(const std::string& method, const std::string& allowed) {
  std::size_t start = 0;
  while (start < allowed.size()) {
    const std::size_t end = std::min(allowed.find(", ", start), allowed.size());
    if (allowed.compare(start, end - start, method) == 0) return true;
    start = end + 2;
  }
  return false;
}

class Intake {
 public:
  Intake(int listener, const IntakeRoutes& routes)
      : listener_(listener), routes_(routes), workers_(kWorkers, routes.serve) {}
  ~Intake() {
    for (auto& c : connections_) ::close(c->fd);
    ::close(listener_);
  }

  void run(int stopFd) {
    std::vector<pollfd> fds;
    for (;;) {
      fds.assign({{stopFd, POLLIN, 0}, {listener_, POLLIN, 0}});
      Clock::time_point next = Clock::now() + std::chrono::seconds(1);
      for (auto& c : connections_) {
        fds.push_back({c->fd, POLLIN, 0});
        next = std::min(next, c->deadline);
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
      const int rc = ::poll(fds.data(), fds.size(), std::max<int>(0, wait.count() + 1));
      if (rc < 0 && errno != EINTR) return;
      if (fds[0].revents) return;
      for (std::size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents) readFrom(*connections_[i - 2]);
      }
      expire();
      std::erase_if(connections_, [](const auto& c) { return c->fd < 0; });
      if (fds[1].revents) acceptAll();
    }
  }

 private:
  void acceptAll() {
    for (;;) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      if (connections_.size() >= kMaxConnectionsReading) {
        sendNow(fd, errorResponse(503, "/api/",
                                  "the lab is busy: " + std::to_string(kMaxConnectionsReading) +
                                      " connections are still sending their requests; retry",
                                  "Retry-After: 1\r\n"));
        ::close(fd);
        continue;
      }
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      c->deadline = Clock::now() + kRequestDeadline;
      connections_.push_back(std::move(c));
    }
  }

  void close(Connection& c) {
    ::close(c.fd);
    c.fd = -1;
    forget(c);
  }

  void forget(Connection& c) {
    buffered_ -= c.data.size();
    c.data.clear();
  }

  void refuse(Connection& c, int status, const std::string& what, const std::string& extra = "",
              bool head = false) {
    sendNow(c.fd, errorResponse(status, c.path, what, extra, head));
    // The client may still be sending (a body too large): read and drop it for a moment rather
    // than close at once, which would reset the connection and could lose the answer.
    ::shutdown(c.fd, SHUT_WR);
    c.refused = true;
    forget(c);
    c.deadline = Clock::now() + std::chrono::seconds(1);
  }

  void readFrom(Connection& c) {
    char chunk[16384];
    const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) return close(c);
    if (c.refused) return;
    if (buffered_ + static_cast<std::size_t>(n) > kMaxBytesBuffered) {
      return refuse(c, 503, "the lab is busy: too many large requests arriving at once; retry",
                    "Retry-After: 1\r\n");
    }
    c.data.append(chunk, static_cast<std::size_t>(n));
    buffered_ += static_cast<std::size_t>(n);
    if (c.headBytes == 0 && !checkHead(c)) return;
    if (c.refused || c.data.size() < c.headBytes + c.bodyBytes) return;
    std::string request =
        c.data.substr(0, c.headBytes + c.bodyBytes);  // one request per connection
    if (!workers_.push(c.fd, std::move(request))) {
      return refuse(c, 503, "the lab is busy: every worker has requests waiting; retry",
                    "Retry-After: 1\r\n");
    }
    forget(c);
    c.fd = -1;  // the worker's now
  }

  void expire() {
    const Clock::time_point now = Clock::now();
    for (auto& c : connections_) {
      if (c->fd < 0 || now < c->deadline) continue;
      if (c->refused) {
        close(*c);
      } else {
        refuse(*c, 408,
               "the request did not arrive complete within " +
                   std::to_string(kRequestDeadline.count()) + " s");
      }
    }
  }

  // Once the head has arrived: checks it, answers what it must refuse, and sets headBytes and
  // bodyBytes. False while the head is incomplete or when it was refused.
  bool checkHead(Connection& c) {
    const std::size_t lineEnd = c.data.find('\n');
    const std::string_view firstLine = std::string_view(c.data).substr(0, lineEnd);
    const std::size_t targetStart = firstLine.find(' ');
    if (targetStart != std::string_view::npos) {
      const std::string_view target = firstLine.substr(targetStart + 1);
      c.path = target.substr(0, std::min(target.find('?'), target.find(' ')));
    }
    if ((lineEnd == std::string::npos ? c.data.size() : lineEnd) > kMaxUriBytes) {
      refuse(c, 414, "request line longer than " + std::to_string(kMaxUriBytes) + " bytes");
      return false;
    }
    std::size_t headEnd = c.data.find("\r\n\r\n");
    headEnd = headEnd == std::string::npos ? c.data.find("\n\n") : headEnd;
    if ((headEnd == std::string::npos ? c.data.size() : headEnd) > kMaxHeadBytes) {
      refuse(c, 431, "request head longer than " + std::to_string(kMaxHeadBytes) + " bytes");
      return false;
    }
    if (headEnd == std::string::npos) return false;
    headEnd += c.data.compare(headEnd, 4, "\r\n\r\n") == 0 ? 4 : 2;
    return checkRequest(c, headEnd);
  }

  bool checkRequest(Connection& c, std::size_t headEnd) {
    std::string method, target, version;
    if (!splitRequestLine(trimmed(std::string_view(c.data).substr(0, c.data.find('\n'))), method,
                          target, version)) {
      refuse(c, 400, "not an HTTP/1.x request line");
      return false;
    }
    const std::string allowed = routes_.allowed(c.path);
    const bool head = method == "HEAD";
    if (allowed.empty()) {
      refuse(c, 404, "no such path: " + c.path, "", head);
      return false;
    }
    if (!methodAllowed(method, allowed)) {
      refuse(c, 405, c.path + " takes " + allowed + ", not " + method, "Allow: " + allowed + "\r\n",
             head);
      return false;
    }
    std::optional<std::size_t> length;
    bool expectContinue = false;
    std::size_t line = c.data.find('\n') + 1;
    while (line < headEnd) {
      const std::size_t end = c.data.find('\n', line);
      const std::string_view text = std::string_view(c.data).substr(line, end - line);
      const std::size_t colon = text.find(':');
      const std::string name = lowerCase(trimmed(text.substr(0, colon)));
      const std::string_view value =
          colon == std::string_view::npos ? "" : trimmed(text.substr(colon + 1));
      if (name == "transfer-encoding") {
        refuse(c, 411, "send the body with a Content-Length, not a Transfer-Encoding");
        return false;
      }
      if (name == "content-length") {
        std::size_t n = 0;
        const bool digits = !value.empty() && value.size() <= 18 &&
                            value.find_first_not_of("0123456789") == std::string_view::npos;
        for (char d : value) n = n * 10 + static_cast<std::size_t>(d - '0');
        if (!digits || (length && *length != n)) {
          refuse(c, 400, "Content-Length '" + std::string(value.substr(0, 40)) + "' is not valid");
          return false;
        }
        length = n;
      }
      if (name == "expect" && lowerCase(value) == "100-continue") {
        // Answered here; the worker must not answer it again after the body.
        expectContinue = true;
        buffered_ -= end + 1 - line;
        c.data.erase(line, end + 1 - line);
        headEnd -= end + 1 - line;
        continue;
      }
      line = end + 1;
    }
    if (length.value_or(0) > routes_.maxBodyBytes) {
      refuse(c, 413,
             "body of " + std::to_string(*length) + " bytes; the limit is " +
                 std::to_string(routes_.maxBodyBytes) + " bytes");
      return false;
    }
    c.headBytes = headEnd;
    c.bodyBytes = length.value_or(0);  // no Content-Length: no body (RFC 9112 6.3)
    if (expectContinue && c.data.size() < c.headBytes + c.bodyBytes)
      sendNow(c.fd, "HTTP/1.1 100 Continue\r\n\r\n");
    return true;
  }

  int listener_;
  const IntakeRoutes& routes_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::size_t buffered_ = 0;  // bytes of requests read and not yet handed to a worker
  Workers workers_;
};

}  // namespace

void runIntake(int listener, int stopFd, const IntakeRoutes& routes) {
  ::listen(listener, 128);  // the kernel's accept queue, bounded: httplib's bind left it at 5
  ::fcntl(listener, F_SETFL, ::fcntl(listener, F_GETFL) | O_NONBLOCK);  // accept until EAGAIN
  Intake(listener, routes).run(stopFd);
}

}  // namespace ringlab::lab
