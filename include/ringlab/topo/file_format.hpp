#pragma once
// ringlab's own topology file (JSON), documented in docs/TOPOLOGY.md:
//
//   {
//     "ringlab_topology": 1,
//     "name": "2 nodes x 2 ranks, one switch",
//     "nodes": [
//       {"name": "n0", "slots": 2,
//        "intra": {"bandwidth": "10GB/s", "latency": "5us"},
//        "nics": [{"name": "n0.eth0", "bandwidth": "10GB/s", "latency": "1us"}],
//        "slot_nics": [0, 0]}
//     ],
//     "switches": ["core"],
//     "links": [{"between": ["n0.eth0", "core"], "bandwidth": "400Mbit/s", "latency": "50us"}]
//   }
//
// Bandwidths are per direction, as strings parseBandwidth reads ("25GB/s", "100Gbit/s") or
// numbers in bytes per second; latencies as strings parseSeconds reads ("2us") or numbers in
// seconds. A node's "intra" is each slot's own link to the node's fabric; a NIC's bandwidth and
// latency are those of each slot's link to it; "slot_nics" (optional) says which NIC each slot
// uses. Unknown fields, names that do not exist, zero or negative bandwidths are refused with
// the element named.
#include <string>

#include "ringlab/topo/topology.hpp"

namespace ringlab::topo {

// `source` (a file name) prefixes every error message.
Topology parseTopologyJson(const std::string& text, const std::string& source);
// The same topology as a file, for examples and for editing a generated one.
std::string topologyToJson(const Topology& topology);

}  // namespace ringlab::topo
