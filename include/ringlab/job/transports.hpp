#pragma once
// The transports as one table, as the algorithms have one registry (model/registry.hpp). Every
// command that measures (bench, tune, calibrate, through job/rank_world.hpp), the torch backend's
// choice of transport, the run record and the roofline read a transport's facts here; nothing
// outside src/transport and this table names one. A program may add its own with
// registerTransport (tests/transport_table_test.cpp adds a fake one and measures over it).
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/bootstrap/store.hpp"
#include "ringlab/model/roofline.hpp"
#include "ringlab/transport/thread_world.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::job {

// How a transport's ranks start.
enum class RankStart {
  Threads,   // all of them threads of this process
  Launched,  // processes with the rank environment (bootstrap/rendezvous.hpp): started by
             // `ringlab launch`, by a command that launches copies of itself, or by torchrun
  Mpi,       // processes an MPI launcher started
};

// What one rank connects with: its place in the job and the store its peers meet in.
struct RankConnection {
  int rank = 0;
  int size = 1;
  bootstrap::Store* store = nullptr;  // Launched: the job's rendezvous
  std::string job;                    // names the job's shared resources; "" lets rank 0 draw one
  std::string token;                  // every network connection presents it
  std::string bindHost = "127.0.0.1";
  std::chrono::milliseconds timeout{60'000};  // for setting up
};

struct TransportEntry {
  std::string name;
  std::string ranksAre;  // for help and the record: "threads of one process"
  RankStart start = RankStart::Launched;
  bool spansHosts = false;  // its ranks may run on several hosts
  // RankStart::Threads: a world of `ranks` threads.
  std::function<std::unique_ptr<transport::ThreadWorld>(int ranks)> threads;
  // RankStart::Launched and Mpi: this process as one rank.
  std::function<std::unique_ptr<transport::Transport>(const RankConnection&)> connect;
  // How a command runs as `ranks` ranks of this transport, for messages that say how to start
  // it (RankStart::Mpi: the MPI launcher's line); empty where the command starts them itself.
  std::function<std::string(int ranks, const std::vector<std::string>& command)> launchLine;
  // The roofline's terms (model/roofline.hpp); none where another library moves the bytes.
  std::optional<model::TransportTraffic> traffic;
  // Whether its reducing receives read the sender's buffer in place from its single-copy size
  // on (Transport::singleCopyBytes): calibrate then prices them as one fused pass.
  bool fusesFromSingleCopy = false;
  // What a record says of where its ranks run, when the user named no machine.
  std::string topology, placement;
};

// Every transport, in the table's order (inproc, shm, tcp, mpi, then those registered).
const std::deque<TransportEntry>& transports();

// The entry named `name`; throws InvalidArgument naming `what` ("the transport"), the value and
// the valid names.
const TransportEntry& findTransport(std::string_view name, std::string_view what = "transport");

// The entry named `name`, or nullptr.
const TransportEntry* transportNamed(std::string_view name);

// The transport a run takes when none is named and no launcher started it: the table's first
// whose ranks start as threads.
const std::string& defaultTransport();

// `name`'s world of `ranks` threads; throws InvalidArgument naming it when its ranks do not start
// as threads.
std::unique_ptr<transport::ThreadWorld> threadWorld(std::string_view name, int ranks);

// The word a group of processes asks with to let the table choose (transportForGroup).
inline constexpr std::string_view kAutoTransport = "auto";

// The transport a group of processes that share a store connects over (the torch backend's process
// group): `requested` by name, one whose ranks are launched processes (RankStart::Launched), or
// kAutoTransport: the table's first such that stays on one host where `oneHost`, else its first
// that spans hosts. Throws InvalidArgument naming `what` ("ringlab transport"), the value and what
// is valid, also for one that stays on one host when the group does not.
const TransportEntry& transportForGroup(std::string_view requested, bool oneHost,
                                        std::string_view what);
// What transportForGroup accepts: kAutoTransport, then the launched transports' names.
std::vector<std::string> groupTransportNames();

// The table's names, "inproc, shm, tcp and mpi", for messages and help.
std::string transportNames();
std::vector<std::string> transportNameList();

// Adds a transport at run time, before any job starts and from one thread (the table is not
// locked: it is read everywhere and written only here). Throws InvalidArgument for an empty or
// taken name, or an entry without the function its start needs.
void registerTransport(TransportEntry entry);

// Removes a transport registerTransport added (a test's fake, a plugin unloaded); the table's own
// stay. Throws InvalidArgument for a name that was not registered.
void unregisterTransport(std::string_view name);

// The roofline's terms of `name`; throws InvalidArgument naming it and those that have them.
model::TransportTraffic transportTraffic(std::string_view name);

// The slot ring whose passes calibrate and the roofline probe: the table's transport that moves
// messages through slots. A profile holds those rates for whichever transport it is used on.
model::SlotRing probedSlotRing();

}  // namespace ringlab::job
