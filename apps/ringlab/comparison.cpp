#include "comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/model/fit.hpp"
#include "ringlab/model/predict.hpp"

namespace ringlab::cli {

double predictedMicros(const schedule::AlgorithmSpec& spec, int ranks, std::uint64_t bytes,
                       DataType type, const model::Profile& profile) {
  return model::predictAllReduce(spec, ranks, bytes / dataTypeSize(type), type, profile.params)
             .total_s() *
         1e6;
}

Comparison compare(const Measurements& m, const schedule::AlgorithmSpec& spec,
                   const model::Profile& profile) {
  Comparison c;
  c.label = fmt::format("{}, p = {}", spec.name, m.ranks);
  c.source = m.source;
  for (const MeasuredRow& r : m.rows) {
    c.rows.push_back({r.bytes, predictedMicros(spec, m.ranks, r.bytes, m.type, profile),
                      r.outOfPlaceUs, r.inPlaceUs});
  }
  return c;
}

double medianAbsoluteError(const Comparison& c, std::uint64_t fromBytes) {
  std::vector<double> errors;
  for (const ComparedRow& r : c.rows) {
    if (r.bytes < fromBytes || r.predictedUs <= 0) continue;
    errors.push_back(std::fabs(r.outOfPlaceRatio() - 1));
    errors.push_back(std::fabs(r.inPlaceRatio() - 1));
  }
  return errors.empty() ? std::numeric_limits<double>::quiet_NaN() : model::median(errors);
}

void printComparison(const Comparison& c) {
  std::printf("# %s, measured by %s\n", c.label.c_str(), c.source.c_str());
  std::printf("# %12s %12s %14s %10s %14s %10s\n", "size (B)", "model(us)", "out-of-place",
              "meas/model", "in-place", "meas/model");
  for (const ComparedRow& r : c.rows) {
    std::printf("  %12llu %12.1f %14.1f %10.2f %14.1f %10.2f\n",
                static_cast<unsigned long long>(r.bytes), r.predictedUs, r.outOfPlaceUs,
                r.outOfPlaceRatio(), r.inPlaceUs, r.inPlaceRatio());
  }
  const double mae = medianAbsoluteError(c, 1 << 20);
  if (std::isnan(mae)) {
    std::printf("# no rows of 1 MiB or more: no bandwidth-range summary\n");
  } else {
    std::printf("# median |measured/predicted - 1| over rows >= 1 MiB: %.3f\n", mae);
  }
}

void writeSvg(const std::string& path, const std::vector<Comparison>& comparisons,
              const std::string& title) {
  double minX = 1e300, maxX = 0, minY = 1e300, maxY = 0;
  for (const auto& c : comparisons) {
    for (const auto& r : c.rows) {
      for (double y : {r.predictedUs, r.outOfPlaceUs, r.inPlaceUs}) {
        if (y <= 0 || r.bytes == 0) continue;
        minX = std::min(minX, double(r.bytes));
        maxX = std::max(maxX, double(r.bytes));
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
      }
    }
  }
  if (maxX <= 0) throwInvalid("--svg " + path + ": nothing to plot (no positive sizes and times)");
  const double lx0 = std::floor(std::log10(minX)),
               lx1 = std::ceil(std::log10(maxX)) + (maxX == minX);
  const double ly0 = std::floor(std::log10(minY)),
               ly1 = std::ceil(std::log10(maxY)) + (maxY == minY);
  const double w = 760, h = 480, left = 70, right = 220, top = 40, bottom = 50;
  const auto px = [&](double x) {
    return left + (std::log10(x) - lx0) / (lx1 - lx0) * (w - left - right);
  };
  const auto py = [&](double y) {
    return h - bottom - (std::log10(y) - ly0) / (ly1 - ly0) * (h - top - bottom);
  };
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif' "
      "font-size='12'>\n"
      "<rect width='100%' height='100%' fill='white'/>\n<text x='{}' y='22' "
      "font-size='15'>{}</text>\n",
      w, h, left, title);
  for (double e = lx0; e <= lx1; ++e) {
    svg += fmt::format(
        "<line x1='{0}' y1='{1}' x2='{0}' y2='{2}' stroke='#ddd'/><text x='{0}' y='{3}' "
        "text-anchor='middle'>1e{4}</text>\n",
        px(std::pow(10, e)), top, h - bottom, h - bottom + 16, e);
  }
  for (double e = ly0; e <= ly1; ++e) {
    svg += fmt::format(
        "<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='#ddd'/><text x='{3}' y='{4}' "
        "text-anchor='end'>1e{5}</text>\n",
        left, py(std::pow(10, e)), w - right, left - 6, py(std::pow(10, e)) + 4, e);
  }
  svg += fmt::format("<text x='{}' y='{}' text-anchor='middle'>message size (bytes)</text>\n",
                     (left + w - right) / 2, h - 12);
  svg += fmt::format(
      "<text x='16' y='{}' transform='rotate(-90 16 {})' text-anchor='middle'>time (us)</text>\n",
      h / 2, h / 2);
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                   "#9467bd", "#ff7f0e", "#8c564b"};
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    const char* colour = kColours[i % 6];
    std::string measured, predicted;
    for (const auto& r : comparisons[i].rows) {
      if (r.bytes == 0) continue;
      if (r.outOfPlaceUs > 0) {
        measured += fmt::format("{:.1f},{:.1f} ", px(r.bytes), py(r.outOfPlaceUs));
        svg += fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='3' fill='{}'/>\n", px(r.bytes),
                           py(r.outOfPlaceUs), colour);
      }
      if (r.predictedUs > 0)
        predicted += fmt::format("{:.1f},{:.1f} ", px(r.bytes), py(r.predictedUs));
    }
    svg += fmt::format("<polyline points='{}' fill='none' stroke='{}' stroke-width='2'/>\n",
                       measured, colour);
    svg += fmt::format(
        "<polyline points='{}' fill='none' stroke='{}' stroke-width='2' stroke-dasharray='6 4'/>\n",
        predicted, colour);
    const double ly = top + 20 + 36 * i;
    svg += fmt::format(
        "<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='{3}' stroke-width='2'/><text x='{4}' "
        "y='{5}'>{6}: measured</text>\n",
        w - right + 10, ly, w - right + 40, colour, w - right + 45, ly + 4,
        comparisons[i].label.substr(0, 24));
    svg += fmt::format(
        "<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='{3}' stroke-width='2' "
        "stroke-dasharray='6 4'/><text x='{4}' y='{5}'>predicted</text>\n",
        w - right + 10, ly + 16, w - right + 40, colour, w - right + 45, ly + 20);
  }
  svg += "</svg>\n";
  std::ofstream out(path);
  if (!out) throwInvalid("--svg " + path + ": cannot open for writing");
  out << svg;
}

}  // namespace ringlab::cli
