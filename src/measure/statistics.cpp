#include "ringlab/measure/statistics.hpp"

#include <algorithm>
#include <numeric>

#include "ringlab/core/error.hpp"
#include "ringlab/model/fit.hpp"

namespace ringlab::measure {

Timing summarise(const std::vector<double>& seconds, bool keepSamples) {
  if (seconds.empty()) throwInvalid("no iterations to summarise: at least one is needed");
  Timing t;
  t.iterations = static_cast<int>(seconds.size());
  t.timeUs = model::median(seconds) * 1e6;
  const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
  t.minUs = *lo * 1e6;
  t.maxUs = *hi * 1e6;
  t.meanUs = std::accumulate(seconds.begin(), seconds.end(), 0.0) / seconds.size() * 1e6;
  if (keepSamples) {
    t.samplesUs.reserve(seconds.size());
    for (double s : seconds) t.samplesUs.push_back(s * 1e6);
  }
  return t;
}

}  // namespace ringlab::measure
