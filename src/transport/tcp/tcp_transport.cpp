// The TCP transport. One or more connections (channels) per pair of ranks, set up by connectMesh.
// The n-th message from a rank to a peer travels on channel n mod channels, and both ends count
// alike, so each channel is an ordered stream of its own: everything below works per connection
// (a link), and only the choice of link knows about channels. Progress is driven
// from wait(): non-blocking sockets and poll, no progress thread, because a hand-over to a thread
// costs a wake-up on every small message and the latency end of a collective is made of little
// else. Sends are written at once when their connection is idle (a small message costs one
// sendmsg); receives are read straight into the receiver's buffer once their header is checked,
// except for what arrives with a header into the connection's 64 KiB staging area (the header of
// a receive of 64 KiB or more is read alone, so that none of its payload goes through staging).
//
// Matching: the n-th frame from a peer is the n-th receive posted from it. Its header is checked
// against that receive (stamp, tag, byte count) before any payload byte is placed, so a peer can
// never write past a posted buffer. A frame that arrives before its receive stays in the kernel's
// socket buffer (or in staging), which is what lets both neighbours send large messages to each
// other at once: each side keeps reading whatever it has posted, whatever else it waits on.
//
// Abort: the aborting rank writes an Abort frame (code + text) after whatever it has half
// written, then one byte of TCP urgent data. The urgent byte is seen (POLLPRI) even when the
// stream still holds data frames nobody has asked for, so a peer blocked elsewhere learns of the
// abort at once; it then reads ahead, discarding data, to the Abort frame for the text.
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "bootstrap/net.hpp"
#include "bootstrap/wire.hpp"
#include "ringlab/core/environment.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/transport/tcp.hpp"
#include "transport/tcp/frame.hpp"
#include "transport/tcp/mesh.hpp"

namespace ringlab::transport {
namespace tcp {
namespace {

namespace net = bootstrap::net;
using net::Clock;

// Bytes read ahead per connection: a header and a small payload arrive in one recv.
constexpr std::size_t kStagingBytes = 64 * 1024;
// Payloads from this size up have their header read alone (stagingReadBytes): one more recv of 72
// bytes (about 1.2 us) instead of a second copy of up to 64 KiB out of staging. Measured as CPU
// time per allreduce, interleaved with the full staging read: 1.05x-1.12x less from 4 MiB up at
// p = 2 and 4, level at 1 MiB (docs/transports.md, "TCP performance"). Smaller payloads arrive
// whole with their header in one read, as before.
constexpr std::size_t kDirectPayloadBytes = kStagingBytes;
// Sends gathered into one sendmsg (two iovecs each: header, payload).
constexpr int kMaxGather = 16;
// How long an aborting rank tries to finish a half-written frame and write its Abort frame per
// peer, and how long a receiver reads ahead for the Abort frame's text after the urgent byte.
constexpr std::chrono::milliseconds kAbortFlush{100};
constexpr std::chrono::milliseconds kAbortDrain{200};
// How long a wait polls without blocking before it sleeps in poll(). A process woken from poll()
// by loopback data runs tens of microseconds later on the virtual machines this was measured on,
// more than a small message's whole exchange; only when every rank of this host can have a
// core, so that polling never takes the core a peer needs.
constexpr auto kBusyPoll = std::chrono::microseconds(50);

struct Op {
  bool isSend = false;
  bool done = false;
  int peer = 0;
  int link = 0;  // the connection it travels on
  std::uint32_t tag = 0;
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  std::size_t moved = 0;       // payload bytes sent or received
  std::size_t headerSent = 0;  // sends: header bytes written
  std::int32_t next = -1;      // next op in its peer's queue
  CallStamp stamp;             // receives: the stamp when posted
  // Reducing receives (irecvReduce): data[i] = op(mine[i], received[i]), combined out of staging
  // as the payload arrives; moved stays a whole number of elements.
  bool reduces = false;
  Reduction how;
  const std::byte* mine = nullptr;
  std::uint8_t header[kFrameHeaderBytes];
};

struct Queue {
  std::int32_t head = -1, tail = -1;
  bool empty() const { return head < 0; }
};

// One connection to a peer.
struct Link {
  int rank = 0;  // the peer at the other end
  net::Socket socket;
  Queue sends, recvs;
  std::unique_ptr<std::uint8_t[]> staging;
  std::size_t begin = 0, end = 0;          // staged bytes not yet consumed
  std::int32_t reading = -1;               // receive whose payload is being read
  bool eof = false;                        // the peer closed its side (or reset it)
  bool hangup = false;                     // POLLHUP seen: poll only while we need the connection
  bool answered = false;                   // its urgent byte (its abort) arrived
  PeerState atAbort = PeerState::Unknown;  // Gone or Silent when our abort reset the connection
};

class TcpTransport final : public Transport {
 public:
  TcpTransport(int rank, int size, std::vector<std::vector<net::Socket>> sockets,
               const TcpOptions& options)
      : rank_(rank),
        size_(size),
        channels_(options.channels),
        reduceOnReceive_(options.reduceOnReceive) {
    links_.resize(static_cast<std::size_t>(size) * channels_);
    for (int r = 0; r < size; ++r) {
      for (int c = 0; c < channels_; ++c) {
        Link& l = links_[r * channels_ + c];
        l.rank = r;
        if (r == rank) continue;
        l.socket = std::move(sockets[r][c]);
        l.staging = std::make_unique<std::uint8_t[]>(kStagingBytes);
        if (options.socketBufferBytes > 0) setBufferSizes(l.socket.fd(), options.socketBufferBytes);
      }
    }
    sendCount_.assign(static_cast<std::size_t>(size), 0);
    recvCount_.assign(static_cast<std::size_t>(size), 0);
    pollFds_.reserve(links_.size());
    pollLinks_.reserve(links_.size());
  }

