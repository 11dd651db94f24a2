#include "ringlab/report/progress_text.hpp"

#include <fmt/format.h>

namespace ringlab::report {

std::string progressText(std::string_view command, const Progress& progress, double elapsed_s) {
  const long seconds = elapsed_s > 0 ? static_cast<long>(elapsed_s) : 0;
  const std::string elapsed = seconds < 60
                                  ? fmt::format("{} s", seconds)
                                  : fmt::format("{} min {:02} s", seconds / 60, seconds % 60);
  return fmt::format("{}: {} {}/{}  {}", command, progress.stage, progress.done, progress.total,
                     elapsed);
}

}  // namespace ringlab::report
