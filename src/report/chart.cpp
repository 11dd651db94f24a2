#include "ringlab/report/chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"
#include "ringlab/core/text.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/model/registry.hpp"

namespace ringlab::report {
namespace {

// Label sizes at font-size 11: a generous average glyph width (DejaVu Sans, the lab's font, is
// about 0.55 em for digits), so that estimated widths are never below what a browser draws.
constexpr double kFontSize = 11, kCharWidth = 0.64 * kFontSize, kLabelGap = 10,
                 kLineHeight = 2.2 * kFontSize;

double labelWidth(const std::string& label) {
  return static_cast<double>(label.size()) * kCharWidth;
}

// An axis's value as the scale sees it: log2 of bytes, log10 of other units, or the value.
double scaled(const Axis& axis, double v) {
  if (!axis.log) return v;
  return axis.unit == Unit::Bytes ? std::log2(v) : std::log10(v);
}

// Labels keep apart when consecutive ones are further than their labels need: horizontally their
// widths, vertically two lines (so that a tall log axis is not a wall of text).
bool labelsFit(const Axis& axis, const std::vector<Tick>& ticks, double lo, double hi,
               double lengthPx, bool horizontal) {
  const double span = scaled(axis, hi) - scaled(axis, lo);
  for (std::size_t i = 1; i < ticks.size(); ++i) {
    const double px =
        (scaled(axis, ticks[i].value) - scaled(axis, ticks[i - 1].value)) / span * lengthPx;
    const double need =
        horizontal ? (labelWidth(ticks[i].label) + labelWidth(ticks[i - 1].label)) / 2 + kLabelGap
                   : kLineHeight;
    if (px < need) return false;
  }
  return true;
}

std::vector<Tick> ticksAt(const Axis& axis, const std::vector<double>& values, double lo,
                          double hi) {
  std::vector<Tick> ticks;
  for (double v : values) {
    // A relative tolerance: 10^-2 computed is not exactly 0.01.
    if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back({v, unitLabel(axis.unit, v)});
  }
  return ticks;
}

// Candidate tick sets, densest first.
std::vector<std::vector<double>> candidateValues(const Axis& axis, double lo, double hi) {
  std::vector<std::vector<double>> sets;
  if (axis.log && axis.unit == Unit::Bytes) {
    const double e0 = std::floor(std::log2(lo)), e1 = std::ceil(std::log2(hi));
    for (int step : {1, 2, 5, 10, 20, 30, 40, 50, 60}) {
      std::vector<double> values;
      for (double e = std::ceil(e0 / step) * step; e <= e1; e += step)
        values.push_back(std::exp2(e));
      sets.push_back(values);
    }
  } else if (axis.log) {
    const double e0 = std::floor(std::log10(lo)), e1 = std::ceil(std::log10(hi));
    std::vector<double> oneTwoFive;
    for (double e = e0; e <= e1; ++e)
      for (double m : {1.0, 2.0, 5.0}) oneTwoFive.push_back(m * std::pow(10.0, e));
    sets.push_back(oneTwoFive);
    for (int step : {1, 2, 3, 5, 10, 20, 50}) {
      std::vector<double> values;
      for (double e = std::ceil(e0 / step) * step; e <= e1; e += step)
        values.push_back(std::pow(10.0, e));
      sets.push_back(values);
    }
  } else {
    const double range = hi - lo > 0 ? hi - lo : 1;
    for (double decade = std::pow(10.0, std::floor(std::log10(range)) - 2); sets.size() < 12;
         decade *= 10) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double step = m * decade;
        std::vector<double> values;
        for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
          values.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
        if (values.size() <= 200) sets.push_back(values);
      }
    }
  }
  return sets;
}

