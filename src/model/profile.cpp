#include "ringlab/model/profile.hpp"

#include <cmath>

#include "ringlab/core/error.hpp"
#include "ringlab/core/json_text.hpp"
#include "ringlab/core/limits.hpp"

namespace ringlab::model {

ModelParams defaultModelParams() {
  return ModelParams{{2e-6, 1 / 5e9}, {1 / 5e9, 0}, {0, 0}, {0, 0, 0, 0, 0}, {0, 0}};
}

Profile defaultProfile() {
  // Built in one expression: assigning short literals member by member trips a false GCC 12
  // -Wrestrict warning.
  return Profile{defaultModelParams(),
                 "default (not calibrated)",
                 "-",
                 "-",
                 "-",
                 0,
                 0,
                 0,
                 "",
                 0,
                 std::nullopt,
                 {},
                 {},
                 {}};
}

nlohmann::json toJson(const Profile& p) {
  nlohmann::json j = {
      {"format", kProfileFormat},
      {"alpha_s", p.params.link.alpha_s},
      {"beta_s_per_byte", p.params.link.beta_s_per_byte},
      {"gamma_s_per_byte", p.params.reduce.gamma_s_per_byte},
      {"concurrent_transfers", p.params.host.concurrent_transfers},
      {"cache_bytes", p.params.memory.cache_bytes},
      {"beta_mem_s_per_byte", p.params.memory.beta_mem_s_per_byte},
      {"gamma_mem_s_per_byte", p.params.memory.gamma_mem_s_per_byte},
      {"gamma_out_of_place_s_per_byte", p.params.reduce.gamma_out_of_place_s_per_byte},
      {"gamma_mem_out_of_place_s_per_byte", p.params.memory.gamma_mem_out_of_place_s_per_byte},
      {"fused_reduce_from_bytes", p.params.fusion.fused_reduce_from_bytes},
      {"cache_cores", p.params.memory.cache_cores},
      {"cores", p.params.host.cores},
      {"units",
       {{"alpha_s", "seconds per message"},
        {"beta_s_per_byte", "seconds per byte, one direction"},
        {"gamma_s_per_byte", "seconds per reduced byte"},
        {"concurrent_transfers", "transfers that progress at full speed at once; 0 = unlimited"},
        {"cache_bytes",
         "working set (the inputs, outputs and scratch of the ranks sharing one cache) beyond "
         "which the *_mem coefficients apply; 0 = one regime"},
        {"cache_cores", "cores that share the cache of cache_bytes; 0 or 1 = one core's own"},
        {"cores", "cores the job's ranks run on; 0 = not recorded, one per rank"},
        {"beta_mem_s_per_byte", "seconds per byte, one direction, beyond the cache"},
        {"gamma_mem_s_per_byte", "seconds per reduced byte, beyond the cache"},
        {"gamma_out_of_place_s_per_byte",
         "seconds per byte reduced into a separate output (c = a + b); 0 = as gamma"},
        {"gamma_mem_out_of_place_s_per_byte", "the same beyond the cache; 0 = as gamma_mem"},
        {"fused_reduce_from_bytes",
         "messages this large or larger are reduced as they are received, one pass costing gamma "
         "and no beta; 0 = never"},
        {"working_set_rates",
         "one core's copy, float32 sum in place, and the same with one side in shm's slots, "
         "seconds per byte, with `bytes` of data going through its caches; the roofline's rates"}}},
      {"transport", p.transport},
      {"host", p.host},
      {"ringlab_version", p.ringlabVersion},
      {"date", p.date},
      {"link_fit_r2", p.linkFitR2},
      {"reduce_fit_r2", p.reduceFitR2},
      {"placement", p.placement},
      {"unstable", p.unstable}};
  // Not recorded (0) is written as absent: a p or a count of rounds of 0 is no value.
  if (p.jobRanks > 0) j["job_ranks"] = p.jobRanks;
  if (p.rounds > 0) j["rounds"] = p.rounds;
  nlohmann::json caches = nlohmann::json::array();
  for (const Profile::ReportedCache& c : p.hostCaches)
    caches.push_back({{"level", c.level},
                      {"bytes", static_cast<std::uint64_t>(c.bytes)},
                      {"shared_by_cores", c.sharedByCores}});
  j["host_caches"] = caches;
  nlohmann::json rates = nlohmann::json::array();
  for (const WorkingSetRate& w : p.workingSetRates) {
    nlohmann::json& entry = rates.emplace_back(nlohmann::json{{"bytes", w.bytes}});
    for (const auto& [key, field] : kWorkingSetRateFields) entry[key] = w.*field;
  }
  j["working_set_rates"] = rates;
  if (p.halfWidths95) {
    j["half_width_95"] = {{"alpha_s", p.halfWidths95->alpha_s},
                          {"beta_s_per_byte", p.halfWidths95->beta_s_per_byte},
                          {"gamma_s_per_byte", p.halfWidths95->gamma_s_per_byte}};
  }
  return j;
}

Profile profileFromJson(const nlohmann::json& j, const std::string& source) {
  const auto fail = [&](const std::string& what) -> void {
    throwInvalid("profile " + source + ": " + what + "; write a new one with `ringlab calibrate`");
  };
  if (!j.is_object()) fail("not a JSON object");
  if (!j.contains("format") || !j["format"].is_string()) fail("no \"format\" field");
  if (j["format"] != kProfileFormat) {
    fail("format " + j["format"].get<std::string>() + ", this ringlab reads " + kProfileFormat);
  }
  // Messages are built with append, not operator+ chains: GCC 12 warns falsely (-Wrestrict) there.
  const auto quoted = [](const char* key) {
    std::string q = "\"";
    q.append(key).append("\"");
    return q;
  };
  const std::string where = "profile " + source;
  // Finite and >= 0, a string or a list refused with its value; each field's range comes after.
  const auto number = [&](const char* key) {
    if (!j.contains(key)) fail("missing number field " + quoted(key));
    return jsonNumber(j[key], where, key, 0, HUGE_VAL);
  };
  const auto text = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_string()) fail("missing string field " + quoted(key));
    return j[key].get<std::string>();
  };
  // Beyond "finite and >= 0": each coefficient's range (a beta of 0 is infinite bandwidth).
  const auto param = [&](const ParamRange& range) {
    return checkedParam(range, number(range.field), "profile " + source);
  };
  Profile p;
  p.params.link.alpha_s = param(kAlphaRange);
  p.params.link.beta_s_per_byte = param(kBetaRange);
  p.params.reduce.gamma_s_per_byte = param(kGammaRange);
  p.params.host.concurrent_transfers = param(kConcurrencyRange);
  p.params.memory.cache_bytes = param(kCacheRange);
  p.params.memory.beta_mem_s_per_byte = param(kBetaMemRange);
  p.params.memory.gamma_mem_s_per_byte = param(kGammaMemRange);
  // Fields added later (the out-of-place kernel, fused receives): absent in older profiles, which
  // read as 0, "as in place" and "never fused".
  const auto laterParam = [&](const ParamRange& range) {
    return j.contains(range.field) ? param(range) : 0.0;
  };
  p.params.reduce.gamma_out_of_place_s_per_byte = laterParam(kGammaOutOfPlaceRange);
  p.params.memory.gamma_mem_out_of_place_s_per_byte = laterParam(kGammaMemOutOfPlaceRange);
  p.params.fusion.fused_reduce_from_bytes = laterParam(kFusedReduceFromRange);
  p.params.memory.cache_cores = laterParam(kCacheCoresRange);
  p.params.host.cores = laterParam(kCoresRange);
  // Before cache_cores, cache_bytes was a message size: it cannot be read as a working set.
  if (p.params.memory.cache_bytes > 0 && !j.contains(kCacheCoresRange.field)) {
    fail(
        "its memory regime starts at a message size (cache_bytes), from before the regime was "
        "taken from the job's working set");
  }
  if (p.params.memory.cache_bytes > 0 && p.params.memory.beta_mem_s_per_byte == 0) {
    fail("cache_bytes is set but beta_mem_s_per_byte is 0 (infinite bandwidth beyond the cache)");
  }
  p.transport = text("transport");
  p.host = text("host");
  p.ringlabVersion = text("ringlab_version");
  p.date = text("date");
  // A fit's R^2 is at most 1; calibrate refuses fits below its own floor, so a stored one is >= 0.
  const auto r2 = [&](const char* key) {
    if (!j.contains(key)) fail("missing number field " + quoted(key));
    return jsonNumber(j[key], where, key, 0, 1);
  };
  p.linkFitR2 = r2("link_fit_r2");
  p.reduceFitR2 = r2("reduce_fit_r2");
  // Fields added later: absent in older profiles, which keep the "not recorded" values.
  // The p it was measured at: calibrate's "job_ranks", else the "ranks" of a profile measured for
  // one p only (tools/ddp_bucket_check.py writes those).
  for (const char* key : {"job_ranks", "ranks"}) {
    if (!j.contains(key)) continue;
    p.jobRanks = static_cast<int>(jsonWhole(j[key], where, key, 1, kMaxRanks));
    break;
  }
  if (j.contains("placement")) p.placement = text("placement");
  if (j.contains("rounds"))
    p.rounds = static_cast<int>(jsonWhole(j["rounds"], where, "rounds", 1, 1'000'000));
  if (j.contains("half_width_95")) {
    const nlohmann::json& h = j["half_width_95"];
    const auto width = [&](const char* key) {
      if (!h.is_object() || !h.contains(key))
        fail("\"half_width_95\" needs number field " + quoted(key));
      // A half width of a coefficient in seconds or seconds per byte: at most a second.
      return jsonNumber(h[key], where, std::string("half_width_95.") + key, 0, 1);
    };
    p.halfWidths95 = Profile::HalfWidths95{width("alpha_s"), width("beta_s_per_byte"),
                                           width("gamma_s_per_byte")};
  }
  if (j.contains("host_caches")) {
    const nlohmann::json& caches = j["host_caches"];
    if (!caches.is_array()) fail("field \"host_caches\" must be a list");
    for (const nlohmann::json& c : caches) {
      const auto count = [&](const char* key, double most) {
        if (!c.is_object() || !c.contains(key))
          fail("\"host_caches\" entries need number field " + quoted(key));
        return static_cast<double>(jsonWhole(c[key], where, std::string("host_caches.") + key, 0,
                                             static_cast<std::int64_t>(most)));
      };
      p.hostCaches.push_back({static_cast<int>(count("level", 16)), count("bytes", kCacheRange.hi),
                              static_cast<int>(count("shared_by_cores", kCoresRange.hi))});
    }
  }
  // Added later: absent in older profiles, whose roofline then measures its rates at bench time.
  if (j.contains("working_set_rates")) {
    const nlohmann::json& rates = j["working_set_rates"];
    if (!rates.is_array()) fail("field \"working_set_rates\" must be a list");
    for (const nlohmann::json& w : rates) {
      if (!w.is_object() || !w.contains("bytes"))
        fail("\"working_set_rates\" entries need number field \"bytes\"");
      WorkingSetRate entry;
      // A working set of at least a byte, at most kCacheRange's 2^53 bytes.
      entry.bytes =
          static_cast<std::uint64_t>(jsonWhole(w["bytes"], where, "working_set_rates.bytes", 1,
                                               static_cast<std::int64_t>(kCacheRange.hi)));
      if (!p.workingSetRates.empty() && entry.bytes <= p.workingSetRates.back().bytes)
        fail("\"working_set_rates\" must list growing working sets, smallest first");
      for (const auto& [key, field] : kWorkingSetRateFields) {
        if (!w.contains(key))
          fail("\"working_set_rates\" entries need number field " + quoted(key));
        // A rate of at least 1 KB/s and at most 1 PB/s, as beta's range.
        entry.*field = jsonNumber(w[key], where, std::string("working_set_rates.") + key,
                                  kBetaRange.lo, kBetaRange.hi);
      }
      p.workingSetRates.push_back(entry);
    }
  }
  if (j.contains("unstable")) {
    const nlohmann::json& u = j["unstable"];
    if (!u.is_array()) fail("field \"unstable\" must be a list of strings");
    for (const nlohmann::json& reason : u) {
      if (!reason.is_string()) fail("field \"unstable\" must be a list of strings");
      p.unstable.push_back(reason.get<std::string>());
    }
  }
  return p;
}

std::string checkProfileUse(const Profile& p, const std::string& source, const SetupUse& use) {
  return checkSetupUse({"profile", use.labels.profile, "calibrated", "calibrate",
                        "its predictions describe that setup", p.transport, p.jobRanks, p.host},
                       source, use);
}

}  // namespace ringlab::model
