#include "ringlab/record/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "ringlab/core/enum_names.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/student_t.hpp"

namespace ringlab::record {

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

namespace {

constexpr EnumName<Statistic> kStatisticNames[] = {{Statistic::Median, "median"},
                                                   {Statistic::Min, "min"},
                                                   {Statistic::Max, "max"},
                                                   {Statistic::Mean, "mean"},
                                                   {Statistic::Loop, "loop"}};

}  // namespace

const char* statisticName(Statistic s) {
  return enumName(std::span(kStatisticNames), s).data();
}

double statisticUs(const Timing& t, Statistic s) {
  switch (s) {
    case Statistic::Median:
      return t.timeUs;
    case Statistic::Min:
      return t.minUs;
    case Statistic::Max:
      return t.maxUs;
    case Statistic::Mean:
      return t.meanUs;
    case Statistic::Loop:
      return t.loopMeanUs;
  }
  return 0;
}

std::vector<Statistic> parseStatistics(const std::string& list, std::string_view what) {
  const std::string label(what);
  std::vector<Statistic> chosen;
  for (const std::string& name : splitList(list)) {
    const std::optional<Statistic> known = findEnum(std::span(kStatisticNames), name);
    if (!known) {
      throwInvalid(label + " " + list + ": unknown statistic '" + name +
                   "'; valid are median, min, max, mean, loop");
    }
    if (std::find(chosen.begin(), chosen.end(), *known) != chosen.end())
      throwInvalid(label + " " + list + ": '" + name + "' is listed twice");
    chosen.push_back(*known);
  }
  if (chosen.empty())
    throwInvalid(label + " '" + list + "': name at least one of median, min, max, mean, loop");
  return chosen;
}

RatioInterval pairedRatioInterval(const std::vector<double>& a, const std::vector<double>& b,
                                  double confidence) {
  if (!(confidence > 0 && confidence < 1))
    throwInvalid("an interval's confidence must be in (0, 1), not " + formatNumber(confidence));
  if (a.empty() || a.size() != b.size()) {
    throwInvalid(
        "a paired ratio needs the same number of rounds on both sides, at least one; got " +
        std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  std::vector<double> logs;
  for (std::size_t r = 0; r < a.size(); ++r) {
    if (!(a[r] > 0 && b[r] > 0))
      throwInvalid("a paired ratio needs times > 0; round " + std::to_string(r) + " has " +
                   formatNumber(a[r]) + " and " + formatNumber(b[r]));
    logs.push_back(std::log(a[r] / b[r]));
  }
  const double n = logs.size();
  const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / n;
  RatioInterval out{std::exp(mean), 0, std::numeric_limits<double>::infinity()};
  if (logs.size() < 2) return out;
  double squares = 0;
  for (double x : logs) squares += (x - mean) * (x - mean);
  const double halfWidth =
      model::studentTQuantile((1 + confidence) / 2, static_cast<int>(logs.size()) - 1) *
      std::sqrt(squares / (n - 1) / n);
  out.low = std::exp(mean - halfWidth);
  out.high = std::exp(mean + halfWidth);
  return out;
}

}  // namespace ringlab::record
