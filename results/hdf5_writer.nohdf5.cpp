// run.h5 in a build without HDF5: nothing is written, and callers are told so.
#include "results/hdf5_writer.hpp"

namespace fabcheck {

bool hdf5_available() { return false; }

std::string hdf5_image(const std::vector<Measurement>& /*measurements*/,
                       const std::vector<Finding>& /*findings*/) {
  return {};
}

bool write_hdf5(const std::filesystem::path& /*file*/,
                const std::vector<Measurement>& /*measurements*/,
                const std::vector<Finding>& /*findings*/) {
  return false;
}

}  // namespace fabcheck
