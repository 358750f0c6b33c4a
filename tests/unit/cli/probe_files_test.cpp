// A probe is one file and one registry line (issues 12 and 20), and its facts live in that file: in
// every family with a probes.def, the family registers exactly the probes its lines name, one line
// each, in that order; each probe declares its id (`.id = "..."`, or a constant holding it) in
// exactly one product file of its family's folder, which declares no other probe; and no product
// source outside a probe's family folder names its id, so a fact kept elsewhere (a peer exclusion,
// a memory need, a table keyed on ids) fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "bench/cli/probe_families.hpp"
#include "bench/coll/register.hpp"
#include "fabric/register.hpp"
#include "host/register.hpp"
#include "kernels/register.hpp"
#include "storage/register.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = FABCHECK_SOURCE_DIR;

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

// One C++ file read as the compiler would see its text: the code without comments, and the string
// literals in it (raw ones too; not character literals, nor digit separators as in 0x6862'6d31), so
// an id named in a comment is no fact kept there.
struct ScannedSource {
  std::string code;
  std::vector<std::string> literals;
};

ScannedSource scan_source(const std::string& text) {
  ScannedSource out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (text.compare(i, 2, "//") == 0) {
      i = std::min(text.find('\n', i), text.size());
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      out.code += ' ';
    } else if (text.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(text[i - 1]))) {
      const std::size_t open = text.find('(', i);
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = text.find(close, open);
      const std::size_t stop = end == std::string::npos ? text.size() : end + close.size();
      out.literals.push_back(text.substr(open + 1, end - open - 1));
      out.code.append(text, i, stop - i);
      i = stop;
    } else if (c == '"' || (c == '\'' && (i == 0 || !std::isxdigit(text[i - 1])))) {
      std::size_t j = i + 1;
      std::string literal;
      while (j < text.size() && text[j] != c) {
        if (text[j] == '\\' && j + 1 < text.size()) literal += text[j++];
        literal += text[j++];
      }
      if (c == '"') out.literals.push_back(literal);
      out.code.append(text, i, std::min(j + 1, text.size()) - i);
      i = j + 1;
    } else {
      out.code += text[i++];
    }
  }
  return out;
}

// The product sources (every build variant) under `folder`, by path relative to the source root,
// without their comments.
std::map<std::string, ScannedSource> product_files(const fs::path& folder, bool recursive) {
  std::map<std::string, ScannedSource> files;
  auto take = [&](const fs::directory_entry& entry) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() &&
        (ext == ".cpp" || ext == ".hpp" || ext == ".cu" || ext == ".cuh" || ext == ".def")) {
      files[fs::relative(entry.path(), kSource).generic_string()] =
          scan_source(read_text(entry.path()));
    }
  };
  if (recursive) {
    for (const auto& entry : fs::recursive_directory_iterator(kSource / folder)) take(entry);
  } else {
    for (const auto& entry : fs::directory_iterator(kSource / folder)) take(entry);
  }
  return files;
}

struct Family {
  const char* folder;
  std::function<void(Registry&)> register_family;
  std::size_t at_least;  // probes it registers today, so a family found empty fails
};

void PrintTo(const Family& family, std::ostream* out) { *out << family.folder; }

// Every family with a probes.def.
const std::vector<Family>& families() {
  static const std::vector<Family> all = {
      {"kernels", register_kernel_probes, 8},
      {"fabric", register_fabric_probes, 7},
      {"storage", register_storage_probes, 9},
      {"host", register_host_probes, 5},
      {"bench/coll", [](Registry& registry) { register_coll_probes(registry); }, 8},
  };
  return all;
}

class ProbeFamilies : public ::testing::TestWithParam<Family> {};

TEST_P(ProbeFamilies, RegisterExactlyTheProbesTheirProbesDefNamesOneLineEachInOrder) {
  const fs::path def = kSource / GetParam().folder / "probes.def";
  ASSERT_TRUE(fs::exists(def)) << def;
  const std::string text = read_text(def);
  const std::vector<std::string> named = ids_named_in(def);
  EXPECT_EQ(count_of(text, "FABCHECK_PROBE("), named.size()) << "a line without its probe's id";
  EXPECT_EQ(ids_registered_by(GetParam().register_family), named)
      << "registered probes that are not one probes.def line each (a table?), or out of order";
}

