// Evidence on FAIL: the files a failing run gathers on each node its FAIL findings name
// (evidence/<host>/<name> in the run directory), and the gatherer the command line supplies.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "results/finding.hpp"

namespace fabcheck {

struct EvidenceFile {
  std::string name;  // "nvidia-smi-q.txt": a plain file name ([A-Za-z0-9._-])
  std::string text;  // already bounded by the gatherer
};

// Runs on the first rank of a host named by `failures` (the FAIL findings about it); reads the
// run directory's local copy (NCCL logs) at `run_dir`. Must bound its own time and size.
using EvidenceGatherer = std::function<std::vector<EvidenceFile>(
    const std::vector<Finding>& failures, const std::filesystem::path& run_dir)>;

}  // namespace fabcheck
