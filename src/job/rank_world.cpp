#include "ringlab/job/rank_world.hpp"

#include "ringlab/core/error.hpp"
#include "ringlab/transport/mpi.hpp"
#include "ringlab/transport/shm.hpp"
#include "ringlab/transport/tcp.hpp"

namespace ringlab::job {

bool isProcessTransport(const std::string& kind) {
  return kind == "shm" || kind == "tcp" || kind == "mpi";
}

bool isLaunchable(const std::string& kind) {
  return kind == "shm" || kind == "tcp";
}

RankWorld connectRankWorld(const std::string& kind, std::chrono::milliseconds timeout) {
  RankWorld world;
  if (kind == "mpi") {
    world.transport = transport::connectMpi();
    return world;
  }
  const std::optional<bootstrap::RankEnvironment> env = bootstrap::rankEnvironmentFromEnv();
  if (!env) {
    throwInvalid(
        "--transport " + kind +
        " needs the rank environment (RINGLAB_RANK, RINGLAB_WORLD_SIZE, RINGLAB_RENDEZVOUS); "
        "start the ranks with `ringlab launch -p N -- ...` or set them as torchrun does");
  }
  world.store = bootstrap::openStore(*env, timeout);
  if (kind == "shm") {
    world.transport =
        transport::connectShm(env->rank, env->size, *world.store, {env->job, timeout});
  } else if (kind == "tcp") {
    world.transport = transport::connectTcp(env->rank, env->size, *world.store,
                                            {env->bindHost, env->token, timeout});
  } else {
    throwInvalid("--transport " + kind + ": valid are inproc, shm, tcp, mpi");
  }
  return world;
}

}  // namespace ringlab::job
