#include "server.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "assets.hpp"
#include "ringlab/core/error.hpp"

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

void addRoutes(httplib::Server& server) {
  server.Get("/api/info", jsonHandler(infoApi));
  server.Get("/api/orbit", jsonHandler(orbitApi));
  server.Get("/api/schedule", jsonHandler(scheduleApi));
  server.Get("/api/model/sizes", jsonHandler(modelSizesApi));
  server.Get("/api/model/ranks", jsonHandler(modelRanksApi));
  server.Post("/api/record", jsonHandler(BodyEndpoint(recordApi)));
  server.Get("/api/.*", [](const httplib::Request&, httplib::Response& res) { res.status = 404; });
  server.Get(".*", serveAsset);
  // Every failure without a body of its own (unknown path, a method other than GET) gets one:
  // JSON under /api/, one line of text elsewhere.
  const httplib::Server::HandlerWithResponse fillBody = [](const httplib::Request& req,
                                                           httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    const std::string what = res.status == 404
                                 ? "no such path: " + req.path
                                 : "request refused (HTTP " + std::to_string(res.status) +
                                       "): the lab answers GET requests, and POST to /api/record";
    if (req.path.rfind("/api/", 0) == 0) {
      res.set_content(nlohmann::json{{"error", what}, {"field", nullptr}}.dump(),
                      "application/json");
    } else {
      res.set_content(what + "\n", "text/plain; charset=utf-8");
    }
    return httplib::Server::HandlerResponse::Handled;
  };
  server.set_error_handler(fillBody);
  // Only /api/record takes a body: a measurement file, bounded.
  server.set_payload_max_length(kMaxRecordBytes);
  // stop() waits for idle keep-alive connections to time out: a browser holding one would delay
  // Ctrl-C by httplib's default 5 s. On loopback a new connection costs nothing.
  server.set_keep_alive_timeout(1);
}

}  // namespace

void runServer(const ServerOptions& options) {
  if (options.port < 0 || options.port > 65535) {
    throwInvalid("--port " + std::to_string(options.port) +
                 ": must be in 0..65535 (0: any free port)");
  }
  // SIGINT and SIGTERM are blocked in every thread (the server's pool inherits the mask) and
  // taken by one thread with sigwait, which may then call stop(): a signal handler may not.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  httplib::Server server;
  addRoutes(server);
  // httplib's default sets SO_REUSEPORT, which lets a second lab bind the same port and take half
  // of the connections. SO_REUSEADDR alone still allows a quick restart on the same port.
  server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  int port = options.port;
  const bool bound = port == 0 ? (port = server.bind_to_any_port(options.host)) > 0
                               : server.bind_to_port(options.host, port);
  if (!bound) {
    const int error = errno;
    pthread_sigmask(SIG_UNBLOCK, &stopSignals, nullptr);
    const std::string hint = error == EADDRINUSE
                                 ? "another program (another lab?) listens there; choose another "
                                   "--port, or --port 0 for any free one"
                                 : "--host must be an address of this machine, such as 127.0.0.1";
    // errno is 0 when the host name did not resolve (getaddrinfo does not set it).
    const std::string reason = error != 0 ? std::strerror(error) : "not an address of this machine";
    throwInvalid("cannot listen on " + options.host + ":" + std::to_string(options.port) + " (" +
                 reason + "): " + hint);
  }
  const bool ipv6 = options.host.find(':') != std::string::npos;
  std::printf("ringlab lab: serving on http://%s%s%s:%d/ (Ctrl-C stops)\n", ipv6 ? "[" : "",
              options.host.c_str(), ipv6 ? "]" : "", port);
  std::fflush(stdout);

  std::atomic<bool> listenReturned{false};
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stopSignals, &signal);
    // stop() is a no-op until listen_after_bind has started: a signal in that window must not
    // be lost, so it is repeated until the server has returned.
    while (!listenReturned) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  server.listen_after_bind();
  listenReturned = true;
  // Wakes the waiter when the server stopped for a reason of its own; harmless otherwise.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  pthread_sigmask(SIG_UNBLOCK, &stopSignals, nullptr);
  std::printf("ringlab lab: stopped\n");
}

}  // namespace ringlab::lab
