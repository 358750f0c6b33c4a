// The collective timing loop shared by every backend.
#include "bench/coll/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "bench/coll/collective_stragglers.hpp"
#include "bench/coll/data_types.hpp"
#include "bench/core/rank_agreement.hpp"
#include "bench/core/stats.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

// Each member's wrong elements, on the root, in member order (the members' ranks in the
// communicator), with the host of the process that drives it.
std::vector<RankFigure> gather_wrong_counts(World& world, const std::vector<std::uint64_t>& mine) {
  std::vector<RankFigure> all;
  const auto parts = world.gather_values(mine);
  for (std::size_t process = 0; process < parts.size(); ++process) {
    for (const auto count : parts[process]) {
      all.push_back(
          {static_cast<int>(all.size()), world.hosts()[process], static_cast<double>(count)});
    }
  }
  return all;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// This thread's CPU time: the time it ran, against the wall clock's time it existed.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

std::uint32_t seed_for(std::uint64_t size, Placement placement, int round) {
  return static_cast<std::uint32_t>(size * 2654435761u) ^
         (placement == Placement::in_place ? 0x5bd1e995u : 0u) ^
         static_cast<std::uint32_t>(round) * 0x27d4eb2du;
}

}  // namespace

std::string meaningless_figure_reason(const Collective& collective, Placement placement, int nranks,
                                      const std::string& metric) {
  if (nranks != 1) return {};
  const bool bandwidth = metric == "algbw" || metric == "busbw";
  if (bandwidth && placement == Placement::in_place) {
    return "in place on one rank: input and output are one buffer and nothing moves (NCCL and MPI "
           "return at once), so no bandwidth applies";
  }
  if (metric == "busbw" && bus_factor(collective, nranks) == 0) {
    return "one rank: the bus factor of " + collective.name() +
           " is 0 (nothing crosses a link), so no busbw threshold applies; algbw is the local copy";
  }
  return {};
}

namespace {

// One size and placement on every rank: fill, warm-up, aligned timed samples, verification.
struct SweepStep {
  CollectiveBackend& backend;
  World& world;
  std::string what;  // "coll.all_reduce 64MiB out-of-place", for errors

  void prepare(const Collective& collective, Placement placement, const CollectiveShape& shape,
               const verify::Element& element, std::uint32_t seed) {
    run_on_every_rank(world, "preparing " + what, [&] {
      backend.prepare(collective, placement, shape, element);
      backend.fill_inputs(seed);
    });
  }

  // NCCL connects lazily (NCCL_RUNTIME_CONNECT): at least one untimed operation runs first, so no
  // timed sample pays for connection setup.
  void warm_up(int count) {
    world.mark_progress();
    run_on_every_rank(world, "warm-up of " + what,
                      [&] { backend.run_untimed(std::max(1, count)); });
  }

  // The timing loop: per sample, every rank readies its `ops` operations (held where the backend
  // can hold them), all ranks meet in a barrier, then each lets its operations run and times them.
  // No rank's interval includes waiting for a peer still busy with the previous sample, and no
  // host work sits inside an interval on a backend that can hold its queue.
  // `mine` gets this process's wait in each aligning barrier (the rank that arrives last waits
  // least: collective_stragglers.hpp), its own time per operation and its time off the CPU.
  std::vector<double> timed_samples(int samples_count, int ops, RankSampleTimes& mine) {
    std::vector<double> samples(static_cast<std::size_t>(samples_count));
    mine.wait_s.clear();
    mine.own_s.clear();
    mine.off_cpu_s.clear();
    for (auto& sample : samples) {
      world.mark_progress();
      run_on_every_rank(world, "queueing a timed sample of " + what,
                        [&] { backend.queue_sample(ops); });
      const double entered_s = wall_seconds();
      const double entered_cpu_s = thread_cpu_seconds();
      world.barrier();
      mine.wait_s.push_back(wall_seconds() - entered_s);
      run_on_every_rank(world, "a timed sample of " + what,
                        [&] { sample = backend.complete_sample() / ops; });
      mine.own_s.push_back(sample);
      mine.off_cpu_s.push_back((wall_seconds() - entered_s) -
                               (thread_cpu_seconds() - entered_cpu_s));
    }
    world.max_in_place(samples);  // the slowest rank decides each sample
    return samples;
  }

  std::vector<RankFigure> count_wrong(std::uint32_t seed) {
    run_on_every_rank(world, "filling the check of " + what, [&] { backend.fill_inputs(seed); });
    world.mark_progress();
    std::vector<std::uint64_t> mine;
    run_on_every_rank(world, "checking " + what, [&] {
      backend.run_untimed(1);
      mine = backend.count_wrong(seed);
    });
    return gather_wrong_counts(world, mine);
  }
};

}  // namespace

