#include "ringlab/job/transports.hpp"

#include <algorithm>
#include <deque>

#include "ringlab/core/error.hpp"
#include "ringlab/transport/inproc.hpp"
#include "ringlab/transport/mpi.hpp"
#include "ringlab/transport/shm.hpp"
#include "ringlab/transport/tcp.hpp"
#include "transport/shm/shm_layout.hpp"

namespace ringlab::job {
namespace {

// A word as a shell reads it back: quoted where it holds anything but plain characters.
std::string shellWord(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::vector<TransportEntry> builtIn() {
  std::vector<TransportEntry> table;
  table.push_back({
      .name = "inproc",
      .ranksAre = "threads of one process",
      .start = RankStart::Threads,
      .threads = [](int ranks) { return std::make_unique<transport::InprocWorld>(ranks); },
      // The receiver copies or reduces straight from the sender's buffer, at every size.
      .traffic = model::TransportTraffic{.network = false, .copies = 1},
      .topology = "single host",
      .placement = "ranks as threads of one process",
  });
  table.push_back({
      .name = "shm",
      .ranksAre = "processes on one host",
      .connect =
          [](const RankConnection& c) {
            return transport::connectShm(c.rank, c.size, *c.store, {c.job, c.timeout});
          },
      // Below its single-copy size a message goes through the slots: a copy in, a copy or
      // reduce out.
      .traffic = model::TransportTraffic{.network = false,
                                         .copies = 2,
                                         .slots = {transport::shm::kSlotBytes,
                                                   transport::shm::kSlotsPerChannel}},
      .fusesFromSingleCopy = true,
      .topology = "single host",
      .placement = "one process per rank",
  });
  table.push_back({
      .name = "tcp",
      .ranksAre = "processes on any hosts",
      .spansHosts = true,
      .connect =
          [](const RankConnection& c) {
            transport::TcpOptions options{c.bindHost, c.token, c.timeout};
            transport::applyTcpEnvironment(options);
            return transport::connectTcp(c.rank, c.size, *c.store, options);
          },
      .traffic = model::TransportTraffic{.network = true, .copies = 1},
      // A launcher or torchrun-style variables may have started the ranks on several hosts.
      .topology = "as launched: tcp ranks may span hosts",
      .placement = "one process per rank",
  });
  table.push_back({
      .name = "mpi",
      .ranksAre = "processes that mpirun started",
      .start = RankStart::Mpi,
      .spansHosts = true,
      .connect = [](const RankConnection&) { return transport::connectMpi(); },
      .launchLine =
          [](int ranks, const std::vector<std::string>& command) {
            std::string line =
                transport::mpiImplementation() == "mpich" ? "mpiexec -n " : "mpirun -np ";
            line += std::to_string(ranks);
            for (const std::string& word : command) line += " " + shellWord(word);
            return line;
          },
      .topology = "as mpirun placed the ranks",
      .placement = "ranks as MPI processes (mpirun)",
  });
  return table;
}

// A deque: entries stay where they are when one is registered or removed, so references to the
// others hold. The first `builtIns` are the table's own.
struct Table {
  std::deque<TransportEntry> entries;
  std::size_t builtIns = 0;
};

Table& table() {
  static Table t = [] {
    std::vector<TransportEntry> built = builtIn();
    return Table{{built.begin(), built.end()}, built.size()};
  }();
  return t;
}

std::string namesOf(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace

const std::deque<TransportEntry>& transports() {
  return table().entries;
}

std::vector<std::string> transportNameList() {
  std::vector<std::string> names;
  for (const TransportEntry& t : transports()) names.push_back(t.name);
  return names;
}

std::string transportNames() {
  return namesOf(transportNameList());
}

const TransportEntry* transportNamed(std::string_view name) {
  for (const TransportEntry& t : transports()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const std::string& defaultTransport() {
  for (const TransportEntry& t : transports()) {
    if (t.start == RankStart::Threads) return t.name;
  }
  throw Error(ErrorCode::Internal, "no transport in the table starts its ranks as threads");
}

std::unique_ptr<transport::ThreadWorld> threadWorld(std::string_view name, int ranks) {
  const TransportEntry& entry = findTransport(name);
  if (entry.start != RankStart::Threads) {
    throwInvalid("transport " + entry.name + ": its ranks are " + entry.ranksAre +
                 ", not threads of this process");
  }
  return entry.threads(ranks);
}

const TransportEntry& findTransport(std::string_view name, std::string_view what) {
  if (const TransportEntry* entry = transportNamed(name)) return *entry;
  throwInvalid(std::string(what) + " '" + std::string(name) + "': valid are " + transportNames());
}

void registerTransport(TransportEntry entry) {
  if (entry.name.empty()) throwInvalid("a transport to register needs a name");
  const bool startable = entry.start == RankStart::Threads ? static_cast<bool>(entry.threads)
                                                           : static_cast<bool>(entry.connect);
  if (!startable) {
    throwInvalid("transport '" + entry.name + "': " +
                 (entry.start == RankStart::Threads ? "ranks that start as threads need a world"
                                                    : "ranks that start as processes need a "
                                                      "connect function"));
  }
  std::deque<TransportEntry>& entries = table().entries;
  if (std::any_of(entries.begin(), entries.end(),
                  [&](const TransportEntry& t) { return t.name == entry.name; })) {
    throwInvalid("transport '" + entry.name + "' is registered already");
  }
  entries.push_back(std::move(entry));
}

void unregisterTransport(std::string_view name) {
  std::deque<TransportEntry>& entries = table().entries;
  const auto it =
      std::find_if(entries.begin() + static_cast<std::ptrdiff_t>(table().builtIns), entries.end(),
                   [&](const TransportEntry& t) { return t.name == name; });
  if (it == entries.end()) {
    throwInvalid("transport '" + std::string(name) + "' was not registered");
  }
  entries.erase(it);
}

std::vector<std::string> groupTransportNames() {
  std::vector<std::string> names{std::string(kAutoTransport)};
  for (const TransportEntry& t : transports()) {
    if (t.start == RankStart::Launched) names.push_back(t.name);
  }
  return names;
}

const TransportEntry& transportForGroup(std::string_view requested, bool oneHost,
                                        std::string_view what) {
  const auto launched = [](bool spansHosts) -> const TransportEntry* {
    for (const TransportEntry& t : transports()) {
      if (t.start == RankStart::Launched && t.spansHosts == spansHosts) return &t;
    }
    return nullptr;
  };
  const TransportEntry* entry = nullptr;
  if (requested == kAutoTransport) {
    entry = oneHost ? launched(false) : nullptr;
    if (!entry) entry = launched(true);
  } else {
    entry = transportNamed(requested);
    if (entry && entry->start != RankStart::Launched) entry = nullptr;
  }
  if (!entry) {
    throwInvalid(std::string(what) + " '" + std::string(requested) + "': valid are " +
                 namesOf(groupTransportNames()));
  }
  if (!oneHost && !entry->spansHosts) {
    const TransportEntry* spanning = launched(true);
    throwInvalid(std::string(what) + " " + entry->name +
                 ": the ranks of this group run on more than one host; use " +
                 (spanning ? spanning->name + " or " : "") + std::string(kAutoTransport));
  }
  return *entry;
}

model::TransportTraffic transportTraffic(std::string_view name) {
  const TransportEntry& entry = findTransport(name);
  if (entry.traffic) return *entry.traffic;
  std::vector<std::string> priced;
  for (const TransportEntry& t : transports()) {
    if (t.traffic) priced.push_back(t.name);
  }
  throwInvalid("roofline of transport '" + std::string(name) + "': known for " + namesOf(priced) +
               " (" + std::string(name) + "'s bytes move inside another library)");
}

model::SlotRing probedSlotRing() {
  for (const TransportEntry& t : transports()) {
    if (t.traffic && t.traffic->slots.slotBytes > 0) return t.traffic->slots;
  }
  throw Error(ErrorCode::Internal, "no transport in the table moves messages through slots");
}

}  // namespace ringlab::job
