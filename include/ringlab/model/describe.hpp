#pragma once
// The one way every front end states the parameters it predicts with.
#include <string>

#include "ringlab/model/profile.hpp"

namespace ringlab::model {

// "alpha 5.000 us, beta 0.0800 ns/B (12.50 GB/s per direction), gamma 0 ns/B, concurrent
// transfers unlimited", with the memory terms when the profile has a cache knee (the working set
// per cache beyond which they apply).
std::string describeModel(const Profile& profile);

}  // namespace ringlab::model