std::vector<SweepRow> run_collective_sweep(CollectiveBackend& backend, const SweepConfig& config,
                                           World& world, MeasurementSink& sink,
                                           const std::string& probe_id) {
  const Collective& collective = *config.collective;
  const int nranks = backend.comm_size();
  const std::string type = data_type_name(config.element.type);
  const std::string redop = redop_label(config.element, collective.expected.reduced);
  const std::size_t element_size = verify::element_bytes(config.element.type);
  const double factor = bus_factor(collective, nranks);
  const std::string hosts = world.joined_hosts();
  const std::size_t host_count = world.distinct_hosts().size();

  std::vector<std::string> members;
  for (const auto& mine : world.gather_values(backend.member_descriptions())) {
    members.insert(members.end(), mine.begin(), mine.end());
  }
  const int ops_per_sample = std::max(
      1, config.ops_per_sample > 0 ? config.ops_per_sample : backend.preferred_ops_per_sample());
  const int samples_count = std::max(1, config.iters / ops_per_sample);
  if (world.is_root()) {
    std::string note = fmt::format(
        "# {}: backend {}, {} ranks on {} host(s), {} {}, {} warm-up + {} timed samples of {} "
        "operations (ranks aligned per sample)\n",
        probe_id, backend.name(), nranks, host_count, type, redop, std::max(1, config.warmup),
        samples_count, ops_per_sample);
    for (const auto& line : members) note += "#   " + line + "\n";
    sink.note(note);
  }

  std::vector<SweepRow> rows;
  const int steps = static_cast<int>(config.sizes.size());
  if (world.is_root() && config.note_unrun_placements) {
    for (const Placement placement : config.placements) {
      if (backend.supports(collective, placement)) continue;
      sink.note(fmt::format("# {}: {} is not run: the {} backend has no {} {}\n", probe_id,
                            placement_title(placement), backend.name(),
                            placement_title(placement), collective.name()));
    }
  }
  for (std::size_t done = 0; done < config.sizes.size(); ++done) {
    const std::uint64_t size = config.sizes[done];
    if (world.is_root()) sink.step({static_cast<int>(done), steps, "size", format_bytes(size)});
    const CollectiveShape shape = collective_shape(collective, size, nranks, element_size);
    if (shape.size_bytes == 0) {
      if (world.is_root()) {
        sink.note(fmt::format("# {}: {} B is below one {} element per rank; skipped\n", probe_id,
                              size, type));
      }
      continue;
    }
    for (Placement placement : config.placements) {
      if (!backend.supports(collective, placement)) continue;
      const double step_began_s = wall_seconds();
      SweepStep step{backend, world,
                     fmt::format("{} {} {} {} ({})", probe_id, type, redop,
                                 format_bytes(shape.size_bytes), placement_title(placement))};
      step.prepare(collective, placement, shape, config.element, seed_for(size, placement, 0));
      step.warm_up(config.warmup);
      const int released_before = backend.samples_released_early();
      RankSampleTimes mine;
      std::vector<double> samples = step.timed_samples(samples_count, ops_per_sample, mine);
      const auto every_rank =
          config.record_arrivals ? world.gather_values(mine) : std::vector<RankSampleTimes>();
      std::vector<double> released{
          static_cast<double>(backend.samples_released_early() - released_before)};
      world.sum_in_place(released);
      const auto wrong_by_rank = step.count_wrong(seed_for(size, placement, 1));
      // The step's wall time on this rank and the operations it ran (warm-up, timed, the check):
      // what a later plan's estimate reads from these records (measured_sweep_cost.hpp).
      const double step_s = wall_seconds() - step_began_s;
      const double operations = step_operations(config, ops_per_sample);

      SweepRow row;
      row.shape = shape;
      row.placement = placement;
      for (auto& sample : samples) sample *= 1e6;
      row.time_us = compute_stats(samples);
      // Which timed sample was the slowest (1-based), for a finding about a stall.
      const auto slowest = std::max_element(samples.begin(), samples.end());
      row.algbw_gbps = algbw_gbps(shape.size_bytes, row.time_us.median * 1e-6);
      row.busbw_gbps = row.algbw_gbps * factor;
      for (const auto& figure : wrong_by_rank) {
        row.wrong_by_rank.push_back(static_cast<std::uint64_t>(figure.value));
        row.wrong_total += static_cast<std::uint64_t>(figure.value);
      }
      rows.push_back(row);
      if (!world.is_root()) continue;

      Measurement base;
      base.probe = probe_id;
      base.host = hosts;
      base.rank = -1;
      base.subject = "world";
      base.size_bytes = shape.size_bytes;
      base.params = {{"backend", backend.name()},
                     {"type", type},
                     {"redop", redop},
                     {"placement", placement_name(placement)},
                     {"ranks", std::to_string(nranks)},
                     {"hosts", std::to_string(host_count)},
                     {"count", std::to_string(shape.count)},
                     {"ops_per_sample", std::to_string(ops_per_sample)},
                     {"bus_factor", fmt::format("{:.6g}", factor)},
                     {"step_s", fmt::format("{:.6g}", step_s)},
                     {"operations", fmt::format("{:.0f}", operations)}};
      if (released[0] > 0) {
        base.params["samples_with_host_time"] = fmt::format("{:.0f}", released[0]);
      }
      auto emit = [&](const char* metric, double value, const char* unit, bool with_stats) {
        Measurement m = base;
        m.metric = metric;
        m.value = value;
        m.unit = unit;
        if (with_stats) {
          m.stats = row.time_us;
          if (slowest != samples.end()) {
            m.params["max_sample"] =
                fmt::format("{} of {}", slowest - samples.begin() + 1, samples.size());
          }
        }
        const std::string meaningless =
            meaningless_figure_reason(collective, placement, nranks, metric);
        if (!meaningless.empty()) {
          m.status = MeasurementStatus::waived;
          m.message = meaningless;
        }
        sink.emit(std::move(m));
      };
      emit("time_us", row.time_us.median, "us", true);
      emit("algbw", row.algbw_gbps, "GB/s", false);
      emit("busbw", row.busbw_gbps, "GB/s", false);
      Measurement wrong = base;
      wrong.metric = "wrong_elements";
      wrong.value = static_cast<double>(row.wrong_total);
      wrong.unit = "count";
      wrong.by_rank = wrong_by_rank;
      if (row.wrong_total > 0) {
        const std::string known = backend.known_fault(type, redop);
        if (!known.empty()) wrong.params["known_fault"] = known;
      }
      sink.emit(std::move(wrong));

      if (!config.record_arrivals) continue;
      double timed_us = 0;
      for (const double sample_us : samples) timed_us += sample_us * ops_per_sample;
      for (auto& m : arrival_measurements(base, every_rank, world.hosts(), timed_us)) {
        sink.emit(std::move(m));
      }
    }
  }
  if (world.is_root()) sink.step({steps, steps, "size", ""});
  return rows;
}

