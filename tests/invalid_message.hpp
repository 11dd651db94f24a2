#pragma once
// The message of the InvalidArgument a call throws, checked to be one line: what every bad-input
// test of the library asks (the CLI prints it as its one error line).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::test {

// A test failure when `f` throws nothing, another code, or a message of several lines.
inline std::string invalidMessage(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace ringlab::test
