// The MPI transport (see include/ringlab/transport/mpi.hpp for what it promises).
//
// Matching: every receive is posted with MPI_ANY_TAG from its one peer. The contract already
// orders receives from a peer as that peer posted its sends, and MPI never lets two messages from
// one sender on one communicator overtake each other, so the n-th receive gets the n-th message;
// the transport then checks the tag and the length itself. Exact-tag matching would instead turn
// a tag or length disagreement into a silent hang.
//
// The call header: MPI messages carry no ringlab header, and adding one to every message would
// cost a copy or a second message each. Only the first message to each peer after
// setCallStamp() (a new call) carries a Header: the CallStamp, tag and byte count. When the data
// is small it travels in the same MPI message, so a 4-byte AllReduce sends as many messages as
// without the check, 64 bytes longer; when it is large the header is a separate 64-byte message
// ahead of it. Both sides know which messages carry one (they count calls alike), and a message
// whose MPI tag says otherwise is itself a Mismatch.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "mpi_runtime.hpp"
#include "ringlab/core/reduce.hpp"
#include "ringlab/transport/mpi.hpp"

namespace ringlab::transport {
namespace {

using namespace mpi_detail;

// MPI guarantees tags up to 32767 only: 14 bits of ringlab's tag, and one bit that says "this
// message starts with a Header". The full 32-bit tag travels in the header.
constexpr int kHeaderFlag = 1 << 14;
constexpr int kTagMask = kHeaderFlag - 1;
constexpr int kAbortTag = 1;  // on the control communicator

struct Header {
  CallStamp stamp;
  std::uint64_t bytes = 0;  // of the data message this header announces
  std::uint32_t tag = 0;
  std::uint32_t inlined = 0;  // 1: the data follows the header in the same MPI message
};
static_assert(sizeof(Header) == 64, "Header travels as 64 raw bytes");

// Data up to this size rides with its header; header and data then fit in 4 KiB, within the
// eager limit of Open MPI's and MPICH's shared-memory and TCP paths, so one message it stays.
constexpr std::size_t kInlineBytes = 4096 - sizeof(Header);
// MPI counts are int: longer messages go as several of at most this many bytes.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;

struct AbortNote {
  std::int32_t code = 0;
  std::int32_t rank = 0;
  std::uint64_t transport = 0;  // which connectMpi() of the job it belongs to
  char text[1008] = {};
};
static_assert(sizeof(AbortNote) == 1024);

// Abort notes are sent and forgotten (MPI_Request_free); their bytes must outlive the transport.
std::mutex gNotesMutex;
std::deque<AbortNote> gNotes;

// connectMpi() is collective, so the n-th transport of every process is the same transport. A
// note may reach a peer after it has freed that transport's communicators, and MPI may hand the
// freed context to the next communicator created, where the note would match: notes carry n.
std::atomic<std::uint64_t> gTransports{0};

// Spin this many tests before yielding when every local rank has a core of its own; when ranks
// outnumber cores the peer needs this core, so yield at once (as the inproc transport does).
constexpr int kSpinTests = 2000;
// After this long without completion, sleep between tests instead of yielding: a long wait is
// waiting for a slow peer, and burning a core does not speed it up.
constexpr auto kYieldPhase = std::chrono::milliseconds(10);
constexpr auto kSleepSlice = std::chrono::microseconds(100);

struct Slot {
  bool isSend = false;
  int peer = 0;
  std::uint32_t tag = 0;
  std::size_t bytes = 0;
  std::byte* data = nullptr;  // the caller's buffer
  bool headed = false;        // a Header travels with or ahead of the data
  CallStamp stamp;            // this side's stamp when posted (headed receives check it)
  MPI_Request header = MPI_REQUEST_NULL;
  std::vector<MPI_Request> pieces;
  std::vector<std::byte> staging;  // header, and inline data; kept to reuse its capacity
};

std::size_t pieceCount(std::size_t bytes) {
  return std::max<std::size_t>(1, (bytes + kMaxPiece - 1) / kMaxPiece);
}

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(const MpiOptions& options) : options_(options) {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &dataComm_), ErrorCode::Transport, "MPI_Comm_dup");
    check(MPI_Comm_dup(MPI_COMM_WORLD, &controlComm_), ErrorCode::Transport, "MPI_Comm_dup");
    MPI_Comm_set_errhandler(dataComm_, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(controlComm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(dataComm_, &rank_);
    MPI_Comm_size(dataComm_, &size_);
    MPI_Comm local = MPI_COMM_NULL;
    int localRanks = 1;
    if (MPI_Comm_split_type(dataComm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local) ==
        MPI_SUCCESS) {
      MPI_Comm_size(local, &localRanks);
      MPI_Comm_free(&local);
    }
    // hardware_concurrency, not the affinity mask: launchers bind each rank to one core.
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    spinTests_ = localRanks > cores ? 0 : kSpinTests;
    sendEpoch_.assign(static_cast<std::size_t>(size_), -1);
    recvEpoch_.assign(static_cast<std::size_t>(size_), -1);
    postAbortReceive();
  }

  ~MpiTransport() override {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (finalised) return;
    const WorldErrorsReturn errorsReturn;
    // After a failure receives may still be posted into buffers about to go: cancel them first.
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
      if (std::find(freeSlots_.begin(), freeSlots_.end(), i) != freeSlots_.end()) continue;
      Slot& slot = slots_[i];
      for (MPI_Request* request : requestsOf(slot)) {
        if (*request == MPI_REQUEST_NULL) continue;
        if (slot.isSend) {
          // Never to be received (the peer failed too): withdraw it where MPI can, and let go
          // without waiting, since a send's cancellation may need the peer.
          MPI_Cancel(request);
          MPI_Request_free(request);
        } else {
          MPI_Cancel(request);
          MPI_Wait(request, MPI_STATUS_IGNORE);
        }
      }
    }
    if (abortRequest_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&abortRequest_);
      MPI_Wait(&abortRequest_, MPI_STATUS_IGNORE);
    }
    // After a failure, messages may still be on their way (a second abort note, the rest of a
    // mismatched call). Freeing the communicators would let MPI give their context to the next
    // one created, where those stale messages would match; keep them until MPI_Finalize instead.
    if (!failure_.empty() || abortSent_ || abortReceived_) return;
    MPI_Comm_free(&dataComm_);
    MPI_Comm_free(&controlComm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "mpi"; }

