// Profile: expected figures per probe, metric and size range, loaded from TOML
// (results/profiles/*.toml).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/metric_catalog.hpp"

namespace fabcheck {

// Which runs an expectation judges, beyond probe, metric and size: the collective backend that
// produced the figure (the measurement's "backend" parameter) and whether its ranks spanned one
// host or several (its "hosts" parameter, else the hosts it names). Unset: any.
enum class HostScope { single, multi };
const char* to_string(HostScope scope);  // "single", "multi"

struct Expectation {
  std::string probe;   // exact probe id
  std::string metric;  // a metric the probe emits (checked against the catalog)
  std::string unit;    // must equal the catalog's unit for that metric
  Better better = Better::higher;
  std::string subject;  // a pattern ("gpu*", fnmatch) the subject must match; "" = any subject
  std::optional<std::uint64_t> min_size;  // inclusive; applies to every size when both are absent
  std::optional<std::uint64_t> max_size;  // inclusive
  std::optional<std::string> backend;     // "mpi" or "nccl": only figures of that backend
  std::optional<HostScope> hosts;         // only figures of one host / of several hosts
  // What of the figure is bounded: "" its value; for a time with its samples' statistics (unit
  // "us"), "p99" or "max" of the samples (same unit), or "p99/median" (unit "ratio"; lower is
  // better) — the tail of a collective's operations, size by size.
  std::string stat;
  double pass = 0;  // higher-is-better: observed >= pass passes; lower-is-better: observed <= pass
  double warn = 0;  // between pass and warn (inclusive): WARN; beyond warn: FAIL
  std::string source;  // where the figure comes from
  std::string remedy;  // what to do when it is not met (optional)
  long line = 0;       // line in the profile file, for messages
};

// One level a path can run at, with the range of figures that level gives ("pcie-gen5-x16": 33 to
// 64 GB/s host<->device).
struct Tier {
  std::string name;
  std::string description;
  double min = 0;  // inclusive
  double max = 0;  // inclusive
  std::string source;
  long line = 0;
};

// A kind of path (host<->device, GPU<->GPU, inter-node per NIC), the figures that measure it and
// the tiers it can run at; `expect` names the tier this hardware should reach ("" = none named:
// the peers' median tells).
struct TierPath {
  std::string name;  // "host_device"
  std::string description;
  std::vector<std::pair<std::string, std::string>> figures;  // probe, metric
  std::string unit;
  std::optional<std::uint64_t> min_size;  // figures at smaller sizes do not reach a tier's range
  std::optional<std::uint64_t> max_size;
  double divide_by = 1;  // the figure per unit of the path: a node's figure / its NICs
  std::string per;       // what divide_by counts ("NIC"), for messages
  std::string expect;
  std::vector<Tier> tiers;  // as listed
  long line = 0;
};

struct Profile {
  std::string name;
  std::string description;
  std::string path;  // the file it was read from ("" for one built in code)
  std::vector<Expectation> expectations;
  std::vector<TierPath> paths;  // [[path]] with its [[path.tier]] entries
  // The [node] table: what the node should have, for the family judges (values as text: strings
  // as written, numbers and booleans as TOML writes them), and the line of each key.
  std::map<std::string, std::string> node;
  std::map<std::string, long> node_lines;
  // The [sdc] table: the site's settings of the SDC screens (keys kSdcProfileKeys; each is the
  // option "sdc.<key>", whose rule the registry checks as it loads the profile), as text, with
  // each key's line. A run takes them over its plan's, --opt over them.
  std::map<std::string, std::string> sdc;
  std::map<std::string, long> sdc_lines;
};

// The keys [sdc] may hold, in alphabetical order.
inline constexpr const char* kSdcProfileKeys[] = {"duration_s", "memory_fraction", "repeats",
                                                  "seed"};

// A [node] value a family judge refuses: throws ConfigError naming the profile's file (its name
// when built in code), the key's line (0 when unknown) and the value:
// "[node] KEY = \"VALUE\": expected WHAT".
[[noreturn]] void refuse_node_setting(const Profile& profile, const std::string& key,
                                      const std::string& expected);

// The [node] number `key` of `profile`, `fallback` when absent; refused (refuse_node_setting:
// "expected a number above FLOOR (MEANING)") when it is not a number above `floor`.
double node_number_above(const Profile& profile, const std::string& key, double floor,
                         double fallback, const std::string& meaning);

// Parses profile text. `source_name` is used in error messages ("generic-cpu.toml:12: ...").
// Throws ConfigError naming file, line and value for syntax errors, unknown keys, unknown probes or
// metrics, unit mismatches, malformed sizes, and thresholds on the wrong side of each other.
// A [node] key not in `node_settings` is an error too.
Profile parse_profile(std::string_view text, const std::string& source_name,
                      const MetricCatalog& catalog, const NodeSettingCatalog& node_settings = {});

// Reads and parses a file; a missing or unreadable file is a ConfigError too.
Profile load_profile(const std::filesystem::path& path, const MetricCatalog& catalog,
                     const NodeSettingCatalog& node_settings = {});

// A NAME is looked up as <dir>/<NAME>.toml in each of `profile_dirs`; anything containing '/' or
// ending in ".toml" is a file path. Throws ConfigError when nothing matches (listing what exists).
std::filesystem::path resolve_profile(const std::string& name_or_file,
                                      const std::vector<std::filesystem::path>& profile_dirs);

}  // namespace fabcheck
