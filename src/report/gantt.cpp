#include "ringlab/report/gantt.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "ringlab/core/units.hpp"
#include "ringlab/report/chart.hpp"

namespace ringlab::report {

namespace {

constexpr double kLeft = 190, kWidth = 900, kRowHeight = 34, kTop = 50;
// Adjacent buckets whose bars together span at most this many pixels are drawn as one bar, so
// that a row holds at most about 2 x kWidth / kMergePx bars however many buckets it has.
constexpr double kMergePx = 3;

// One bar: a bucket, or a range of adjacent buckets too narrow to draw apart.
struct Bar {
  std::size_t first = 0, last = 0;
  double start_s = 0, end_s = 0;
  std::uint64_t bytes = 0;
  std::string algorithm;
};

std::vector<Bar> barsOf(const std::vector<plan::BucketTiming>& buckets, double pxPerSecond) {
  std::vector<Bar> bars;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const plan::BucketTiming& t = buckets[b];
    if (!bars.empty() && (t.end_s - bars.back().start_s) * pxPerSecond <= kMergePx) {
      Bar& bar = bars.back();
      bar.last = b;
      bar.end_s = std::max(bar.end_s, t.end_s);
      bar.bytes += t.bytes;
      if (bar.algorithm != t.algorithm) bar.algorithm = "several algorithms";
      continue;
    }
    bars.push_back({b, b, t.start_s, t.end_s, t.bytes, t.algorithm});
  }
  return bars;
}

// One plan's row of bars; counts the merged ranges into `ranges`.
std::string barsSvg(const std::vector<plan::BucketTiming>& buckets, double y, double span,
                    std::size_t& ranges) {
  const auto x = [&](double s) { return kLeft + kWidth * s / span; };
  std::string svg;
  for (const Bar& bar : barsOf(buckets, kWidth / span)) {
    const bool range = bar.last > bar.first;
    ranges += range;
    const std::string what = range ? fmt::format("buckets {}-{} ({} merged)", bar.first, bar.last,
                                                 bar.last - bar.first + 1)
                                   : fmt::format("bucket {}", bar.first);
    svg += fmt::format(
        "<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"24\"><title>{}: {} "
        "B, {}, {:.1f}-{:.1f} us</title></rect>\n",
        range ? "range" : (bar.first % 2 ? "odd" : "even"), x(bar.start_s), y + 4,
        std::max(0.5, x(bar.end_s) - x(bar.start_s)), what, bar.bytes, bar.algorithm,
        bar.start_s * 1e6, bar.end_s * 1e6);
  }
  return svg;
}

// The backward's bar with a tick per gradient ready, ticks on the same pixel drawn once.
std::string backwardSvg(const plan::Timeline& t, double y, double span) {
  const auto x = [&](double s) { return kLeft + kWidth * s / span; };
  std::string svg = fmt::format(
      "<text x=\"10\" y=\"{:.1f}\">backward (compute)</text>\n<rect x=\"{:.1f}\" y=\"{:.1f}\" "
      "width=\"{:.1f}\" height=\"24\" fill=\"#9ecae1\"/>\n<path class=\"ready\" stroke=\"#08519c\" "
      "d=\"",
      y + 20, x(0), y + 4, x(t.backwardEnd_s) - x(0));
  std::set<long> columns;
  for (const plan::GradTensor& g : t.tensors) {
    // On the pixel's centre: a crisp 1-pixel line rather than two half-tinted ones.
    const long column = std::lround(x(g.ready_s) - 0.5);
    if (columns.insert(column).second)
      svg += fmt::format("M{}.5 {:.0f}V{:.0f}", column, y + 4, y + 28);
  }
  return svg + "\"/>\n";
}

}  // namespace

std::string ganttSvg(const plan::Timeline& t, const std::vector<GanttRow>& rows,
                     const std::string& title) {
  double span = t.backwardEnd_s;
  for (const GanttRow& r : rows) span = std::max(span, r.prediction.lastDone_s);
  if (!(span > 0)) span = 1e-6;
  const auto x = [&](double s) { return kLeft + kWidth * s / span; };
  const double height = kTop + kRowHeight * (rows.size() + 1) + 58;
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"DejaVu "
      "Sans, "
      "sans-serif\" font-size=\"12\">\n<style>.even{{fill:#e6550d}} .odd{{fill:#fd8d3c}} "
      ".range{{fill:#7f2704}} rect.even, rect.odd, "
      "rect.range{{stroke:#333;stroke-width:0.3}}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"14\">{2}</text>\n",
      kLeft + kWidth + 30, height, xmlEscape(title));
  double y = kTop;
  svg += backwardSvg(t, y, span);
  std::size_t ranges = 0;
  for (const GanttRow& r : rows) {
    y += kRowHeight;
    svg += fmt::format(
        "<g class=\"plan\" data-name=\"{0}\" data-buckets=\"{1}\">\n<text x=\"10\" "
        "y=\"{2:.1f}\">{0} ({3:.0f} us)</text>\n",
        xmlEscape(r.label), r.prediction.buckets.size(), y + 20, r.prediction.lastDone_s * 1e6);
    svg += barsSvg(r.prediction.buckets, y, span, ranges) + "</g>\n";
  }
  // Backward end marker and time axis.
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"black\" "
      "stroke-dasharray=\"4,3\"/>\n<g class=\"x-axis\" text-anchor=\"middle\">\n",
      x(t.backwardEnd_s), kTop, y + kRowHeight);
  const double axisY = y + kRowHeight + 14;
  for (const Tick& tick : axisTicks({"time", Unit::Micros, false}, 0, span * 1e6, kWidth, true)) {
    svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
                       x(tick.value / 1e6), axisY, xmlEscape(tick.label));
  }
  svg += fmt::format(
      "</g>\n<text class=\"note\" x=\"10\" y=\"{:.1f}\">dashed: backward end. Bars: each bucket's "
      "copy + AllReduce on the one communication stream.</text>\n",
      axisY + 20);
  if (ranges > 0) {
    svg += fmt::format(
        "<text class=\"note\" x=\"10\" y=\"{:.1f}\">Dark bars: {} ranges of adjacent buckets too "
        "narrow to draw apart, each drawn as one bar (hover for the range).</text>\n",
        axisY + 38, ranges);
  }
  return svg + "</svg>\n";
}

std::string planGanttSvg(const plan::Timeline& timeline, const plan::PlanComparison& comparison,
                         int ranks) {
  std::vector<GanttRow> rows;
  for (const plan::NamedPlan& p : comparison.plans) rows.push_back({p.name, p.prediction});
  return ganttSvg(timeline, rows,
                  fmt::format("ringlab plan: {} tensors, {}, p = {}: backward vs bucket transfers",
                              timeline.tensors.size(), formatSize(timeline.totalBytes()), ranks));
}

}  // namespace ringlab::report
