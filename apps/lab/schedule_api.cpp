// GET /api/schedule: panel 2's data. The schedule is buildSchedule's, the verdict verify's, the
// volumes countVolume's (over the first k steps, for the running counters); nothing here decides
// who sends what.
#include <string>

#include "api.hpp"
#include "ringlab/core/error.hpp"
#include "ringlab/model/registry.hpp"
#include "ringlab/schedule/algorithm_choice.hpp"
#include "ringlab/schedule/holdings.hpp"
#include "ringlab/schedule/ring_order.hpp"
#include "ringlab/schedule/verify.hpp"
#include "ringlab/schedule/volume.hpp"

namespace ringlab::lab {
namespace {

inline constexpr long long kMaxStride = 1'000'000'000;

nlohmann::json stepsJson(const schedule::Schedule& s) {
  nlohmann::json steps = nlohmann::json::array();
  for (const schedule::Step& step : s.steps) {
    nlohmann::json transfers = nlohmann::json::array();
    for (const schedule::Transfer& t : step.transfers) {
      transfers.push_back({{"src", t.src},
                           {"dst", t.dst},
                           {"first_block", t.firstBlock},
                           {"last_block", t.lastBlock},
                           {"mode", schedule::recvModeName(t.mode)}});
    }
    steps.push_back({{"phase", step.phase}, {"transfers", transfers}});
  }
  return steps;
}

// Bytes per rank after each of the first k = 0..steps steps, in both conventions.
nlohmann::json runningVolume(const schedule::Schedule& s, std::uint64_t count, DataType type) {
  nlohmann::json out = nlohmann::json::array();
  schedule::Schedule prefix = s;
  for (std::size_t k = 0; k <= s.steps.size(); ++k) {
    prefix.steps.assign(s.steps.begin(), s.steps.begin() + static_cast<std::ptrdiff_t>(k));
    const schedule::VolumeReport v = schedule::countVolume(prefix, count, type);
    nlohmann::json ranks = nlohmann::json::array();
    for (const schedule::RankVolume& r : v.perRank) {
      ranks.push_back({{"send", r.inConvention(schedule::VolumeConvention::Send)},
                       {"send+recv", r.inConvention(schedule::VolumeConvention::SendRecv)}});
    }
    out.push_back(ranks);
  }
  return out;
}

// The algorithm choice the order fields make: the ring in rank order, a list, or a stride. A
// missing or non-numeric list is the client's mistake and becomes an ApiError naming the field.
schedule::AlgorithmChoice orderChoice(const Params& params, int p, const std::string& kind) {
  schedule::AlgorithmChoice choice;
  if (kind == "list") {
    if (!params.has("list"))
      throw ApiError("list", "list is missing: give a permutation such as 0,2,1,3");
    try {
      choice.ringOrder = schedule::RingOrder::parseList(params.text("list", ""));
    } catch (const Error& e) {
      throw ApiError("list", e.what());
    }
  } else if (kind == "stride") {
    const int stride = static_cast<int>(params.integer("stride", -kMaxStride, kMaxStride));
    // Reduced mod p first (a negative stride walks the same residues); 0 is the stride p, whose
    // orbit is {0}: resolving reports it like any other short cycle.
    const int reduced = ((stride % p) + p) % p;
    choice.ringStride = reduced == 0 ? p : reduced;
  }
  return choice;
}

}  // namespace

nlohmann::json scheduleApi(const Params& params) {
  params.allowOnly({"p", "collective", "order", "stride", "list", "size", "dtype"});
  const int p = static_cast<int>(params.integer("p", kMinScheduleRanks, kMaxScheduleRanks));
  const std::string collectiveName =
      params.choice("collective", {"allreduce", "reduce_scatter", "allgather"}, "allreduce");
  const std::string kind = params.choice("order", {"identity", "stride", "list"}, "identity");
  const DataType type = params.dataType("dtype", "float32");
  const std::uint64_t bytes = params.size("size", kMaxBytes, "1M");
  std::uint64_t count = 0;
  try {
    count = elementCount(bytes, type, "size");
  } catch (const Error& e) {
    throw ApiError("size", e.what());
  }
  const schedule::Collective collective = schedule::parseCollective(collectiveName);
  nlohmann::json out = {{"p", p},
                        {"collective", collectiveName},
                        {"order", kind},
                        {"size_bytes", bytes},
                        {"dtype", dataTypeName(type)},
                        {"count", count}};
  if (kind == "stride") out["stride"] = params.integer("stride", -kMaxStride, kMaxStride);

  const schedule::AlgorithmChoice choice = orderChoice(params, p, kind);
  schedule::AlgorithmSpec spec;
  try {
    spec = choice.spec(p);
  } catch (const Error& e) {
    // A list that is no permutation of the ranks is the client's mistake; a stride that is an
    // integer but whose orbit is a shorter cycle is the lesson.
    if (kind == "list") throw ApiError("list", e.what());
    out["valid"] = false;
    out["error"] = e.what();
    out["short_cycle"] =
        schedule::strideOrbit(p, static_cast<int>(out["stride"].get<long long>() % p));
    return out;
  }
  const schedule::Schedule s = model::buildSchedule(collective, p, spec);
  const schedule::Verdict verdict = schedule::verify(s);
  out["valid"] = verdict.valid;
  out["verdict"] = {{"valid", verdict.valid}, {"reason", verdict.reason}};
  out["algorithm"] = s.algorithm;
  out["ring_order"] = s.ringOrder;
  out["blocks"] = s.blocks;
  out["block_owner"] = s.blockOwner;
  out["steps"] = stepsJson(s);
  nlohmann::json holds = nlohmann::json::array();
  for (const schedule::Holdings& h : schedule::holdingsAfterEachStep(s)) holds.push_back(h);
  out["holds"] = holds;
  out["volume"] = runningVolume(s, count, type);
  out["closed_form_send_bytes"] =
      collective == schedule::Collective::AllReduce
          ? nlohmann::json(schedule::ringAllReduceSendBytes(p, static_cast<double>(bytes)))
          : nlohmann::json(nullptr);
  return out;
}

}  // namespace ringlab::lab
