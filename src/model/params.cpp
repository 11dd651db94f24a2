#include "ringlab/model/params.hpp"

#include <cmath>

#include <fmt/format.h>

#include "ringlab/core/error.hpp"

namespace ringlab::model {

double checkedParam(const ParamRange& range, double value, const std::string& who) {
  if (!(std::isfinite(value) && value >= range.lo && value <= range.hi)) {
    throwInvalid(fmt::format("{}: {} = {}: must be in {}..{} {}", who, range.field, value, range.lo,
                             range.hi, range.unit));
  }
  return value;
}

}  // namespace ringlab::model