// The plot's range of one axis: on a log scale out to whole octaves (sizes) or the nearest 1, 2,
// 5 x 10^k (others); on a linear scale from 0 (or below, for negative data) to the maximum.
std::pair<double, double> axisRange(const Axis& axis, double lo, double hi) {
  if (!axis.log) return {std::min(0.0, lo), hi > std::min(0.0, lo) ? hi : std::min(0.0, lo) + 1};
  if (axis.unit == Unit::Bytes) {
    const double a = std::exp2(std::floor(std::log2(lo))), b = std::exp2(std::ceil(std::log2(hi)));
    return {a, b > a ? b : 2 * a};
  }
  double a = 0, b = std::numeric_limits<double>::max();
  for (double e = std::floor(std::log10(lo)) - 1; e <= std::ceil(std::log10(hi)) + 1; ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v <= lo * (1 + 1e-9)) a = v;
      if (v >= hi * (1 - 1e-9)) b = std::min(b, v);
    }
  }
  return {a, b > a ? b : 2 * a};
}

// The frame: the plot's pixels and the value ranges they show.
struct Frame {
  const Chart& chart;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;  // value ranges
  double left = 84, top = 44, width = 520, height = 360, legendWidth = 270;
  double px(double x) const {
    const Axis& a = chart.x;
    return left + (scaled(a, x) - scaled(a, x0)) / (scaled(a, x1) - scaled(a, x0)) * width;
  }
  double py(double y) const {
    const Axis& a = chart.y;
    return top + height - (scaled(a, y) - scaled(a, y0)) / (scaled(a, y1) - scaled(a, y0)) * height;
  }
  bool plottable(double x, double y) const {
    return std::isfinite(x) && std::isfinite(y) && (!chart.x.log || x > 0) &&
           (!chart.y.log || y > 0);
  }
};

Frame frameFor(const Chart& chart) {
  Frame f{chart};
  double minX = std::numeric_limits<double>::max(), maxX = -minX, minY = minX, maxY = -minX;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (!f.plottable(x, y)) continue;
      minX = std::min(minX, x), maxX = std::max(maxX, x);
      minY = std::min(minY, y), maxY = std::max(maxY, y);
    }
  }
  if (maxX < minX) throwInvalid("nothing to plot (no series has a point on the chart's axes)");
  std::tie(f.x0, f.x1) = axisRange(chart.x, minX, maxX);
  std::tie(f.y0, f.y1) = axisRange(chart.y, minY, maxY);
  // Room on the left for the longest value label and the axis title.
  double widest = 0;
  for (const Tick& t : axisTicks(chart.y, f.y0, f.y1, f.height, false))
    widest = std::max(widest, labelWidth(t.label));
  f.left = std::ceil(40 + widest);
  if (!chart.bands.empty()) f.top += 34;
  return f;
}

constexpr std::size_t kPaletteSize = 7;

// An algorithm's colour is its place in the registry's table; kPaletteSize for any other key
// (and for an algorithm past the palette, which then takes a free colour like other keys).
std::size_t algorithmColourIndex(const std::string& key) {
  const std::vector<std::string> algorithms = model::algorithmNames();
  const auto it = std::find(algorithms.begin(), algorithms.end(), key);
  const auto index = static_cast<std::size_t>(it - algorithms.begin());
  return it != algorithms.end() && index < kPaletteSize ? index : kPaletteSize;
}

// Each key's colour: an algorithm of the registry keeps its own colour, other keys take the free
// colours in order of appearance.
std::map<std::string, std::string> keyColours(const Chart& chart) {
  std::map<std::string, std::string> colours;
  std::vector<bool> used(kPaletteSize, false);
  std::vector<std::string> others;
  for (const Series& s : chart.series) {
    if (colours.count(s.key)) continue;
    const std::size_t index = algorithmColourIndex(s.key);
    if (index < kPaletteSize && !used[index]) {
      used[index] = true;
      colours[s.key] = paletteColour(index);
    } else {
      colours[s.key] = "";
      others.push_back(s.key);
    }
  }
  std::size_t next = 0;
  for (const std::string& key : others) {
    while (next < used.size() && used[next]) ++next;
    colours[key] = paletteColour(next++);
  }
  return colours;
}

