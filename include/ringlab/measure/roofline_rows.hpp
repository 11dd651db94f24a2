#pragma once
// `ringlab bench --roofline`: each row of a bench record priced against this machine's limit
// (model/roofline.hpp). Its copy and reduce rates are those of calibrate's working-set probe at
// the row's working set: from the profile when one was given and recorded them (float32 rows, the
// type calibrate sums; its reduction at the profile's gamma, as the model prices it), else
// measured here with the same probe (machine_rates.hpp).
#include <string>

#include "ringlab/measure/bench.hpp"
#include "ringlab/record/record.hpp"
#include "ringlab/record/roofline_report.hpp"
#include "ringlab/transport/transport.hpp"

namespace ringlab::measure {

// Takes or measures the rates and prices every row of `record` (run by `config` over `transport` on
// a host of `cores` cores). `ranksTransport`, this rank's connection where the ranks are processes
// (null for threads), says which messages go single-copy. Throws InvalidArgument for a transport
// without a roofline (mpi).
record::RooflineReport priceRows(const record::RunRecord& record, const BenchConfig& config,
                                 const std::string& transport,
                                 const transport::Transport* ranksTransport, int cores);

}  // namespace ringlab::measure
