#pragma once
// Which host each topology node is, for the rankfile and the machinefile: the topology names its
// nodes ("n0", "n1", or what a topology file says), mpirun and mpiexec need the user's hosts.
#include <string>
#include <string_view>
#include <vector>

#include "ringlab/topo/placement.hpp"
#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

struct HostMap {
  std::vector<std::string> host;  // by node index; empty: not mapped
  std::vector<int> slots;         // by node index; 0: not stated
};

// From "n0=a,n1=b". Throws InvalidArgument naming an entry without '=', a node the topology does
// not have (with the nodes it has), or a node given twice; each error starts with `what`, the
// caller's name for the list (a front end passes its own option's name).
HostMap hostsFromList(std::string_view list, const Topology& topology,
                      std::string_view what = "the host list");
// From a hostfile: one host per line, given to the topology's nodes in their order; Open MPI's
// "HOST slots=N [max_slots=M]" and MPICH's "HOST:N" are read, '#' starts a comment. Throws
// InvalidArgument naming `source` and the line for anything else.
HostMap hostsFromHostfile(std::string_view text, const Topology& topology,
                          const std::string& source);

// Throws InvalidArgument when a node that holds ranks of `placement` has no host (naming it and
// its ranks, and telling to map it in the host list `listWhat`), or a host whose stated slots are
// fewer than the ranks placed on it.
void checkHosts(const HostMap& hosts, const Topology& topology, const Placement& placement,
                std::string_view listWhat = "the host list");

// The host of node `node`: its mapped host, or its own name when `hosts` is null.
std::string hostOf(const HostMap* hosts, const Topology& topology, int node);

}  // namespace ringlab::topo
