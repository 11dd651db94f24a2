#pragma once
// `ringlab lab`: the HTTP server behind the page. Routing only; the endpoints are in api.hpp.
#include <string>

namespace ringlab::lab {

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback: the lab is for the person at this machine
  int port = 8642;                 // 0: any free port (the URL printed says which)
};

// Serves until SIGINT or SIGTERM, printing the URL to stdout once listening. Throws
// Error(InvalidArgument) when it cannot listen on host:port.
void runServer(const ServerOptions& options);

}  // namespace ringlab::lab
