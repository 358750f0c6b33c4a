// A probe is one file and one registry line (issue 12): each family with a probes.def registers
// exactly the probes its lines name, one line each, in that order; every gpu.* probe declares its
// id in a kernels/*.cpp file of its own. A probe added to a table instead fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "fabric/register.hpp"
#include "kernels/register.hpp"
#include "storage/register.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> ids_registered_by(const std::function<void(Registry&)>& register_family) {
  Registry registry;
  register_family(registry);
  std::vector<std::string> ids;
  for (Probe* probe : registry.all()) ids.push_back(probe->id());
  return ids;
}

// The ids probes.def names, one a line: `FABCHECK_PROBE(make_x_probe)  // family.x`.
std::vector<std::string> ids_named_in(const fs::path& probes_def) {
  const std::string text = read_text(probes_def);
  const std::regex line(R"(FABCHECK_PROBE\(\w+\)\s*//\s*([a-z_]+\.[a-z0-9_]+))");
  std::vector<std::string> ids;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator();
       ++it) {
    ids.push_back((*it)[1].str());
  }
  return ids;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

struct Family {
  const char* folder;
  std::function<void(Registry&)> register_family;
};

void PrintTo(const Family& family, std::ostream* out) { *out << family.folder; }

class ProbeFamilies : public ::testing::TestWithParam<Family> {};

TEST_P(ProbeFamilies, RegisterExactlyTheProbesTheirProbesDefNamesOneLineEachInOrder) {
  const fs::path def = fs::path(FABCHECK_SOURCE_DIR) / GetParam().folder / "probes.def";
  ASSERT_TRUE(fs::exists(def)) << def;
  const std::string text = read_text(def);
  const std::vector<std::string> named = ids_named_in(def);
  EXPECT_EQ(count_of(text, "FABCHECK_PROBE("), named.size()) << "a line without its probe's id";
  EXPECT_EQ(ids_registered_by(GetParam().register_family), named)
      << "registered probes that are not one probes.def line each (a table?), or out of order";
}

INSTANTIATE_TEST_SUITE_P(Families, ProbeFamilies,
                         ::testing::Values(Family{"kernels", register_kernel_probes},
                                           Family{"fabric", register_fabric_probes},
                                           Family{"storage", register_storage_probes}),
                         [](const auto& family) { return std::string(family.param.folder); });

TEST(ProbeFiles, EveryGpuProbeDeclaresItsIdInAFileOfItsOwn) {
  const fs::path kernels = fs::path(FABCHECK_SOURCE_DIR) / "kernels";
  // Every kernels/*.cpp of any build variant, by name.
  std::map<std::string, std::string> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(kernels)) {
    if (entry.path().extension() == ".cpp") {
      files[entry.path().filename().string()] = read_text(entry.path());
    }
  }
  const std::vector<std::string> ids = ids_registered_by(register_kernel_probes);
  ASSERT_GE(ids.size(), 8u);
  for (const std::string& id : ids) {
    std::vector<std::string> declaring;
    for (const auto& [name, text] : files) {
      if (text.find(".id = \"" + id + "\"") != std::string::npos) declaring.push_back(name);
    }
    ASSERT_EQ(declaring.size(), 1u) << id << " is declared (.id = \"" << id << "\") in "
                                    << declaring.size() << " kernels/*.cpp files";
    EXPECT_EQ(count_of(files.at(declaring.front()), ".id = \""), 1u)
        << declaring.front() << " declares more than " << id << ": one probe a file";
    EXPECT_NE(declaring.front(), "register.cpp") << id << " declared where probes are registered";
  }
}

}  // namespace
}  // namespace fabcheck
