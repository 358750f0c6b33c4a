// NcclCollectiveBackend: member choice, id exchange, non-blocking polling with a deadline, abort.
#include "bench/coll/nccl_collective_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_gpu_assignment.hpp"
#include "bench/core/timer.hpp"
#include "results/units.hpp"

namespace fabcheck {

namespace {

bool option_enabled(const RunOptions& options, const std::string& key) {
  const auto it = options.extra.find(key);
  if (it == options.extra.end()) return false;
  return it->second == "1" || it->second == "true" || it->second == "yes" || it->second == "on";
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace

NcclCollectiveBackend::NcclCollectiveBackend(std::unique_ptr<NcclRuntime> runtime, World& world,
                                             const RunOptions& options,
                                             const std::filesystem::path& run_dir,
                                             const std::string& probe_id,
                                             const NcclBackendSettings& settings,
                                             const std::string& cuda_visible_devices)
    : runtime_(std::move(runtime)), world_(world), settings_(settings) {
  timeout_s_ = options.probe_timeout_s;
  deadline_s_ = now_seconds() + options.probe_timeout_s;
  choose_members(cuda_visible_devices, option_enabled(options, "nccl.share_gpus"));

  std::filesystem::create_directories(nccl_log_dir(run_dir));
  const ScopedEnvironment environment(nccl_probe_environment(
      user_nccl_environment(), run_dir, probe_id, settings_.forced_environment));
  runtime_->reread_debug_environment();
  create_communicators();
}

void NcclCollectiveBackend::choose_members(const std::string& cuda_visible_devices,
                                           bool allow_sharing) {
  const int devices = runtime_->device_count();
  if (devices <= 0) {
    throw NcclError("nccl: no CUDA device visible on " + world_.host() +
                    (cuda_visible_devices.empty()
                         ? std::string()
                         : " (CUDA_VISIBLE_DEVICES=" + cuda_visible_devices + ")"));
  }
  if (world_.is_mpi()) {
    const GpuAssignment gpu =
        assign_gpu(world_.hosts(), world_.rank(), devices, cuda_visible_devices, allow_sharing);
    const bool host_scope = settings_.scope == NcclScope::host;
    members_.push_back({{gpu.ordinal, host_scope ? gpu.local_rank : world_.rank()}, gpu.label, {}});
    nranks_ = host_scope ? gpu.local_size : world_.size();
  } else {
    const auto entries = parse_visible_devices(cuda_visible_devices);
    for (int ordinal = 0; ordinal < devices; ++ordinal) {
      members_.push_back({{ordinal, ordinal}, gpu_label(ordinal, entries), {}});
    }
    nranks_ = devices;
  }
  for (auto& member : members_) member.identity = runtime_->identify(member.spec.device_ordinal);
}

void NcclCollectiveBackend::create_communicators() {
  const auto make_id = [this] { return runtime_->new_unique_id(); };
  const NcclUniqueIdBytes id = settings_.scope == NcclScope::host
                                   ? exchange_unique_id_per_host(world_, make_id)
                                   : exchange_unique_id(world_, make_id);
  std::vector<NcclMemberSpec> specs;
  for (const auto& member : members_) specs.push_back(member.spec);
  const NcclPoll started = runtime_->start_init(specs, nranks_, id);
  if (started.state == NcclCommState::failed) {
    abort_and_throw("nccl: creating the communicator of " + std::to_string(nranks_) +
                        " ranks failed on " + describe_member(members_.front()) + ": " +
                        started.error,
                    false);
  }
  wait_for("creating the communicator of " + std::to_string(nranks_) + " ranks", false);
}

bool NcclCollectiveBackend::supports(Collective collective, Placement placement) const {
  if (placement == Placement::out_of_place) return true;
  // Point-to-point exchanges read and write the same buffer in place: not a defined operation.
  return collective != Collective::alltoall && collective != Collective::sendrecv;
}

std::string NcclCollectiveBackend::describe_member(const Member& member) const {
  return world_.host() + " gpu " + member.label + " (rank " + std::to_string(member.spec.rank) +
         (member.identity.bus_id.empty() ? std::string() : ", " + member.identity.bus_id) + ")";
}

std::vector<std::string> NcclCollectiveBackend::member_descriptions() const {
  std::vector<std::string> lines;
  for (const auto& member : members_) {
    lines.push_back("rank " + std::to_string(member.spec.rank) + " " + world_.host() + " gpu " +
                    member.label + " " + member.identity.bus_id + " " + member.identity.model);
  }
  return lines;
}

std::string NcclCollectiveBackend::describe_operation() const {
  return std::string(collective_name(operation_.collective)) + " (" +
         placement_name(operation_.placement) + "-of-place, " +
         format_bytes(operation_.shape.size_bytes) + ")";
}

void NcclCollectiveBackend::require_usable() const {
  if (aborted_) throw NcclError("nccl: the communicators were aborted after an earlier failure");
  if (!prepared_) throw NcclError("nccl: an operation was requested before prepare()");
}

void NcclCollectiveBackend::prepare(Collective collective, Placement placement,
                                    const CollectiveShape& shape) {
  if (aborted_) require_usable();
  operation_ = {collective, placement, shape, nranks_};
  for (std::size_t m = 0; m < members_.size(); ++m) runtime_->prepare(m, operation_);
  prepared_ = true;
}

void NcclCollectiveBackend::fill_inputs(std::uint32_t seed) {
  require_usable();
  for (std::size_t m = 0; m < members_.size(); ++m) runtime_->fill(m, operation_, seed);
}

double NcclCollectiveBackend::run_timed(int count) {
  require_usable();
  const std::string what = std::to_string(count) + " x " + describe_operation();
  runtime_->record_start();
  for (int i = 0; i < count; ++i) {
    const NcclPoll queued = runtime_->enqueue(operation_);
    if (queued.state == NcclCommState::failed) {
      abort_and_throw("nccl: queueing " + what + " failed on " + describe_member(members_.front()) +
                          ": " + queued.error,
                      false);
    }
    if (queued.state == NcclCommState::in_progress) wait_for("queueing " + what, false);
  }
  runtime_->record_stop();
  wait_for(what, true);
  double slowest = 0;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    slowest = std::max(slowest, runtime_->elapsed_s(m));
  }
  return slowest;
}

std::vector<std::uint64_t> NcclCollectiveBackend::count_wrong(std::uint32_t seed) {
  require_usable();
  std::vector<std::uint64_t> wrong;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    wrong.push_back(runtime_->count_wrong(m, operation_, seed));
  }
  return wrong;
}

void NcclCollectiveBackend::wait_for(const std::string& what, bool streams) {
  auto pause = std::chrono::microseconds(20);
  while (true) {
    std::vector<const Member*> pending;
    for (std::size_t m = 0; m < members_.size(); ++m) {
      const NcclPoll poll = runtime_->poll(m);
      if (poll.state == NcclCommState::failed) {
        abort_and_throw(
            "nccl: " + what + " failed on " + describe_member(members_[m]) + ": " + poll.error,
            false);
      }
      if (poll.state == NcclCommState::in_progress || (streams && !runtime_->stream_idle(m))) {
        pending.push_back(&members_[m]);
      }
    }
    if (pending.empty()) return;
    if (now_seconds() >= deadline_s_) {
      std::string names;
      for (const Member* member : pending) {
        names += (names.empty() ? "" : "; ") + describe_member(*member);
      }
      abort_and_throw("nccl: " + what + " did not complete within the probe timeout of " +
                          format_seconds(timeout_s_) + " s on " + names + "; communicators aborted",
                      true);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

void NcclCollectiveBackend::abort_and_throw(const std::string& message, bool timed_out) {
  if (!aborted_) {
    aborted_ = true;
    runtime_->abort_all();
  }
  throw NcclError(message, timed_out);
}

}  // namespace fabcheck
