#include "transport_option.hpp"

#include "ringlab/job/transports.hpp"

namespace ringlab::cli {
namespace {

constexpr const char* kOption = "--transport";

std::string tableHelp() {
  std::string help;
  for (const job::TransportEntry& t : job::transports()) {
    if (!help.empty()) help += ", ";
    help += t.name + " (ranks as " + t.ranksAre + ")";
  }
  return help;
}

}  // namespace

void TransportOption::add(CLI::App& app, const std::string& purpose) {
  name = job::defaultTransport();
  app.add_option(kOption, name, purpose + ": " + tableHelp());
}

const job::TransportEntry& TransportOption::entry() const {
  return job::findTransport(name, kOption);
}

void TransportOption::noteGiven(const CLI::App& app) {
  given = app.count(kOption) > 0;
}

std::optional<std::string> TransportOption::chosen() const {
  return given ? std::optional(name) : std::nullopt;
}

job::JobRequest TransportOption::jobRequest(std::string_view command, int ranks, bool ranksGiven,
                                            std::chrono::milliseconds timeout) const {
  return {.transport = chosen(),
          .command = command,
          .ranks = ranks,
          .ranksGiven = ranksGiven,
          .timeout = timeout,
          .transportLabel = kOption,
          .ranksLabel = "-p"};
}

}  // namespace ringlab::cli
