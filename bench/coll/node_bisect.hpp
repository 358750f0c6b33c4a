// coll.node_bisect's shared parts: its options, metrics and records, the bisection replayed from
// its records, the console text, and the judge that names a slow node, a slow link or a slow path
// between two halves.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/coll/node_bisection.hpp"
#include "bench/core/registry.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kNodeBisectProbe = "coll.node_bisect";
// Parameters on its records: the step (0: the world), the group's place in its step, its role
// (node_bisection.hpp), its members (bisect_group_name), the node a partner group tests, every
// node of the run in order (on the world's records), and the expected figure when one was given.
inline constexpr const char* kBisectStepParam = "step";
inline constexpr const char* kBisectGroupParam = "group";
inline constexpr const char* kBisectRoleParam = "role";
inline constexpr const char* kBisectMembersParam = "members";
inline constexpr const char* kBisectTestedParam = "tested";
inline constexpr const char* kBisectNodesParam = "nodes";
inline constexpr const char* kBisectExpectParam = "expect_busbw";
// The figure every step is judged by.
inline constexpr const char* kBisectMetric = "allreduce_busbw";

// "node_bisect.size.mpi" / "node_bisect.size.nccl": the all-reduce size of every step.
const OptionSpec& bisect_size_option(const std::string& backend);
// "bisect.expect_busbw": the bus bandwidth (GB/s) a healthy group reaches at that size; 0: none.
const OptionSpec& bisect_expect_option();

// allreduce_{time_us,algbw,busbw}, wrong_elements.
std::vector<MetricSpec> node_bisect_metrics();

// A group as its records and the console name it: "n4..n7" for three or more nodes in a row of
// `nodes`, else the names joined by "," ("n4,n0").
std::string bisect_group_name(const std::vector<std::string>& nodes,
                              const std::vector<int>& members);

// The bisection as the records hold it, replayed step by step.
struct BisectReplay {
  std::vector<std::string> nodes;  // the run's nodes, in the order the bisection numbered them
  std::optional<Bisection> bisection;
  std::string stopped;  // why the records end before the bisection did; "" when it finished
  std::uint64_t size_bytes = 0;
};
// Throws ConfigError on a record's unreadable expected figure.
BisectReplay replay_bisection(const std::vector<Measurement>& measurements, double min_gap);

// Console text: one step's groups with their figures and the step's level; the conclusions.
std::string describe_bisect_step(const Bisection& bisection, int step,
                                 const std::vector<std::string>& nodes);
std::string describe_bisect_conclusions(const Bisection& bisection,
                                        const std::vector<std::string>& nodes);

// Findings from coll.node_bisect's records: a FAIL per slow node (subject and host: its name), per
// slow link ("A--B", host "A,B": drains neither), a WARN per slow path between two halves
// ("n0..n3--n4..n7", host: all their nodes, drains none), per group no good node was left to
// compare with, and when the records end before the bisection did; nothing for a healthy world.
// The gap: the run's (pairs.min_gap on the records), else the profile's [node] pair_min_gap,
// else 0.5.
std::vector<Finding> judge_node_bisect(const std::vector<Measurement>& measurements,
                                       const Profile& profile);
Judge make_node_bisect_judge();

}  // namespace fabcheck
