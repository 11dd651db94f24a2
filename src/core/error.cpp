#include "ringlab/core/error.hpp"

#include "ringlab/core/enum_names.hpp"

namespace ringlab {

namespace {

constexpr EnumName<ErrorCode> kErrorCodeNames[] = {
    {ErrorCode::InvalidArgument, "invalid argument"},
    {ErrorCode::Mismatch, "mismatch"},
    {ErrorCode::Timeout, "timeout"},
    {ErrorCode::PeerLost, "peer lost"},
    {ErrorCode::Transport, "transport"},
    {ErrorCode::Internal, "internal"},
    {ErrorCode::Unreliable, "unreliable measurement"}};

}  // namespace

const char* errorCodeName(ErrorCode code) {
  return enumName(std::span(kErrorCodeNames), code).data();
}

void throwInvalid(const std::string& message) {
  throw Error(ErrorCode::InvalidArgument, message);
}

}  // namespace ringlab
