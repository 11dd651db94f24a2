#include "ringlab/model/profile.hpp"

#include <cmath>

#include "ringlab/core/error.hpp"

namespace ringlab::model {

Profile defaultProfile() {
  Profile p;
  p.params.link = {2e-6, 1 / 5e9};
  p.params.reduce = {1 / 5e9};
  p.transport = "default (not calibrated)";
  p.host = "-";
  p.ringlabVersion = "-";
  p.date = "-";
  return p;
}

nlohmann::json toJson(const Profile& p) {
  return {{"format", kProfileFormat},
          {"alpha_s", p.params.link.alpha_s},
          {"beta_s_per_byte", p.params.link.beta_s_per_byte},
          {"gamma_s_per_byte", p.params.reduce.gamma_s_per_byte},
          {"units", {{"alpha_s", "seconds per message"},
                     {"beta_s_per_byte", "seconds per byte, one direction"},
                     {"gamma_s_per_byte", "seconds per reduced byte"}}},
          {"transport", p.transport},
          {"host", p.host},
          {"ringlab_version", p.ringlabVersion},
          {"date", p.date},
          {"link_fit_r2", p.linkFitR2},
          {"reduce_fit_r2", p.reduceFitR2}};
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
  const auto number = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_number()) fail(std::string("missing number field \"") + key + "\"");
    const double v = j[key].get<double>();
    if (!std::isfinite(v) || v < 0) fail(std::string("field \"") + key + "\" must be finite and >= 0");
    return v;
  };
  const auto text = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_string()) fail(std::string("missing string field \"") + key + "\"");
    return j[key].get<std::string>();
  };
  Profile p;
  p.params.link.alpha_s = number("alpha_s");
  p.params.link.beta_s_per_byte = number("beta_s_per_byte");
  p.params.reduce.gamma_s_per_byte = number("gamma_s_per_byte");
  if (p.params.link.beta_s_per_byte == 0) fail("beta_s_per_byte is 0 (infinite bandwidth)");
  p.transport = text("transport");
  p.host = text("host");
  p.ringlabVersion = text("ringlab_version");
  p.date = text("date");
  p.linkFitR2 = number("link_fit_r2");
  p.reduceFitR2 = number("reduce_fit_r2");
  return p;
}

}  // namespace ringlab::model
