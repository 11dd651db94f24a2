#include "ringlab/bootstrap/rendezvous.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bootstrap/tcp_store.hpp"
#include "bootstrap/wire.hpp"
#include "ringlab/core/environment.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/limits.hpp"

namespace ringlab::bootstrap {
namespace {

struct Variable {
  std::string name;
  std::optional<std::string> value;
};

Variable variable(const char* name) {
  const char* v = std::getenv(name);
  return Variable{name, v ? std::optional<std::string>(v) : std::nullopt};
}

// The first of `names` that is set (ringlab's own before torchrun's).
Variable firstSet(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    Variable v = variable(name);
    if (v.value) return v;
  }
  return Variable{*names.begin(), std::nullopt};
}

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

bool validHost(const std::string& host) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '.' && c != '-' && c != ':' && c != '_') return false;
  }
  return true;
}

// "HOST:PORT" or "[V6]:PORT"; `source` names the variable in messages.
HostPort parseHostPort(const std::string& text, const std::string& source) {
  HostPort hp;
  std::string portText;
  if (!text.empty() && text[0] == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throwInvalid(source + ": '" + text + "' is not [IPV6]:PORT");
    }
    hp.host = text.substr(1, close - 1);
    portText = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || text.find(':') != colon) {
      throwInvalid(source + ": '" + text +
                   "' is not HOST:PORT (write IPv6 addresses as [ADDR]:PORT)");
    }
    hp.host = text.substr(0, colon);
    portText = text.substr(colon + 1);
  }
  if (!validHost(hp.host))
    throwInvalid(source + ": host '" + hp.host + "' is not a host name or IP address");
  hp.port = static_cast<std::uint16_t>(environmentInteger(source, portText, "the port", 1, 65535));
  return hp;
}

void checkRendezvous(const std::string& url, const std::string& source) {
  if (url.rfind("tcp://", 0) == 0) {
    parseHostPort(url.substr(6), source);
  } else if (url.rfind("file://", 0) == 0) {
    if (url.size() <= 7 || url[7] != '/') {
      throwInvalid(source + "='" + url + "': a file rendezvous is file:///ABSOLUTE/DIR");
    }
  } else {
    throwInvalid(source + "='" + url + "': the rendezvous must be tcp://HOST:PORT or file:///DIR");
  }
}

}  // namespace

