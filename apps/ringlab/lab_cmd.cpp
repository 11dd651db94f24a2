// `ringlab lab`: serve the web lab (apps/lab, web/) on this machine.
#include <memory>

#include "commands.hpp"
#include "server.hpp"

namespace ringlab::cli {

Action addLabCommand(CLI::App& app) {
  auto options = std::make_shared<lab::ServerOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lab", "serve the web lab: the modular orbit, ring AllReduce step by step, the cost model");
  cmd->add_option("--host", options->host, "address to listen on (loopback by default)");
  cmd->add_option("--port", options->port, "TCP port; 0 picks a free one");
  return [options] {
    lab::runServer(*options);
    return 0;
  };
}

}  // namespace ringlab::cli
