#pragma once
// Setting up the TCP transport's connections: every rank listens on its bind host, publishes the
// address in the rendezvous store, connects to every lower rank and accepts every higher one. Each
// connection starts with a hello both ways carrying the job token; a connection whose hello is
// malformed or carries another token is refused and logged (one stderr line naming the address),
// and setting up carries on with the others.
#include <vector>

#include "bootstrap/net.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/transport/tcp.hpp"

namespace ringlab::transport::tcp {

// One connected, authenticated, non-blocking socket per rank (none for `rank` itself). Throws
// Timeout naming the ranks that did not show up, Transport for a port or connection failure.
std::vector<bootstrap::net::Socket> connectMesh(int rank, int size, bootstrap::Store& store,
                                                const TcpOptions& options);

}  // namespace ringlab::transport::tcp