  ~TcpTransport() override {
    // Close gracefully: FIN after the data still queued, and read what is left so that close
    // does not answer with a reset (which would throw away data still on its way to the peer).
    for (Link& p : links_) {
      if (!p.socket.valid()) continue;
      ::shutdown(p.socket.fd(), SHUT_WR);
      std::uint8_t sink[4096];
      for (int i = 0; i < 64 && ::recv(p.socket.fd(), sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
      }
    }
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "tcp"; }

  Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) override {
    const std::int32_t index = start(true, peer, const_cast<void*>(data), bytes, tag);
    Op& op = slots_[index];
    op.link = nextLink(sendCount_, peer);
    FrameHeader header;
    header.type = FrameType::Data;
    header.tag = tag;
    header.bytes = bytes;
    header.stamp = stamp_;
    encodeFrameHeader(header, op.header);
    Link& p = links_[op.link];
    const bool idle = p.sends.empty();
    push(p.sends, index);
    if (idle) pushSends(op.link);  // most small messages leave here, in one sendmsg
    return Request{static_cast<std::uint32_t>(index)};
  }

  bool reducesOnReceive() const override { return reduceOnReceive_; }

  Request irecvReduce(int peer, void* dst, const void* mine, std::uint64_t count,
                      const Reduction& how, std::uint32_t tag) override {
    if (!reduceOnReceive_) return Transport::irecvReduce(peer, dst, mine, count, how, tag);
    const Request request = irecv(peer, dst, count * dataTypeSize(how.type), tag);
    Op& o = slots_[request.slot];
    o.reduces = true;
    o.how = how;
    o.mine = static_cast<const std::byte*>(mine);
    return request;
  }

  Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) override {
    const std::int32_t index = start(false, peer, data, bytes, tag);
    Op& op = slots_[index];
    op.stamp = stamp_;
    op.link = nextLink(recvCount_, peer);
    push(links_[op.link].recvs, index);
    return Request{static_cast<std::uint32_t>(index)};
  }

  void wait(Request request, std::chrono::milliseconds timeout) override {
    const auto index = static_cast<std::int32_t>(request.slot);
    if (request.slot >= slots_.size()) {
      throw Error(ErrorCode::Internal,
                  "tcp transport: wait on unknown request " + std::to_string(request.slot));
    }
    Op& op = slots_[index];
    if (!op.done) {
      // What is already staged completes without a system call. Otherwise go straight to poll: a
      // read tried first finds nothing nearly every time on the latency path (measured: 4004 of
      // 4010 such reads failed in 2000 4-byte allreduces at p = 2), one wasted call per wait.
      const Link& p = links_[op.link];
      if (!op.isSend && p.reading < 0 && p.end - p.begin >= kFrameHeaderBytes)
        pumpRecv(op.link, false);
      if (!op.done) progressUntilDone(op, timeout);
    }
    free_.push_back(index);
  }

