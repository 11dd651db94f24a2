#include "ringlab/measure/host_caches.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "ringlab/core/error.hpp"
#include "ringlab/core/file.hpp"

namespace ringlab::measure {

namespace {

// A sysfs attribute's first line, "" where it cannot be read.
std::string attribute(const std::string& path) {
  try {
    std::string text = readTextFile(path, "a cache attribute");
    return text.substr(0, text.find('\n'));
  } catch (const Error&) {
    return "";
  }
}

// "48K", "1024K", "32M" as bytes; 0 when it is none of those.
double sysfsSize(const std::string& text) {
  if (text.empty()) return 0;
  const char unit = text.back();
  const double scale = unit == 'K'   ? 1024.0
                       : unit == 'M' ? 1024.0 * 1024
                       : unit == 'G' ? 1 << 30
                                     : 1;
  const std::string digits = scale == 1 ? text : text.substr(0, text.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stod(digits) * scale;
}

// The cores in a cpulist ("0-3,8,10-11"); 0 when it cannot be read.
int cpuListCount(const std::string& list) {
  int count = 0;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string range = list.substr(at, end - at);
    const std::size_t dash = range.find('-');
    try {
      count += dash == std::string::npos
                   ? 1
                   : std::stoi(range.substr(dash + 1)) - std::stoi(range.substr(0, dash)) + 1;
    } catch (const std::exception&) {
      return 0;
    }
    at = end + 1;
  }
  return count;
}

std::vector<model::Profile::ReportedCache> fromSysfs() {
  std::vector<model::Profile::ReportedCache> caches;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string level = attribute(dir + "/level");
    if (level.empty()) break;
    if (attribute(dir + "/type") == "Instruction") continue;
    const double bytes = sysfsSize(attribute(dir + "/size"));
    if (bytes > 0 && level.find_first_not_of("0123456789") == std::string::npos)
      caches.push_back(
          {std::stoi(level), bytes, cpuListCount(attribute(dir + "/shared_cpu_list"))});
  }
  return caches;
}

std::vector<model::Profile::ReportedCache> fromSysconf() {
  std::vector<model::Profile::ReportedCache> caches;
  const int names[] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE,
                       _SC_LEVEL4_CACHE_SIZE};
  for (int level = 1; level <= 4; ++level) {
    const long bytes = ::sysconf(names[level - 1]);
    if (bytes > 0) caches.push_back({level, static_cast<double>(bytes), 0});
  }
  return caches;
}

}  // namespace

std::vector<model::Profile::ReportedCache> reportedCaches() {
  std::vector<model::Profile::ReportedCache> caches = fromSysfs();
  if (caches.empty()) caches = fromSysconf();
  std::sort(caches.begin(), caches.end(),
            [](const auto& a, const auto& b) { return a.level < b.level; });
  return caches;
}

int hostCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
}

double privateCacheBytes(const std::vector<model::Profile::ReportedCache>& caches) {
  double bytes = 0;
  for (const model::Profile::ReportedCache& c : caches) {
    const bool isPrivate = c.sharedByCores > 0 ? c.sharedByCores == 1 : c.level <= 2;
    if (isPrivate) bytes = std::max(bytes, c.bytes);
  }
  return bytes;
}

int cacheCoresOf(double kneeBytes, const std::vector<model::Profile::ReportedCache>& caches,
                 int cores) {
  if (kneeBytes <= 2 * privateCacheBytes(caches)) return 1;
  for (const model::Profile::ReportedCache& c : caches) {
    if (c.sharedByCores > 1 && 2 * c.bytes >= kneeBytes) return std::min(c.sharedByCores, cores);
  }
  return std::max(1, cores);
}

}  // namespace ringlab::measure
