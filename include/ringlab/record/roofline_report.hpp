#pragma once
// The rows of `ringlab bench --roofline`: each row of a bench record against this machine's limit
// (model/roofline.hpp), at the rates measure/roofline_rows.hpp took or measured, as the table and
// the JSON show them.
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/model/roofline.hpp"

namespace ringlab::record {

// A memory pass to price: one block of `bytes`, on a core whose share of the job's data (the
// inputs and outputs of the ranks it runs) is `workingSetBytes`. Between two passes over a block,
// about that much other data goes through the core's caches, so a block stays cached only when
// that share fits.
struct PassSize {
  std::uint64_t bytes = 0;
  std::uint64_t workingSetBytes = 0;
  auto operator<=>(const PassSize&) const = default;
};

struct RooflineRow {
  std::uint64_t bytes = 0;
  // The rates' pass: calibrate's probe (workingSetPass) of a core's share of the job's data (the
  // inputs and outputs of all ranks, over min(ranks, cores) cores).
  PassSize pass;
  // Copy and slot rates from the profile's probes (at probedWorkingSetBytes, the largest probed
  // working set not above the row's, or the smallest), or measured here (then the row's own).
  bool ratesFromProfile = false;
  std::uint64_t probedWorkingSetBytes = 0;
  std::string dtype, op, algorithm;
  double timeUs = 0;  // the row's out-of-place time (median)
  model::MachineRates rates;
  model::Roofline roof;
  double ofRoofline = 0;  // roofline time / row time: 1 is the machine's limit
};

struct RooflineReport {
  std::string transport;
  model::TransportTraffic traffic;
  int cores = 1;
  double loopbackBytesPerSecond = 0;        // tcp only: one direction alone
  double loopbackTwoWayBytesPerSecond = 0;  // tcp only: per direction, both at once
  double loopbackRingBytesPerSecond = 0;    // tcp only: per connection, a ring of p at once
  int loopbackRingConnections = 0;          // tcp only: p, or 0 (not measured) below 3 ranks
  bool reduceFromProfile = false;           // float32 reduce rates from the profile's gamma
  bool copyFromProfile = false;             // some row's rates from the profile's probes
  std::vector<RooflineRow> rows;
};

// "roofline": {transport, copies, segment_bytes, single_copy_bytes (null: never), cores,
// loopback_GBps, loopback_two_way_GBps, loopback_ring_GBps and loopback_ring_connections (tcp; the
// ring's null below three ranks), reduce_rate_from, rows: [{size_bytes, pass_bytes,
// core_working_set_bytes, rates_from ("profile" or "measured"), probed_working_set_bytes, dtype,
// op, algorithm, time_us, roofline_us, cores_shared (all ranks' work over the cores set it),
// of_roofline, copy_GBps, reduce_GBps, slot_copy_in_GBps, slot_copy_out_GBps, slot_reduce_GBps,
// copy_bytes, slot_bytes, reduce_bytes, wire_bytes, and for tcp two_way_wire_bytes,
// all_ranks_wire_bytes and loopback_rate}]}: the part `bench --json` adds beside the record.
nlohmann::json toJson(const RooflineReport& report);

// Which loopback rate priced a row's wire bytes: the busiest rank's at the pair's rates,
// "two-way", "one-way", "two-way and one-way", or "none" (no bytes on the wire); or all ranks'
// bytes at the loopback's total rate, as the ring measured it ("ring of 4"), or the pair ("all
// ranks, two-way", "all ranks, one-way").
std::string loopbackRateUsed(const RooflineRow& row);

}  // namespace ringlab::record
