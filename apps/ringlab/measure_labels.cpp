#include "measure_labels.hpp"

namespace ringlab::cli {

measure::MeasureLabels measureFlagLabels() {
  return {.types = "-d",
          .ops = "-o",
          .minBytes = "-b/--minbytes",
          .maxBytes = "-e/--maxbytes",
          .stepBytes = "-i/--stepbytes",
          .stepFactor = "-f/--stepfactor",
          .check = "-c/--check",
          .iterations = "-n/--iters",
          .warmup = "-w/--warmup_iters",
          .timePerSize = "--time",
          .ranks = "-p/--ranks",
          .rounds = "--rounds",
          .algorithms = "--algos",
          .defaultAlgorithm = "--default"};
}

}  // namespace ringlab::cli
