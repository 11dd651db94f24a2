#pragma once
// The flags of bench, tune and calibrate, as the library's errors name their inputs.
#include "ringlab/measure/measure_labels.hpp"

namespace ringlab::cli {

measure::MeasureLabels measureFlagLabels();

}  // namespace ringlab::cli
