#pragma once
// NCCL's own tuning figures, copied as figures (not code) from NCCL 2.30.7 (github.com/NVIDIA/nccl,
// tag v2.30.7-1). Indices follow NCCL's: algorithms Tree, Ring, CollNetDirect, CollNetChain, NVLS,
// NVLSTree (ours: NcclAlgorithm, in another order, mapped by ncclIndex); protocols LL, LL128,
// Simple; architectures Volta, Ampere, Hopper, Blackwell; node counts 1, 2, more. Internal to gpu.

namespace ringlab::gpu::nccl {

// src/graph/tuning.cc, ncclTunerConstantsDefaults.baseLatencies (us), by NCCL's algorithm order.
inline constexpr double kBaseLatency_us[6][3] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4},  // Tree, Ring
    {0, 0, 0},        {0, 0, 0},         // CollNetDirect, CollNetChain
    {0, 0, 0},        {0, 0, 0}};        // NVLS, NVLSTree

// ncclTunerConstantsDefaults.hwLatencies (us): [NVLink, PCI, network][algorithm][protocol].
inline constexpr double kHwLatency_us[3][6][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}},
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}}};

// llMaxBws (GB/s): [one node: the GPU's architecture; more: the CPU, Intel 0 / AMD 1][nodes].
inline constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
// Per-channel caps (GB/s): [architecture][nodes].
inline constexpr double kPerChMaxRingLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
inline constexpr double kPerChMaxTreeLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
inline constexpr double kPerChMaxTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
inline constexpr double kPerChMaxNvlsTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
// nvlsEfficiency by architecture.
inline constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};

// getNetOverhead (us): Intel and unknown x86 1.0, AMD 2.0; x3 for Simple.
inline constexpr double kNetOverhead_us = 1.0;

// treeCorrectionFactor[protocol][log2(bytes / 64)], for sizes below 512 MiB.
inline constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// src/include/device.h and comm.h: threads per protocol and bytes per thread before NCCL adds a
// channel (Ring LL's threshold is x nRanks).
inline constexpr int kMaxThreads[3] = {512, 640, 512};  // LL, LL128, Simple
inline constexpr int kThreadThreshold[3] = {8, 8, 64};

// src/graph/search.cc: the per-channel speeds (GB/s) the search tries, highest first, for one node
// (intra) and several (inter), by architecture; MAXCHANNELS / 2 rings at most (init.cc).
inline constexpr double kSpeedIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                         9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
inline constexpr double kSpeedInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                         7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr double kSm90SpeedIntra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                             15.0, 12.0, 11.0, 6.0,  3.0};
inline constexpr double kSm90SpeedInter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                             15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr double kSm100SpeedIntra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                              40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
inline constexpr double kSm100SpeedInter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                              30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                              6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
inline constexpr int kMaxRingChannels = 32;

// EFA, through the aws-ofi-nccl network plugin, whose own tuner states its hop latency (us) by
// protocol LL, LL128, Simple: TUNER_NET_LATENCY 20, plus TUNER_NET_COMP_OVERHEAD 3 for Simple
// (github.com/aws/aws-ofi-nccl, src/tuner/nccl_ofi_model.cpp and include/nccl_ofi_param.h at
// commit 39397b3). NCCL's own network figures above are InfiniBand's.
inline constexpr double kEfaHopLatency_us[3] = {20.0, 20.0, 23.0};
// NCCL_MAX_NVLS_ARITY.
inline constexpr int kMaxNvlsChannels = 32;

}  // namespace ringlab::gpu::nccl
