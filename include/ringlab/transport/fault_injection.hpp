#pragma once
// TEST ONLY: makes one rank misbehave on purpose, so that tests can show that bench's check and
// the error paths catch what they claim to. Compiled in and inert: nothing changes unless the
// environment variable RINGLAB_FAULT is set (read once per process). Never set it in production.
//
//   RINGLAB_FAULT=KIND,rank=R[,count=N][,ms=D][,every][,at=setup]
//
//   corrupt  flips bits in the top byte of the first element of the first data message rank R
//            sends in each matching call (one wrong element on the wire per call)
//   drop     rank R never sends its first data message of the first matching call, nor anything
//            after it to that peer (a link that went silent): the receiver waits in vain
//   delay    rank R sleeps D ms (default 100) before its first data message of each matching call
//            (with `every`: before each of its data messages)
//   stop     rank R stops itself with SIGSTOP at its first data message (at=setup: while it
//            connects, after it reached the lower ranks), as a debugger or Ctrl-Z would
//   kill     as stop, with SIGKILL: the process dies on the spot
//   count=N  only calls of N elements match (default: every call, bench's own included)
//
// The Communicator wraps its transport (any transport: inproc, shm, tcp, mpi) in the fault;
// stop and kill act on the whole process, so they are meant for the process transports.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ringlab/transport/transport.hpp"

namespace ringlab::transport {

enum class FaultKind { Corrupt, Drop, Delay, Stop, Kill };

struct FaultPlan {
  FaultKind kind = FaultKind::Corrupt;
  int rank = 0;
  std::uint64_t count = 0;  // 0: every call
  std::chrono::milliseconds delay{100};
  bool everyMessage = false;  // delay: before every data message, not once per call
  bool atSetup = false;
};

// Parses a RINGLAB_FAULT value; throws InvalidArgument naming the value and what is valid.
FaultPlan parseFaultPlan(const std::string& text);

// The plan in RINGLAB_FAULT, parsed on the first call; nullopt when it is unset or empty.
const std::optional<FaultPlan>& faultPlanFromEnvironment();

// A transport that applies the plan to `inner` (which it does not own), or null when no fault is
// planned for inner's rank.
std::unique_ptr<Transport> injectFaults(Transport& inner);

// Where a planned stop or kill with at=setup happens: the transports call it while connecting.
void injectSetupFault(int rank);

}  // namespace ringlab::transport
