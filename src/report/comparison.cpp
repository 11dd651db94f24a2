#include "ringlab/report/comparison.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/describe.hpp"

namespace ringlab::report {
namespace {

// 10^e microseconds as a person reads it: "100 us", "1 ms", "10 s", "0.1 us".
std::string timeLabel(int e) {
  if (e >= 6) return fmt::format("{} s", std::pow(10.0, e - 6));
  if (e >= 3) return fmt::format("{} ms", std::pow(10.0, e - 3));
  return fmt::format("{} us", std::pow(10.0, e));
}

// The chart's frame: log2 of bytes across, log10 of microseconds up.
struct Axes {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  double w = 760, h = 480, left = 70, right = 220, top = 40, bottom = 50;
  double px(double bytes) const {
    return left + (std::log2(bytes) - x0) / (x1 - x0) * (w - left - right);
  }
  double py(double us) const {
    return h - bottom - (std::log10(us) - y0) / (y1 - y0) * (h - top - bottom);
  }
};

Axes axesFor(const std::vector<measure::Comparison>& comparisons) {
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
  if (maxX <= 0) throwInvalid("nothing to plot (no positive sizes and times)");
  Axes a;
  a.x0 = std::floor(std::log2(minX));
  a.x1 = std::ceil(std::log2(maxX)) + (maxX == minX);
  a.y0 = std::floor(std::log10(minY));
  a.y1 = std::ceil(std::log10(maxY)) + (maxY == minY);
  return a;
}

std::string gridAndLabels(const Axes& a) {
  std::string svg;
  // A size tick every 1, 2, 5 or 10 octaves, whichever first gives at most 12 ticks.
  int step = 1;
  for (int s : {1, 2, 5, 10}) {
    step = s;
    if ((a.x1 - a.x0) / s <= 12) break;
  }
  for (double e = std::ceil(a.x0 / step) * step; e <= a.x1; e += step) {
    svg += fmt::format(
        "<line x1='{0}' y1='{1}' x2='{0}' y2='{2}' stroke='#ddd'/><text x='{0}' y='{3}' "
        "text-anchor='middle'>{4}</text>\n",
        a.px(std::exp2(e)), a.top, a.h - a.bottom, a.h - a.bottom + 16,
        formatSize(static_cast<std::uint64_t>(std::exp2(e))));
  }
  for (double e = a.y0; e <= a.y1; ++e) {
    svg += fmt::format(
        "<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='#ddd'/><text x='{3}' y='{4}' "
        "text-anchor='end'>{5}</text>\n",
        a.left, a.py(std::pow(10, e)), a.w - a.right, a.left - 6, a.py(std::pow(10, e)) + 4,
        timeLabel(static_cast<int>(e)));
  }
  svg += fmt::format("<text x='{}' y='{}' text-anchor='middle'>message size</text>\n",
                     (a.left + a.w - a.right) / 2, a.h - 12);
  svg += fmt::format(
      "<text x='16' y='{}' transform='rotate(-90 16 {})' text-anchor='middle'>time</text>\n",
      a.h / 2, a.h / 2);
  return svg;
}

std::string series(const Axes& a, const measure::Comparison& c, std::size_t i) {
  static const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c",
                                   "#9467bd", "#ff7f0e", "#8c564b"};
  const char* colour = kColours[i % 6];
  std::string svg, measured, predicted;
  for (const auto& r : c.rows) {
    if (r.bytes == 0) continue;
    if (r.outOfPlaceUs > 0) {
      measured += fmt::format("{:.1f},{:.1f} ", a.px(r.bytes), a.py(r.outOfPlaceUs));
      svg += fmt::format("<circle cx='{:.1f}' cy='{:.1f}' r='3' fill='{}'/>\n", a.px(r.bytes),
                         a.py(r.outOfPlaceUs), colour);
    }
    if (r.predictedUs > 0)
      predicted += fmt::format("{:.1f},{:.1f} ", a.px(r.bytes), a.py(r.predictedUs));
  }
  svg += fmt::format("<polyline points='{}' fill='none' stroke='{}' stroke-width='2'/>\n", measured,
                     colour);
  svg += fmt::format(
      "<polyline points='{}' fill='none' stroke='{}' stroke-width='2' stroke-dasharray='6 4'/>\n",
      predicted, colour);
  const double ly = a.top + 20 + 36 * i, lx = a.w - a.right;
  svg += fmt::format(
      "<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='{3}' stroke-width='2'/><text x='{4}' "
      "y='{5}'>{6}: measured</text>\n",
      lx + 10, ly, lx + 40, colour, lx + 45, ly + 4, c.label.substr(0, 24));
  svg += fmt::format(
      "<line x1='{0}' y1='{1}' x2='{2}' y2='{1}' stroke='{3}' stroke-width='2' "
      "stroke-dasharray='6 4'/><text x='{4}' y='{5}'>predicted</text>\n",
      lx + 10, ly + 16, lx + 40, colour, lx + 45, ly + 20);
  return svg;
}

}  // namespace

std::string comparisonPreamble(const std::string& modelSource, const model::Profile& profile) {
  return fmt::format(
      "# ringlab compare: measured against the alpha-beta-gamma model [{}]\n# {}; model(us) is the "
      "prediction for the algorithm named on each table\n",
      modelSource, model::describeModel(profile));
}

std::string comparisonTable(const measure::Comparison& c) {
  std::string out = fmt::format("# {}, measured by {}\n", c.label, c.source);
  out += fmt::format("# {:>12} {:>12} {:>14} {:>10} {:>14} {:>10}\n", "size (B)", "model(us)",
                     "out-of-place", "meas/model", "in-place", "meas/model");
  for (const measure::ComparedRow& r : c.rows) {
    out += fmt::format("  {:>12} {:>12.1f} {:>14.1f} {:>10.2f} {:>14.1f} {:>10.2f}\n", r.bytes,
                       r.predictedUs, r.outOfPlaceUs, r.outOfPlaceRatio(), r.inPlaceUs,
                       r.inPlaceRatio());
  }
  const double mae = measure::medianAbsoluteError(c, 1 << 20);
  if (std::isnan(mae)) {
    out += "# no rows of 1 MiB or more: no bandwidth-range summary\n";
  } else {
    out += fmt::format("# median |measured/predicted - 1| over rows >= 1 MiB: {:.3f}\n", mae);
  }
  return out;
}

std::string comparisonSvg(const std::vector<measure::Comparison>& comparisons,
                          const std::string& title) {
  const Axes a = axesFor(comparisons);
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif' "
      "font-size='12'>\n"
      "<rect width='100%' height='100%' fill='white'/>\n<text x='{}' y='22' "
      "font-size='15'>{}</text>\n",
      a.w, a.h, a.left, title);
  svg += gridAndLabels(a);
  for (std::size_t i = 0; i < comparisons.size(); ++i) svg += series(a, comparisons[i], i);
  return svg + "</svg>\n";
}

}  // namespace ringlab::report
