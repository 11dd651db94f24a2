#include "ringlab/core/reduce_op.hpp"

#include <string>

#include "ringlab/core/error.hpp"

namespace ringlab {

const char* reduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Prod:
      return "prod";
    case ReduceOp::Min:
      return "min";
    case ReduceOp::Max:
      return "max";
    case ReduceOp::Avg:
      return "avg";
    case ReduceOp::PreMulSum:
      return "premul_sum";
  }
  return "unknown";
}

ReduceOp parseReduceOp(std::string_view name) {
  for (ReduceOp op : kAllReduceOps) {
    if (name == reduceOpName(op)) return op;
  }
  throwInvalid("unknown reduction op '" + std::string(name) +
               "': valid are sum, prod, min, max, avg");
}

std::vector<ReduceOp> parseReduceOps(std::string_view nameOrAll) {
  if (nameOrAll != "all") return {parseReduceOp(nameOrAll)};
  return {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};
}

}  // namespace ringlab
