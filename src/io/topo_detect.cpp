#include "ringlab/io/topo_detect.hpp"

#include <unistd.h>

#include <vector>

#include "ringlab/core/error.hpp"

#ifdef RINGLAB_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace ringlab::io {

#ifdef RINGLAB_HAVE_HWLOC
namespace {

// hwloc's topology, released however we leave.
class Hwloc {
 public:
  Hwloc() {
    if (hwloc_topology_init(&topology_) != 0)
      throw Error(ErrorCode::Internal, "hwloc: cannot initialise");
    hwloc_topology_set_io_types_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topology_) != 0) {
      hwloc_topology_destroy(topology_);
      throw Error(ErrorCode::Internal, "hwloc: cannot load this machine's topology");
    }
  }
  ~Hwloc() { hwloc_topology_destroy(topology_); }
  Hwloc(const Hwloc&) = delete;
  Hwloc& operator=(const Hwloc&) = delete;
  hwloc_topology_t get() const { return topology_; }

 private:
  hwloc_topology_t topology_{};
};

struct Device {
  std::string name;
  hwloc_const_cpuset_t near = nullptr;  // cpuset of the nearest non-I/O ancestor
};

}  // namespace

topo::Topology detectLocalTopology(const DetectOptions& options, std::string& notes) {
  if (options.slots != "auto" && options.slots != "gpus" && options.slots != "cores") {
    throwInvalid(options.slotsWhat + " " + options.slots + ": valid are auto, gpus, cores");
  }
  Hwloc hw;
  std::vector<Device> gpus, nics;
  for (hwloc_obj_t dev = hwloc_get_next_osdev(hw.get(), nullptr); dev;
       dev = hwloc_get_next_osdev(hw.get(), dev)) {
    const hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(hw.get(), dev);
    const Device d{dev->name ? dev->name : "?", ancestor ? ancestor->cpuset : nullptr};
    const auto type = dev->attr->osdev.type;
    if (type == HWLOC_OBJ_OSDEV_NETWORK && d.name != "lo") nics.push_back(d);
    if (type == HWLOC_OBJ_OSDEV_GPU || type == HWLOC_OBJ_OSDEV_COPROC) gpus.push_back(d);
  }
  std::vector<Device> slots;
  const bool useGpus = options.slots == "gpus" || (options.slots == "auto" && !gpus.empty());
  if (useGpus) {
    if (gpus.empty()) throwInvalid(options.slotsWhat + " gpus: hwloc finds no GPU on this machine");
    slots = gpus;
  } else {
    const int cores = hwloc_get_nbobjs_by_type(hw.get(), HWLOC_OBJ_CORE);
    for (int i = 0; i < cores; ++i) {
      const hwloc_obj_t core = hwloc_get_obj_by_type(hw.get(), HWLOC_OBJ_CORE, i);
      slots.push_back({"core" + std::to_string(i), core->cpuset});
    }
  }
  if (slots.empty()) throw Error(ErrorCode::Internal, "hwloc finds neither GPUs nor cores");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  topo::Topology t(std::string("detected: ") + host);
  const int node = t.addNode(host[0] ? host : "local", static_cast<int>(slots.size()),
                             {options.intra_Bps, 1e-6, 0});
  for (const Device& nic : nics)
    t.addNic(node, t.nodes()[node].name + "." + nic.name, {options.nic_Bps, 1e-6, 0});
  // Each slot sends through the first NIC near it (sharing CPUs with its ancestor), else the first.
  for (std::size_t s = 0; s < slots.size() && !nics.empty(); ++s) {
    int chosen = 0;
    for (std::size_t k = 0; k < nics.size(); ++k) {
      if (slots[s].near && nics[k].near && hwloc_bitmap_intersects(slots[s].near, nics[k].near)) {
        chosen = static_cast<int>(k);
        break;
      }
    }
    t.setSlotNic(node, static_cast<int>(s), chosen);
  }
  t.finish();
  notes = std::to_string(slots.size()) + (useGpus ? " GPUs" : " cores") + " as slots, " +
          std::to_string(nics.size()) +
          " NICs (hwloc); bandwidths are assumptions, not detected: " + options.intraWhat +
          " and " + options.nicWhat + " set them";
  return t;
}

#else

topo::Topology detectLocalTopology(const DetectOptions&, std::string&) {
  throwInvalid(
      "ringlab topo detect: this ringlab was built without hwloc (install libhwloc-dev and "
      "rebuild)");
}

#endif

}  // namespace ringlab::io