std::string axesSvg(const Frame& f) {
  const Chart& c = f.chart;
  const double bottom = f.top + f.height, right = f.left + f.width;
  std::string svg = fmt::format(
      "<rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#444\"/>\n<g class=\"x-axis\" text-anchor=\"middle\">\n",
      f.left, f.top, f.width, f.height);
  for (const Tick& t : axisTicks(c.x, f.x0, f.x1, f.width, true)) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/><text "
        "class=\"tick\" x=\"{0:.1f}\" y=\"{3}\">{4}</text>\n",
        f.px(t.value), f.top, bottom, bottom + 16, xmlEscape(t.label));
  }
  svg += fmt::format(
      "<text class=\"axis-title\" x=\"{}\" y=\"{}\">{}</text>\n</g>\n<g class=\"y-axis\" "
      "text-anchor=\"end\">\n",
      f.left + f.width / 2, bottom + 38, xmlEscape(c.x.title));
  for (const Tick& t : axisTicks(c.y, f.y0, f.y1, f.height, false)) {
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/><text "
        "class=\"tick\" x=\"{3}\" y=\"{4:.1f}\">{5}</text>\n",
        f.left, f.py(t.value), right, f.left - 6, f.py(t.value) + 4, xmlEscape(t.label));
  }
  const double mid = f.top + f.height / 2;
  return svg + fmt::format(
                   "<text class=\"axis-title\" x=\"18\" y=\"{0}\" transform=\"rotate(-90 18 {0})\" "
                   "text-anchor=\"middle\">{1}</text>\n</g>\n",
                   mid, xmlEscape(c.y.title));
}

std::string seriesSvg(const Frame& f, const Series& s, const std::string& colour) {
  std::string points, markers;
  std::size_t count = 0;
  for (const auto& [x, y] : s.points) {
    if (!f.plottable(x, y)) continue;
    ++count;
    points += fmt::format("{:.1f},{:.1f} ", f.px(x), f.py(y));
    if (s.markers) {
      markers += fmt::format("<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"/>\n",
                             f.px(x), f.py(y));
    }
  }
  std::string svg =
      fmt::format("<g class=\"series {}\" data-name=\"{}\" data-points=\"{}\" fill=\"{}\">\n",
                  xmlEscape(s.role), xmlEscape(s.name), count, colour);
  if (count > 1) {
    svg += fmt::format(
        "<polyline class=\"line\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"2\"{}/>\n",
        points, colour, s.dashed ? " stroke-dasharray=\"6 4\"" : "");
  }
  return svg + markers + "</g>\n";
}

std::string bandsSvg(const Frame& f, const std::map<std::string, std::string>& colours) {
  const Chart& c = f.chart;
  const double y = f.top - 30;
  std::string svg =
      fmt::format("<g class=\"bands\">\n<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                  f.left - 6, y + 15, xmlEscape(c.bandTitle));
  for (const Band& b : c.bands) {
    const double from = f.px(std::max(b.from, f.x0)), to = f.px(std::min(b.to, f.x1));
    if (!(to > from)) continue;
    const auto colour = colours.count(b.key) ? colours.at(b.key) : std::string("#999");
    svg += fmt::format(
        "<rect class=\"band\" data-key=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" "
        "height=\"22\" fill=\"{}\" fill-opacity=\"0.8\"><title>{}</title></rect>\n",
        xmlEscape(b.key), from, y, to - from, colour, xmlEscape(b.label));
    if (labelWidth(b.key) + 6 < to - from) {
      svg += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"white\">{}</text>\n",
          (from + to) / 2, y + 15, xmlEscape(b.key));
    }
  }
  return svg + "</g>\n";
}

// The legend's column holds this many characters.
constexpr std::size_t kLegendChars = 36;

// Words on lines of at most `chars` (a longer word gets a line of its own).
std::vector<std::string> wrapped(const std::string& text, std::size_t chars) {
  std::vector<std::string> lines(1);
  for (const std::string& word : splitList(text, ' ')) {
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > chars)
      lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
  }
  return lines;
}

