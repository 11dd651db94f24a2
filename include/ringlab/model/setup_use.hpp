#pragma once
// The one rule for using measurements from one setup in a run on another: a calibrated profile
// (--profile) and a tuned decision table (--tuned) both describe the transport, p and host they
// were measured on. Another transport is refused unless asked for (alpha, beta and which algorithm
// wins over one transport say little about another); another p or host is said in one line.
#include <string>

namespace ringlab::model {

// The run that is about to use a profile or a table: what it is checked against.
struct SetupUse {
  std::string transport;      // the run's transport
  int ranks = 0;              // the run's p
  std::string host;           // this host
  bool anyTransport = false;  // --profile-any-transport: one from another transport is used
};

// Where a profile or table was measured, and the words its messages use.
struct MeasuredSetup {
  std::string kind;       // "profile", "decision table"
  std::string option;     // "--profile", "--tuned"
  std::string verb;       // "calibrated", "measured"
  std::string command;    // the command that makes one: "calibrate", "tune"
  std::string meaning;    // what differs: "its predictions describe that setup"
  std::string transport;  // as recorded
  int ranks = 0;          // 0: not recorded, not compared
  std::string host;       // "" or "-": not recorded, not compared
};

// One line naming what differs between `made` (read from `source`) and `use` (transport, p,
// host), "" when nothing does. Throws InvalidArgument naming both transports, the command that
// makes one for this transport and --profile-any-transport when the transports differ and
// !use.anyTransport.
std::string checkSetupUse(const MeasuredSetup& made, const std::string& source,
                          const SetupUse& use);

}  // namespace ringlab::model
