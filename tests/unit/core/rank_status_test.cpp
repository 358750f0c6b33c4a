// The page a rank shares with its sentinel: values written in one process are read whole in the
// other, again and again; claims of the last words go to the first.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include "bench/core/rank_status.hpp"

namespace fabcheck {
namespace {

TEST(RankStatus, EveryStoreIsReadBackWhole) {
  RankStatus status;
  EXPECT_EQ(status.run_dir.load(), "");
  for (int i = 0; i < 100; ++i) {
    status.begin_step(i, "probe " + std::to_string(i), i * 0.5);
    const auto step = status.step.load();
    ASSERT_TRUE(step.has_value()) << "store " << i << " left the value torn";
    EXPECT_EQ(step->phase, i);
    EXPECT_STREQ(step->label, ("probe " + std::to_string(i)).c_str());
    EXPECT_DOUBLE_EQ(step->timeout_s, i * 0.5);
  }
  EXPECT_EQ(status.step.version(), 100u);
  status.run_dir.store(std::string(5000, 'd'));  // longer than the field: cut
  EXPECT_EQ(status.run_dir.load(), std::string(4095, 'd'));
}

TEST(RankStatus, TheSharedPageCarriesValuesAcrossFork) {
  RankStatus& status = share_rank_status();
  EXPECT_EQ(&status, &rank_status());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    status.begin_step(3, "probe coll.all_reduce", 45);
    status.progress.fetch_add(7);
    status.exit_note.store("interrupted by SIGTERM");
    status.exit_code.store(3);
    ::_exit(0);
  }
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  const auto step = status.step.load();
  ASSERT_TRUE(step.has_value());
  EXPECT_EQ(step->phase, 3);
  EXPECT_STREQ(step->label, "probe coll.all_reduce");
  EXPECT_EQ(status.progress.load(), 7u);
  EXPECT_EQ(status.exit_note.load(), "interrupted by SIGTERM");
  EXPECT_EQ(status.exit_code.load(), 3);
}

TEST(RankStatus, LastWordsGoToTheFirstClaim) {
  RankStatus status;
  EXPECT_TRUE(status.claim_last_words(RankStatus::by_rank));
  // Once: the same claimant coming back (rank 0's sentinel loops until the others are gone) is
  // refused, so the ERROR is recorded once (it was recorded 7 times).
  EXPECT_FALSE(status.claim_last_words(RankStatus::by_rank));
  EXPECT_FALSE(status.claim_last_words(RankStatus::by_sentinel));
  RankStatus sentinel_first;
  EXPECT_TRUE(sentinel_first.claim_last_words(RankStatus::by_sentinel));
  for (int pass = 0; pass < 7; ++pass)
    EXPECT_FALSE(sentinel_first.claim_last_words(RankStatus::by_sentinel));
  EXPECT_FALSE(sentinel_first.claim_last_words(RankStatus::by_rank));
  status.set_ending(Ending::failed, "rank 0 (a) stopped");
  EXPECT_EQ(status.ending_kind(), Ending::failed);
  EXPECT_EQ(status.ending_reason.load(), "rank 0 (a) stopped");
}

}  // namespace
}  // namespace fabcheck
