// The run's judge of fabric.nccl_transport: the transports NCCL chose, judged against the profile's
// [node] nccl_* keys when set, else against the evidence of the same host (its active RDMA ports,
// GPU-to-HCA placement) and of the log itself.
#pragma once

#include <filesystem>
#include <vector>

#include "bench/core/registry.hpp"
#include "fabric/nccl_transport_rules.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// nccl_network ("IB", "Socket", "any"), nccl_gdr, nccl_p2p (booleans).
NodeSettingCatalog nccl_transport_node_settings();

// The profile's nccl_* keys; unset ones stay unset (inferred). A profile [[expect]] on the probe's
// socket / GDR / intra-node metrics also counts as an expectation: its threshold judges instead.
// Throws ConfigError naming file, line and value for a malformed key.
NcclTransportExpectations nccl_expectations_from(const Profile& profile);

// What fabric.ib_ports (active_ports) and fabric.topology (nearest_hca_hops, numa nodes) say about
// `host` in these measurements.
NcclNodeEvidence nccl_node_evidence(const std::vector<Measurement>& measurements,
                                    const std::string& host);

// The same from a sysfs tree (`nccl-log --sysfs-root`: the node the log came from, or a recorded
// copy of it): its active RDMA ports and GPU-to-HCA placement.
NcclNodeEvidence nccl_node_evidence_from_sysfs(const std::filesystem::path& sysfs_root);

// Findings for every (host, subject) group of fabric.nccl_transport measurements.
std::vector<Finding> judge_nccl_transport_measurements(
    const std::vector<Measurement>& measurements, const NcclTransportExpectations& expectations);

// For the runner: whole-run scope, so the node's ports and placement are there to be read.
Judge make_nccl_transport_judge();

}  // namespace fabcheck
