// Evidence gathered on a failing node, what an engineer asks for next: NCCL's log lines and
// topology dump, nvidia-smi -q, ibstat / ibv_devinfo, the last hour's kernel-log lines that mention
// the failing devices, lspci -vv of each failing bus id. Every command is an argument vector run
// with a time limit (fabric/child_process); every file is cut to a size; a missing tool is noted.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bench/core/evidence.hpp"
#include "results/finding.hpp"

namespace fabcheck {

struct EvidenceLimits {
  double command_timeout_s = 5;         // one command
  double total_s = 20;                  // everything on one node; what is left is skipped, noted
  std::size_t file_bytes = 256 * 1024;  // one file; the rest is cut, with a note
  std::size_t total_bytes = 2u << 20;   // one node; files past it are left out, noted
  double kernel_log_window_s = 3600;    // kernel-log lines this recent
};

// What the failures name on this node: PCI bus ids ("0000:9a:00.0", lower case) and devices known
// here (RDMA devices, network interfaces) that a failure's subject, message or evidence names as a
// word.
struct EvidenceTargets {
  std::vector<std::string> bus_ids;
  std::vector<std::string> devices;
};
EvidenceTargets evidence_targets(const std::vector<Finding>& failures,
                                 const std::vector<std::string>& known_devices);

// RDMA devices (/sys/class/infiniband) and network interfaces (/sys/class/net, not lo) of this
// node, under `sysfs_root`.
std::vector<std::string> local_device_names(const std::filesystem::path& sysfs_root = "/");

// Whether a kernel-log line mentions a target: a bus id in any of the forms the kernel and drivers
// print it ("0000:9a:00.0", "9a:00.0", NVIDIA's "PCI:0000:9a:00"), case-insensitively, or a
// device as a whole word ("mlx5_1", not "mlx5_10").
bool mentions_target(std::string_view line, const EvidenceTargets& targets);

// The NCCL log lines worth reading first (warnings, the network and transports chosen, GDR, the
// NCCL_* settings in effect) from `text`.
std::string nccl_evidence_lines(std::string_view text);

// `text` cut to `limit` bytes with a note saying how much was left out ("at least" when the
// source itself stopped reading).
std::string bounded(std::string text, std::size_t limit, bool source_cut = false);

// Everything above for `failures` on this node; `run_dir` is the run directory (its nccl-logs/).
// Always returns index.txt first: each item, what ran, how it ended, how long, how big.
std::vector<EvidenceFile> gather_evidence(const std::vector<Finding>& failures,
                                          const std::filesystem::path& run_dir,
                                          const EvidenceLimits& limits = {});

}  // namespace fabcheck