  void setCallStamp(const CallStamp& stamp) override {
    stamp_ = stamp;
    ++epoch_;
  }

  Request isend(int peer, const void* data, std::size_t bytes, std::uint32_t tag) override {
    checkPeer(peer);
    throwIfFailed();
    const std::uint32_t index = allocateSlot();
    Slot& slot = start(index, true, peer, const_cast<void*>(data), bytes, tag);
    slot.headed = options_.checkCallStamps && sendEpoch_[peer] != epoch_;
    sendEpoch_[peer] = epoch_;
    const int mpiTag = static_cast<int>(tag) & kTagMask;
    if (slot.headed) {
      const bool inlined = bytes <= kInlineBytes;
      Header header;
      header.stamp = stamp_;
      header.bytes = bytes;
      header.tag = tag;
      header.inlined = inlined ? 1 : 0;
      slot.staging.resize(sizeof(Header) + (inlined ? bytes : 0));
      std::memcpy(slot.staging.data(), &header, sizeof header);
      if (inlined && bytes) copyBytes(slot.staging.data() + sizeof header, data, bytes);
      post(MPI_Isend(slot.staging.data(), static_cast<int>(slot.staging.size()), MPI_BYTE, peer,
                     mpiTag | kHeaderFlag, dataComm_, &slot.header),
           slot, "MPI_Isend");
      if (inlined) return Request{index};
    }
    postPieces(slot, mpiTag);
    return Request{index};
  }

  Request irecv(int peer, void* data, std::size_t bytes, std::uint32_t tag) override {
    checkPeer(peer);
    throwIfFailed();
    const std::uint32_t index = allocateSlot();
    Slot& slot = start(index, false, peer, data, bytes, tag);
    slot.headed = options_.checkCallStamps && recvEpoch_[peer] != epoch_;
    recvEpoch_[peer] = epoch_;
    if (slot.headed) {
      // Room for the largest headed message the peer may send, whatever it believes the size
      // is, so that a disagreement arrives whole and can be reported with the peer's stamp.
      slot.staging.resize(sizeof(Header) + kInlineBytes);
      post(MPI_Irecv(slot.staging.data(), static_cast<int>(slot.staging.size()), MPI_BYTE, peer,
                     MPI_ANY_TAG, dataComm_, &slot.header),
           slot, "MPI_Irecv");
      if (bytes <= kInlineBytes) return Request{index};
    }
    postPieces(slot, static_cast<int>(tag) & kTagMask);
    return Request{index};
  }

