#include "intake.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
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
    case 403:
      return "Forbidden";
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
    case 421:
      return "Misdirected Request";
    case 431:
      return "Request Header Fields Too Large";
    case 505:
      return "HTTP Version Not Supported";
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

enum class Phase {
  Reading,   // the request is arriving
  Working,   // complete, with a worker (queued or running)
  Writing,   // the answer is made and going out
  Draining,  // answered: read and dropped until the client closes or kDrainTime passes
};

struct Connection {
  int fd = -1;
  Phase phase = Phase::Reading;
  Clock::time_point deadline;
  std::string data;           // Reading: the request so far; Writing: the answer
  std::size_t sent = 0;       // Writing: bytes of the answer sent
  std::size_t held = 0;       // bytes of request or answer this connection holds in memory
  std::size_t headBytes = 0;  // 0 until the head is complete and checked
  std::size_t bodyBytes = 0;
  std::string path;
};

// Complete requests, each with its connection, answered by a fixed set of threads; the answers
// come back through answers(), and each one written to `wakeFd` (an eventfd) says one is ready.
class Workers {
 public:
  Workers(int count, std::function<std::string(int, std::string)> serve, int wakeFd)
      : serve_(std::move(serve)), wakeFd_(wakeFd) {
    for (int i = 0; i < count; ++i) threads_.emplace_back([this] { work(); });
  }
  ~Workers() { stop(); }
  void stop() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
      queue_.clear();
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  // False (and `request` left as it was) when kMaxRequestsQueued requests already wait.
  bool push(Connection* c, std::string& request) {
    {
      const std::lock_guard lock(mutex_);
      if (queue_.size() >= kMaxRequestsQueued) return false;
      queue_.emplace_back(c, std::move(request));
    }
    ready_.notify_one();
    return true;
  }
  // The answers made since the last call, each with its connection.
  std::vector<std::pair<Connection*, std::string>> answers() {
    const std::lock_guard lock(mutex_);
    return std::exchange(done_, {});
  }

 private:
  void work() {
    for (;;) {
      std::pair<Connection*, std::string> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      std::string answer = serve_(job.first->fd, std::move(job.second));
      {
        const std::lock_guard lock(mutex_);
        done_.emplace_back(job.first, std::move(answer));
      }
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(wakeFd_, &one, sizeof one);
    }
  }

  std::function<std::string(int, std::string)> serve_;
  int wakeFd_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::pair<Connection*, std::string>> queue_;
  std::vector<std::pair<Connection*, std::string>> done_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// "GET /api/info?x=1 HTTP/1.1" -> method, target, version (any "HTTP/..." token).
bool splitRequestLine(std::string_view line, std::string& method, std::string& target,
                      std::string& version) {
  const auto first = line.find(' ');
  const auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos)
    return false;
  method = line.substr(0, first);
  target = line.substr(first + 1, second - first - 1);
  version = line.substr(second + 1);
  return !method.empty() && !target.empty() && version.rfind("HTTP/", 0) == 0;
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

const std::string kRetry = "Retry-After: 1\r\n";

class Intake {
 public:
  Intake(int listener, const IntakeRoutes& routes)
      : listener_(listener),
        wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        routes_(routes),
        workers_(kWorkers, routes.serve, wake_) {}
  ~Intake() {
    workers_.stop();  // before the connections it may be answering are closed
    for (auto& c : connections_)
      if (c->fd >= 0) ::close(c->fd);
    ::close(listener_);
    ::close(wake_);
  }

