#pragma once
// Each subcommand registers its options on the app and returns the action to run once parsed.
#include <functional>

#include <CLI/CLI.hpp>

namespace ringlab::cli {

using Action = std::function<int()>;

Action addBenchCommand(CLI::App& app);
Action addVerifyCommand(CLI::App& app);
Action addModelCommand(CLI::App& app);
Action addCalibrateCommand(CLI::App& app);
Action addCompareCommand(CLI::App& app);
Action addTuneCommand(CLI::App& app);
Action addLaunchCommand(CLI::App& app);
Action addLabCommand(CLI::App& app);
Action addTopoCommand(CLI::App& app);
Action addSimCommand(CLI::App& app);
Action addPlanCommand(CLI::App& app);

}  // namespace ringlab::cli