  void wait(Request request, std::chrono::milliseconds timeout) override {
    if (request.slot >= slots_.size()) {
      throw Error(ErrorCode::Internal, "rank " + std::to_string(rank_) + ": wait on request " +
                                           std::to_string(request.slot) + " that was never posted");
    }
    Slot& slot = slots_[request.slot];
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const WorldErrorsReturn errorsReturn;
    try {
      throwIfFailed();
      MPI_Status status;
      if (slot.header != MPI_REQUEST_NULL) {
        complete(slot, slot.header, status, deadline, timeout);
        if (!slot.isSend) checkHeader(slot, status);
      }
      for (std::size_t i = 0; i < slot.pieces.size(); ++i) {
        complete(slot, slot.pieces[i], status, deadline, timeout);
        if (!slot.isSend) checkPiece(slot, i, status);
      }
    } catch (const Error& e) {
      if (failure_.empty()) {
        failure_ = e.what();
        failureCode_ = e.code();
      }
      if (e.code() == ErrorCode::Timeout || e.code() == ErrorCode::PeerLost ||
          e.code() == ErrorCode::Transport) {
        notePeerMayBeStuck();
      }
      throw;
    }
    slot.pieces.clear();
    freeSlots_.push_back(request.slot);
  }

  // Only the first rank to fail sends a note, so no rank learns where all the others stood: the
  // WaitPoint is not sent, and survey() knows nothing (Transport's default).
  void abort(const Error& cause, const WaitPoint&) override {
    if (failure_.empty()) {
      failure_ = cause.what();
      failureCode_ = cause.code();
    }
    // The cause came from a peer, which has told everyone already.
    if (abortSent_ || abortReceived_) return;
    abortSent_ = true;
    AbortNote* note;
    {
      std::lock_guard lock(gNotesMutex);
      note = &gNotes.emplace_back();
    }
    note->code = static_cast<std::int32_t>(cause.code());
    note->rank = rank_;
    note->transport = id_;
    std::strncpy(note->text, cause.what(), sizeof note->text - 1);
    for (int peer = 0; peer < size_; ++peer) {
      if (peer == rank_) continue;
      MPI_Request request = MPI_REQUEST_NULL;
      // Best effort: a peer that is gone simply never reads it.
      if (MPI_Isend(note, sizeof *note, MPI_BYTE, peer, kAbortTag, controlComm_, &request) ==
          MPI_SUCCESS) {
        MPI_Request_free(&request);
      }
    }
  }

 private:
  void checkPeer(int peer) const {
    if (peer < 0 || peer >= size_ || peer == rank_) {
      throwInvalid("rank " + std::to_string(rank_) + ": peer " + std::to_string(peer) +
                   " is not another rank in 0.." + std::to_string(size_ - 1));
    }
  }

  // The contract: after a throw the transport is not used again (abort excepted). Say so.
  void throwIfFailed() {
    if (!failure_.empty()) {
      throw Error(failureCode_, "rank " + std::to_string(rank_) +
                                    ": the MPI transport already failed: " + failure_);
    }
  }

  std::uint32_t allocateSlot() {
    if (freeSlots_.empty()) {
      slots_.emplace_back();  // deque: MPI holds pointers into slots' staging buffers
      return static_cast<std::uint32_t>(slots_.size() - 1);
    }
    const std::uint32_t index = freeSlots_.back();
    freeSlots_.pop_back();
    return index;
  }

  Slot& start(std::uint32_t index, bool isSend, int peer, void* data, std::size_t bytes,
              std::uint32_t tag) {
    Slot& slot = slots_[index];
    slot.isSend = isSend;
    slot.peer = peer;
    slot.tag = tag;
    slot.bytes = bytes;
    slot.data = static_cast<std::byte*>(data);
    slot.stamp = stamp_;
    slot.header = MPI_REQUEST_NULL;
    slot.pieces.clear();
    return slot;
  }

  static std::vector<MPI_Request*> requestsOf(Slot& slot) {
    std::vector<MPI_Request*> all{&slot.header};
    for (MPI_Request& r : slot.pieces) all.push_back(&r);
    return all;
  }