std::string legendSvg(const Frame& f, const std::map<std::string, std::string>& colours,
                      double& bottom) {
  const Chart& c = f.chart;
  const double x = f.left + f.width + 16;
  double y = f.top + 10;
  std::string svg = "<g class=\"legend\">\n";
  for (const Series& s : c.series) {
    const std::string& colour = colours.at(s.key);
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>", x, y,
        x + 28, y, colour, s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    if (s.markers)
      svg += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", x + 14, y, colour);
    // The whole name in data-name; the text wrapped to the legend's width.
    svg += fmt::format("<text class=\"legend-entry\" data-name=\"{}\">", xmlEscape(s.name));
    for (const std::string& line : wrapped(s.name, kLegendChars - 5)) {
      svg += fmt::format("<tspan x=\"{}\" y=\"{}\">{}</tspan>", x + 34, y + 4, xmlEscape(line));
      y += 15;
    }
    svg += "</text>\n";
    y += 3;
  }
  for (const std::string& note : c.notes) {
    for (const std::string& line : wrapped(note, kLegendChars)) {
      svg += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\" fill=\"#444\">{}</text>\n", x,
                         y + 8, xmlEscape(line));
      y += 15;
    }
    y += 3;
  }
  bottom = y;
  return svg + "</g>\n";
}

}  // namespace

std::string unitLabel(Unit unit, double value) {
  switch (unit) {
    case Unit::Bytes:
      return value >= 0 && value < 1.8e19
                 ? formatSize(static_cast<std::uint64_t>(std::llround(value)))
                 : formatNumber(value) + " B";
    case Unit::Micros:
      if (std::abs(value) >= 1e6) return formatNumber(value / 1e6) + " s";
      if (std::abs(value) >= 1e3) return formatNumber(value / 1e3) + " ms";
      return formatNumber(value) + " us";
    case Unit::GBps:  // MB/s and KB/s below 1 GB/s: "0.0005 GB/s" is misread
      if (std::abs(value) >= 1 || value == 0) return formatNumber(value) + " GB/s";
      if (std::abs(value) >= 1e-3) return formatNumber(value * 1e3) + " MB/s";
      return formatNumber(value * 1e6) + " KB/s";
  }
  return formatNumber(value);
}

std::vector<Tick> axisTicks(const Axis& axis, double lo, double hi, double lengthPx,
                            bool horizontal) {
  std::vector<Tick> fallback;
  for (const std::vector<double>& values : candidateValues(axis, lo, hi)) {
    std::vector<Tick> ticks = ticksAt(axis, values, lo, hi);
    if (ticks.size() < 2) {
      if (fallback.empty()) fallback = ticks;
      continue;
    }
    if (labelsFit(axis, ticks, lo, hi, lengthPx, horizontal)) return ticks;
  }
  // Nothing sparser fits two labels: the ends of the range alone would collide, so one label.
  if (fallback.empty()) fallback = ticksAt(axis, {lo}, lo, hi);
  return fallback;
}

const char* paletteColour(std::size_t index) {
  static const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                   "#E69F00", "#56B4E9", "#000000"};
  return kPalette[index % kPaletteSize];
}

std::string algorithmColour(const std::string& name) {
  const std::size_t index = algorithmColourIndex(name);
  return index < kPaletteSize ? paletteColour(index) : "";
}

std::string xmlEscape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string chartSvg(const Chart& chart) {
  const Frame f = frameFor(chart);
  const auto colours = keyColours(chart);
  double legendBottom = 0;
  std::string legend = legendSvg(f, colours, legendBottom);
  const double width = f.left + f.width + f.legendWidth;
  const double height = std::max(f.top + f.height + 56, legendBottom + 16);
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, "
      "sans-serif\" "
      "font-size=\"{2}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text class=\"title\" x=\"{3}\" y=\"20\" font-size=\"14\">{4}</text>\n",
      width, height, kFontSize, 12, xmlEscape(chart.title));
  svg += axesSvg(f);
  if (!chart.bands.empty()) svg += bandsSvg(f, colours);
  for (const Series& s : chart.series) svg += seriesSvg(f, s, colours.at(s.key));
  return svg + legend + "</svg>\n";
}

}  // namespace ringlab::report
