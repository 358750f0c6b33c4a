// The IB counter snapshot fabric.ib_ports leaves for fabric.ib_counters: written whatever bytes a
// port's name holds (sysfs names need not be UTF-8; the bare dump() threw type_error.316).
#include "fabric/ib_counter_snapshot.hpp"

#include <gtest/gtest.h>

#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

TEST(IbCounterSnapshot, APortNameThatIsNotUtf8IsWrittenAndReadBack) {
  testing::TempDir dir;
  StoredCounters counters;
  counters.taken_at_s = 12.5;
  counters.ports["mlx5_\xff/1"] = CounterSnapshot{};
  counters.ports["mlx5_0/1"] = CounterSnapshot{};
  const auto file = counter_snapshot_path(dir.path(),
                                          "node\xfe"
                                          "07");
  ASSERT_NO_THROW(save_counter_snapshot(file, counters));
  const auto back = load_counter_snapshot(file);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->ports.size(), 2u);
  EXPECT_EQ(back->ports.count("mlx5_\xEF\xBF\xBD/1"), 1u);
  EXPECT_EQ(back->taken_at_s, 12.5);
}

}  // namespace
}  // namespace fabcheck
