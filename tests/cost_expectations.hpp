#pragma once
// A closed form held to the schedule walk that it describes: the same steps and regime, and each
// term equal to within rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ringlab/model/cost.hpp"

namespace ringlab::model {

inline void expectSameCost(const Cost& closed, const Cost& walked, const std::string& what) {
  EXPECT_EQ(closed.steps, walked.steps) << what;
  EXPECT_EQ(closed.regime, walked.regime) << what;
  const auto near = [](double a, double b) {
    return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)) + 1e-18;
  };
  EXPECT_TRUE(near(closed.startup_s, walked.startup_s))
      << what << " startup " << closed.startup_s << " vs " << walked.startup_s;
  EXPECT_TRUE(near(closed.bandwidth_s, walked.bandwidth_s))
      << what << " bandwidth " << closed.bandwidth_s << " vs " << walked.bandwidth_s;
  EXPECT_TRUE(near(closed.reduce_s, walked.reduce_s))
      << what << " reduce " << closed.reduce_s << " vs " << walked.reduce_s;
}

}  // namespace ringlab::model
