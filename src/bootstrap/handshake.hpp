#pragma once
// How every TCP connection of a job (to the rendezvous store, and between ranks) proves that both
// ends hold the job token, without the token or anything replayable crossing the wire:
//
//   acceptor  -> connector: challenge (a fresh random nonce A)
//   connector -> acceptor:  hello (kind, rank, size, channel; its own fresh nonce C;
//                           proof = HMAC-SHA256(token, hello fields || C || A))
//   acceptor  -> connector: answer (kind, status, ...; A repeated;
//                           proof = HMAC-SHA256(token, answer fields || A || C))
//
// A hello recorded on one connection proves nothing on another (A differs), and the kind in
// every hello keeps a connector's proof from being reflected as an acceptor's. The data that
// follows is neither encrypted nor authenticated: see docs/reliability.md for what an observer
// or a man in the middle can still do.
//
// The accepting side holds connections that have not proved the token yet ("strangers") in a
// bounded set, each with a short deadline, so that a flood of them costs a bounded number of
// descriptors and cannot hold the listener past its own deadline.
#include <poll.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bootstrap/net.hpp"
#include "bootstrap/wire.hpp"

namespace ringlab::bootstrap::handshake {

using net::Clock;

// Most strangers one listener holds at once; past it the oldest is closed.
inline constexpr std::size_t kMaxStrangers = 64;
// How long a stranger may take to send its hello after the challenge. A real rank answers at once.
inline constexpr std::chrono::milliseconds kHelloTimeout{2000};
// After the process ran out of descriptors with no stranger to close, the listener rests this
// long instead of being polled (it would stay readable and poll would spin).
inline constexpr std::chrono::milliseconds kOutOfDescriptorsPause{100};

wire::Nonce freshNonce();
// The proof of a hello encoded in `hello` (its first kHelloProvedBytes), for the other side's
// nonce `theirs`.
wire::Proof proofOf(const std::uint8_t* hello, std::string_view token, const wire::Nonce& theirs);

// --- The connecting side ---------------------------------------------------------------------

struct Greeted {
  net::Socket socket;
  wire::Hello answer;  // status Ok (its proof checked) or Refused
};

// Connects to host:port and says `hello` (its nonce and proof are filled in here), until the far
// side answers or `deadline` passes. A connection closed before the answer is tried again (a
// listener under a flood of strangers closes some of them). Throws Timeout naming `what` at the
// deadline, Transport when the far side is not a ringlab listener of this job (malformed bytes, an
// answer whose proof fails), and what net::connectTo throws.
Greeted connectAndGreet(const std::string& host, std::uint16_t port, wire::Hello hello,
                        std::string_view token, Clock::time_point deadline, const std::string& what,
                        bool listening = false);

// --- The accepting side ----------------------------------------------------------------------

// A connection whose hello proved the token.
struct Arrival {
  net::Socket socket;
  std::string peer;
  wire::Hello hello;
  wire::Nonce challenge;  // the nonce this side sent it
};

class Doorman {
 public:
  // `expected`: the kind of hello this listener takes (StoreClient or DataConnect). `where` names
  // the listener in its log of refused connections.
  Doorman(const net::Socket& listener, std::string token, wire::HelloKind expected,
          std::string where);
  ~Doorman();  // logs the strangers still waiting
  Doorman(const Doorman&) = delete;
  Doorman& operator=(const Doorman&) = delete;

  // Appends what to poll: the listener (unless resting), then every stranger.
  void watch(std::vector<pollfd>& fds);
  // When the earliest stranger's time runs out, or the listener's rest ends.
  Clock::time_point nextDeadline() const;
  // After poll, with the same `fds`: reads hellos, closes strangers past their time, accepts new
  // connections and challenges them. Returns the connections whose hello proved the token.
  std::vector<Arrival> serve(const std::vector<pollfd>& fds);

  // Sends `reply` (status Ok, the answer's kind, rank and size) with its proof. Returns false when
  // it could not be sent at once (the peer is gone or not reading): drop the connection.
  bool answer(Arrival& arrival, wire::Hello reply);
  // Logs why, tells the peer it is refused (without a proof), and closes the connection.
  void refuse(Arrival& arrival, const std::string& why);

  // "" while no stranger was turned away; else a clause naming how many and from where, for an
  // error that says why setup did not complete.
  std::string floodNote() const;

 private:
  struct Stranger {
    net::Socket socket;
    std::string peer;
    wire::Nonce challenge;
    std::uint8_t hello[wire::kHelloBytes];
    std::size_t got = 0;
    Clock::time_point deadline;
  };

  void acceptSome(Clock::time_point now);
  // Returns the arrival when the hello is complete and proves the token; else reads on, or closes.
  std::unique_ptr<Arrival> readHello(Stranger& s);
  void turnAway(Stranger& s, const std::string& why, bool tellRefused);
  void sendRefusal(int fd);

  const net::Socket& listener_;
  std::string token_;
  wire::HelloKind expected_;
  net::RefusedLog log_;
  std::vector<std::unique_ptr<Stranger>> strangers_;  // oldest first
  std::size_t watchedFrom_ = 0;
  std::size_t watchedStrangers_ = 0;
  bool listenerWatched_ = false;
  Clock::time_point restUntil_;
  // Strangers turned away, in all and per host (the first kMaxHostsTallied hosts).
  static constexpr std::size_t kMaxHostsTallied = 16;
  long turnedAway_ = 0;
  std::map<std::string, long> perHost_;
  long outOfDescriptors_ = 0;
};

}  // namespace ringlab::bootstrap::handshake
