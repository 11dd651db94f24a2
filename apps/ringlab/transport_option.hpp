#pragma once
// --transport: a name from the transport table (job/transports.hpp), its help written from the
// table, so that a transport registered there is offered by every command that takes one.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "ringlab/job/rank_world.hpp"

namespace ringlab::cli {

// The purpose of --transport in bench, tune and calibrate.
inline constexpr const char* kMeasuringTransportHelp =
    "what the ranks run over; without it, the launcher's transport under mpirun or torchrun, "
    "else the first below (ranks that are processes are launched for you, or started by "
    "`ringlab launch` or torchrun's variables)";

struct TransportOption {
  std::string name;  // as given; the table's first transport when not
  bool given = false;

  // `purpose` leads the help: what the transport is for in this command.
  void add(CLI::App& app, const std::string& purpose);
  // Called from the command's callback: records whether --transport was given.
  void noteGiven(const CLI::App& app);
  std::optional<std::string> chosen() const;
  // The table's entry; throws InvalidArgument naming --transport and the valid names.
  const job::TransportEntry& entry() const;
  // The job a measuring command asks for, in the command line's words for its messages.
  job::JobRequest jobRequest(std::string_view command, int ranks, bool ranksGiven,
                             std::chrono::milliseconds timeout) const;
};

}  // namespace ringlab::cli