  void run(int stopFd) {
    std::vector<pollfd> fds;
    std::vector<Connection*> polled;
    for (;;) {
      // Past kMaxConnectionsDraining answered connections, new ones wait in the kernel's queue.
      const bool accepting = count(Phase::Draining) < kMaxConnectionsDraining;
      fds.assign(
          {{stopFd, POLLIN, 0}, {wake_, POLLIN, 0}, {accepting ? listener_ : -1, POLLIN, 0}});
      polled.clear();
      Clock::time_point next = Clock::now() + std::chrono::seconds(1);
      for (auto& c : connections_) {
        if (c->phase == Phase::Working) continue;
        fds.push_back(
            {c->fd, static_cast<short>(c->phase == Phase::Writing ? POLLOUT : POLLIN), 0});
        polled.push_back(c.get());
        next = std::min(next, c->deadline);
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now());
      const int rc = ::poll(fds.data(), fds.size(), std::max<int>(0, wait.count() + 1));
      if (rc < 0 && errno != EINTR) return;
      if (fds[0].revents) return;
      for (std::size_t i = 0; i < polled.size(); ++i) {
        if (!fds[i + 3].revents) continue;
        if (polled[i]->phase == Phase::Writing) {
          writeTo(*polled[i]);
        } else {
          readFrom(*polled[i]);
        }
      }
      if (fds[1].revents) takeAnswers();
      expire();
      std::erase_if(connections_, [](const auto& c) { return c->fd < 0; });
      if (fds[2].revents) acceptAll();
    }
  }

 private:
  std::size_t count(Phase phase) const {
    return static_cast<std::size_t>(
        std::count_if(connections_.begin(), connections_.end(),
                      [&](const auto& c) { return c->phase == phase; }));
  }

  void acceptAll() {
    while (count(Phase::Draining) < kMaxConnectionsDraining) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      c->deadline = Clock::now() + kRequestDeadline;
      connections_.push_back(std::move(c));
      if (count(Phase::Reading) > kMaxConnectionsReading) {
        // Unread, the request would make the close a reset, which can lose the answer: drained.
        refuse(*connections_.back(), 503,
               "the lab is busy: " + std::to_string(kMaxConnectionsReading) +
                   " connections are still sending their requests; retry",
               kRetry);
      }
    }
  }

  // Counts `bytes` as what `c` holds now, in its place of the total.
  void hold(Connection& c, std::size_t bytes) {
    held_ = held_ - c.held + bytes;
    c.held = bytes;
  }

  void close(Connection& c) {
    ::close(c.fd);
    c.fd = -1;
    hold(c, 0);
    std::string().swap(c.data);
  }

  void drain(Connection& c) {
    ::shutdown(c.fd, SHUT_WR);
    c.phase = Phase::Draining;
    hold(c, 0);
    std::string().swap(c.data);
    c.deadline = Clock::now() + kDrainTime;
  }

  void refuse(Connection& c, int status, const std::string& what, const std::string& extra = "",
              bool head = false) {
    // Connections whose request was not read (the house is full) are answered as /api/ would be.
    sendNow(c.fd, errorResponse(status, c.path.empty() ? "/api/" : c.path, what, extra, head));
    drain(c);
  }