// The ids one `.id = <expression>` names: its string literals that are probe ids, and its
// identifiers that are constants holding one (defined in the same file, else in one file of the
// folder).
std::set<std::string> ids_of(const std::string& expression, const std::string& file,
                             const std::map<std::string, ScannedSource>& folder,
                             const std::set<std::string>& probe_ids) {
  std::set<std::string> ids;
  for (const std::string& literal : scan_source(expression).literals) {
    if (probe_ids.count(literal)) ids.insert(literal);
  }
  static const std::regex identifier(R"(\b(k[A-Z]\w*)\b)");
  for (auto it = std::sregex_iterator(expression.begin(), expression.end(), identifier);
       it != std::sregex_iterator(); ++it) {
    const std::regex definition("\\b" + (*it)[1].str() + R"re(\s*=\s*"([^"]*)")re");
    std::smatch value;
    const std::string& here = folder.at(file).code;
    if (std::regex_search(here, value, definition)) {
      if (probe_ids.count(value[1].str())) ids.insert(value[1].str());
      continue;
    }
    for (const auto& [name, source] : folder) {
      if (std::regex_search(source.code, value, definition) && probe_ids.count(value[1].str())) {
        ids.insert(value[1].str());
      }
    }
  }
  return ids;
}

TEST_P(ProbeFamilies, EachProbeDeclaresItsIdInAProductFileOfItsOwnInItsFolder) {
  const std::map<std::string, ScannedSource> files = product_files(GetParam().folder, false);
  const std::vector<std::string> registered = ids_registered_by(GetParam().register_family);
  ASSERT_GE(registered.size(), GetParam().at_least);
  const std::set<std::string> probe_ids(registered.begin(), registered.end());
  // What each file declares: the ids its `.id = ...` designators name, up to the next field.
  std::map<std::string, std::set<std::string>> declared_in;
  const std::regex designator(R"(\.id\s*=\s*([^,}]*))");
  for (const auto& [name, source] : files) {
    for (auto it = std::sregex_iterator(source.code.begin(), source.code.end(), designator);
         it != std::sregex_iterator(); ++it) {
      for (const std::string& id : ids_of((*it)[1].str(), name, files, probe_ids)) {
        declared_in[name].insert(id);
      }
    }
  }
  for (const std::string& id : registered) {
    std::vector<std::string> declaring;
    for (const auto& [name, ids] : declared_in) {
      if (ids.count(id)) declaring.push_back(name);
    }
    ASSERT_EQ(declaring.size(), 1u)
        << id << " is declared (.id = \"" << id << "\" or a constant "
        << "holding it) in " << declaring.size() << " files of " << GetParam().folder << "/";
    const std::string& file = declaring.front();
    EXPECT_EQ(file.rfind("/register.cpp"), std::string::npos)
        << id << " declared where probes are registered";
    EXPECT_EQ(declared_in.at(file).size(), 1u)
        << file << " declares more than " << id << ": one probe a file";
  }
}

// A test's name has no '/': bench/coll's is bench_coll.
INSTANTIATE_TEST_SUITE_P(Families, ProbeFamilies, ::testing::ValuesIn(families()),
                         [](const auto& family) {
                           std::string name = family.param.folder;
                           std::replace(name.begin(), name.end(), '/', '_');
                           return name;
                         });

// Where a probe's id may be written in product code: its family's folder, and the composition
// root that names every family (bench/cli/probe_families.cpp). Anywhere else it is a fact about
// the probe kept away from it.
TEST(ProbeFiles, NoProductSourceOutsideAProbesFamilyNamesItsId) {
  std::map<std::string, std::string> folder_of;  // probe id -> its family's folder
  for (const Family& family : families()) {
    for (const std::string& id : ids_registered_by(family.register_family)) {
      folder_of[id] = family.folder;
    }
  }
  for (const std::string& id : ids_registered_by(register_all_probes)) {
    if (folder_of.count(id)) continue;
    ASSERT_EQ(id.rfind("coll.", 0), 0u) << id << " is registered by no family this test knows";
    folder_of[id] = "bench/coll";
  }
  ASSERT_GE(folder_of.size(), 30u);
  const std::set<std::string> composition_root = {"bench/cli/probe_families.cpp"};
  // Known facts of one family's probe kept in another, each a change of its own to come; an entry
  // no longer needed fails, so the list only shrinks.
  const std::set<std::pair<std::string, std::string>> known = {
      // fabric.nccl_transport skips one rule for coll.nic_loopback's NCCL logs, which send one
      // node's traffic through the NICs on purpose.
      {"fabric/nccl_transport_probe.cpp", "coll.nic_loopback"},
  };
  std::set<std::pair<std::string, std::string>> seen_known;
  for (const char* root : {"bench", "results", "kernels", "fabric", "storage", "host"}) {
    for (const auto& [file, source] : product_files(root, true)) {
      if (composition_root.count(file)) continue;
      for (const std::string& literal : source.literals) {
        const auto found = folder_of.find(literal);
        if (found == folder_of.end() || file.rfind(found->second + "/", 0) == 0) continue;
        if (known.count({file, literal})) {
          seen_known.insert({file, literal});
          continue;
        }
        ADD_FAILURE() << file << " names \"" << literal << "\", a probe of " << found->second
                      << "/: declare the fact in that probe's own file (its ProbeInfo)";
      }
    }
  }
  EXPECT_EQ(seen_known, known) << "an entry of `known` is no longer needed: take it out";
}

}  // namespace
}  // namespace fabcheck
