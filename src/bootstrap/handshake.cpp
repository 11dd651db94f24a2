#include "bootstrap/handshake.hpp"

#include <sys/random.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "bootstrap/sha256.hpp"
#include "ringlab/core/error.hpp"

namespace ringlab::bootstrap::handshake {
namespace {

// The hello kind that answers `kind` (StoreClient -> StoreServer, DataConnect -> DataAccept).
wire::HelloKind answerKind(wire::HelloKind kind) {
  return static_cast<wire::HelloKind>(static_cast<std::uint8_t>(kind) + 1);
}

std::string hostOf(const std::string& peer) {
  const auto colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

enum class Outcome { Answered, Closed };

// Sends or receives all `bytes` by the deadline. Closed: the connection ended or failed (net's
// helpers throw then).
enum class Io { Done, Closed, TimedOut };
Io transfer(bool sending, int fd, std::uint8_t* data, std::size_t bytes, Clock::time_point deadline,
            const std::string& what) {
  try {
    const bool done = sending ? net::sendAll(fd, data, bytes, deadline, what)
                              : net::recvAll(fd, data, bytes, deadline, what);
    return done ? Io::Done : Io::TimedOut;
  } catch (const Error&) {
    return Io::Closed;
  }
}

// One connection's handshake, connecting side. Closed: the far side ended the connection before
// answering.
Outcome greet(int fd, wire::Hello hello, std::string_view token, Clock::time_point deadline,
              const std::string& what, wire::Hello& answer) {
  std::uint8_t challengeBytes[wire::kChallengeBytes];
  std::uint8_t bytes[wire::kHelloBytes];
  Io io = transfer(false, fd, challengeBytes, sizeof challengeBytes, deadline, what);
  wire::Challenge challenge;
  if (io == Io::Done) {
    if (const char* bad = wire::parseChallenge(challengeBytes, sizeof challengeBytes, challenge)) {
      throw Error(ErrorCode::Transport,
                  what + ": not a ringlab listener of this version (" + bad + ")");
    }
    hello.nonce = freshNonce();
    hello.proof = {};
    wire::encodeHello(hello, bytes);
    const wire::Proof proof = proofOf(bytes, token, challenge.nonce);
    std::memcpy(bytes + wire::kHelloProvedBytes, proof.data(), proof.size());
    io = transfer(true, fd, bytes, sizeof bytes, deadline, what);
  }
  if (io == Io::Done) io = transfer(false, fd, bytes, sizeof bytes, deadline, what);
  if (io == Io::Closed) return Outcome::Closed;
  if (io == Io::TimedOut) {
    throw Error(ErrorCode::Timeout, what + ": the handshake did not complete by the deadline");
  }
  const char* bad = wire::parseHello(bytes, sizeof bytes, answer);
  if (!bad && answer.kind != answerKind(hello.kind)) bad = "an answer of the wrong kind";
  if (bad) throw Error(ErrorCode::Transport, what + ": not a ringlab listener (" + bad + ")");
  if (answer.status == wire::HelloStatus::Ok &&
      (answer.nonce != challenge.nonce ||
       !digestsEqual(answer.proof, proofOf(bytes, token, hello.nonce)))) {
    throw Error(ErrorCode::Transport,
                what +
                    ": the listener there does not hold this job's token (its answer's proof "
                    "is wrong); is another job using the same address?");
  }
  return Outcome::Answered;
}

}  // namespace

wire::Nonce freshNonce() {
  wire::Nonce nonce;
  std::size_t got = 0;
  while (got < nonce.size()) {
    const ssize_t n = ::getrandom(nonce.data() + got, nonce.size() - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCode::Transport, "getrandom: " + net::errnoText(errno));
    got += static_cast<std::size_t>(n);
  }
  return nonce;
}

wire::Proof proofOf(const std::uint8_t* hello, std::string_view token, const wire::Nonce& theirs) {
  std::uint8_t message[wire::kHelloProvedBytes + wire::kNonceBytes];
  std::memcpy(message, hello, wire::kHelloProvedBytes);
  std::memcpy(message + wire::kHelloProvedBytes, theirs.data(), theirs.size());
  return hmacSha256(token,
                    std::string_view(reinterpret_cast<const char*>(message), sizeof message));
}

Greeted connectAndGreet(const std::string& host, std::uint16_t port, wire::Hello hello,
                        std::string_view token, Clock::time_point deadline, const std::string& what,
                        bool listening) {
  int closed = 0;
  auto pause = std::chrono::milliseconds(10);
  for (;;) {
    Greeted g;
    g.socket = net::connectTo(host, port, deadline, what, listening);
    if (greet(g.socket.fd(), hello, token, deadline, what, g.answer) == Outcome::Answered) return g;
    ++closed;
    if (Clock::now() + pause >= deadline) {
      throw Error(ErrorCode::Timeout,
                  what + ": the far side closed the connection before the handshake completed, " +
                      std::to_string(closed) +
                      " time(s) until the timeout; it is turning away a flood of connections, or "
                      "it is not a ringlab listener of this version");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
}

Doorman::Doorman(const net::Socket& listener, std::string token, wire::HelloKind expected,
                 std::string where)
    : listener_(listener), token_(std::move(token)), expected_(expected), log_(std::move(where)) {}

Doorman::~Doorman() {
  for (auto& s : strangers_)
    log_.refused(s->peer, "no complete handshake before the listener closed");
}

void Doorman::watch(std::vector<pollfd>& fds) {
  watchedFrom_ = fds.size();
  listenerWatched_ = Clock::now() >= restUntil_;
  if (listenerWatched_) fds.push_back({listener_.fd(), POLLIN, 0});
  for (auto& s : strangers_) fds.push_back({s->socket.fd(), POLLIN, 0});
  watchedStrangers_ = strangers_.size();
}

Clock::time_point Doorman::nextDeadline() const {
  Clock::time_point next = restUntil_ > Clock::now() ? restUntil_ : Clock::time_point::max();
  for (auto& s : strangers_) next = std::min(next, s->deadline);
  return next;
}

std::vector<Arrival> Doorman::serve(const std::vector<pollfd>& fds) {
  std::vector<Arrival> arrivals;
  std::size_t at = watchedFrom_ + (listenerWatched_ ? 1 : 0);
  for (std::size_t i = 0; i < watchedStrangers_ && i < strangers_.size(); ++i, ++at) {
    if (at < fds.size() && fds[at].revents) {
      if (auto arrival = readHello(*strangers_[i])) arrivals.push_back(std::move(*arrival));
    }
  }
  const Clock::time_point now = Clock::now();
  for (auto& s : strangers_) {
    if (s->socket.valid() && now >= s->deadline) {
      turnAway(*s, "no handshake within " + std::to_string(kHelloTimeout.count()) + " ms", false);
    }
  }
  std::erase_if(strangers_, [](const std::unique_ptr<Stranger>& s) { return !s->socket.valid(); });
  if (listenerWatched_ && watchedFrom_ < fds.size() && (fds[watchedFrom_].revents & POLLIN))
    acceptSome(now);
  return arrivals;
}

void Doorman::acceptSome(Clock::time_point now) {
  // A bounded batch per round, so that the hellos of those already accepted are read before a
  // flood behind them pushes them out.
  for (std::size_t batch = 0; batch < kMaxStrangers / 4; ++batch) {
    net::Socket socket(::accept4(listener_.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!socket.valid()) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        ++outOfDescriptors_;
        // The connection waits in the kernel's queue and keeps the listener readable: free a
        // descriptor by closing the oldest stranger, or rest the listener, rather than spin.
        if (!strangers_.empty()) {
          turnAway(*strangers_.front(), "closed to make room: this process has no descriptor left",
                   false);
          strangers_.erase(strangers_.begin());
          continue;
        }
        restUntil_ = now + kOutOfDescriptorsPause;
      }
      return;
    }
    if (strangers_.size() >= kMaxStrangers) {
      turnAway(*strangers_.front(),
               "closed to make room: " + std::to_string(kMaxStrangers) +
                   " connections were waiting for a handshake, the most allowed",
               false);
      strangers_.erase(strangers_.begin());
    }
    net::setNoDelay(socket.fd());
    auto s = std::make_unique<Stranger>();
    s->peer = net::peerAddress(socket.fd());
    s->socket = std::move(socket);
    s->deadline = now + kHelloTimeout;
    s->challenge = freshNonce();
    std::uint8_t bytes[wire::kChallengeBytes];
    wire::encodeChallenge(wire::Challenge{s->challenge}, bytes);
    // A fresh connection's send buffer always has room for these few bytes.
    if (::send(s->socket.fd(), bytes, sizeof bytes, MSG_NOSIGNAL | MSG_DONTWAIT) !=
        static_cast<ssize_t>(sizeof bytes)) {
      turnAway(*s, "the challenge could not be sent: " + net::errnoText(errno), false);
      continue;
    }
    strangers_.push_back(std::move(s));
  }
}

std::unique_ptr<Arrival> Doorman::readHello(Stranger& s) {
  // Exactly the hello: whatever follows it (the first store request) is the arrival's owner's.
  const ssize_t n = ::recv(s.socket.fd(), s.hello + s.got, sizeof s.hello - s.got, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return nullptr;
  if (n <= 0) {
    turnAway(s, "closed after " + std::to_string(s.got) + " bytes, before completing the handshake",
             false);
    return nullptr;
  }
  s.got += static_cast<std::size_t>(n);
  if (s.got < sizeof s.hello) return nullptr;
  wire::Hello hello;
  const char* bad = wire::parseHello(s.hello, sizeof s.hello, hello);
  if (!bad && hello.kind != expected_) bad = "a hello of the wrong kind for this port";
  if (!bad && !digestsEqual(hello.proof, proofOf(s.hello, token_, s.challenge)))
    bad = "wrong token, or a hello replayed from another connection (its proof does not match)";
  if (bad) {
    turnAway(s, bad, true);
    return nullptr;
  }
  auto arrival = std::make_unique<Arrival>();
  arrival->socket = std::move(s.socket);
  arrival->peer = s.peer;
  arrival->hello = hello;
  arrival->challenge = s.challenge;
  return arrival;
}

void Doorman::turnAway(Stranger& s, const std::string& why, bool tellRefused) {
  log_.refused(s.peer, why);
  ++turnedAway_;
  const std::string host = hostOf(s.peer);
  if (perHost_.count(host) || perHost_.size() < kMaxHostsTallied) ++perHost_[host];
  if (tellRefused) sendRefusal(s.socket.fd());
  s.socket.reset();
}

void Doorman::sendRefusal(int fd) {
  // Tells a misconfigured rank why it failed; a stranger learns nothing from it.
  wire::Hello reply;
  reply.kind = answerKind(expected_);
  reply.status = wire::HelloStatus::Refused;
  reply.size = 1;
  std::uint8_t bytes[wire::kHelloBytes];
  wire::encodeHello(reply, bytes);
  [[maybe_unused]] const ssize_t n = ::send(fd, bytes, sizeof bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
}

bool Doorman::answer(Arrival& arrival, wire::Hello reply) {
  reply.kind = answerKind(expected_);
  reply.status = wire::HelloStatus::Ok;
  reply.nonce = arrival.challenge;
  reply.proof = {};
  std::uint8_t bytes[wire::kHelloBytes];
  wire::encodeHello(reply, bytes);
  const wire::Proof proof = proofOf(bytes, token_, arrival.hello.nonce);
  std::memcpy(bytes + wire::kHelloProvedBytes, proof.data(), proof.size());
  return ::send(arrival.socket.fd(), bytes, sizeof bytes, MSG_NOSIGNAL | MSG_DONTWAIT) ==
         static_cast<ssize_t>(sizeof bytes);
}

void Doorman::refuse(Arrival& arrival, const std::string& why) {
  log_.refused(arrival.peer, why);
  sendRefusal(arrival.socket.fd());
  arrival.socket.reset();
}

std::string Doorman::floodNote() const {
  if (turnedAway_ == 0) return "";
  auto most = std::max_element(perHost_.begin(), perHost_.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string note = std::to_string(turnedAway_) +
                     " connection(s) that did not complete the handshake were refused or closed, " +
                     std::to_string(most->second) + " of them from " + most->first;
  if (outOfDescriptors_ > 0) note += "; this process ran out of file descriptors";
  return note;
}

}  // namespace ringlab::bootstrap::handshake
