#pragma once
// The caches and cores this host reports, recorded by calibrate beside the cache knee it measures
// (model::MemoryParams), so that a profile says which cache its knee belongs to and two hosts'
// profiles can be compared.
#include <vector>

#include "ringlab/model/profile.hpp"

namespace ringlab::measure {

// The data and unified caches of cpu0: from /sys/devices/system/cpu/cpu0/cache (level, size, the
// cores sharing it) where the kernel exposes it, else sysconf's level 1 data to level 4 sizes
// (sharing not reported). Smallest level first; empty when the host reports none.
std::vector<model::Profile::ReportedCache> reportedCaches();

// The cores this process may run on (its affinity mask), at least 1.
int hostCores();

// The largest cache of one core's own: shared by one core, or of level 1 or 2 where sharing is not
// reported; 0 when none is reported.
double privateCacheBytes(const std::vector<model::Profile::ReportedCache>& caches);

// The cores that share the cache a knee at `kneeBytes` (of working set, measured by one core)
// belongs to. A knee up to twice the largest private cache is that cache's: 1. Beyond, it is a
// shared cache's: the cores the smallest such reported cache names, else all `cores` (a last-level
// cache is shared by the cores of its socket on the hosts this runs on; none reported, the same).
int cacheCoresOf(double kneeBytes, const std::vector<model::Profile::ReportedCache>& caches,
                 int cores);

}  // namespace ringlab::measure
