#include "ringlab/core/error.hpp"

namespace ringlab {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument:
      return "invalid argument";
    case ErrorCode::Mismatch:
      return "mismatch";
    case ErrorCode::Timeout:
      return "timeout";
    case ErrorCode::PeerLost:
      return "peer lost";
    case ErrorCode::Transport:
      return "transport";
    case ErrorCode::Internal:
      return "internal";
    case ErrorCode::Unreliable:
      return "unreliable measurement";
  }
  return "unknown";
}

void throwInvalid(const std::string& message) {
  throw Error(ErrorCode::InvalidArgument, message);
}

}  // namespace ringlab
