// run.h5: the same measurements and findings as the JSONL files, as HDF5 compound tables.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// True when this build has HDF5.
bool hdf5_available();

// The bytes of an HDF5 file with /measurements and /findings tables (and the schema version as an
// attribute), and each host-pair matrix (host_pair_matrix.hpp) as /pair_matrices/<name>, built in
// memory: HDF5 itself never writes to disk, so a full filesystem is met by
// the caller's plain write, never inside the library. Throws std::runtime_error on an HDF5
// failure; empty without HDF5.
std::string hdf5_image(const std::vector<Measurement>& measurements,
                       const std::vector<Finding>& findings);

// Writes hdf5_image() to `file`. Throws std::runtime_error on failure (removing what it wrote);
// does nothing and returns false without HDF5.
bool write_hdf5(const std::filesystem::path& file, const std::vector<Measurement>& measurements,
                const std::vector<Finding>& findings);

}  // namespace fabcheck
