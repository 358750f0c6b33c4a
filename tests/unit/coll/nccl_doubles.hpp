// Test doubles for the NCCL backend's host-side tests: a World whose collectives are scripted, and
// an NcclRuntime that runs the collectives on host memory for every member of one process and
// records the order of the calls that time a sample (gates, events, launches).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/coll/buffer_layout.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_runtime.hpp"
#include "bench/coll/verification.hpp"
#include "bench/core/world.hpp"

namespace fabcheck::testing {

// One rank's view of a world: gather/broadcast return what the test scripted for the other ranks
// and record what this rank sent.
class ScriptedWorld final : public World {
 public:
  ScriptedWorld(int rank, std::vector<std::string> hosts, bool mpi) : mpi_(mpi) {
    set_layout(rank, std::move(hosts));
  }

  bool is_mpi() const override { return mpi_; }
  void barrier() override {}
  void max_in_place(std::vector<double>&) override {}
  void sum_in_place(std::vector<double>&) override {}
  std::vector<std::string> gather_to_root(const std::string& mine) override {
    gathered_mine.push_back(mine);
    if (!is_root()) return {};
    std::vector<std::string> all = gather_reply;
    all.resize(static_cast<std::size_t>(size()));
    all[static_cast<std::size_t>(rank())] = mine;
    return all;
  }
  std::string broadcast_from_root(const std::string& value) override {
    broadcast_sent.push_back(value);
    return is_root() ? value : broadcast_reply;
  }
  void checkpoint(const std::string&, double) override {}

  std::vector<std::string> gather_reply;  // the root's gather result (its own entry is replaced)
  std::string broadcast_reply;            // what a non-root rank receives
  std::vector<std::string> gathered_mine;
  std::vector<std::string> broadcast_sent;

 private:
  bool mpi_;
};

inline NcclUniqueIdBytes id_filled_with(std::uint8_t byte) {
  NcclUniqueIdBytes id{};
  id.fill(byte);
  return id;
}

// Runs every operation on host vectors, across the members of this process (a whole
// communicator); each enqueue completes at once unless a fault is scripted.
class FakeNcclRuntime final : public NcclRuntime {
 public:
  struct Shared {  // what the test inspects after the runtime has been handed to the backend
    int devices = 2;
    int first_bus = 5;               // device ordinal o has bus id 0000:<first_bus + o>:00.0
    std::string device_count_error;  // device_count() throws NcclError with it when not empty
    std::string model = "Fake H200";
    NcclUniqueIdBytes id = id_filled_with(0xab);
    int init_in_progress_polls = 0;  // poll() answers in_progress this many times after start_init
    NcclPoll init_result;
    std::set<std::size_t> hung_members;  // their stream never becomes idle after an enqueue
    std::map<std::size_t, std::string> failing_members;  // poll() after an enqueue fails with text
    std::map<std::size_t, std::uint64_t> corrupt_elements;  // outputs spoiled after each enqueue
    std::map<std::size_t, double> elapsed;                  // seconds per member
    // NCCL's launch thread: poll() answers in_progress this many times after each enqueue.
    int enqueue_in_progress_polls = 0;
    // NCCL's launch waits for the GPU (work FIFO full): after this many enqueues with the gates
    // closed, poll() answers in_progress until the gates open.
    int enqueues_before_launch_blocks = -1;
    std::string enqueue_error;  // enqueue() fails with this text when not empty
    NcclPoll split_result;      // what start_split reports
    // Observed:
    int nranks = 0;
    std::vector<NcclMemberSpec> specs;
    NcclUniqueIdBytes init_id{};
    int unique_ids_made = 0;
    int polls = 0;
    int aborts = 0;
    int rereads = 0;
    int enqueues = 0;
    // The element type and reduction of each operation enqueued (the runtime's buffers stay float:
    // this double moves and checks float data whatever the element, as before --dtype).
    std::vector<verify::Element> enqueued_elements;
    std::map<std::string, std::string> env_at_init;           // NCCL_* seen by start_init
    std::map<std::string, std::string> env_at_first_enqueue;  // ... by the first enqueue
    bool gates_closed = false;
    // The calls that matter to timing, in order: "close", "start", "enqueue", "stop", "open",
    // "poll", "idle", "elapsed", "abort". ("poll" and "idle" only while a sample is open.)
    std::vector<std::string> calls;
    std::vector<std::pair<int, int>> split_calls;         // (color, key) of each start_split
    std::vector<std::unique_ptr<Shared>> split_children;  // the state of each split runtime
  };
  static constexpr const char* kEnvNames[] = {
      "NCCL_DEBUG",       "NCCL_DEBUG_SUBSYS",  "NCCL_DEBUG_FILE",      "NCCL_P2P_DISABLE",
      "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL", "NCCL_RUNTIME_CONNECT", "NCCL_COMM_BLOCKING"};

