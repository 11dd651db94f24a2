#include "model_options.hpp"

#include <cstdio>

namespace ringlab::cli {

void ModelOptions::add(CLI::App& app) {
  app.add_option("--profile", profilePath, "model parameters from `ringlab calibrate`");
  app.add_option("--alpha", alpha, "startup per message, e.g. 5us (overrides the profile)");
  app.add_option("--bw", bandwidth, "bandwidth per direction, e.g. 12.5GB/s or 100Gb/s");
  app.add_option("--gamma", gamma, "reduction cost per byte (0, 0.05ns) or rate (20GB/s)");
  app.add_option("--concurrency", concurrency,
                 "transfers that progress at full speed at once on one host (0: unlimited)");
  app.add_option(
      "--bw-counts", bandwidthCounts,
      "what --bw counts: send (one direction of a full-duplex link) or send+recv (both)");
  app.add_option("--volume", volume, "the volume you divide by --bw: send or send+recv");
}

io::ResolvedModel ModelOptions::resolve() const {
  io::ResolvedModel resolved = io::resolveModel(*this);
  for (const std::string& w : resolved.warnings) std::fprintf(stderr, "ringlab: %s\n", w.c_str());
  return resolved;
}

}  // namespace ringlab::cli