  void abort(const Error& cause, const WaitPoint& at) override {
    if (aborted_) return;
    aborted_ = true;
    for (Link& p : links_) {
      if (p.rank == rank_ || !p.socket.valid()) continue;
      const auto deadline = Clock::now() + kAbortFlush;
      try {
        // The Abort frame must start where a frame starts: finish a half-written one first.
        bool aligned = true;
        if (!p.sends.empty()) {
          Op& head = slots_[p.sends.head];
          if (head.headerSent > 0 && !head.done) {
            const std::size_t headerLeft = kFrameHeaderBytes - head.headerSent;
            aligned = net::sendAll(p.socket.fd(), head.header + head.headerSent, headerLeft,
                                   deadline, "abort") &&
                      net::sendAll(p.socket.fd(), head.data + head.moved, head.bytes - head.moved,
                                   deadline, "abort");
          }
        }
        if (!aligned || !sendAbortFrame(p.socket.fd(), cause, at, deadline)) {
          // The stream is full of data the peer has not asked for, so not even the urgent byte
          // fits. Reset the connection instead: the peer then fails at once with PeerLost naming
          // this rank, rather than waiting for its timeout. It took neither our data nor the
          // abort: blamed as silent unless it has answered already.
          p.atAbort = PeerState::Silent;
          resetConnection(p);
        }
      } catch (const Error&) {
        // That peer is gone already. The socket stays open: survey() may still read the abort
        // the peer sent before it went.
        p.atAbort = PeerState::Gone;
      }
    }
  }

  // Per link first: a peer that aborted did so on every channel, and one of them tells. A peer
  // answers with its Abort frame, which says where it stood; one whose urgent byte came but whose
  // frame did not arrive by `until` answered without saying. A peer with no answer on any channel
  // is silent while one of its links is, else gone.
  std::vector<PeerReport> survey(Clock::time_point until) override {
    std::vector<PeerState> states(links_.size(), PeerState::Silent);
    std::vector<PeerReport> peers(static_cast<std::size_t>(size_));
    std::vector<bool> answered(static_cast<std::size_t>(size_), false);
    answered[rank_] = true;
    std::vector<std::uint64_t> skip(links_.size(), 0);
    for (std::size_t l = 0; l < links_.size(); ++l) {
      Link& p = links_[l];
      if (p.rank != rank_ && p.reading >= 0) {  // the rest of a payload we stopped reading
        skip[l] = slots_[p.reading].bytes - slots_[p.reading].moved;
        p.reading = -1;
      }
    }
    for (;;) {
      pollFds_.clear();
      pollLinks_.clear();
      for (std::size_t l = 0; l < links_.size(); ++l) {
        Link& p = links_[l];
        if (answered[p.rank] || states[l] != PeerState::Silent) continue;
        if (p.socket.valid() && abortStaged(p, skip[l])) {
          states[l] = PeerState::Answered;
          answered[p.rank] = true;
          peers[p.rank].waiting =
              parseAbortPoint(p.staging.get() + p.begin + kFrameHeaderBytes, size_);
        } else if (!p.socket.valid() || p.eof) {
          states[l] =
              p.answered ? PeerState::Answered : (p.socket.valid() ? PeerState::Gone : p.atAbort);
        } else {
          pollFds_.push_back({p.socket.fd(), POLLIN | POLLPRI, 0});
          pollLinks_.push_back(static_cast<int>(l));
        }
      }
      const int left = net::millisecondsUntil(until);
      if (pollFds_.empty() || left <= 0) break;
      if (::poll(pollFds_.data(), pollFds_.size(), left) < 0 && errno != EINTR) break;
      for (std::size_t i = 0; i < pollFds_.size(); ++i) {
        if (pollFds_[i].revents) readForSurvey(links_[pollLinks_[i]], pollFds_[i].revents);
      }
    }
    for (int r = 0; r < size_; ++r) {
      PeerState& peer = peers[r].state;
      if (answered[r]) {
        peer = PeerState::Answered;
        continue;
      }
      peer = states[r * channels_];
      for (int c = 0; c < channels_; ++c) {
        const Link& p = links_[r * channels_ + c];
        if (p.answered) {  // its urgent byte, without the frame
          peer = PeerState::Answered;
          break;
        }
        if (states[r * channels_ + c] == PeerState::Silent) peer = PeerState::Silent;
      }
    }
    return peers;
  }

