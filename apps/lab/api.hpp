#pragma once
// The lab's JSON API: one pure function per endpoint, from checked query parameters to the JSON
// the page draws. Each calls the same library code the CLI does (schedule/, model/); none does I/O,
// so they are cheap to test and the server is only routing. Every limit below bounds what one
// request can make the server compute or allocate.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "params.hpp"
#include "ringlab/model/params.hpp"

namespace ringlab::lab {

// Panel 1's drawing limit on the modulus m; the API refuses more.
inline constexpr int kMaxModulus = 64;
// Panel 2: ranks on the drawn ring.
inline constexpr int kMinScheduleRanks = 2;
inline constexpr int kMaxScheduleRanks = 16;
// Panel 3: the model is closed-form, so p can be as large as the CLI allows.
inline constexpr int kMaxModelRanks = 1024;
// POST /api/record: the largest measurement file the page may send (a bench record with every
// iteration's samples of a long sweep stays far below it).
inline constexpr std::size_t kMaxRecordBytes = 16u << 20;
// POST /api/record?system=: a GPU system is a preset or spec keys on one line (the longest real one
// is under 200 characters); the library's message echoes it whole.
inline constexpr std::size_t kMaxSystemSpecChars = 512;
// What one uploaded file may make the lab allocate. Reading costs a multiple of the file: about
// 150 bytes of JSON tree per JSON value, about 1.6 KB per row in the log reader, about 6 KB per row
// for the answer's JSON (and a GPU verdict prices every size: NCCL's algorithms x protocols x
// channels each). An nccl-tests sweep has tens of sizes, a fine -i sweep some thousands; a bench
// record of 4096 sizes with every rank's samples holds some hundred thousand values.
inline constexpr std::size_t kMaxRecordRows = 4096;            // sizes in one record
inline constexpr std::size_t kMaxRecordJsonValues = 1u << 20;  // values in a JSON file
inline constexpr std::size_t kMaxRecordJsonDepth = 64;         // nesting of a JSON file
inline constexpr std::size_t kMaxRecordLines = 65536;          // lines of a text log
// Message sizes: 1 TiB, far past any real AllReduce message, and countable in 64 bits.
inline constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;

// The lab's model parameters as the page shows them: alpha_us, bw_GBps (per direction) and
// gamma_ns_per_byte.
nlohmann::json paramsJson(const model::ModelParams& m);

// GET /api/info: version, the limits above, the model's stated default parameters, and the
// colour of every registered algorithm (the palette of `ringlab`'s SVG pictures).
nlohmann::json infoApi(const Params& params);

// GET /api/orbit?m=8&a=2: the orbit x -> (x + a) mod m from 0, from schedule::strideOrbit.
nlohmann::json orbitApi(const Params& params);

// GET /api/schedule?p=4&collective=allreduce&order=identity|stride|list&stride=3&list=0,2,1,3
// &size=1M&dtype=float32: the ring Schedule from model::buildSchedule, its verdict, the
// contributions every block holds after each step, and the running volume per rank. A stride
// sharing a factor with p is not a bad request but the lesson: valid false, the library's error
// and the short cycle.
nlohmann::json scheduleApi(const Params& params);

// GET /api/model/sizes?p=8&alpha=2us&bw=5GB/s&gamma=0.2ns/B&min=8&max=1G&dtype=float32 (the
// quantities with their units, as the CLI's --alpha, --bw, --gamma read them): predicted time of
// every modelled algorithm at each power-of-two size, and the crossovers.
nlohmann::json modelSizesApi(const Params& params);

// GET /api/model/ranks?size=1M&max_p=256&alpha=...: the ring's startup and bandwidth terms for
// p = 2..max_p at one size, and the limit 2 n beta of the bandwidth term.
nlohmann::json modelRanksApi(const Params& params);

// POST /api/record?name=FILE&system=SPEC, body: a `ringlab bench --json` file or an nccl-tests
// all_reduce_perf log as uploaded: the run record as measure's one reader reads it, in the bench
// JSON's shape (kind: "record", run, rows with out_of_place/in_place time_us) and valid: true.
// A `ringlab calibrate` profile (its "format" says so) is read by model's profile reader instead:
// kind: "profile", the profile as written, params as paramsJson, dtype (what gamma was measured
// on) and ranks (the p it was measured at: calibrate's job_ranks, or the "ranks" of a profile for
// one p; null where it records none). A file a reader refuses is {valid: false, error: its
// message}, an answer rather than a bad request.
// A log that ran on GPUs (record::isGpuRun: nccl-tests, OSU's xccl) also carries gpu: {device
// (what the log says ran it), p, and either sentence (no system: record::noSystemSentence, worded
// for the GPU system field) or verdict (record::toJson of record::compareGpu, what `ringlab
// compare` judges against the same system)}. The optional system=PRESET|KEYS (gpu/system_spec.hpp:
// "dgx-h100", "gpu=h100,gpus=8,nodes=2,nics=8,nic=400Gb/s"; no NCCL topology file) is read only
// for such a log: one the library refuses, or that cannot hold the log's p, is an ApiError naming
// "system" with the library's message (HTTP 400, as every refused parameter). Bounded by
// kMaxSystemSpecChars. A file past kMaxRecordJsonValues, kMaxRecordJsonDepth or kMaxRecordLines
// is refused before any reader sees it, and a record of more than kMaxRecordRows sizes after it is
// read, each {valid: false, error}: so one request allocates a bounded amount, whatever the file.
nlohmann::json recordApi(const std::string& body, const Params& params);

}  // namespace ringlab::lab
