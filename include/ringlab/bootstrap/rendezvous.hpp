#pragma once
// How one rank process learns who it is and where to meet the others. ringlab's own variables
// take precedence; torchrun's are accepted as they are:
//
//   RINGLAB_RANK, RINGLAB_WORLD_SIZE     this rank, and p           (torchrun: RANK, WORLD_SIZE)
//   RINGLAB_RENDEZVOUS                   tcp://HOST:PORT (rank 0 serves a TCP store there) or
//                                        file:///DIR (a directory every rank sees)
//                                        (torchrun: MASTER_ADDR + MASTER_PORT -> tcp://; under
//                                        torchrun's agent store, which holds MASTER_PORT, the
//                                        port after it)
//   RINGLAB_TOKEN                        shared secret every TCP connection must present
//   RINGLAB_JOB                          job id; names shared-memory objects (optional)
//   RINGLAB_BIND                         address data ports listen on (default 127.0.0.1)
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "ringlab/bootstrap/store.hpp"

namespace ringlab::bootstrap {

struct RankEnvironment {
  int rank = 0;
  int size = 1;
  std::string rendezvous;  // "tcp://HOST:PORT" or "file:///DIR"
  std::string token;
  std::string job;
  std::string bindHost = "127.0.0.1";
};

// Reads the variables above. Returns nullopt when no rank variable is set (not a launched rank);
// throws InvalidArgument naming the variable when one is set but malformed or incomplete.
std::optional<RankEnvironment> rankEnvironmentFromEnv();

// Opens the store the rendezvous URL names: for tcp://, rank 0 listens on HOST:PORT (it must be
// free) and every rank, rank 0 included, connects to it, presenting the token. Throws
// InvalidArgument for a malformed URL, Transport for a port in use or an unreachable host, and
// Timeout when the store does not answer within `timeout`.
std::unique_ptr<Store> openStore(const RankEnvironment& environment,
                                 std::chrono::milliseconds timeout);

// Each rank declares its timeout in the store, so that a launcher that owns a file:// rendezvous
// directory gives failing jobs long enough to report before it kills them (job/launcher.hpp).
void declareTimeout(Store& store, int rank, std::chrono::milliseconds timeout);
// The longest timeout the ranks declared in `directory`, or zero when none did.
std::chrono::milliseconds longestDeclaredTimeout(const std::string& directory);

}  // namespace ringlab::bootstrap
