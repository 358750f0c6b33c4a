// The NCCL backend on real GPUs (skipped where there is none): every collective and placement runs
// single-process over all visible GPUs, verifies clean on the device, and leaves NCCL's debug log;
// every element type and reduction (--dtype all --op all) verifies clean too.
#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

#include "bench/coll/data_types.hpp"
#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/register.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "tests/unit/coll/nccl_doubles.hpp"

namespace fabcheck {
namespace {

TEST(NcclDevice, EveryCollectiveRunsAndVerifiesOnTheGpus) {
  const CudaAvailability nccl = cuda_availability();
  if (!nccl.available) GTEST_SKIP() << nccl.reason;
  const auto run_dir = std::filesystem::temp_directory_path() /
                       ("fabcheck-nccl-device-" + std::to_string(::getpid()));
  testing::ScriptedWorld world(0, {local_hostname()}, false);
  RunOptions options;
  options.probe_timeout_s = 120;
  auto backend = make_nccl_backend(world, options, run_dir, "coll.device_test");
  ASSERT_EQ(backend->comm_size(), nccl.device_count);
  ASSERT_EQ(backend->member_descriptions().size(), static_cast<std::size_t>(nccl.device_count));
  for (const auto& line : backend->member_descriptions()) std::printf("%s\n", line.c_str());

  const std::vector<std::uint64_t> zeros(static_cast<std::size_t>(nccl.device_count), 0);
  for (const Collective* entry : all_collectives()) {
    const Collective& collective = *entry;
    for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (!backend->supports(collective, placement)) continue;
      SCOPED_TRACE(collective.name() + " " + placement_name(placement));
      const CollectiveShape shape =
          collective_shape(collective, 4u << 20, backend->comm_size(), sizeof(float));
      backend->prepare(collective, placement, shape, {});
      backend->fill_inputs(11);
      backend->run_untimed(1);
      backend->queue_sample(3);
      // One rank in place: NCCL has nothing to move and launches nothing (the interval may be 0).
      const bool nothing_to_move = backend->comm_size() == 1 && placement == Placement::in_place;
      const double sample_s = backend->complete_sample();
      if (nothing_to_move) {
        EXPECT_GE(sample_s, 0.0);
      } else {
        EXPECT_GT(sample_s, 0.0);
      }
      backend->fill_inputs(12);
      backend->run_untimed(1);
      EXPECT_EQ(backend->count_wrong(12), zeros);
      // Outputs poisoned by a fill and not yet written by an operation count as wrong.
      backend->fill_inputs(13);
      EXPECT_NE(backend->count_wrong(12), zeros);
    }
  }
  // The gate holds the sample until complete_sample(): host time spent in between is not in it.
  const CollectiveShape small = collective_shape(find_collective("all_reduce"), 1u << 20,
                                                 backend->comm_size(), sizeof(float));
  backend->prepare(find_collective("all_reduce"), Placement::out_of_place, small, {});
  backend->fill_inputs(14);
  backend->run_untimed(2);
  backend->queue_sample(4);
  ::usleep(200000);
  const double sample_s = backend->complete_sample();
  EXPECT_GT(sample_s, 0.0);
  EXPECT_LT(sample_s, 0.1) << "4 all-reduces of 1 MiB took " << sample_s
                           << " s: the 200 ms the host slept between queueing and release is in it";
  EXPECT_EQ(backend->samples_released_early(), 0);
  backend.reset();
  EXPECT_TRUE(nccl_communicator_created());
  bool log_found = false;
  for (const auto& entry : std::filesystem::directory_iterator(run_dir / "nccl-logs")) {
    log_found |= entry.path().filename().string().rfind("coll.device_test.", 0) == 0;
  }
  EXPECT_TRUE(log_found) << "no NCCL debug log in " << (run_dir / "nccl-logs");
  std::filesystem::remove_all(run_dir);
}

TEST(NcclDevice, EveryTypeAndReductionVerifiesOnTheGpus) {
  const CudaAvailability nccl = cuda_availability();
  if (!nccl.available) GTEST_SKIP() << nccl.reason;
  const auto run_dir = std::filesystem::temp_directory_path() /
                       ("fabcheck-nccl-types-" + std::to_string(::getpid()));
  testing::ScriptedWorld world(0, {local_hostname()}, false);
  RunOptions options;
  options.probe_timeout_s = 120;
  options.extra = {{"dtype", "all"}, {"op", "all"}};
  auto backend = make_nccl_backend(world, options, run_dir, "coll.device_types");
  const std::vector<std::uint64_t> zeros(static_cast<std::size_t>(nccl.device_count), 0);
  for (const Collective* entry : all_collectives()) {
    const Collective& collective = *entry;
    const ElementPlan plan =
        element_plan(options, collective.expected.reduced, "nccl", backend->comm_size());
    for (const verify::Element& element : plan.run) {
      const CollectiveShape shape = collective_shape(collective, 256u << 10, backend->comm_size(),
                                                     verify::element_bytes(element.type));
      SCOPED_TRACE(collective.name() + " " + data_type_name(element.type) + " " +
                   redop_label(element, collective.expected.reduced));
      backend->prepare(collective, Placement::out_of_place, shape, element);
      backend->fill_inputs(21);
      backend->run_untimed(1);
      EXPECT_EQ(backend->count_wrong(21), zeros);
      backend->fill_inputs(22);  // poisoned outputs, not yet written: wrong
      EXPECT_NE(backend->count_wrong(21), zeros);
    }
  }
  backend.reset();
  std::filesystem::remove_all(run_dir);
}

}  // namespace
}  // namespace fabcheck
