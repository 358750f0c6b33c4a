// coll.node_pairs' shared parts: its options, metrics and records, the matrix read back from its
// measurements, the console text, and the judge that names a slow node or a slow link.
#pragma once

#include <string>
#include <vector>

#include "bench/coll/pair_localisation.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/wire.hpp"
#include "bench/sys/switch_topology.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kNodePairsProbe = "coll.node_pairs";
// The parameter on coll.node_pairs' records naming the gap the run was given (--opt
// pairs.min_gap); absent when the run used the default.
inline constexpr const char* kPairMinGapParam = "min_gap";
// Parameters on coll.node_pairs' records when a topology was given (--opt pairs.topology): the leaf
// switch of the record's host and of its peer, the switches between them ("l1,s0,l2") and the
// file's path.
inline constexpr const char* kHostSwitchParam = "host_switch";
inline constexpr const char* kPeerSwitchParam = "peer_switch";
inline constexpr const char* kSwitchRouteParam = "switch_route";
inline constexpr const char* kTopologyParam = "topology";

// Which pass measured a pair: every pair (first), or suspects re-paired with good nodes (confirm).
enum class PairPass { first, confirm };
const char* pair_pass_name(PairPass pass);  // "first", "confirm"

// --pairs all (circle method, every pair) or quick (ring of neighbours and a few shuffles); bisect
// puts coll.node_bisect in coll.node_pairs' place (the command does), read here as all.
enum class PairSchedule { all, quick };
// The options coll.node_pairs reads: "pairs" (all|quick|bisect), "pairs.min_gap" (0 < gap < 1) and
// its sizes per backend ("node_pairs.sizes.mpi", "node_pairs.sizes.nccl").
const OptionSpec& pair_schedule_option();
const OptionSpec& pair_min_gap_option();
// "pairs.topology": a Slurm topology.conf (topology/tree) naming each node's leaf switch.
const OptionSpec& pair_topology_option();
const OptionSpec& pair_sizes_option(const std::string& backend);
// Their values. Throws ConfigError naming the option and value.
PairSchedule pair_schedule_from(const RunOptions& options);
LocalisationRule localisation_rule_from(const RunOptions& options);
// The gap a run of `probe` (coll.node_pairs, coll.node_bisect) judged by: the one it was given (on
// its records' min_gap), else the profile's [node] pair_min_gap, else 0.5. Throws ConfigError.
LocalisationRule localisation_rule_of_run(const std::vector<Measurement>& measurements,
                                          const std::string& probe, const Profile& profile);
// Throws ConfigError naming the profile's line when its [node] pair_min_gap is not in (0, 1).
void validate_pair_min_gap(const Profile& profile);

// exchange_{time_us,algbw,busbw}, allreduce_{time_us,algbw,busbw}, wrong_elements.
std::vector<MetricSpec> node_pairs_metrics();

// The matrix and the second pass as the measurements hold them: exchange busbw at the largest
// size measured, per pair; nodes in name order.
struct PairRecords {
  PairMatrix first;
  std::vector<PairFigure> confirm;  // node indices into first.nodes()
  std::uint64_t size_bytes = 0;
  NodeGroups groups;     // the leaf switches the records name; empty when none was given
  std::string topology;  // the topology file they came from
};

// The groups of `nodes` by their leaf switch in `topology` (nodes it does not name: in none), with
// the route between every two leaves.
NodeGroups groups_from_topology(const SwitchTopology& topology,
                                const std::vector<std::string>& nodes);
PairRecords pair_records_from(const std::vector<Measurement>& measurements);

// Console text: the matrix (nodes in rows and columns), what the first pass suspects, and what
// the second pass decided.
std::string format_pair_matrix(const PairMatrix& matrix, const std::string& title);
std::string describe_suspects(const PairMatrix& matrix, const PairSuspects& suspects);
std::string describe_localisation(const PairMatrix& matrix, const PairSuspects& suspects,
                                  const Localisation& localisation);

// "64KiB,4MiB"
std::string format_size_list(const std::vector<std::uint64_t>& sizes);

// Findings from coll.node_pairs' measurements: a FAIL per bad node (subject: its host name), per
// bad link (subject "HOST_A--HOST_B") and per slow switch link (subject "uplink of SWITCH", or
// "SWITCH_A--SWITCH_B" for the route between two leaves; host: every node of the two groups, so
// it drains none), a WARN per suspect the second pass could not settle and per block between
// inferred groups, and nothing for a healthy cluster. The rule: the gap the run was given (--opt
// pairs.min_gap, on the records), else the profile's [node] pair_min_gap, else 0.5.
std::vector<Finding> judge_node_pairs(const std::vector<Measurement>& measurements,
                                      const Profile& profile);
Judge make_node_pairs_judge();

// Node pairs cross ranks as typed data.
inline void wire_write(WireWriter& out, const NodePair& value) {
  wire_write(out, value.a);
  wire_write(out, value.b);
}
inline void wire_read(WireReader& in, NodePair& value) {
  wire_read(in, value.a);
  wire_read(in, value.b);
}

}  // namespace fabcheck
