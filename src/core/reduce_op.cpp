#include "ringlab/core/reduce_op.hpp"

#include <iterator>

#include "ringlab/core/enum_names.hpp"

namespace ringlab {

namespace {

// Every op's name; the first entries, as many as kAllReduceOps holds, are the ops a name alone
// chooses (premul_sum also needs its factor, so parsing stops before it).
constexpr EnumName<ReduceOp> kReduceOpNames[] = {
    {ReduceOp::Sum, "sum"}, {ReduceOp::Prod, "prod"}, {ReduceOp::Min, "min"},
    {ReduceOp::Max, "max"}, {ReduceOp::Avg, "avg"},   {ReduceOp::PreMulSum, "premul_sum"}};

}  // namespace

const char* reduceOpName(ReduceOp op) {
  return enumName(std::span(kReduceOpNames), op).data();
}

ReduceOp parseReduceOp(std::string_view name) {
  return parseEnum(std::span(kReduceOpNames).first<std::size(kAllReduceOps)>(), name,
                   "reduction op");
}

std::vector<ReduceOp> parseReduceOps(std::string_view nameOrAll) {
  if (nameOrAll != "all") return {parseReduceOp(nameOrAll)};
  return {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};
}

}  // namespace ringlab
