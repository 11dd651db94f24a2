#pragma once
// A calibrated profile: the model parameters measured on one machine and transport, with what
// produced them. Stored as JSON; read back strictly (format version, every field, units).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/model/params.hpp"
#include "ringlab/model/setup_use.hpp"
#include "ringlab/model/working_set_rates.hpp"

namespace ringlab::model {

inline constexpr const char* kProfileFormat = "ringlab-profile/1";

struct Profile {
  ModelParams params;
  std::string transport;  // what the link parameters were measured over
  std::string host;
  std::string ringlabVersion;
  std::string date;
  double linkFitR2 = 0;    // quality of the alpha-beta fit
  double reduceFitR2 = 0;  // quality of the gamma fit
  // Where the measurement ran, and how steady it was. Profiles written before these fields read
  // back with the "not recorded" values: jobRanks 0, placement "", rounds 0, no intervals, and no
  // unstable flags (which then means "not judged", not "stable").
  // p of the job that calibrated (ranks as threads or processes): "job_ranks", or the "ranks" of a
  // profile measured for one p only
  int jobRanks = 0;
  std::string placement;  // where those ranks sat (measure::describeLaunch's words)
  int rounds = 0;         // interleaved rounds of every measurement
  struct HalfWidths95 {   // of the 95% intervals, in the coefficients' own units
    double alpha_s = 0, beta_s_per_byte = 0, gamma_s_per_byte = 0;
  };
  std::optional<HalfWidths95> halfWidths95;
  std::vector<std::string> unstable;  // why the fit cannot be trusted; empty: stable (or old)
  // The caches the calibrating host reports (none where it reports none, and in older profiles):
  // beside the knee calibrate measured (MemoryParams::cache_bytes), so that hosts can be compared.
  struct ReportedCache {
    int level = 0;
    double bytes = 0;
    int sharedByCores = 0;  // 0: not reported
    bool operator==(const ReportedCache&) const = default;
  };
  std::vector<ReportedCache> hostCaches;
  // calibrate's working-set probes, smallest first (none in older profiles): the roofline prices
  // its copies at them instead of measuring at bench time (measure/roofline_rows.hpp).
  std::vector<WorkingSetRate> workingSetRates;
};

// Stated defaults for when no profile is given: alpha 2 us, 5 GB/s per direction, reduction at
// 5 GB/s, no limit on concurrent transfers. Round figures of the order measured on a two-core
// virtual machine for in-process ranks (docs/models.md); not tuned to any result.
Profile defaultProfile();

nlohmann::json toJson(const Profile& profile);

// One line naming what differs between where the profile was calibrated and this run, "" when
// nothing does; a profile from another transport refused (setup_use.hpp's rule).
std::string checkProfileUse(const Profile& profile, const std::string& source, const SetupUse& use);

// Throws InvalidArgument naming `source` and the problem: another format version, a missing or
// mistyped field, a negative or non-finite parameter.
Profile profileFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace ringlab::model
