#include "ringlab/measure/launch_description.hpp"

#include "ringlab/job/transports.hpp"

namespace ringlab::measure {

LaunchDescription describeLaunch(const std::string& transport) {
  const job::TransportEntry& entry = job::findTransport(transport);
  return {entry.topology, entry.placement};
}

LaunchDescription describeLaunch(const std::string& transport, io::TopologySource named,
                                 int ranks) {
  if (!named.given()) return describeLaunch(transport);
  named.ranks = ranks;
  const io::PlacedTopology placed = io::loadTopology(named);
  return {placed.topologyText(), placed.placementText()};
}

}  // namespace ringlab::measure
