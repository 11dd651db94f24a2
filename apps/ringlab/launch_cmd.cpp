// `ringlab launch -p N -- COMMAND...`: COMMAND as N local ranks (see launcher.hpp).
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "option_groups.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/launcher.hpp"

namespace ringlab::cli {

Action addLaunchCommand(CLI::App& app) {
  auto ranks = std::make_shared<int>(2);
  auto grace = std::make_shared<double>(10);
  auto command = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "launch", "run a command as p local ranks (rank environment, cleanup, failure handling)");
  cmd->add_option("-p,--ranks", *ranks, "number of ranks");
  cmd->add_option("--grace", *grace, "seconds the other ranks get to stop after one fails");
  cmd->add_option("command", *command, "the command and its arguments, after --")->required();
  return [=] {
    checkRanks(*ranks);
    if (!(*grace >= 0 && *grace <= 86400)) {
      throwInvalid("--grace " + fmt::format("{}", *grace) +
                   ": must be between 0 and 86400 seconds");
    }
    return job::launch({*ranks, *command, std::chrono::milliseconds(std::llround(*grace * 1000))});
  };
}

}  // namespace ringlab::cli