  void post(int rc, Slot& slot, const char* what) {
    if (rc == MPI_SUCCESS) return;
    const std::string message = "rank " + std::to_string(rank_) + ": " + what + " of " +
                                std::to_string(slot.bytes) + " bytes " +
                                (slot.isSend ? "to" : "from") + " rank " +
                                std::to_string(slot.peer) + " failed: " + errorString(rc);
    failure_ = message;
    failureCode_ = ErrorCode::Transport;
    throw Error(ErrorCode::Transport, message);
  }

  void postPieces(Slot& slot, int mpiTag) {
    const std::size_t n = pieceCount(slot.bytes);
    slot.pieces.assign(n, MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t offset = i * kMaxPiece;
      const int length = static_cast<int>(std::min(kMaxPiece, slot.bytes - offset));
      if (slot.isSend) {
        post(MPI_Isend(slot.data + offset, length, MPI_BYTE, slot.peer, mpiTag, dataComm_,
                       &slot.pieces[i]),
             slot, "MPI_Isend");
      } else {
        post(MPI_Irecv(slot.data + offset, length, MPI_BYTE, slot.peer, MPI_ANY_TAG, dataComm_,
                       &slot.pieces[i]),
             slot, "MPI_Irecv");
      }
    }
  }

  std::string describe(const Slot& slot) const {
    return "rank " + std::to_string(rank_) + ": " + (slot.isSend ? "send of " : "receive of ") +
           std::to_string(slot.bytes) + " bytes (tag " + std::to_string(slot.tag) + ") " +
           (slot.isSend ? "to" : "from") + " rank " + std::to_string(slot.peer);
  }

