#include "ringlab/report/gantt.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/units.hpp"

namespace ringlab::report {

namespace {

constexpr double kLeft = 190, kWidth = 900, kRowHeight = 34, kTop = 50;

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string ganttSvg(const plan::Timeline& t, const std::vector<GanttRow>& rows,
                     const std::string& title) {
  double span = t.backwardEnd_s;
  for (const GanttRow& r : rows) span = std::max(span, r.prediction.lastDone_s);
  if (!(span > 0)) span = 1e-6;
  const auto x = [&](double s) { return kLeft + kWidth * s / span; };
  const double height = kTop + kRowHeight * (rows.size() + 1) + 40;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"10\" y=\"20\" font-size=\"14\">{}</text>\n",
      kLeft + kWidth + 30, height, escape(title));
  // Backward compute, with a tick per gradient ready.
  double y = kTop;
  svg += fmt::format("<text x=\"10\" y=\"{:.1f}\">backward (compute)</text>\n", y + 20);
  svg += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"24\" fill=\"#9ecae1\"/>\n", x(0),
      y + 4, x(t.backwardEnd_s) - x(0));
  for (const plan::GradTensor& g : t.tensors) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#08519c\"/>\n",
        x(g.ready_s), y + 4, y + 28);
  }
  for (const GanttRow& r : rows) {
    y += kRowHeight;
    svg += fmt::format("<text x=\"10\" y=\"{:.1f}\">{} ({:.0f} us)</text>\n", y + 20,
                       escape(r.label), r.prediction.lastDone_s * 1e6);
    for (std::size_t b = 0; b < r.prediction.buckets.size(); ++b) {
      const plan::BucketTiming& bt = r.prediction.buckets[b];
      svg += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"24\" fill=\"{}\" "
          "stroke=\"#333\" "
          "stroke-width=\"0.3\"><title>bucket {}: {} B, {}, {:.1f}-{:.1f} us</title></rect>\n",
          x(bt.start_s), y + 4, std::max(0.5, x(bt.end_s) - x(bt.start_s)),
          b % 2 ? "#fd8d3c" : "#e6550d", b, bt.bytes, bt.algorithm, bt.start_s * 1e6,
          bt.end_s * 1e6);
    }
  }
  // Backward end marker and time axis.
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"black\" "
      "stroke-dasharray=\"4,3\"/>\n",
      x(t.backwardEnd_s), kTop, y + kRowHeight);
  const double axisY = y + kRowHeight + 14;
  for (int k = 0; k <= 5; ++k) {
    const double s = span * k / 5;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:.0f} us</text>\n",
                       x(s), axisY, s * 1e6);
  }
  svg += fmt::format(
      "<text x=\"10\" y=\"{:.1f}\">dashed: backward end. Bars: each bucket's copy + AllReduce on "
      "the one "
      "communication stream.</text>\n</svg>\n",
      axisY + 20);
  return svg;
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
