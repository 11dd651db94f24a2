#pragma once
// The size sweep every measuring or predicting command takes, declared once with nccl-tests'
// letters: -b/--minbytes, -e/--maxbytes, -f/--stepfactor, -d/--datatype, -o/--op.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "ringlab/core/dtype.hpp"
#include "ringlab/core/reduce_op.hpp"

namespace ringlab::cli {

struct SweepOptions {
  std::string minBytes = "8", maxBytes = "64M", dtype = "float32", op = "sum";
  long long stepFactor = 2;  // signed, so that a negative value is reported, not wrapped

  // Which of the five the command takes; each is declared with the defaults set above.
  struct Fields {
    bool stepFactor = true, dtype = true, op = true;
  };
  void add(CLI::App& app, Fields fields);
  void add(CLI::App& app) { add(app, Fields{}); }

  // Sets a library configuration's minBytes, maxBytes, stepFactor, type and op.
  template <typename Config>
  void fill(Config& config) const {
    config.minBytes = min();
    config.maxBytes = max();
    config.stepFactor = factor();
    config.type = type();
    config.op = reduceOp();
  }

  std::uint64_t min() const;
  std::uint64_t max() const;
  std::uint64_t factor() const;  // throws InvalidArgument below 2
  DataType type() const;
  ReduceOp reduceOp() const;
};

}  // namespace ringlab::cli