double assumed_split_seconds(const std::string& backend) { return backend == "nccl" ? 2.0 : 0.2; }

SweepCostModel assumed_sweep_cost(const std::string& backend) {
  // MPI: 0.25 GB/s bus bandwidth and 0.25 GB/s to fill and check, below what a loaded two-core VM
  // measured (busbw 0.39-4.4 GB/s from 1 MiB to 64 MiB); a real node's host memory is faster.
  // Its communicator is duplicated in a fraction of a second.
  if (backend != "nccl")
    return {.latency_s = 50e-6, .busbw_gbps = 0.25, .memory_gbps = 0.25, .setup_s = 0.2};
  // NCCL: 10 GB/s, a PCIe Gen3 x16 path (NVLink and InfiniBand NDR are 10-50x that); the buffers
  // are filled and checked on the GPU; ncclCommInitRank takes seconds.
  return {
      .latency_s = 100e-6, .busbw_gbps = 10, .memory_gbps = 50, .ops_per_sample = 4, .setup_s = 3};
}

double step_operations(const SweepConfig& config, int ops_per_sample) {
  const int ops = std::max(1, ops_per_sample);
  const double samples = std::max(1, config.iters / ops);
  return std::max(1, config.warmup) + samples * ops + 1;
}

double estimated_sweep_seconds(const SweepConfig& config, int nranks, const SweepCostModel& model) {
  const int ops_per_sample =
      std::max(1, config.ops_per_sample > 0 ? config.ops_per_sample : model.ops_per_sample);
  const double operations = step_operations(config, ops_per_sample);
  const Collective& collective = *config.collective;
  const double moved_fraction = std::max(bus_factor(collective, nranks), 0.5);
  double seconds = 0;
  for (std::uint64_t size : config.sizes) {
    const CollectiveShape shape =
        collective_shape(collective, size, nranks, verify::element_bytes(config.element.type));
    if (shape.size_bytes == 0) continue;
    const double bytes = static_cast<double>(shape.size_bytes);
    const double operation_s = model.latency_s + bytes * moved_fraction / (model.busbw_gbps * 1e9);
    const double buffers_s = 3 * bytes / (model.memory_gbps * 1e9);
    seconds +=
        static_cast<double>(config.placements.size()) * (operations * operation_s + buffers_s);
  }
  return seconds;
}

}  // namespace fabcheck