 private:
  // Consumes `p`'s staged frames (and `skip` payload bytes) up to an Abort frame; true once one
  // has arrived whole (at the head of staging).
  static bool abortStaged(Link& p, std::uint64_t& skip) {
    for (;;) {
      const std::size_t staged = p.end - p.begin;
      if (skip > 0) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(skip, staged));
        p.begin += n;
        skip -= n;
        if (skip > 0) return false;
        continue;
      }
      FrameHeader header;
      if (staged < kFrameHeaderBytes ||
          parseFrameHeader(p.staging.get() + p.begin, kFrameHeaderBytes, header)) {
        return false;
      }
      if (header.type == FrameType::Abort) return staged >= kFrameHeaderBytes + header.bytes;
      p.begin += kFrameHeaderBytes;
      skip = header.bytes;
    }
  }

  // One read of whatever `p` sent, for survey(): its urgent byte means it aborted.
  static void readForSurvey(Link& p, short revents) {
    std::uint8_t code = 0;
    if ((revents & POLLPRI) && ::recv(p.socket.fd(), &code, 1, MSG_OOB | MSG_DONTWAIT) == 1) {
      p.answered = true;
    }
    const ssize_t n = compactAndRead(p);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      p.eof = true;
    }
  }

  // Moves what is staged to the front of staging and reads behind it, without blocking: recv's
  // answer (errno as recv left it), with what arrived counted in.
  static ssize_t compactAndRead(Link& p) {
    if (p.begin == p.end) {
      p.begin = p.end = 0;
    } else if (p.begin > 0) {
      std::memmove(p.staging.get(), p.staging.get() + p.begin, p.end - p.begin);
      p.end -= p.begin;
      p.begin = 0;
    }
    const ssize_t n =
        ::recv(p.socket.fd(), p.staging.get() + p.end, kStagingBytes - p.end, MSG_DONTWAIT);
    if (n > 0) p.end += static_cast<std::size_t>(n);
    return n;
  }

  static void resetConnection(Link& p) {
    const linger abortive{1, 0};
    setsockopt(p.socket.fd(), SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
    p.socket.reset();
  }

  // Sets both socket buffers; the kernel caps them at net.core.wmem_max and rmem_max.
  static void setBufferSizes(int fd, std::uint64_t bytes) {
    const int size = static_cast<int>(std::min<std::uint64_t>(bytes, INT32_MAX / 2));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }

  // The link of the next message to or from `peer`, counted in `counts`.
  int nextLink(std::vector<std::uint64_t>& counts, int peer) {
    const std::uint64_t n = counts[peer]++;
    return peer * channels_ + static_cast<int>(n % static_cast<std::uint64_t>(channels_));
  }

  void checkPeer(int peer) const {
    if (peer < 0 || peer >= size_ || peer == rank_) {
      throwInvalid("rank " + std::to_string(rank_) + ": peer " + std::to_string(peer) +
                   " is not another rank in 0.." + std::to_string(size_ - 1));
    }
  }

  std::int32_t allocate() {
    std::int32_t index;
    if (free_.empty()) {
      slots_.emplace_back();  // a deque: slots never move while the kernel or a peer uses them
      index = static_cast<std::int32_t>(slots_.size() - 1);
    } else {
      index = free_.back();
      free_.pop_back();
    }
    Op& op = slots_[index];
    op.done = false;
    op.moved = 0;
    op.headerSent = 0;
    op.next = -1;
    op.reduces = false;
    return index;
  }

  // A fresh slot for one posted send or receive on a checked peer.
  std::int32_t start(bool isSend, int peer, void* data, std::size_t bytes, std::uint32_t tag) {
    checkPeer(peer);
    const std::int32_t index = allocate();
    Op& op = slots_[index];
    op.isSend = isSend;
    op.peer = peer;
    op.tag = tag;
    op.data = static_cast<std::byte*>(data);
    op.bytes = bytes;
    return index;
  }

  void push(Queue& q, std::int32_t index) {
    if (q.tail >= 0) {
      slots_[q.tail].next = index;
    } else {
      q.head = index;
    }
    q.tail = index;
  }

  void pop(Queue& q) {
    const std::int32_t head = q.head;
    q.head = slots_[head].next;
    if (q.head < 0) q.tail = -1;
  }

  // Writes queued sends on `link` until the socket would block; completes those fully written.
  void pushSends(int link) {
    Link& p = links_[link];
    while (!p.sends.empty()) {
      iovec iov[2 * kMaxGather];
      int count = 0;
      for (std::int32_t i = p.sends.head; i >= 0 && count + 2 <= 2 * kMaxGather;
           i = slots_[i].next) {
        Op& op = slots_[i];
        if (op.headerSent < kFrameHeaderBytes) {
          iov[count++] = {op.header + op.headerSent, kFrameHeaderBytes - op.headerSent};
        }
        if (op.moved < op.bytes) iov[count++] = {op.data + op.moved, op.bytes - op.moved};
      }
      msghdr message{};
      message.msg_iov = iov;
      message.msg_iovlen = static_cast<std::size_t>(count);
      const ssize_t n = ::sendmsg(p.socket.fd(), &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        if (errno == EINTR) continue;
        throw lost(p.rank, "sending to it", errno);
      }
      auto left = static_cast<std::size_t>(n);
      while (left > 0 || (!p.sends.empty() && isComplete(slots_[p.sends.head]))) {
        Op& op = slots_[p.sends.head];
        const std::size_t h = std::min(left, kFrameHeaderBytes - op.headerSent);
        op.headerSent += h;
        left -= h;
        const std::size_t d = std::min(left, op.bytes - op.moved);
        op.moved += d;
        left -= d;
        if (!isComplete(op)) break;
        op.done = true;
        pop(p.sends);
      }
    }
  }

  static bool isComplete(const Op& op) {
    return op.headerSent == kFrameHeaderBytes && op.moved == op.bytes;
  }

  // Reads from `link` what its posted receives need (and, with readAhead, whatever fits in
  // staging), until the socket would block. Throws on a bad frame, a mismatch, an abort or a
  // lost connection that a posted receive depends on.
  void pumpRecv(int link, bool readAhead) {
    Link& p = links_[link];
    const int peer = p.rank;
    for (;;) {
      if (p.reading >= 0) {
        Op& op = slots_[p.reading];
        const std::size_t left = op.bytes - op.moved;
        const std::size_t staged = p.end - p.begin;
        if (op.reduces && left > 0) {
          if (!reduceStaged(op, p) && !readIntoStaging(p)) return;
        } else if (left > 0 && staged > 0) {
          const std::size_t n = std::min(left, staged);
          std::memcpy(op.data + op.moved, p.staging.get() + p.begin, n);
          p.begin += n;
          op.moved += n;
        } else if (left > 0) {
          // Large payloads go straight from the socket into the receiver's buffer, and never
          // past its end: the read asks for exactly what is left of this frame.
          const ssize_t n = ::recv(p.socket.fd(), op.data + op.moved, left, MSG_DONTWAIT);
          if (n > 0) {
            op.moved += static_cast<std::size_t>(n);
          } else if (n == 0) {
            throw lost(peer, "receiving from it", 0);
          } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
          } else if (errno != EINTR) {
            throw lost(peer, "receiving from it", errno);
          }
        }
        if (op.moved == op.bytes) {
          op.done = true;
          p.reading = -1;
          pop(p.recvs);
          readAhead = false;  // what was asked for is here; no extra read that would only block
        }
        continue;
      }
      const std::size_t staged = p.end - p.begin;
      if (staged >= kFrameHeaderBytes) {
        FrameHeader header;
        if (const char* bad =
                parseFrameHeader(p.staging.get() + p.begin, kFrameHeaderBytes, header)) {
          throw malformed(peer, bad);
        }
        if (header.type == FrameType::Abort) {
          throwWhenAbortArrived(peer, p, header);
        } else if (p.recvs.empty()) {
          // Not asked for yet: it waits in staging (reading ahead fills staging behind it).
          if (!readAhead) return;
        } else {
          Op& op = slots_[p.recvs.head];
          if (!(header.stamp == op.stamp)) throw stampMismatch(rank_, op.stamp, peer, header.stamp);
          if (header.tag != op.tag || header.bytes != op.bytes) {
            throw Error(ErrorCode::Mismatch,
                        "rank " + std::to_string(rank_) + ": the next message from rank " +
                            std::to_string(peer) + " has tag " + std::to_string(header.tag) +
                            " and " + std::to_string(header.bytes) +
                            " bytes, but this rank posted a receive of " +
                            std::to_string(op.bytes) + " bytes with tag " + std::to_string(op.tag) +
                            "; ranks disagree on count, dtype or schedule");
          }
          p.begin += kFrameHeaderBytes;
          p.reading = p.recvs.head;
          continue;
        }
      } else if (p.recvs.empty() && !readAhead) {
        return;
      }
      if (p.eof) {
        if (!p.recvs.empty()) throw lost(peer, "receiving from it", 0);
        if (readAhead) scanForAbort(link);
        return;
      }
      if (p.begin == p.end) {
        p.begin = p.end = 0;
      } else if (kStagingBytes - p.end <
                 kFrameHeaderBytes + kAbortPointBytes + kMaxAbortTextBytes) {
        std::memmove(p.staging.get(), p.staging.get() + p.begin, p.end - p.begin);
        p.end -= p.begin;
        p.begin = 0;
      }
      if (p.end == kStagingBytes) {  // full of frames nobody has asked for yet
        if (readAhead) scanForAbort(link);
        return;
      }
      const ssize_t n =
          ::recv(p.socket.fd(), p.staging.get() + p.end, stagingReadBytes(p), MSG_DONTWAIT);
      if (n > 0) {
        p.end += static_cast<std::size_t>(n);
      } else if (n == 0) {
        p.eof = true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (readAhead) scanForAbort(link);
        return;
      } else if (errno != EINTR) {
        // A reset, unlike a clean close, means the peer died or gave up (a process killed with
        // data unread, or an abort that could not get through): fatal whatever we wait on.
        throw lost(peer, "reading from it", errno);
      }
    }
  }

  // How much of `p`'s staging the next read may fill. A frame header whose posted receive is
  // large is read alone, so that the payload goes straight from the socket into the receiver's
  // buffer: a full staging read would pull up to 64 KiB of it through staging and copy it a
  // second time (a quarter of every 256 KiB segment), which costs more than the extra recv.
  std::size_t stagingReadBytes(const Link& p) const {
    const std::size_t staged = p.end - p.begin;
    if (p.reading < 0 && staged < kFrameHeaderBytes && !p.recvs.empty()) {
      const Op& next = slots_[p.recvs.head];
      if (!next.reduces && next.bytes >= kDirectPayloadBytes) return kFrameHeaderBytes - staged;
    }
    return kStagingBytes - p.end;
  }

  // A reducing receive combines the whole elements of its payload that are staged; false when
  // not one whole element is.
  static bool reduceStaged(Op& op, Link& p) {
    const std::size_t esize = dataTypeSize(op.how.type);
    const std::size_t n = std::min(op.bytes - op.moved, p.end - p.begin) / esize;
    if (n == 0) return false;
    reduce(op.how, op.data + op.moved, op.mine + op.moved, p.staging.get() + p.begin, n);
    p.begin += n * esize;
    op.moved += n * esize;
    return true;
  }

  // Reads into `p`'s staging behind the part of an element staged already, for a reducing
  // receive: staging is small enough to stay in cache between the read and the reduction.
  // False when the socket would block; throws when the connection is lost.
  bool readIntoStaging(Link& p) {
    for (;;) {
      const ssize_t n = compactAndRead(p);
      if (n > 0) return true;
      if (n == 0) throw lost(p.rank, "receiving from it", 0);
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      if (errno != EINTR) throw lost(p.rank, "receiving from it", errno);
    }
  }

  // Reading ahead took in frames nobody has asked for yet, and perhaps an Abort frame behind
  // them (whose urgent byte the read consumed in passing): look for it.
  void scanForAbort(int link) {
    const Link& p = links_[link];
    const int peer = p.rank;
    if (p.reading >= 0) return;  // not at a frame boundary; the next pump gets there
    std::size_t at = p.begin;
    while (p.end - at >= kFrameHeaderBytes) {
      FrameHeader header;
      if (const char* bad = parseFrameHeader(p.staging.get() + at, kFrameHeaderBytes, header)) {
        throw malformed(peer, bad);
      }
      at += kFrameHeaderBytes;
      if (header.bytes > p.end - at) return;
      if (header.type == FrameType::Abort) {
        throw aborted(peer, header.code, abortText(p.staging.get() + at, header));
      }
      at += header.bytes;
    }
  }

  void progressUntilDone(const Op& op, std::chrono::milliseconds timeout) {
    const auto start = Clock::now();
    const auto deadline = start + timeout;
    const auto busyUntil = busyPoll_ ? start + kBusyPoll : start;
    while (!op.done) {
      pollFds_.clear();
      pollLinks_.clear();
      for (std::size_t l = 0; l < links_.size(); ++l) {
        Link& p = links_[l];
        if (p.rank == rank_) continue;
        const bool needed = !p.sends.empty() || !p.recvs.empty();
        if ((p.eof || p.hangup) && !needed) continue;  // closed, and nothing to do with it
        short events = POLLPRI;
        if (!p.sends.empty()) events |= POLLOUT;
        if (!p.eof && (p.reading >= 0 || p.end - p.begin < kStagingBytes)) events |= POLLIN;
        pollFds_.push_back({p.socket.fd(), events, 0});
        pollLinks_.push_back(static_cast<int>(l));
      }
      const bool busy = Clock::now() < busyUntil;
      const int rc =
          ::poll(pollFds_.data(), pollFds_.size(), busy ? 0 : net::millisecondsUntil(deadline) + 1);
      if (rc < 0 && errno != EINTR)
        throw Error(ErrorCode::Transport, "poll: " + net::errnoText(errno));
      if (rc == 0 && busy) continue;
      if (rc <= 0) {
        if (Clock::now() >= deadline) throw timedOut(op, timeout);
        continue;
      }
      for (std::size_t i = 0; i < pollFds_.size(); ++i) {
        const short revents = pollFds_[i].revents;
        if (!revents) continue;
        const int r = pollLinks_[i];
        if (revents & POLLPRI) urgent(r);
        if (revents & POLLERR) {
          // A reset: the peer died or aborted with a full stream. Fatal, even with unread data.
          int error = 0;
          socklen_t len = sizeof error;
          getsockopt(links_[r].socket.fd(), SOL_SOCKET, SO_ERROR, &error, &len);
          if (error) throw lost(links_[r].rank, "connected to it", error);
        }
        if (revents & POLLHUP) links_[r].hangup = true;
        if ((revents & (POLLOUT | POLLERR | POLLHUP)) && !links_[r].sends.empty()) pushSends(r);
        if (revents & (POLLIN | POLLERR | POLLHUP)) pumpRecv(r, true);
      }
    }
  }

  // The peer sent urgent data on `link`: it aborted. Read ahead to its Abort frame for the reason.
  [[noreturn]] void urgent(int link) {
    Link& p = links_[link];
    const int peer = p.rank;
    p.answered = true;
    std::uint8_t code = static_cast<std::uint8_t>(ErrorCode::PeerLost);
    if (::recv(p.socket.fd(), &code, 1, MSG_OOB | MSG_DONTWAIT) != 1 || code > kMaxErrorCode) {
      code = static_cast<std::uint8_t>(ErrorCode::PeerLost);
    }
    const auto deadline = Clock::now() + kAbortDrain;
    std::size_t skip = p.reading >= 0 ? slots_[p.reading].bytes - slots_[p.reading].moved : 0;
    p.reading = -1;
    for (;;) {
      const std::size_t staged = p.end - p.begin;
      if (skip > 0 && staged > 0) {
        const std::size_t n = std::min(skip, staged);
        p.begin += n;
        skip -= n;
        continue;
      }
      if (skip == 0 && staged >= kFrameHeaderBytes) {
        FrameHeader header;
        if (parseFrameHeader(p.staging.get() + p.begin, kFrameHeaderBytes, header)) break;
        if (header.type == FrameType::Abort) {
          throwWhenAbortArrived(peer, p, header);
        } else {
          p.begin += kFrameHeaderBytes;
          skip = header.bytes;
          continue;
        }
      }
      const ssize_t n = compactAndRead(p);
      if (n > 0) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) break;
      pollfd pfd{p.socket.fd(), POLLIN, 0};
      if (::poll(&pfd, 1, net::millisecondsUntil(deadline)) <= 0) break;
    }
    throw aborted(peer, code, "(its reason did not arrive)");
  }

  Error aborted(int peer, std::uint8_t code, const std::string& text) const {
    return Error(static_cast<ErrorCode>(code), "rank " + std::to_string(rank_) + ": rank " +
                                                   std::to_string(peer) +
                                                   " aborted the collective: " + text);
  }

  // The text of an Abort frame whose payload starts at `payload`, after its WaitPoint.
  static std::string abortText(const std::uint8_t* payload, const FrameHeader& header) {
    return printableText(std::string_view(reinterpret_cast<const char*>(payload + kAbortPointBytes),
                                          header.bytes - kAbortPointBytes));
  }

  // An abort frame at the head of `p`'s staging: once its text has arrived, the peer's error.
  void throwWhenAbortArrived(int peer, const Link& p, const FrameHeader& header) const {
    if (p.end - p.begin < kFrameHeaderBytes + header.bytes) return;
    throw aborted(peer, header.code,
                  abortText(p.staging.get() + p.begin + kFrameHeaderBytes, header));
  }

  Error lost(int peer, const char* doing, int error) const {
    return Error(ErrorCode::PeerLost, "rank " + std::to_string(rank_) +
                                          ": lost the connection to rank " + std::to_string(peer) +
                                          " while " + doing + " (" +
                                          (error ? net::errnoText(error) : "closed by the peer") +
                                          "); rank " + std::to_string(peer) + " exited or crashed");
  }

  Error malformed(int peer, const char* why) const {
    return Error(ErrorCode::Transport, "rank " + std::to_string(rank_) +
                                           ": malformed frame from rank " + std::to_string(peer) +
                                           ": " + why +
                                           "; is every rank running the same ringlab version?");
  }

  Error timedOut(const Op& op, std::chrono::milliseconds timeout) const {
    return Error(ErrorCode::Timeout,
                 "rank " + std::to_string(rank_) + ": " + (op.isSend ? "send of " : "receive of ") +
                     std::to_string(op.bytes) + " bytes " + (op.isSend ? "to" : "from") + " rank " +
                     std::to_string(op.peer) + " (tag " + std::to_string(op.tag) +
                     ") not complete within " + std::to_string(timeout.count()) + " ms; rank " +
                     std::to_string(op.peer) +
                     " is stuck, slow, gone, or running a different schedule");
  }

  const int rank_;
  const int size_;
  const int channels_;
  const bool reduceOnReceive_;
  const bool busyPoll_ = size_ <= static_cast<int>(std::thread::hardware_concurrency());
  std::vector<Link> links_;                           // [peer * channels_ + channel]
  std::vector<std::uint64_t> sendCount_, recvCount_;  // messages posted per peer
  std::deque<Op> slots_;
  std::vector<std::int32_t> free_;
  std::vector<pollfd> pollFds_;
  std::vector<int> pollLinks_;
  bool aborted_ = false;
};

}  // namespace
}  // namespace tcp

