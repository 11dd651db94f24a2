#pragma once
// The one way tests check an error: which code, and which values its message names.
// Header-only; several test files of one binary include it.
#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab::test {

// Runs `f` and returns the ringlab::Error it throws, or an Internal error saying none was thrown.
template <typename F>
Error errorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorCode::Internal, "<no error thrown>");
}

// Runs `f`; expects Error(InvalidArgument) whose message contains every one of `parts`.
template <typename F>
void expectInvalid(F&& f, std::initializer_list<std::string> parts) {
  const Error e = errorOf(f);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  for (const std::string& part : parts) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << part << "'";
  }
}

template <typename F>
void expectInvalid(F&& f, const std::string& needle) {
  expectInvalid(f, {needle});
}

// A bound on how long a failure may take to be reported. Generous on purpose: on a busy two-core
// machine a thread can be descheduled for seconds; what a test checks is that the call fails
// instead of hanging, not how fast the scheduler is.
inline constexpr std::chrono::seconds kFailureSlack{10};

}  // namespace ringlab::test
