#include "server.hpp"

#include <arpa/inet.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "assets.hpp"
#include "intake.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::lab {
namespace {

using Endpoint = std::function<nlohmann::json(const Params&)>;
using BodyEndpoint = std::function<nlohmann::json(const std::string& body, const Params&)>;

void sendJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(), "application/json");
}

httplib::Server::Handler jsonHandler(BodyEndpoint endpoint) {
  return [endpoint = std::move(endpoint)](const httplib::Request& req, httplib::Response& res) {
    try {
      sendJson(res, 200, endpoint(req.body, Params::fromPairs(req.params)));
    } catch (const ApiError& e) {
      sendJson(res, 400, {{"error", e.what()}, {"field", e.field()}});
    } catch (const Error& e) {
      // The library refused a combination the parameter checks let through: still the request's
      // fault when it is an InvalidArgument, with no single field to blame.
      const bool invalid = e.code() == ErrorCode::InvalidArgument;
      sendJson(res, invalid ? 400 : 500, {{"error", e.what()}, {"field", nullptr}});
    } catch (const std::exception& e) {
      sendJson(res, 500, {{"error", e.what()}, {"field", nullptr}});
    }
  };
}

httplib::Server::Handler jsonHandler(Endpoint endpoint) {
  return jsonHandler([endpoint = std::move(endpoint)](const std::string&, const Params& p) {
    return endpoint(p);
  });
}

void serveAsset(const httplib::Request& req, httplib::Response& res) {
  if (const Asset* a = findAsset(req.path)) {
    res.set_content(a->body.data(), a->body.size(), std::string(a->contentType).c_str());
    return;
  }
  res.status = 404;  // the error handler writes the body
}

// The API's paths and the methods each takes; every other path is an asset or nothing.
struct Route {
  const char* path;
  bool post;
  Endpoint get;
  BodyEndpoint postBody;
};

const std::vector<Route>& apiRoutes() {
  static const std::vector<Route> routes{
      {"/api/info", false, infoApi, {}},
      {"/api/orbit", false, orbitApi, {}},
      {"/api/schedule", false, scheduleApi, {}},
      {"/api/model/sizes", false, modelSizesApi, {}},
      {"/api/model/ranks", false, modelRanksApi, {}},
      {"/api/record", true, {}, recordApi},
  };
  return routes;
}

// What the intake checks before a request reaches httplib's router.
std::string allowedMethods(std::string_view path) {
  for (const Route& r : apiRoutes()) {
    if (path == r.path) return r.post ? "POST" : "GET, HEAD";
  }
  if (path.rfind("/api/", 0) != 0 && findAsset(path)) return "GET, HEAD";
  return "";
}

