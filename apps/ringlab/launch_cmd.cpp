// `ringlab launch -p N -- COMMAND...`: COMMAND as N local ranks (see launcher.hpp).
#include <cmath>
#include <memory>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/core/units.hpp"
#include "ringlab/job/launcher.hpp"

namespace ringlab::cli {

Action addLaunchCommand(CLI::App& app) {
  auto ranks = std::make_shared<int>(kDefaultRanks);
  auto grace = std::make_shared<std::string>("10s");
  auto command = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "launch", "run a command as p local ranks (rank environment, cleanup, failure handling)");
  addRanks(*cmd, *ranks);
  // The launcher stretches the grace past the ranks' own deadline (launcher.cpp), so that a rank
  // waiting out its --timeout is not killed before it can name the one that failed.
  addTime(*cmd, "--grace", *grace,
          "how long the other ranks get to stop after one fails: this, or their --timeout plus 2s "
          "when that is longer (62s for the default --timeout 60s)");
  cmd->add_option("command", *command, "the command and its arguments, after --")->required();
  return [=] {
    checkRanks(*ranks);
    const double graceSeconds = parseSeconds(*grace);
    if (graceSeconds > 86400) throwInvalid("--grace " + *grace + ": must be at most 86400s");
    return job::launch(
        {*ranks, *command, std::chrono::milliseconds(std::llround(graceSeconds * 1000))});
  };
}

}  // namespace ringlab::cli
