// ringlab: run, verify and measure ring AllReduce. One executable, one subcommand per job.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_groups.hpp"
#include "parse_errors.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/job/launcher.hpp"
#include "ringlab/version.hpp"

namespace {

// The one line main prints for the library's error; 2 for invalid arguments, 1 otherwise.
int failWith(const ringlab::Error& e) {
  std::fprintf(stderr, "ringlab: error: %s\n", e.what());
  return e.code() == ringlab::ErrorCode::InvalidArgument ? 2 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  ringlab::job::rememberCommandLine(argc, argv);
  CLI::App app{"ringlab: ring AllReduce you can run, verify, count and measure"};
  app.require_subcommand(1);
  // Every option's help shows its default; subcommands inherit this when they are added below.
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", ringlab::version());
  std::map<CLI::App*, ringlab::cli::Action> actions;
  auto add = [&](auto&& factory) {
    ringlab::cli::Action action = factory(app);
    actions[app.get_subcommands({}).back()] = std::move(action);
  };
  add(ringlab::cli::addBenchCommand);
  add(ringlab::cli::addVerifyCommand);
  add(ringlab::cli::addModelCommand);
  add(ringlab::cli::addCalibrateCommand);
  add(ringlab::cli::addCompareCommand);
  add(ringlab::cli::addTuneCommand);
  add(ringlab::cli::addLaunchCommand);
  add(ringlab::cli::addLabCommand);
  add(ringlab::cli::addTopoCommand);
  add(ringlab::cli::addSimCommand);
  add(ringlab::cli::addPlanCommand);
  ringlab::cli::refuseEmptyValues(app);
  // Mistyped commands and options are named in ringlab's words, before and after CLI11 reads them.
  ringlab::cli::collectUnknownArguments(app);
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (const CLI::App* bare = ringlab::cli::bareCommand(app, args)) {
    std::fputs(ringlab::cli::overview(*bare).c_str(), stdout);
    return 0;
  }
  if (const auto line = ringlab::cli::unknownCommand(app, args)) {
    std::fprintf(stderr, "ringlab: error: %s\n", line->c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
    if (const auto line = ringlab::cli::unknownArgument(app)) {
      std::fprintf(stderr, "ringlab: error: %s\n", line->c_str());
      return 2;
    }
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::printf("ringlab %s\n", ringlab::version());
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ringlab: error: %s\n", ringlab::cli::parseErrorLine(app, e).c_str());
    return 2;
  } catch (const ringlab::Error& e) {
    return failWith(e);  // a value the library parses as it is read (--topo)
  }
  try {
    for (auto& [sub, action] : actions) {
      if (sub->parsed()) return action();
    }
    return 2;
  } catch (const ringlab::Error& e) {
    return failWith(e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "ringlab: error: out of memory; try a smaller -e/--maxbytes or fewer ranks\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ringlab: error: %s\n", e.what());
    return 1;
  }
}
