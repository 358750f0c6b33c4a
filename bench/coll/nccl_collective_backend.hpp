// NcclCollectiveBackend: CollectiveBackend over an NcclRuntime. Chooses the GPUs (one per rank
// under MPI, refusing two ranks of a host on one GPU; every visible one without), exchanges the
// unique id, creates non-blocking communicators, times samples with every member's stream held
// behind a spin gate, polls every operation until done or the probe's deadline, then aborts.
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
  // `cuda_visible_devices`: the variable's value ("" when unset), for mapping and labels. Every
  // rank of `world` constructs one together (World collectives inside); a failure on any rank
  // throws on every rank (RankFailure naming it) or NcclError/ConfigError where all fail alike.
  NcclCollectiveBackend(std::unique_ptr<NcclRuntime> runtime, World& world,
                        const RunOptions& options, const std::filesystem::path& run_dir,
                        const std::string& probe_id, const NcclBackendSettings& settings,
                        const std::string& cuda_visible_devices);
  ~NcclCollectiveBackend() override;

  std::string name() const override { return "nccl"; }
  int comm_size() const override { return nranks_; }
  bool supports(const Collective& collective, Placement placement) const override;
  std::vector<std::string> member_descriptions() const override;

  void prepare(const Collective& collective, Placement placement, const CollectiveShape& shape,
               const verify::Element& element) override;
  void fill_inputs(std::uint32_t seed) override;
  void run_untimed(int count) override;
  void queue_sample(int count) override;
  double complete_sample() override;
  std::vector<std::uint64_t> count_wrong(std::uint32_t seed) override;
  int samples_released_early() const override { return released_early_; }
  // A backend on communicators split off this one's by ncclCommSplit (one GPU per rank, under MPI).
  std::unique_ptr<CollectiveBackend> split(World* sub_world, int color, int key) override;

 private:
  // The sub-world's backend over split communicators (split() made `runtime`).
  NcclCollectiveBackend(std::unique_ptr<NcclRuntime> runtime, World& sub_world,
                        const NcclCollectiveBackend& parent, const std::vector<int>& new_ranks);

  struct Member {
    NcclMemberSpec spec;
    std::string label;  // GPU index as people know it
    GpuIdentity identity;
  };

  void choose_members(const std::string& cuda_visible_devices);
  void refuse_shared_gpus(const std::string& cuda_visible_devices);
  void create_communicators();
  // Queues `count` operations, polling NCCL's launch of each until it is ready.
  void enqueue(int count, const std::string& what);
  // Polls every member until its communicator is ready (and, with `streams`, its stream idle).
  // With `gated`, opens the gates when that takes longer than settings.gate_patience_s.
  void wait_for(const std::string& what, bool streams, bool gated = false);
  void open_gates();
  [[noreturn]] void abort_and_throw(const std::string& message, bool timed_out);
  void require_usable() const;
  std::string describe_member(const Member& member) const;
  std::string describe_operation() const;

  // Declared before the runtime: the probe's NCCL_* settings stay set until the communicators are
  // gone. NCCL connects lazily (NCCL_RUNTIME_CONNECT=1, the default) and reads some variables,
  // NCCL_SHM_DISABLE among them, only when the first operation connects.
  std::unique_ptr<ScopedEnvironment> environment_;
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
  bool gates_closed_ = false;
  int queued_ = 0;  // operations of the sample queued behind the gates
  bool released_early_this_sample_ = false;
  int released_early_ = 0;
};

}  // namespace fabcheck
