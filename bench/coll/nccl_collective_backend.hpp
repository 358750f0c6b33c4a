// NcclCollectiveBackend: CollectiveBackend over an NcclRuntime. Chooses the GPUs (one per rank
// under MPI, every visible one without), exchanges the unique id, creates non-blocking
// communicators and polls every operation until done or the probe's deadline, then aborts.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_runtime.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

class NcclCollectiveBackend : public CollectiveBackend {
 public:
  // `cuda_visible_devices`: the variable's value ("" when unset), for mapping and labels.
  NcclCollectiveBackend(std::unique_ptr<NcclRuntime> runtime, World& world,
                        const RunOptions& options, const std::filesystem::path& run_dir,
                        const std::string& probe_id, const NcclBackendSettings& settings,
                        const std::string& cuda_visible_devices);

  std::string name() const override { return "nccl"; }
  int comm_size() const override { return nranks_; }
  bool supports(Collective collective, Placement placement) const override;
  std::vector<std::string> member_descriptions() const override;

  void prepare(Collective collective, Placement placement, const CollectiveShape& shape) override;
  void fill_inputs(std::uint32_t seed) override;
  double run_timed(int count) override;
  std::vector<std::uint64_t> count_wrong(std::uint32_t seed) override;

 private:
  struct Member {
    NcclMemberSpec spec;
    std::string label;  // GPU index as people know it
    GpuIdentity identity;
  };

  void choose_members(const std::string& cuda_visible_devices, bool allow_sharing);
  void create_communicators();
  // Polls every member until its communicator is ready (and, with `streams`, its stream idle).
  void wait_for(const std::string& what, bool streams);
  [[noreturn]] void abort_and_throw(const std::string& message, bool timed_out);
  void require_usable() const;
  std::string describe_member(const Member& member) const;
  std::string describe_operation() const;

  std::unique_ptr<NcclRuntime> runtime_;
  World& world_;
  NcclBackendSettings settings_;
  std::vector<Member> members_;
  int nranks_ = 1;
  double deadline_s_ = 0;  // on now_seconds()'s clock
  double timeout_s_ = 0;
  NcclOperation operation_;
  bool prepared_ = false;
  bool aborted_ = false;
};

}  // namespace fabcheck
