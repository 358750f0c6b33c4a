// run.h5: the same measurements and findings as the JSONL files, as HDF5 compound tables.
#pragma once

#include <filesystem>
#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// True when this build has HDF5.
bool hdf5_available();

// Writes /measurements and /findings tables (and the schema version as an attribute). Throws
// std::runtime_error on an HDF5 failure; does nothing and returns false without HDF5.
bool write_hdf5(const std::filesystem::path& file, const std::vector<Measurement>& measurements,
                const std::vector<Finding>& findings);

}  // namespace fabcheck
