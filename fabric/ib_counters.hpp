// IB port counters: which are errors, how wide each is, before/after deltas and saturation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabric/ib_port.hpp"

namespace fabcheck {

// Bit width of a counter ("counters/symbol_error" -> 16); 64 for the extended and hw_counters.
int counter_width_bits(const std::string& key);

// True for counters whose growth means trouble (symbol errors, link downed, receive errors,
// discards, mlx5 out_of_buffer, retries, ...), false for traffic and congestion figures.
bool is_error_counter(const std::string& key);

// True for RoCE congestion counters (mlx5 hw_counters: ECN-marked packets, CNPs sent, handled and
// ignored): their growth under load means the fabric is congested, not that a link is bad.
bool is_congestion_counter(const std::string& key);

struct CounterChange {
  std::string key;  // "counters/symbol_error"
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  std::uint64_t delta = 0;  // after - before (0 when the counter went backwards: reset)
  bool saturated = false;   // narrow counter at its maximum after: growth can no longer be seen
  bool reset = false;       // went backwards: someone cleared the counters
};

// Error counters that grew, reset or sit saturated between two snapshots of one port, by key. A
// counter present in only one snapshot is ignored.
std::vector<CounterChange> error_counter_changes(const CounterSnapshot& before,
                                                 const CounterSnapshot& after);

// Congestion counters that grew between two snapshots of one port, by key.
std::vector<CounterChange> congestion_counter_changes(const CounterSnapshot& before,
                                                      const CounterSnapshot& after);

// Error counters stuck at their maximum in one snapshot ("counters/link_downed" at 255).
std::vector<std::string> saturated_counters(const CounterSnapshot& snapshot);

}  // namespace fabcheck
