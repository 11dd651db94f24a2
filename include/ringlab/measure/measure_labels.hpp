#pragma once
// How the front end names a measurement's inputs, for the errors of bench, tune and calibrate
// (io/model_files.hpp says why the library takes labels rather than naming a front end's
// options). The defaults are the library's own words; the CLI fills them with its flags.
#include <string>

namespace ringlab::measure {

struct MeasureLabels {
  std::string types = "the datatypes", ops = "the reduce ops";
  std::string minBytes = "the smallest size", maxBytes = "the largest size";
  std::string stepBytes = "the size step", stepFactor = "the size factor";
  std::string check = "the checked runs", iterations = "the iterations";
  std::string warmup = "the warm-up iterations", timePerSize = "the time per size";
  std::string ranks = "p", rounds = "the rounds";
  std::string algorithms = "the candidate algorithms", defaultAlgorithm = "the default algorithm";
};

}  // namespace ringlab::measure
