// IB port counters: which are errors, how wide each is, before/after deltas and saturation.
#include "fabric/ib_counters.hpp"

#include <map>
#include <set>

namespace fabcheck {

namespace {

// Widths of the IBA PortCounters attribute (Linux drivers/infiniband/core/sysfs.c).
const std::map<std::string, int>& narrow_widths() {
  static const std::map<std::string, int> widths = {
      {"counters/symbol_error", 16},
      {"counters/link_error_recovery", 8},
      {"counters/link_downed", 8},
      {"counters/port_rcv_errors", 16},
      {"counters/port_rcv_remote_physical_errors", 16},
      {"counters/port_rcv_switch_relay_errors", 16},
      {"counters/port_xmit_discards", 16},
      {"counters/port_xmit_constraint_errors", 8},
      {"counters/port_rcv_constraint_errors", 8},
      {"counters/local_link_integrity_errors", 4},
      {"counters/excessive_buffer_overrun_errors", 4},
      {"counters/VL15_dropped", 16},
      {"counters/port_xmit_wait", 32},
  };
  return widths;
}

const std::set<std::string>& error_keys() {
  static const std::set<std::string> keys = {
      "counters/symbol_error",
      "counters/link_error_recovery",
      "counters/link_downed",
      "counters/port_rcv_errors",
      "counters/port_rcv_remote_physical_errors",
      "counters/port_rcv_switch_relay_errors",
      "counters/port_xmit_discards",
      "counters/port_xmit_constraint_errors",
      "counters/port_rcv_constraint_errors",
      "counters/local_link_integrity_errors",
      "counters/excessive_buffer_overrun_errors",
      "counters/VL15_dropped",
      "hw_counters/out_of_buffer",
      "hw_counters/out_of_sequence",
      "hw_counters/duplicate_request",
      "hw_counters/rnr_nak_retry_err",
      "hw_counters/packet_seq_err",
      "hw_counters/implied_nak_seq_err",
      "hw_counters/local_ack_timeout_err",
  };
  return keys;
}

const std::set<std::string>& congestion_keys() {
  static const std::set<std::string> keys = {
      "hw_counters/np_ecn_marked_roce_packets",
      "hw_counters/np_cnp_sent",
      "hw_counters/rp_cnp_handled",
      "hw_counters/rp_cnp_ignored",
  };
  return keys;
}

std::uint64_t counter_max(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace

int counter_width_bits(const std::string& key) {
  auto it = narrow_widths().find(key);
  return it == narrow_widths().end() ? 64 : it->second;
}

bool is_error_counter(const std::string& key) { return error_keys().count(key) > 0; }

bool is_congestion_counter(const std::string& key) { return congestion_keys().count(key) > 0; }

std::vector<CounterChange> congestion_counter_changes(const CounterSnapshot& before,
                                                      const CounterSnapshot& after) {
  std::vector<CounterChange> changes;
  for (const auto& [key, after_value] : after) {
    if (!is_congestion_counter(key)) continue;
    auto it = before.find(key);
    if (it == before.end() || after_value <= it->second) continue;
    CounterChange change;
    change.key = key;
    change.before = it->second;
    change.after = after_value;
    change.delta = after_value - it->second;
    changes.push_back(change);
  }
  return changes;
}

std::vector<CounterChange> error_counter_changes(const CounterSnapshot& before,
                                                 const CounterSnapshot& after) {
  std::vector<CounterChange> changes;
  for (const auto& [key, after_value] : after) {
    if (!is_error_counter(key)) continue;
    auto it = before.find(key);
    if (it == before.end()) continue;
    CounterChange change;
    change.key = key;
    change.before = it->second;
    change.after = after_value;
    change.reset = after_value < it->second;
    change.delta = change.reset ? 0 : after_value - it->second;
    int bits = counter_width_bits(key);
    change.saturated = bits < 64 && after_value >= counter_max(bits);
    if (change.delta > 0 || change.reset || change.saturated) changes.push_back(change);
  }
  return changes;
}

std::vector<std::string> saturated_counters(const CounterSnapshot& snapshot) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : snapshot) {
    int bits = counter_width_bits(key);
    if (is_error_counter(key) && bits < 64 && value >= counter_max(bits)) keys.push_back(key);
  }
  return keys;
}

}  // namespace fabcheck
