// RankStatus: the page a rank shares with its sentinel, and this process's current one.
#include "bench/core/rank_status.hpp"

#include <sys/mman.h>

#include <new>
#include <stdexcept>

#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

RankStatus* g_status = nullptr;

}  // namespace

void RankStatus::begin_step(std::int32_t phase, const std::string& label, double timeout_s) {
  RankStep next;
  next.phase = phase;
  next.timeout_s = timeout_s;
  next.started_s = now_seconds();
  std::strncpy(next.label, label.c_str(), sizeof(next.label) - 1);
  step.store(next);
}

RankStatus& rank_status() {
  if (g_status == nullptr) {
    static RankStatus own;
    g_status = &own;
  }
  return *g_status;
}

RankStatus& share_rank_status() {
  void* page = ::mmap(nullptr, sizeof(RankStatus), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw std::runtime_error("cannot map the page shared with the sentinel");
  g_status = new (page) RankStatus();
  return *g_status;
}

}  // namespace fabcheck
