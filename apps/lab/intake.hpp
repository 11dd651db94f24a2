#pragma once
// The lab server's front door: accepts connections, reads each request, head and body, and writes
// each answer, all on one thread with poll, so that a client that sends or reads slowly holds a
// buffer and nothing else. Only a complete request goes to a worker, which computes its answer in
// memory and hands it back. Every limit is enforced here, and answered here: a request line over
// kMaxUriBytes (414), a head over kMaxHeadBytes (431), a body over the caller's limit (413), a body
// without a Content-Length (411), a method the path does not take (405 with Allow), an unknown path
// (404), an HTTP version other than 1.0 and 1.1 (505), a Host that is not the lab's (421), a POST
// from another origin (403), a request not complete within kRequestDeadline (408), a full house
// (503). Memory is bounded: kMaxBytesBuffered for requests being read, waiting or being answered
// and answers not yet sent, kMaxRequestsQueued requests queued.
// One request per connection ("Connection: close"): no worker waits on an idle keep-alive.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "host_check.hpp"

namespace ringlab::lab {

inline constexpr std::chrono::seconds kRequestDeadline{10};  // from accept to the whole request
inline constexpr std::size_t kMaxUriBytes = 8192;            // the request line
inline constexpr std::size_t kMaxHeadBytes = 16384;          // request line and headers
inline constexpr std::size_t kMaxConnectionsReading = 128;   // still sending their request
// Answered (refused, or the whole answer sent) and read until the client closes, so that the
// close does not reset the connection before the client has read the answer.
inline constexpr std::size_t kMaxConnectionsDraining = 256;
inline constexpr std::chrono::seconds kDrainTime{1};
inline constexpr std::size_t kMaxBytesBuffered = 64u << 20;  // requests and answers held
inline constexpr std::size_t kMaxRequestsQueued = 16;        // complete, waiting for a worker
inline constexpr int kWorkers = 4;
inline constexpr std::chrono::seconds kResponseDeadline{10};  // to send one answer, once made

// The body of an error answer: JSON {"error": what, "field": null} for a path under /api/, one
// line of text elsewhere.
struct ErrorBody {
  std::string contentType;
  std::string text;
};
ErrorBody errorBody(std::string_view path, const std::string& what);

// What the server behind the intake provides.
struct IntakeRoutes {
  // The methods `path` takes, as an Allow header says them ("GET, HEAD"); empty: no such path.
  std::function<std::string(std::string_view path)> allowed;
  std::size_t maxBodyBytes = 0;
  // Where the lab listens: what a Host header must name (host_check.hpp).
  LabAddress address;
  // The whole answer (status line, headers, body) to one complete request (head and body in
  // `request`), which arrived on the connected socket `fd` (for its addresses: the intake writes
  // the answer). Runs on a worker thread.
  std::function<std::string(int fd, std::string request)> serve;
};

// Accepts on the listening socket `listener` (which it owns from now on) until `stopFd` (an
// eventfd or pipe) becomes readable; then closes every connection and joins its workers.
void runIntake(int listener, int stopFd, const IntakeRoutes& routes);

}  // namespace ringlab::lab