void applyTcpEnvironment(TcpOptions& options) {
  if (const auto channels = readEnvironmentInteger(
          "RINGLAB_TCP_CHANNELS", "connections per pair of ranks", 1, kMaxTcpChannels)) {
    options.channels = static_cast<int>(*channels);
  }
  if (const char* text = std::getenv("RINGLAB_TCP_REDUCE_ON_RECEIVE")) {
    const std::string value = text;
    if (value != "0" && value != "1") {
      throwInvalid("RINGLAB_TCP_REDUCE_ON_RECEIVE='" + printableText(value) +
                   "': 1 (combine received data as it arrives) or 0 (receive into scratch, "
                   "then combine)");
    }
    options.reduceOnReceive = value == "1";
  }
  if (const char* text = std::getenv("RINGLAB_TCP_SOCKET_BUFFER")) {
    try {
      options.socketBufferBytes = parseSize(text);
    } catch (const Error& e) {
      throwInvalid("RINGLAB_TCP_SOCKET_BUFFER='" + printableText(text) +
                   "': not a size such as 0 (the kernel's autotuning), 256K or 4M (" + e.what() +
                   ")");
    }
    if (options.socketBufferBytes > (1u << 30)) {
      throwInvalid("RINGLAB_TCP_SOCKET_BUFFER='" + printableText(text) +
                   "': at most 1G (the kernel caps it at net.core.wmem_max anyway)");
    }
  }
}

