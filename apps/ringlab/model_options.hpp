#pragma once
// --profile, --alpha, --bw, --gamma, --concurrency, --bw-counts, --volume: declared once for every
// command that predicts; the resolution (files, overrides, warnings) is io::resolveModel.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ringlab/io/model_files.hpp"
#include "ringlab/model/describe.hpp"

namespace ringlab::cli {

using io::readDecisionTable;
using io::readProfile;
using model::describeModel;

struct ModelOptions : io::ModelSource {
  void add(CLI::App& app);
  // The profile to use and where its parameters came from; convention warnings go to stderr.
  io::ResolvedModel resolve() const;
};

}  // namespace ringlab::cli
