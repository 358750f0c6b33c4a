// NcclCollectiveBackend: member choice, id exchange, non-blocking polling with a deadline, abort.
#include "bench/coll/nccl_collective_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_process_settings.hpp"
#include "bench/core/rank_agreement.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/gpu_assignment.hpp"
#include "bench/sys/timer.hpp"
#include "results/units.hpp"

namespace fabcheck {

namespace {

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
  run_on_every_rank(world_, "choosing the GPU of each rank",
                    [&] { choose_members(cuda_visible_devices); });
  if (world_.is_mpi()) refuse_shared_gpus(cuda_visible_devices);

  run_on_every_rank(world_, "creating the NCCL communicators", [&] {
    // A communicator of this process made under forced once-read settings decides this one's
    // transports too: its figures would not be what this probe says they are.
    if (const std::string forced = nccl_transports_forced_reason();
        !forced.empty() && settings_.forced_environment.empty()) {
      throw NcclError("nccl: " + forced);
    }
    note_nccl_process_settings(settings_.forced_environment, probe_id);
    std::filesystem::create_directories(nccl_log_dir(run_dir));
    environment_ = std::make_unique<ScopedEnvironment>(nccl_probe_environment(
        user_nccl_environment(), run_dir, probe_id, settings_.forced_environment));
    runtime_->reread_debug_environment();
    create_communicators();
  });
}

NcclCollectiveBackend::~NcclCollectiveBackend() {
  // A sample queued and never completed (another rank failed in between): let the streams go
  // before the runtime aborts the communicators and frees what they use.
  if (gates_closed_ && runtime_) runtime_->open_gates();
  runtime_.reset();
}

void NcclCollectiveBackend::choose_members(const std::string& cuda_visible_devices) {
  const int devices = runtime_->device_count();
  if (devices <= 0) {
    throw NcclError("nccl: no CUDA device visible on " + world_.host() +
                    (cuda_visible_devices.empty()
                         ? std::string()
                         : " (CUDA_VISIBLE_DEVICES=" + cuda_visible_devices + ")"));
  }
  if (world_.is_mpi()) {
    const GpuAssignment gpu =
        assign_gpu(world_.hosts(), world_.rank(), devices, cuda_visible_devices);
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

// Every rank learns every rank's GPU (bus id) and refuses together when two ranks of a host chose
// the same one: NCCL would refuse it at init, after a wait, with a less helpful message.
void NcclCollectiveBackend::refuse_shared_gpus(const std::string& cuda_visible_devices) {
  std::vector<RankGpu> gpus;
  for (auto& [bus_id, visible] : world_.all_gather_values(
           std::make_pair(members_.front().identity.bus_id, cuda_visible_devices))) {
    gpus.push_back({std::move(bus_id), std::move(visible)});
  }
  const std::string problem = duplicate_gpu_problem(world_.hosts(), gpus);
  if (!problem.empty()) throw ConfigError(problem);
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

NcclCollectiveBackend::NcclCollectiveBackend(std::unique_ptr<NcclRuntime> runtime, World& sub_world,
                                             const NcclCollectiveBackend& parent,
                                             const std::vector<int>& new_ranks)
    : runtime_(std::move(runtime)), world_(sub_world), settings_(parent.settings_) {
  timeout_s_ = parent.timeout_s_;
  deadline_s_ = parent.deadline_s_;
  members_ = parent.members_;
  for (std::size_t m = 0; m < members_.size(); ++m) members_[m].spec.rank = new_ranks.at(m);
  nranks_ = sub_world.size();
}

std::unique_ptr<CollectiveBackend> NcclCollectiveBackend::split(World* sub_world, int color,
                                                                int key) {
  if (aborted_) throw NcclError("nccl: the communicators were aborted after an earlier failure");
  if (members_.size() != 1 || !world_.is_mpi()) {
    throw NcclError("nccl: splitting communicators needs one GPU per rank, under MPI");
  }
  std::vector<int> new_ranks;
  if (color >= 0) {
    if (!sub_world) throw std::logic_error("nccl: split with a color but no sub-world");
    // NCCL orders the split by key, then parent rank; so did World::split: the same ranks.
    new_ranks.push_back(sub_world->rank());
  }
  NcclPoll started;
  auto runtime = runtime_->start_split(color, key, new_ranks, started);
  const std::string what =
      "splitting the communicator of " + std::to_string(nranks_) + " ranks (ncclCommSplit)";
  if (started.state == NcclCommState::failed) {
    abort_and_throw(
        "nccl: " + what + " failed on " + describe_member(members_.front()) + ": " + started.error,
        false);
  }
  wait_for(what, false);  // the parent is busy until the split is done
  if (!runtime) return nullptr;
  std::unique_ptr<NcclCollectiveBackend> child(
      new NcclCollectiveBackend(std::move(runtime), *sub_world, *this, new_ranks));
  child->wait_for(
      "creating a communicator of " + std::to_string(child->nranks_) + " ranks by ncclCommSplit",
      false);
  return child;
}

bool NcclCollectiveBackend::supports(const Collective& collective, Placement placement) const {
  return collective.nccl_layout.supports(placement);
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
  return operation_.collective->name() + " (" + placement_title(operation_.placement) + ", " +
         format_bytes(operation_.shape.size_bytes) + ")";
}

void NcclCollectiveBackend::require_usable() const {
  if (aborted_) throw NcclError("nccl: the communicators were aborted after an earlier failure");
  if (!prepared_) throw NcclError("nccl: an operation was requested before prepare()");
}

void NcclCollectiveBackend::prepare(const Collective& collective, Placement placement,
                                    const CollectiveShape& shape, const verify::Element& element) {
  if (aborted_) require_usable();
  operation_ = {&collective, placement, shape, nranks_, element};
  for (std::size_t m = 0; m < members_.size(); ++m) runtime_->prepare(m, operation_);
  prepared_ = true;
}

void NcclCollectiveBackend::fill_inputs(std::uint32_t seed) {
  require_usable();
  for (std::size_t m = 0; m < members_.size(); ++m) runtime_->fill(m, operation_, seed);
}

void NcclCollectiveBackend::enqueue(int count, const std::string& what) {
  for (int i = 0; i < count; ++i) {
    const NcclPoll queued = runtime_->enqueue(operation_);
    if (queued.state == NcclCommState::failed) {
      abort_and_throw("nccl: queueing " + what + " failed on " + describe_member(members_.front()) +
                          ": " + queued.error,
                      false);
    }
    // A non-blocking communicator launches on a thread of NCCL's own (ncclGroupEnd answers
    // ncclInProgress): the next operation may be queued only once this one is.
    if (queued.state == NcclCommState::in_progress)
      wait_for("queueing " + what, false, gates_closed_);
  }
}

void NcclCollectiveBackend::run_untimed(int count) {
  require_usable();
  const std::string what = std::to_string(count) + " x " + describe_operation();
  enqueue(count, what);
  wait_for(what, true);
}

// The timed sample: gates closed, start event, the operations, stop event. Nothing runs on the GPU
// until complete_sample() opens the gates, so the interval between the events holds the operations
// back to back and none of the host's launching and polling.
void NcclCollectiveBackend::queue_sample(int count) {
  require_usable();
  if (gates_closed_) throw NcclError("nccl: a timed sample was queued twice");
  runtime_->close_gates();
  gates_closed_ = true;
  released_early_this_sample_ = false;
  try {
    runtime_->record_start();
    enqueue(count, std::to_string(count) + " x " + describe_operation());
    runtime_->record_stop();
  } catch (...) {
    open_gates();
    throw;
  }
  queued_ = count;
}

double NcclCollectiveBackend::complete_sample() {
  require_usable();
  if (queued_ == 0) throw NcclError("nccl: complete_sample() without a queued sample");
  const std::string what = std::to_string(queued_) + " x " + describe_operation();
  queued_ = 0;
  open_gates();
  if (released_early_this_sample_) ++released_early_;
  wait_for(what, true);
  double slowest = 0;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    slowest = std::max(slowest, runtime_->elapsed_s(m));
  }
  return slowest;
}

void NcclCollectiveBackend::open_gates() {
  if (!gates_closed_) return;
  gates_closed_ = false;
  runtime_->open_gates();
}

std::vector<std::uint64_t> NcclCollectiveBackend::count_wrong(std::uint32_t seed) {
  require_usable();
  std::vector<std::uint64_t> wrong;
  for (std::size_t m = 0; m < members_.size(); ++m) {
    wrong.push_back(runtime_->count_wrong(m, operation_, seed));
  }
  return wrong;
}

void NcclCollectiveBackend::wait_for(const std::string& what, bool streams, bool gated) {
  const double patience_ends = now_seconds() + settings_.gate_patience_s;
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
    const double now = now_seconds();
    if (gated && gates_closed_ && now >= patience_ends) {
      // NCCL's launch waits for the GPU (its work FIFO is full): holding the streams any longer
      // would deadlock. This sample now includes host time; the engine records that.
      open_gates();
      released_early_this_sample_ = true;
    }
    if (now >= deadline_s_) {
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
  open_gates();
  if (!aborted_) {
    aborted_ = true;
    runtime_->abort_all();
  }
  throw NcclError(message, timed_out);
}

}  // namespace fabcheck
