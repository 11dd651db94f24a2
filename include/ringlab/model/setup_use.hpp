#pragma once
// The one rule for using measurements from one setup in a run on another: a calibrated profile
// and a tuned decision table both describe the transport, p and host they
// were measured on. Another transport is refused unless asked for (alpha, beta and which algorithm
// wins over one transport say little about another); another p or host is said in one line.
#include <string>

namespace ringlab::model {

// How the front end names the inputs the refusal tells the user to change. The library never
// names a front end's option: the CLI fills these with its flags; the defaults are the library's
// own words.
struct SetupLabels {
  std::string profile = "the profile";
  std::string table = "the decision table";
  // How to make one over another transport, from the command that makes one and the transport:
  // the CLI's "`ringlab tune --transport shm`"; empty: not said.
  std::string (*remake)(const std::string& command, const std::string& transport) = nullptr;
  std::string allowAnyTransport = "allow measurements from any transport";
};

// The run that is about to use a profile or a table: what it is checked against.
struct SetupUse {
  std::string transport;      // the run's transport
  int ranks = 0;              // the run's p
  std::string host;           // this host
  bool anyTransport = false;  // one from another transport is used
  SetupLabels labels;
};

// Where a profile or table was measured, and the words its messages use.
struct MeasuredSetup {
  std::string kind;       // "profile", "decision table"
  std::string option;     // how the front end names this input (SetupLabels)
  std::string verb;       // "calibrated", "measured"
  std::string command;    // the command that makes one: "calibrate", "tune"
  std::string meaning;    // what differs: "its predictions describe that setup"
  std::string transport;  // as recorded
  int ranks = 0;          // 0: not recorded, not compared
  std::string host;       // "" or "-": not recorded, not compared
};

// One line naming what differs between `made` (read from `source`) and `use` (transport, p,
// host), "" when nothing does. Throws InvalidArgument naming both transports, the command that
// makes one for this transport and how to allow any transport (use.labels) when the transports
// differ and !use.anyTransport.
std::string checkSetupUse(const MeasuredSetup& made, const std::string& source,
                          const SetupUse& use);

}  // namespace ringlab::model