  void readFrom(Connection& c) {
    char chunk[16384];
    const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) return close(c);
    if (c.phase != Phase::Reading) return;  // draining
    if (held_ + static_cast<std::size_t>(n) > kMaxBytesBuffered) {
      return refuse(c, 503, "the lab is busy: too many large requests or answers at once; retry",
                    kRetry);
    }
    c.data.append(chunk, static_cast<std::size_t>(n));
    hold(c, c.data.size());
    if (c.headBytes == 0 && !checkHead(c)) return;
    if (c.data.size() < c.headBytes + c.bodyBytes) return;
    c.data.resize(c.headBytes + c.bodyBytes);  // one request per connection
    hold(c, c.data.size());                    // still held while a worker has it
    if (!workers_.push(&c, c.data)) {
      return refuse(c, 503, "the lab is busy: every worker has requests waiting; retry", kRetry);
    }
    c.phase = Phase::Working;
  }

  void takeAnswers() {
    std::uint64_t ready = 0;
    [[maybe_unused]] const ssize_t n = ::read(wake_, &ready, sizeof ready);
    for (auto& [c, answer] : workers_.answers()) {
      c->phase = Phase::Writing;
      c->data = std::move(answer);
      c->sent = 0;
      hold(*c, c->data.size());
      c->deadline = Clock::now() + kResponseDeadline;
      writeTo(*c);  // most answers fit the socket's buffer at once
    }
  }

  // Sends what the socket takes now; the rest waits for poll, within kResponseDeadline.
  void writeTo(Connection& c) {
    while (c.sent < c.data.size()) {
      const ssize_t n =
          ::send(c.fd, c.data.data() + c.sent, c.data.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        c.sent += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
      } else {
        return close(c);
      }
    }
    drain(c);
  }

  void expire() {
    const Clock::time_point now = Clock::now();
    for (auto& c : connections_) {
      if (c->fd < 0 || c->phase == Phase::Working || now < c->deadline) continue;
      if (c->phase == Phase::Reading) {
        refuse(*c, 408,
               "the request did not arrive complete within " +
                   std::to_string(kRequestDeadline.count()) + " s");
      } else {
        close(*c);  // an answer not taken within kResponseDeadline, or a drain done
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

  // Checks the head (c.data up to headEnd) and rewrites it as httplib reads it: every line ended
  // by CRLF (RFC 9112 lets a server take a bare LF as a line's end; httplib does not), without an
  // Expect the intake has answered itself.
  bool checkRequest(Connection& c, std::size_t headEnd) {
    const std::string_view requestLine =
        trimmed(std::string_view(c.data).substr(0, c.data.find('\n')));
    std::string method, target, version;
    if (!splitRequestLine(requestLine, method, target, version)) {
      refuse(c, 400, "not an HTTP/1.x request line");
      return false;
    }
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
      refuse(c, 505,
             "HTTP version '" + version.substr(0, 16) + "': the lab speaks HTTP/1.1 and 1.0");
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
    std::optional<std::string> host, origin;
    bool expectContinue = false;
    std::string canonical = std::string(requestLine) + "\r\n";
    for (std::size_t line = c.data.find('\n') + 1; line < headEnd;) {
      const std::size_t end = c.data.find('\n', line);
      const std::string_view text = trimmed(std::string_view(c.data).substr(line, end - line));
      line = end + 1;
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
      if ((name == "host" && host) || (name == "origin" && origin)) {
        refuse(c, 400, "two " + name + " headers");
        return false;
      }
      if (name == "host") host = value;
      if (name == "origin") origin = value;
      if (name == "expect" && lowerCase(value) == "100-continue") {
        expectContinue = true;  // answered here; the worker must not answer it again
      } else if (!text.empty()) {
        canonical.append(text).append("\r\n");
      }
    }
    // DNS rebinding: a page of another site, under a name of its own that resolves here.
    if (host && !hostAllowed(*host, routes_.address)) {
      refuse(c, 421,
             "Host '" + host->substr(0, 64) +
                 "' is not this lab's address; open the lab at the address it printed");
      return false;
    }
    // A page of another site posting to the lab: the browser names the page's origin.
    if (method == "POST" && origin && !sameOrigin(*origin, host.value_or(""))) {
      refuse(c, 403,
             "a POST from origin '" + origin->substr(0, 64) + "', not from the lab's own page");
      return false;
    }
    if (length.value_or(0) > routes_.maxBodyBytes) {
      refuse(c, 413,
             "body of " + std::to_string(*length) + " bytes; the limit is " +
                 std::to_string(routes_.maxBodyBytes) + " bytes");
      return false;
    }
    canonical += "\r\n";
    c.data.replace(0, headEnd, canonical);
    hold(c, c.data.size());
    c.headBytes = canonical.size();
    c.bodyBytes = length.value_or(0);  // no Content-Length: no body (RFC 9112 6.3)
    if (expectContinue && c.data.size() < c.headBytes + c.bodyBytes)
      sendNow(c.fd, "HTTP/1.1 100 Continue\r\n\r\n");
    return true;
  }

  int listener_;
  int wake_;  // written by a worker when an answer is ready
  const IntakeRoutes& routes_;
  std::vector<std::unique_ptr<Connection>> connections_;
  std::size_t held_ = 0;  // bytes of requests and answers held, over every connection
  Workers workers_;
};

}  // namespace

void runIntake(int listener, int stopFd, const IntakeRoutes& routes) {
  ::listen(listener, 128);  // the kernel's accept queue, bounded: httplib's bind left it at 5
  ::fcntl(listener, F_SETFL, ::fcntl(listener, F_GETFL) | O_NONBLOCK);  // accept until EAGAIN
  Intake(listener, routes).run(stopFd);
}

}  // namespace ringlab::lab
