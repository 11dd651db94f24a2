#pragma once
// The GPU model's renderings that front ends share: the preset list, the verdict on a GPU log, and
// a system's expected curve (what `ringlab model --system` prints).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ringlab/gpu/nccl_model.hpp"
#include "ringlab/record/gpu_comparison.hpp"

namespace ringlab::report {

// One line per preset: key, title, source.
std::string gpuPresetsText();

// The header (figures' version, the system, its source) and the table, band summary and findings.
std::string gpuComparisonText(const record::GpuComparison& comparison);

// Per size: NCCL's choice, its time, algbw and busbw, and the pure bound.
std::string gpuCurveText(const gpu::NcclModel& model, const std::vector<std::uint64_t>& sizes);
nlohmann::json gpuCurveJson(const gpu::NcclModel& model, const std::vector<std::uint64_t>& sizes);

}  // namespace ringlab::report