void addRoutes(httplib::Server& server) {
  for (const Route& r : apiRoutes()) {
    if (r.post) {
      server.Post(r.path, jsonHandler(r.postBody));
    } else {
      server.Get(r.path, jsonHandler(r.get));
    }
  }
  server.Get(".*", serveAsset);
  // A failure httplib finds itself (a malformed header, a bad Range) gets a body too: JSON under
  // /api/, one line of text elsewhere. The intake has already answered unknown paths and methods.
  const httplib::Server::HandlerWithResponse fillBody = [](const httplib::Request& req,
                                                           httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const std::string what = res.status == 404
                                 ? "no such path: " + req.path
                                 : "request refused (HTTP " + std::to_string(res.status) + ")";
    const ErrorBody body = errorBody(req.path, what);
    res.set_content(body.text, body.contentType.c_str());
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_error_handler(fillBody);
  // Only /api/record takes a body: a measurement file, bounded (the intake refuses more first).
  server.set_payload_max_length(kMaxRecordBytes);
}

// A request the intake has read whole, answered in memory: reads come from the request (and end
// there), writes make the answer, which the intake sends. The request is freed once read: httplib
// has copied its body by then.
class RequestInMemory : public httplib::Stream {
 public:
  RequestInMemory(int fd, std::string request) : fd_(fd), request_(std::move(request)) {}

  bool is_readable() const override { return read_ < request_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const std::size_t n = std::min(size, request_.size() - read_);
    std::memcpy(ptr, request_.data() + read_, n);
    read_ += n;
    if (read_ == request_.size()) {
      std::string().swap(request_);
      read_ = 0;
    }
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    answer_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    addressOf(getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    addressOf(getsockname, ip, port);
  }
  socket_t socket() const override { return fd_; }
  std::string takeAnswer() { return std::move(answer_); }

 private:
  void addressOf(int (*query)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    char text[INET6_ADDRSTRLEN] = "";
    port = 0;
    if (query(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      const bool v6 = address.ss_family == AF_INET6;
      const auto* a4 = reinterpret_cast<const sockaddr_in*>(&address);
      const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&address);
      inet_ntop(address.ss_family, v6 ? static_cast<const void*>(&a6->sin6_addr) : &a4->sin_addr,
                text, sizeof text);
      port = ntohs(v6 ? a6->sin6_port : a4->sin_port);
    }
    ip = text;
  }

  int fd_;
  std::string request_;
  std::size_t read_ = 0;
  std::string answer_;
};

// httplib's router and responses, fed by the intake instead of httplib's own accept loop and
// thread pool (which let slow clients hold every thread).
class LabServer : public httplib::Server {
 public:
  std::string serve(int fd, std::string request) {
    RequestInMemory stream(fd, std::move(request));
    bool closed = false;
    process_request(stream, true, closed, nullptr);
    // What the request freed goes back to the system: glibc keeps freed memory in each thread's
    // arena otherwise, and an upload's gigabyte stayed with the process.
    malloc_trim(0);
    return stream.takeAnswer();
  }
  // The socket bind_to_port made, now the caller's.
  int takeListener() { return svr_sock_.exchange(INVALID_SOCKET); }
};

// "--host": an address or name of this machine; "[::1]" is taken as "::1". Refuses an empty one,
// which would listen on an address nobody named.
std::string checkedHost(const std::string& given) {
  std::string host = given;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) {
    throwInvalid("--host '" + given +
                 "': empty; give an address of this machine, such as 127.0.0.1 (the default) "
                 "or ::1");
  }
  if (host.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:%_") !=
      std::string::npos) {
    throwInvalid("--host '" + printableText(given, 64) +
                 "': not a host name or address; give one such as 127.0.0.1 or ::1");
  }
  return host;
}

// The URL of the lab at host:port: an IPv6 address in brackets, its zone's '%' as %25 (RFC 6874).
std::string labUrl(const std::string& host, int port) {
  if (host.find(':') == std::string::npos)
    return "http://" + host + ":" + std::to_string(port) + "/";
  std::string escaped;
  for (char c : host) escaped += c == '%' ? std::string("%25") : std::string(1, c);
  return "http://[" + escaped + "]:" + std::to_string(port) + "/";
}

}  // namespace

void runServer(const ServerOptions& options) {
  const std::string host = checkedHost(options.host);
  if (options.port < 0 || options.port > 65535) {
    throwInvalid("--port " + std::to_string(options.port) +
                 ": must be in 0..65535 (0: any free port)");
  }
  // SIGINT and SIGTERM are blocked in every thread (the workers inherit the mask) and taken by
  // one thread with sigwait, which then wakes the intake: a signal handler could not.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  LabServer server;
  addRoutes(server);
  // httplib's default sets SO_REUSEPORT, which lets a second lab bind the same port and take half
  // of the connections. SO_REUSEADDR alone still allows a quick restart on the same port.
  server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  int port = options.port;
  const bool bound =
      port == 0 ? (port = server.bind_to_any_port(host)) > 0 : server.bind_to_port(host, port);
  if (!bound) {
    const int error = errno;
    pthread_sigmask(SIG_UNBLOCK, &stopSignals, nullptr);
    const std::string hint = error == EADDRINUSE
                                 ? "another program (another lab?) listens there; choose another "
                                   "--port, or --port 0 for any free one"
                                 : "--host must be an address of this machine, such as 127.0.0.1";
    // errno is 0 when the host name did not resolve (getaddrinfo does not set it).
    const std::string reason = error != 0 ? std::strerror(error) : "not an address of this machine";
    throwInvalid("cannot listen on " + host + ":" + std::to_string(options.port) + " (" + reason +
                 "): " + hint);
  }
  std::printf("ringlab lab: serving on %s (Ctrl-C stops)\n", labUrl(host, port).c_str());
  std::fflush(stdout);

  const int stop = ::eventfd(0, EFD_CLOEXEC);
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stopSignals, &signal);
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(stop, &one, sizeof one);
  });
  const IntakeRoutes routes{
      allowedMethods, kMaxRecordBytes, LabAddress{host, port},
      [&server](int fd, std::string request) { return server.serve(fd, std::move(request)); }};
  runIntake(server.takeListener(), stop, routes);
  // Wakes the waiter when the intake stopped for a reason of its own; harmless otherwise.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  ::close(stop);
  pthread_sigmask(SIG_UNBLOCK, &stopSignals, nullptr);
  std::printf("ringlab lab: stopped\n");
}

}  // namespace ringlab::lab