std::optional<RankEnvironment> rankEnvironmentFromEnv() {
  const Variable rank = firstSet({"RINGLAB_RANK", "RANK"});
  if (!rank.value) return std::nullopt;
  const bool own = rank.name == "RINGLAB_RANK";
  const Variable size = own ? variable("RINGLAB_WORLD_SIZE") : variable("WORLD_SIZE");
  if (!size.value) {
    throwInvalid(rank.name + " is set but " + size.name + " is not; a launched rank needs both");
  }
  RankEnvironment env;
  env.size = static_cast<int>(
      environmentInteger(size.name, *size.value, "the number of ranks", 1, kMaxRanks));
  env.rank = static_cast<int>(environmentInteger(
      rank.name, *rank.value, "the rank (0.." + size.name + "-1)", 0, env.size - 1));

  const Variable url = variable("RINGLAB_RENDEZVOUS");
  if (url.value) {
    checkRendezvous(*url.value, url.name);
    env.rendezvous = *url.value;
  } else {
    const Variable addr = variable("MASTER_ADDR"), port = variable("MASTER_PORT");
    if (addr.value || port.value) {
      if (!addr.value)
        throwInvalid("MASTER_PORT is set but MASTER_ADDR is not; set both (or RINGLAB_RENDEZVOUS)");
      if (!port.value)
        throwInvalid("MASTER_ADDR is set but MASTER_PORT is not; set both (or RINGLAB_RENDEZVOUS)");
      if (!validHost(*addr.value)) {
        throwInvalid("MASTER_ADDR='" + *addr.value + "' is not a host name or IP address");
      }
      std::int64_t portNumber = environmentInteger(port.name, *port.value, "the port", 1, 65535);
      // torchrun's elastic agent serves its own store on MASTER_PORT and says so with
      // TORCHELASTIC_USE_AGENT_STORE=True; a rank process that bound it too would fail with
      // "address already in use". ringlab's store then takes the port after it.
      const Variable agentStore = variable("TORCHELASTIC_USE_AGENT_STORE");
      if (agentStore.value && *agentStore.value == "True") {
        if (portNumber == 65535) {
          throwInvalid(
              "MASTER_PORT=65535 is torchrun's own store and ringlab's would take the "
              "port after it; use a MASTER_PORT below 65535 (or set RINGLAB_RENDEZVOUS)");
        }
        ++portNumber;
      }
      const bool v6 = addr.value->find(':') != std::string::npos;
      env.rendezvous = "tcp://" + (v6 ? "[" + *addr.value + "]" : *addr.value) + ":" +
                       std::to_string(portNumber);
    } else if (env.size > 1) {
      throwInvalid("RINGLAB_RENDEZVOUS is not set (nor MASTER_ADDR and MASTER_PORT): " +
                   std::to_string(env.size) +
                   " ranks need a place to meet, tcp://HOST:PORT or file:///DIR");
    }
  }

  const Variable token = variable("RINGLAB_TOKEN");
  if (token.value) {
    if (token.value->empty() || token.value->size() > wire::kMaxTokenBytes) {
      throwInvalid("RINGLAB_TOKEN has " + std::to_string(token.value->size()) +
                   " bytes; it must have 1 to " + std::to_string(wire::kMaxTokenBytes));
    }
    env.token = *token.value;
  }
  const Variable job = variable("RINGLAB_JOB");
  if (job.value) {
    bool ok = !job.value->empty() && job.value->size() <= 64;
    for (char c : *job.value)
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
    if (!ok) {
      throwInvalid("RINGLAB_JOB='" + *job.value +
                   "': a job id has 1 to 64 letters, digits, '-' or '_' "
                   "(it names shared-memory objects)");
    }
    env.job = *job.value;
  }
  const Variable bind = variable("RINGLAB_BIND");
  if (bind.value) {
    if (!validHost(*bind.value)) {
      throwInvalid("RINGLAB_BIND='" + *bind.value +
                   "' is not a host name or IP address to listen on");
    }
    env.bindHost = *bind.value;
  }
  return env;
}

std::unique_ptr<Store> openStore(const RankEnvironment& environment,
                                 std::chrono::milliseconds timeout) {
  const std::string& url = environment.rendezvous;
  checkRendezvous(url, "rendezvous");
  if (url.rfind("file://", 0) == 0) return openFileStore(url.substr(7));
  const HostPort hp = parseHostPort(url.substr(6), "rendezvous " + url);
  TcpStoreOptions options;
  options.host = hp.host;
  options.port = hp.port;
  options.serve = environment.rank == 0;
  options.rank = environment.rank;
  options.size = environment.size;
  options.token = environment.token;
  options.timeout = timeout;
  return openTcpStore(options);
}

namespace {
// Letters, digits and '_' only: the file store keeps such a key as the file's name.
constexpr const char* kTimeoutKeyPrefix = "ringlab_timeout_ms_";
}  // namespace

void declareTimeout(Store& store, int rank, std::chrono::milliseconds timeout) {
  store.set(kTimeoutKeyPrefix + std::to_string(rank), std::to_string(timeout.count()));
}

std::chrono::milliseconds longestDeclaredTimeout(const std::string& directory) {
  std::chrono::milliseconds longest{0};
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().filename().string().rfind(kTimeoutKeyPrefix, 0) != 0) continue;
    std::ifstream in(entry.path());
    long long ms = 0;
    if (in >> ms && ms > longest.count()) longest = std::chrono::milliseconds(ms);
  }
  return longest;
}

}  // namespace ringlab::bootstrap
