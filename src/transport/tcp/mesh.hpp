#pragma once
// Setting up the TCP transport's connections: every rank listens on its bind host, publishes the
// address in the rendezvous store, connects to every lower rank and accepts every higher one. Each
// connection starts with the challenge-response of bootstrap/handshake.hpp, both ends proving the
// job token; a connection whose hello is malformed or proves no token is refused and logged (one
// stderr line naming the address, rate limited), and setting up carries on with the others.
// Connections that have not proved the token are bounded in number and time, and the whole setup
// keeps one deadline, however busy strangers keep the listener.
#include <vector>

#include "bootstrap/net.hpp"
#include "ringlab/bootstrap/store.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/transport/tcp.hpp"

namespace ringlab::transport::tcp {

// options.channels connected, authenticated, non-blocking sockets per rank, indexed [rank][channel]
// (none for `rank` itself); every channel proves the token and gives its index in its hello. Throws
// Timeout naming the ranks that did not show up, Transport for a port or connection failure.
// A rank whose setup fails tells the peers it has connected already, with an abort (below), so
// that they know it is alive and gave up, rather than blame it for closing.
std::vector<std::vector<bootstrap::net::Socket>> connectMesh(int rank, int size,
                                                             bootstrap::Store& store,
                                                             const TcpOptions& options);

// Writes an Abort frame (cause's code and text, and where this rank stood: `at`) at a frame
// boundary of `fd`, then one byte of urgent data. Returns false when the urgent byte did not fit
// (the stream is full); throws when the peer is gone.
bool sendAbortFrame(int fd, const Error& cause, const WaitPoint& at,
                    bootstrap::net::Clock::time_point deadline);

}  // namespace ringlab::transport::tcp
