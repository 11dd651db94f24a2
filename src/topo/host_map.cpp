#include "ringlab/topo/host_map.hpp"

#include <regex>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"

namespace ringlab::topo {
namespace {

std::string nodeNames(const Topology& t) {
  std::string names;
  for (const Node& n : t.nodes()) names += (names.empty() ? "" : ", ") + n.name;
  return names;
}

HostMap emptyMap(const Topology& t) {
  return {std::vector<std::string>(t.nodes().size()), std::vector<int>(t.nodes().size(), 0)};
}

}  // namespace

HostMap hostsFromList(std::string_view list, const Topology& t, std::string_view what) {
  const std::string label(what);
  HostMap map = emptyMap(t);
  for (const std::string& item : splitList(list)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throwInvalid(label + " '" + item + "': expected NODE=HOST, e.g. n0=node01");
    const std::string node = item.substr(0, eq), host = item.substr(eq + 1);
    int index = -1;
    for (std::size_t i = 0; i < t.nodes().size(); ++i) {
      if (t.nodes()[i].name == node) index = static_cast<int>(i);
    }
    if (index < 0)
      throwInvalid(label + " " + item + ": the topology has no node " + node +
                   " (its nodes: " + nodeNames(t) + ")");
    if (!map.host[index].empty()) throwInvalid(label + ": node " + node + " is given twice");
    map.host[index] = host;
  }
  return map;
}

HostMap hostsFromHostfile(std::string_view text, const Topology& t, const std::string& source) {
  // HOST, HOST slots=N [max_slots=M] (Open MPI), HOST:N (MPICH).
  static const std::regex line(R"(([^\s:=#]+)(?::(\d+)|(?:\s+slots=(\d+))?(?:\s+max_slots=\d+)?))");
  HostMap map = emptyMap(t);
  std::size_t next = 0;
  int number = 0;
  for (std::string raw : splitList(text, '\n')) {
    ++number;
    raw = raw.substr(0, raw.find('#'));
    const auto first = raw.find_first_not_of(" \t\r"), last = raw.find_last_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const std::string entry = raw.substr(first, last - first + 1);
    std::smatch m;
    if (!std::regex_match(entry, m, line)) {
      throwInvalid(source + " line " + std::to_string(number) + ": '" + entry +
                   "': expected HOST, HOST slots=N or HOST:N");
    }
    if (next == t.nodes().size()) {
      throwInvalid(source + " line " + std::to_string(number) + ": host " + m[1].str() +
                   " is one more than the topology's " + std::to_string(t.nodes().size()) +
                   " nodes (" + nodeNames(t) + ")");
    }
    map.host[next] = m[1].str();
    const std::string slots = m[2].matched ? m[2].str() : m[3].str();
    if (!slots.empty())
      map.slots[next] = static_cast<int>(parseInteger(slots, source + " slots", 1, 1 << 20));
    ++next;
  }
  return map;
}

void checkHosts(const HostMap& hosts, const Topology& t, const Placement& placement,
                std::string_view listWhat) {
  std::vector<std::string> ranksOn(t.nodes().size());
  std::vector<int> count(t.nodes().size(), 0);
  for (int r = 0; r < placement.ranks(); ++r) {
    const int node = placement.nodeOf(r);
    ranksOn[node] += (ranksOn[node].empty() ? "" : ", ") + std::to_string(r);
    ++count[node];
  }
  for (std::size_t i = 0; i < t.nodes().size(); ++i) {
    if (count[i] == 0) continue;
    const std::string& name = t.nodes()[i].name;
    if (hosts.host[i].empty()) {
      throwInvalid("no host for topology node " + name + " (it holds ranks " + ranksOn[i] +
                   "); map it with " + std::string(listWhat) + " " + name +
                   "=HOST or a hostfile line");
    }
    if (hosts.slots[i] != 0 && hosts.slots[i] < count[i]) {
      throwInvalid("host " + hosts.host[i] + " (topology node " + name +
                   ") has slots=" + std::to_string(hosts.slots[i]) + ", but the placement puts " +
                   std::to_string(count[i]) + " ranks there (" + ranksOn[i] + ")");
    }
  }
}

std::string hostOf(const HostMap* hosts, const Topology& t, int node) {
  return hosts ? hosts->host.at(node) : t.nodes().at(node).name;
}

}  // namespace ringlab::topo