  explicit FakeNcclRuntime(Shared& shared) : s_(shared) {}

  int device_count() override {
    if (!s_.device_count_error.empty()) throw NcclError(s_.device_count_error);
    return s_.devices;
  }
  GpuIdentity identify(int ordinal) override {
    char bus[16];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", ordinal + s_.first_bus);
    return {bus, s_.model};
  }
  std::string library_version() override { return "2.28.9"; }
  void reread_debug_environment() override { ++s_.rereads; }
  NcclUniqueIdBytes new_unique_id() override {
    ++s_.unique_ids_made;
    return s_.id;
  }

  NcclPoll start_init(const std::vector<NcclMemberSpec>& members, int nranks,
                      const NcclUniqueIdBytes& id) override {
    s_.specs = members;
    s_.nranks = nranks;
    s_.init_id = id;
    for (const char* name : kEnvNames) {
      if (const char* value = std::getenv(name)) s_.env_at_init[name] = value;
    }
    buffers_.assign(members.size(), {});
    in_progress_left_ = s_.init_in_progress_polls;
    return s_.init_result;
  }

  NcclPoll poll(std::size_t member) override {
    ++s_.polls;
    if (in_sample_) s_.calls.push_back("poll");
    if (launch_blocked_ && s_.gates_closed) return {NcclCommState::in_progress, {}};
    if (in_progress_left_ > 0) {
      --in_progress_left_;
      return {NcclCommState::in_progress, {}};
    }
    const auto failing = s_.failing_members.find(member);
    if (s_.enqueues > 0 && failing != s_.failing_members.end()) {
      return {NcclCommState::failed, failing->second};
    }
    return {};
  }
  bool stream_idle(std::size_t member) override {
    if (in_sample_) s_.calls.push_back("idle");
    if (s_.gates_closed) return false;  // nothing runs behind a closed gate
    return s_.enqueues == 0 || s_.hung_members.count(member) == 0;
  }
  void abort_all() override {
    ++s_.aborts;
    s_.calls.push_back("abort");
  }

  void prepare(std::size_t member, const NcclOperation& op) override {
    const auto layout = layout_of(member, op);
    buffers_[member].send.assign(layout.send_elements, 0.0f);
    buffers_[member].recv.assign(layout.recv_elements, 0.0f);
  }
  void fill(std::size_t member, const NcclOperation& op, std::uint32_t seed) override {
    const auto layout = layout_of(member, op);
    auto& output = layout.in_place ? buffers_[member].send : buffers_[member].recv;
    std::fill(output.begin(), output.end(), -1.0f);
    for (std::uint64_t i = 0; i < layout.input_count; ++i) {
      buffers_[member].send[layout.input_offset + i] =
          verify::input_value(s_.specs[member].rank, i, seed);
    }
  }
  std::uint64_t count_wrong(std::size_t member, const NcclOperation& op,
                            std::uint32_t seed) override {
    const auto layout = layout_of(member, op);
    const auto& output = layout.in_place ? buffers_[member].send : buffers_[member].recv;
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < layout.output_count; ++i) {
      const float expected =
          verify::expected_output(op.collective->expected, s_.specs[member].rank, op.nranks,
                                  op.shape.send_count, op.shape.recv_count, i, seed);
      if (output[layout.output_offset + i] != expected) ++wrong;
    }
    return wrong;
  }

  void close_gates() override {
    s_.gates_closed = true;
    in_sample_ = true;
    s_.calls.push_back("close");
  }
  void open_gates() override {
    s_.gates_closed = false;
    s_.calls.push_back("open");
  }
  void record_start() override { s_.calls.push_back("start"); }
  void record_stop() override { s_.calls.push_back("stop"); }
  NcclPoll enqueue(const NcclOperation& op) override;
  double elapsed_s(std::size_t member) override {
    s_.calls.push_back("elapsed");
    in_sample_ = false;
    const auto it = s_.elapsed.find(member);
    return it == s_.elapsed.end() ? 0.001 : it->second;
  }

  std::unique_ptr<NcclRuntime> start_split(int color, int key, const std::vector<int>& new_ranks,
                                           NcclPoll& started) override {
    s_.split_calls.emplace_back(color, key);
    started = s_.split_result;
    if (color < 0) return nullptr;
    Shared& child = *s_.split_children.emplace_back(std::make_unique<Shared>());
    child.devices = s_.devices;
    child.model = s_.model;
    child.nranks = static_cast<int>(new_ranks.size());
    for (std::size_t m = 0; m < new_ranks.size(); ++m) {
      child.specs.push_back({s_.specs.at(m).device_ordinal, new_ranks[m]});
    }
    auto runtime = std::make_unique<FakeNcclRuntime>(child);
    runtime->buffers_.assign(new_ranks.size(), {});
    return runtime;
  }

