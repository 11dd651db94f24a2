#pragma once
// One small exception hierarchy for the whole library: every failure carries a code
// that callers can branch on and a message that names the offending value and the fix.
#include <stdexcept>
#include <string>

namespace ringlab {

// Unreliable: a measurement too noisy to fit (a model parameter came out non-positive); the fix is
// to measure again, longer or with larger sizes, not to change the input. New codes go last: the
// transports send a code to their peers as its number.
enum class ErrorCode {
  InvalidArgument,
  Mismatch,
  Timeout,
  PeerLost,
  Transport,
  Internal,
  Unreliable
};

const char* errorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Shorthand for the most common case: bad user input.
[[noreturn]] void throwInvalid(const std::string& message);

}  // namespace ringlab
