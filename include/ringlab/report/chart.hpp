#pragma once
// The one chart of every ringlab picture (bench, tune, sim and compare --svg; the Gantt's time
// axis): axes on log or linear scales whose ticks are thinned until no two labels overlap, values
// labelled in units (sizes B, KiB, MiB, GiB; times us, ms, s; bandwidth GB/s), series coloured
// from a colour-blind-safe palette with one colour per key (an algorithm keeps its colour across
// pictures), a legend naming every series, and an optional strip of bands above the plot (tune's
// winner per size range). A chart is data; chartSvg draws it as a self-contained SVG document.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ringlab::report {

// What an axis measures, in the unit its values are given in.
enum class Unit {
  Bytes,   // labelled 1 B, 1 KiB, 1 MiB, 1 GiB; log scale in octaves
  Micros,  // labelled 10 us, 1 ms, 1 s
  GBps,    // labelled 0.1 GB/s, 10 GB/s (GB/s = 1e9 B/s)
};

struct Axis {
  std::string title;
  Unit unit = Unit::Bytes;
  bool log = true;
};

struct Series {
  std::string name = {};  // the legend's text
  std::string key = {};  // series with the same key share a colour (an algorithm's or a run's name)
  std::string role = {};  // a class for readers of the SVG: "measured", "model", "overlay", ...
  std::vector<std::pair<double, double>> points =
      {};  // (x, y); a value <= 0 on a log axis is left out
  bool dashed = false;
  bool markers = true;
};

// A range of x values [from, to) shown in the strip above the plot, in its key's colour.
struct Band {
  double from = 0, to = 0;
  std::string key, label;
};

struct Chart {
  std::string title = {};
  Axis x = {}, y = {};
  std::vector<Series> series = {};
  std::string bandTitle = {};  // what the strip shows; the strip is drawn only when there are bands
  std::vector<Band> bands = {};
  std::vector<std::string> notes = {};  // lines under the legend's entries
};

// Throws InvalidArgument "nothing to plot (...)" when no series has a point on the axes.
std::string chartSvg(const Chart& chart);

struct Tick {
  double value = 0;
  std::string label;
};

// The ticks of `axis` over [lo, hi] drawn `lengthPx` long, the densest set whose labels keep
// apart: 1-2-5 or whole decades (every 1, 2, 3, 5, 10 ... decades) on a log scale of times or
// bandwidths, every 1, 2, 5, 10, 20 ... octaves on a log scale of sizes, 1-2-5 steps on a linear
// scale. `horizontal` axes space labels by their width, vertical ones by their height.
std::vector<Tick> axisTicks(const Axis& axis, double lo, double hi, double lengthPx,
                            bool horizontal);

// One value in the axis unit as a label: 1024 -> "1 KiB", 2500 us -> "2.5 ms", 12.5 -> "12.5 GB/s".
std::string unitLabel(Unit unit, double value);

// The colour of the i-th key of a chart (Okabe and Ito's palette, yellow left out: readable on
// white and told apart under the common colour-vision deficiencies); repeats after 7.
const char* paletteColour(std::size_t index);

// The colour an algorithm of the registry has in every picture and in the lab (its place in the
// registry's table); "" for a name that is not an algorithm or lies past the palette.
std::string algorithmColour(const std::string& name);

// Text for an SVG element or attribute: & < > " ' as entities.
std::string xmlEscape(const std::string& text);

}  // namespace ringlab::report
