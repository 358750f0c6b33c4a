// Tests of run.h5: the tables are read back with h5py (Debian's /usr/bin/python3) when present.
#include "results/hdf5_writer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

bool have_h5py() { return std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") == 0; }

TEST(Hdf5Writer, WithoutHdf5NothingIsWritten) {
  if (hdf5_available()) GTEST_SKIP() << "built with HDF5";
  const fs::path file = fs::path(::testing::TempDir()) / "fabcheck_nohdf5.h5";
  EXPECT_FALSE(write_hdf5(file, {}, {}));
  EXPECT_FALSE(fs::exists(file));
}

TEST(Hdf5Writer, TablesReadBackWithH5py) {
  if (!hdf5_available()) GTEST_SKIP() << "built without HDF5";
  if (!have_h5py()) GTEST_SKIP() << "/usr/bin/python3 has no h5py";
  const fs::path dir = fs::path(::testing::TempDir()) / "fabcheck_hdf5_test";
  fs::remove_all(dir);
  fs::create_directories(dir);

  Measurement sized;
  sized.probe = "coll.all_reduce";
  sized.metric = "busbw";
  sized.value = 42.5;
  sized.unit = "GB/s";
  sized.rank = 1;
  sized.size_bytes = 1048576;
  sized.params = {{"backend", "mpi"}};
  sized.stats = SampleStats{20, 40, 42.5, 43, 42.9, 42.25, 0.015};
  Measurement unsized;
  unsized.probe = "fabric.pcie_links";
  unsized.metric = "width";
  unsized.value = 16;
  unsized.unit = "count";
  unsized.subject = "0000:17:00.0";
  unsized.status = MeasurementStatus::waived;
  unsized.message = "no sysfs";
  Finding finding;
  finding.severity = Severity::fail;
  finding.probe = "coll.all_reduce";
  finding.observed = 0.25;
  finding.message = "too slow";

  ASSERT_TRUE(write_hdf5(dir / "run.h5", {sized, unsized}, {finding}));

  const std::string script =
      "import h5py, math\n"
      "f = h5py.File('" +
      (dir / "run.h5").string() +
      "', 'r')\n"
      "m = f['measurements'][:]\n"
      "d = lambda v: v.decode() if isinstance(v, bytes) else v\n"
      "out = [str(f.attrs['schema_version']), str(len(m)),\n"
      "  d(m[0]['probe']), d(m[0]['metric']), repr(float(m[0]['value'])), str(m[0]['rank']),\n"
      "  str(m[0]['has_size']), str(m[0]['size_bytes']), d(m[0]['params']),\n"
      "  str(m[0]['has_stats']), str(m[0]['stats_count']), repr(float(m[0]['stats_p99'])),\n"
      "  d(m[1]['subject']), d(m[1]['status']), d(m[1]['message']), str(m[1]['has_size']),\n"
      "  str(m[1]['has_stats']), str(math.isnan(m[1]['stats_median']))]\n"
      "g = f['findings'][:]\n"
      "out += [str(len(g)), d(g[0]['severity']), repr(float(g[0]['observed'])),\n"
      "  str(math.isnan(g[0]['expected'])), d(g[0]['message']), str(g[0]['rank'])]\n"
      "print('|'.join(out))\n";
  std::ofstream(dir / "read.py") << script;
  const std::string command = "/usr/bin/python3 " + (dir / "read.py").string() + " > " +
                              (dir / "out.txt").string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(dir / "out.txt");
  std::stringstream output;
  output << in.rdbuf();
  ASSERT_EQ(status, 0) << output.str();
  EXPECT_EQ(output.str(),
            "1|2|coll.all_reduce|busbw|42.5|1|1|1048576|{\"backend\":\"mpi\"}|1|20|42.9|"
            "0000:17:00.0|waived|no sysfs|0|0|True|1|fail|0.25|True|too slow|-1\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fabcheck