 private:
  struct Buffers {
    std::vector<float> send;
    std::vector<float> recv;
  };

  BufferLayout layout_of(std::size_t member, const NcclOperation& op) const {
    return buffer_layout(*op.collective, op.collective->nccl_layout, op.placement, op.shape,
                         s_.specs[member].rank);
  }

  Shared& s_;
  std::vector<Buffers> buffers_;
  int in_progress_left_ = 0;
  bool in_sample_ = false;
  bool launch_blocked_ = false;
  int enqueues_while_closed_ = 0;
};

// Element i of rank r's output, from every rank's input, by a collective's definition: an oracle
// of its own (not the entries' output rules), by the entry's name.
using Movement = std::function<float(const std::vector<std::vector<float>>& inputs, std::size_t r,
                                     std::uint64_t i, const NcclOperation& op)>;
inline const std::map<std::string, Movement>& movements() {
  static const std::map<std::string, Movement> by_name{
      {"all_reduce",
       [](const auto& inputs, std::size_t, std::uint64_t i, const NcclOperation&) {
         float value = 0;
         for (const auto& input : inputs) value += input[i];
         return value;
       }},
      {"all_gather",
       [](const auto& inputs, std::size_t, std::uint64_t i, const NcclOperation& op) {
         return inputs[i / op.shape.send_count][i % op.shape.send_count];
       }},
      {"reduce_scatter",
       [](const auto& inputs, std::size_t r, std::uint64_t i, const NcclOperation& op) {
         float value = 0;
         for (const auto& input : inputs) value += input[r * op.shape.recv_count + i];
         return value;
       }},
      {"broadcast",
       [](const auto& inputs, std::size_t, std::uint64_t i, const NcclOperation& op) {
         return inputs[static_cast<std::size_t>(op.collective->root)][i];
       }},
      {"alltoall",
       [](const auto& inputs, std::size_t r, std::uint64_t i, const NcclOperation& op) {
         const std::uint64_t block = op.shape.send_count / inputs.size();
         return inputs[i / block][r * block + i % block];
       }},
      {"sendrecv", [](const auto& inputs, std::size_t r, std::uint64_t i, const NcclOperation&) {
         const std::size_t n = inputs.size();
         return inputs[(r + n - 1) % n][i];
       }}};
  return by_name;
}

// The data movement of each collective, on the members' host buffers (member index = rank).
inline NcclPoll FakeNcclRuntime::enqueue(const NcclOperation& op) {
  if (!s_.enqueue_error.empty()) return {NcclCommState::failed, s_.enqueue_error};
  if (s_.enqueues == 0) {
    for (const char* name : kEnvNames) {
      if (const char* value = std::getenv(name)) s_.env_at_first_enqueue[name] = value;
    }
  }
  ++s_.enqueues;
  s_.enqueued_elements.push_back(op.element);
  s_.calls.push_back("enqueue");
  in_progress_left_ = s_.enqueue_in_progress_polls;
  if (s_.gates_closed) {
    ++enqueues_while_closed_;
    launch_blocked_ = s_.enqueues_before_launch_blocks >= 0 &&
                      enqueues_while_closed_ > s_.enqueues_before_launch_blocks;
  } else {
    enqueues_while_closed_ = 0;
    launch_blocked_ = false;
  }
  const std::size_t n = buffers_.size();
  std::vector<std::vector<float>> inputs(n);
  for (std::size_t r = 0; r < n; ++r) {
    const auto layout = layout_of(r, op);
    const auto& send = buffers_[r].send;
    inputs[r].assign(
        send.begin() + static_cast<std::ptrdiff_t>(layout.input_offset),
        send.begin() + static_cast<std::ptrdiff_t>(layout.input_offset + layout.input_count));
  }
  const std::uint64_t recv_count = op.shape.recv_count;
  const Movement& movement = movements().at(op.collective->name());
  for (std::size_t r = 0; r < n; ++r) {
    const auto layout = layout_of(r, op);
    auto& buffer = layout.in_place ? buffers_[r].send : buffers_[r].recv;
    float* out = buffer.data() + layout.output_offset;
    for (std::uint64_t i = 0; i < recv_count; ++i) out[i] = movement(inputs, r, i, op);
    const auto corrupt = s_.corrupt_elements.find(r);
    if (corrupt != s_.corrupt_elements.end()) {
      for (std::uint64_t i = 0; i < corrupt->second && i < recv_count; ++i) out[i] += 100.0f;
    }
  }
  if (launch_blocked_ || in_progress_left_ > 0) return {NcclCommState::in_progress, {}};
  return {};
}

}  // namespace fabcheck::testing