  // Tests `request` until it completes, an abort note arrives, or the deadline passes.
  void complete(const Slot& slot, MPI_Request& request, MPI_Status& status,
                std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds timeout) {
    const auto begin = std::chrono::steady_clock::now();
    for (long test = 0;; ++test) {
      int done = 0;
      const int rc = MPI_Test(&request, &done, &status);
      if (rc != MPI_SUCCESS) failed(slot, rc);
      if (done) return;
      if (test < spinTests_) {
        if ((test & 63) == 63) pollAbort();
        continue;
      }
      pollAbort();
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        throw Error(ErrorCode::Timeout, describe(slot) + " did not complete within " +
                                            std::to_string(timeout.count()) + " ms; rank " +
                                            std::to_string(slot.peer) +
                                            " is missing, stuck, or running a different schedule");
      }
      if (now - begin < kYieldPhase) {
        sched_yield();
      } else {
        std::this_thread::sleep_for(kSleepSlice);
      }
    }
  }

  [[noreturn]] void failed(const Slot& slot, int rc) {
    int errorClass = rc;
    MPI_Error_class(rc, &errorClass);
    if (errorClass == MPI_ERR_TRUNCATE) {
      throw Error(ErrorCode::Mismatch,
                  describe(slot) + ": rank " + std::to_string(slot.peer) +
                      " sent a longer message; ranks disagree on count, dtype or schedule");
    }
    throw Error(ErrorCode::Transport, describe(slot) + " failed: " + errorString(rc));
  }

  void pollAbort() {
    if (!abortReceived_) {
      int arrived = 0;
      MPI_Status status;
      if (MPI_Test(&abortRequest_, &arrived, &status) != MPI_SUCCESS || !arrived) return;
      if (incomingAbort_.transport != id_) {
        postAbortReceive();  // a stale note for an earlier transport
        return;
      }
      abortReceived_ = true;
      incomingAbort_.text[sizeof incomingAbort_.text - 1] = '\0';
    }
    const int code = incomingAbort_.code;
    const ErrorCode errorCode = code >= 0 && code <= static_cast<int>(ErrorCode::Internal)
                                    ? static_cast<ErrorCode>(code)
                                    : ErrorCode::PeerLost;
    throw Error(errorCode, "rank " + std::to_string(rank_) + ": communicator aborted: rank " +
                               std::to_string(incomingAbort_.rank) +
                               " failed: " + incomingAbort_.text);
  }

  void postAbortReceive() {
    check(MPI_Irecv(&incomingAbort_, sizeof incomingAbort_, MPI_BYTE, MPI_ANY_SOURCE, kAbortTag,
                    controlComm_, &abortRequest_),
          ErrorCode::Transport, "MPI_Irecv (abort notes)");
  }

  void checkHeader(const Slot& slot, const MPI_Status& status) {
    int received = 0;
    MPI_Get_count(&status, MPI_BYTE, &received);
    const std::string peer = "rank " + std::to_string(slot.peer);
    if (!(status.MPI_TAG & kHeaderFlag) || received < static_cast<int>(sizeof(Header))) {
      throw Error(ErrorCode::Mismatch,
                  describe(slot) + " expected the first message of a new call, but " + peer +
                      " sent one of " + std::to_string(received) +
                      " bytes within its previous call; ranks disagree on the calls they make");
    }
    Header header;
    std::memcpy(&header, slot.staging.data(), sizeof header);
    if (!(header.stamp == slot.stamp))
      throw stampMismatch(rank_, slot.stamp, slot.peer, header.stamp);
    if (header.tag != slot.tag || header.bytes != slot.bytes) {
      throw Error(ErrorCode::Mismatch, describe(slot) + ", but " + peer + " sent " +
                                           std::to_string(header.bytes) + " bytes (tag " +
                                           std::to_string(header.tag) +
                                           "); ranks disagree on count, dtype or schedule");
    }
    if (header.inlined) {
      if (received != static_cast<int>(sizeof(Header) + slot.bytes)) {
        throw Error(ErrorCode::Mismatch, describe(slot) + ": a header announcing " +
                                             std::to_string(header.bytes) + " bytes came with " +
                                             std::to_string(received - sizeof(Header)));
      }
      if (slot.bytes) copyBytes(slot.data, slot.staging.data() + sizeof(Header), slot.bytes);
    }
  }

  void checkPiece(const Slot& slot, std::size_t piece, const MPI_Status& status) {
    int received = 0;
    MPI_Get_count(&status, MPI_BYTE, &received);
    const std::size_t expected = std::min(kMaxPiece, slot.bytes - piece * kMaxPiece);
    if (status.MPI_TAG & kHeaderFlag) {
      throw Error(ErrorCode::Mismatch,
                  describe(slot) + ", but rank " + std::to_string(slot.peer) +
                      " already started its next call; ranks disagree on the calls they make");
    }
    if ((status.MPI_TAG & kTagMask) != (static_cast<int>(slot.tag) & kTagMask) ||
        static_cast<std::size_t>(received) != expected) {
      throw Error(ErrorCode::Mismatch, describe(slot) + ", but rank " + std::to_string(slot.peer) +
                                           " sent " + std::to_string(received) +
                                           " bytes with tag " +
                                           std::to_string(status.MPI_TAG & kTagMask) + " (mod " +
                                           std::to_string(kHeaderFlag) +
                                           "); ranks disagree on count, dtype or schedule");
    }
  }

  const MpiOptions options_;
  const std::uint64_t id_ = ++gTransports;
  MPI_Comm dataComm_ = MPI_COMM_NULL;
  MPI_Comm controlComm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int spinTests_ = 0;
  // Calls so far (setCallStamp), and per peer the call whose header was sent / received.
  long epoch_ = 0;
  std::vector<long> sendEpoch_, recvEpoch_;
  std::deque<Slot> slots_;
  std::vector<std::uint32_t> freeSlots_;
  AbortNote incomingAbort_;
  MPI_Request abortRequest_ = MPI_REQUEST_NULL;
  bool abortSent_ = false;
  bool abortReceived_ = false;
  std::string failure_;
  ErrorCode failureCode_ = ErrorCode::Internal;
};

}  // namespace

// Started by one implementation's launcher, a binary linked against the other initialises as a
// job of one rank, and each process would run alone. Both launchers say how many they started.
void checkLauncherAgrees(int size) {
  if (size != 1) return;
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(variable);
    if (value && std::atoi(value) > 1) {
      throwInvalid("MPI says this job has 1 rank, but the launcher started " + std::string(value) +
                   " (" + variable + "=" + value + "): this ringlab is built against " +
                   mpiLibraryVersion() + "; start it with that implementation's mpirun");
    }
  }
}

std::unique_ptr<Transport> connectMpi(const MpiOptions& options) {
  ensureInitialised();
  auto transport = std::make_unique<MpiTransport>(options);
  checkLauncherAgrees(transport->size());
  return transport;
}

bool mpiAvailable() {
  return true;
}

std::string mpiImplementation() {
#if defined(OPEN_MPI)
  return "openmpi";
#elif defined(MPICH_VERSION)
  return "mpich";
#else
  return "unknown";
#endif
}

}  // namespace ringlab::transport
