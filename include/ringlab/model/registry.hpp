#pragma once
// The algorithm registry: every fact about a collective algorithm in one entry, so that adding an
// algorithm touches one table (src/model/registry.cpp) or, at run time, one registerAlgorithm call.
// An entry holds the schedule builder (schedule/), the closed form (cost.hpp) and count period the
// model and the bucket planner price it with, the p it accepts, whether `--algo auto` and `tune`
// consider it, and its names in Open MPI and MPICH. Everything that turns an algorithm name into
// a Schedule, a price or a list reads it: verify, model, bench, tune, sim, the Communicator, the
// planner and the lab.
//
// Thread safety: lookups may run on many threads (rank threads build schedules) and take no lock
// ("auto" looks on every call). Registering and unregistering publish a new table; every table
// ever published is kept for the life of the process (registrations are few), so a table or entry
// once looked up stays valid.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ringlab/core/dtype.hpp"
#include "ringlab/model/cost.hpp"
#include "ringlab/model/params.hpp"
#include "ringlab/schedule/algorithms.hpp"
#include "ringlab/schedule/schedule.hpp"

namespace ringlab::model {

// `--algo auto`: the algorithm is chosen per call, as the fastest modelled one at that size
// (predict.hpp); no algorithm may take this name.
inline constexpr const char* kAutoAlgorithm = "auto";

// The AlgorithmSpec fields an algorithm reads; a field set for an algorithm that ignores it is
// rejected, so that a mistyped --algo never silently drops --channels and the like.
enum SpecField : unsigned {
  kRingOrderField = 1,     // ringOrder and ownershipOffset
  kChannelsField = 2,      // channels and channelOrders
  kRanksPerNodeField = 4,  // ranksPerNode
};

// The collectives an entry builds, as a mask of these bits.
constexpr unsigned collectiveBit(schedule::Collective collective) {
  return 1u << static_cast<unsigned>(collective);
}
inline constexpr unsigned kAllReduceOnly = collectiveBit(schedule::Collective::AllReduce);

// Builds the (unverified) schedule; reads only the spec fields the entry declares.
using ScheduleBuilder =
    std::function<schedule::Schedule(schedule::Collective, int p, const schedule::AlgorithmSpec&)>;
// count elements of elementBytes bytes each over p ranks; a plain function: the planner and `auto`
// call it millions of times.
using ClosedForm = Cost (*)(int p, std::uint64_t count, std::uint64_t elementBytes,
                            const ModelParams& m);
using CountPeriod = std::uint64_t (*)(int p);
// Transfers in the schedule for p ranks, estimated without building it (the simulator refuses a
// schedule too large for memory up front).
using TransferCount = std::uint64_t (*)(int p, const schedule::AlgorithmSpec& spec);

struct Algorithm {
  std::string name;
  unsigned specFields = 0;                // SpecField bits
  unsigned collectives = kAllReduceOnly;  // collectiveBit()s of the collectives it builds
  ScheduleBuilder build;
  // AllReduce's closed form (the one `auto`, tune and the planner price with); null: priced by
  // walking its schedule (scheduleCost). The closed forms of the other collectives it builds are
  // in collectiveClosedForms.
  ClosedForm closedForm = nullptr;
  // Within one memory regime the cost is R(count mod period) + B floor(count / period) (the
  // bucket planner relies on this shape). Null: the schedule's block count.
  CountPeriod countPeriod = nullptr;
  int minRanks =
      1;  // the p it accepts: every p >= minRanks (the builder checks what else it needs)
  bool candidate = false;  // `--algo auto` and `tune` consider it by default
  // Open MPI coll/tuned's MPI_Allreduce algorithm id (coll_tuned_allreduce_decision.c), 0 where
  // there is none. Ids 1-5 (basic_linear, nonoverlapping, recursive_doubling, ring,
  // segmented_ring) are the same from Open MPI 2.0 on, 6 (rabenseifner) from 4.0, and the main
  // branch adds 7 (allgather_reduce), which ringlab does not build: one id serves every release
  // that has it (mpi_exports.hpp checks the release).
  int openMpiAllreduceId = 0;
  // MPICH's MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM value, empty where there is none.
  std::string mpichName;
  TransferCount transfers = nullptr;  // null: estimated as 2 p^2, more than most schedules hold
  // Closed forms of the collectives other than AllReduce that it builds; one not listed is priced
  // by walking its schedule.
  std::vector<std::pair<schedule::Collective, ClosedForm>> collectiveClosedForms;
};

// The registered algorithms, built-ins first, then run-time registrations in order.
using AlgorithmTable = std::vector<std::shared_ptr<const Algorithm>>;
const AlgorithmTable& algorithmTable();
// The entries of algorithmTable() with `candidate` set, in its order.
const std::vector<const Algorithm*>& candidateTable();

// Adds an algorithm. Throws InvalidArgument for an empty or taken name ("auto" included), or an
// entry without a builder.
void registerAlgorithm(Algorithm algorithm);
// Removes a run-time registration. Throws InvalidArgument for an unknown name or a built-in.
void unregisterAlgorithm(const std::string& name);

// The entry named `name`; throws InvalidArgument naming the valid ones when there is none.
const Algorithm& findAlgorithm(const std::string& name);

// Every registered name that builds the collective (AllReduce: as accepted by --algo), in table
// order.
std::vector<std::string> algorithmNames(
    schedule::Collective collective = schedule::Collective::AllReduce);
// The first algorithm in table order that builds the collective: what `auto` runs for a collective
// other than AllReduce (ring for reduce_scatter and allgather, binomial_tree for reduce and
// broadcast, pairwise_exchange for alltoall).
const Algorithm& defaultAlgorithm(schedule::Collective collective);
// The names `auto` chooses among and `tune` measures by default, in table order (ties go to the
// earlier one).
std::vector<std::string> candidateAlgorithms();
// "a, b, c" (or with another separator): for messages and option defaults that list names.
std::string joinedNames(const std::vector<std::string>& names, const std::string& separator = ", ");

// Builds and verifies the schedule; throws InvalidArgument naming the bad value: an unknown name,
// a p the algorithm does not accept, a parameter it does not take (e.g. channels for ring), a
// collective it does not build, or a root that is not a rank (or given to a collective without
// one).
schedule::Schedule buildSchedule(schedule::Collective collective, int ranks,
                                 const schedule::AlgorithmSpec& spec);

// The period of the algorithm's rounding of the count into chunks (Algorithm::countPeriod).
std::uint64_t countPeriod(const std::string& algorithm, int p);

// The transfers of the algorithm's schedule for p ranks (Algorithm::transfers), estimated.
std::uint64_t scheduleTransfers(const schedule::AlgorithmSpec& spec, int p);

// Open MPI's algorithm number for MPI_Allreduce in coll_tuned, or 0 where there is none.
int openMpiAllreduceAlgorithm(const std::string& algorithm);

}  // namespace ringlab::model