std::unique_ptr<Transport> connectTcp(int rank, int size, bootstrap::Store& store,
                                      const TcpOptions& options) {
  if (size < 1)
    throwInvalid("tcp transport: p = " + std::to_string(size) +
                 ": the number of ranks must be >= 1");
  if (rank < 0 || rank >= size) {
    throwInvalid("tcp transport: rank " + std::to_string(rank) + " is out of range 0.." +
                 std::to_string(size - 1));
  }
  if (options.token.empty()) {
    throwInvalid("tcp transport: no job token; set RINGLAB_TOKEN to the same secret on every rank");
  }
  if (options.token.size() > bootstrap::wire::kMaxTokenBytes) {
    throwInvalid("tcp transport: the job token has " + std::to_string(options.token.size()) +
                 " bytes; at most " + std::to_string(bootstrap::wire::kMaxTokenBytes) +
                 " are allowed");
  }
  if (options.timeout.count() <= 0) {
    throwInvalid("tcp transport: timeout " + std::to_string(options.timeout.count()) +
                 " ms: must be > 0");
  }
  if (options.channels < 1 || options.channels > kMaxTcpChannels) {
    throwInvalid("tcp transport: " + std::to_string(options.channels) +
                 " channels per peer: must be 1 to " + std::to_string(kMaxTcpChannels));
  }
  return std::make_unique<tcp::TcpTransport>(rank, size,
                                             tcp::connectMesh(rank, size, store, options), options);
}

}  // namespace ringlab::transport
