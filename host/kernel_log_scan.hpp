// A kernel log scanned line by line into tallies of hardware events (Xid per GPU and code, SXid,
// AER per device and severity, PCIe links limited, link flaps per interface) over a time window,
// with bounded memory; the tallies as node.kernel_log measurements, and their judgement.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "bench/core/probe.hpp"
#include "host/kernel_event.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kKernelLogProbe = "node.kernel_log";

struct KernelLogWindow {
  std::optional<double> since_s;  // seconds since the epoch; lines before it are left out
  std::optional<double> until_s;  // lines after it are left out (both ends included)
  std::optional<double> boot_s;   // when the machine booted: dates "[seconds since boot]" stamps
};

struct KernelEventTally {
  KernelEvent event;  // the first of them (device, code, severity, text)
  std::size_t count = 0;
  std::optional<double> first_s;  // dated events only
  std::optional<double> last_s;
  std::string example;  // "file:line: the line" of the first, cut to a few hundred characters
};

struct LinkFlapTally {
  std::size_t downs = 0;
  std::vector<double> times;  // of the dated or boot-relative downs (bounded)
  std::string example;
  // Most downs within any `span_s` (all of them when none has a time).
  std::size_t most_within(double span_s) const;
};

class KernelLogScan {
 public:
  explicit KernelLogScan(KernelLogWindow window = {});
  // One line of `source` (a file name or "journal"); `reference_s` dates year-less stamps.
  void add_line(std::string_view line, std::string_view source, std::size_t number,
                double reference_s);

  const KernelLogWindow& window() const { return window_; }
  std::size_t lines() const { return lines_; }
  std::size_t dated_lines() const { return dated_; }
  std::size_t undated_lines() const { return lines_ - dated_; }
  // Lines a kernel log has: a time stamp dmesg, journalctl, syslog or /dev/kmsg writes, or a
  // kernel message fabcheck knows (an Xid, a link down...). Bytes that are not a kernel log (a
  // compressed file, random data) have none.
  std::size_t recognised_lines() const { return recognised_; }
  std::size_t outside_window() const { return outside_; }
  std::size_t events() const { return events_; }
  std::size_t dropped_keys() const { return dropped_keys_; }
  std::optional<double> first_s() const { return first_s_; }
  std::optional<double> last_s() const { return last_s_; }
  // Keyed by kind, device, code, severity.
  const std::map<std::tuple<KernelEventKind, std::string, int, std::string>, KernelEventTally>&
  tallies() const {
    return tallies_;
  }
  const std::map<std::string, LinkFlapTally>& flaps() const { return flaps_; }

 private:
  KernelLogWindow window_;
  std::size_t lines_ = 0;
  std::size_t dated_ = 0;
  std::size_t recognised_ = 0;
  std::size_t outside_ = 0;
  std::size_t events_ = 0;
  std::size_t dropped_keys_ = 0;
  std::optional<double> first_s_;
  std::optional<double> last_s_;
  std::map<std::tuple<KernelEventKind, std::string, int, std::string>, KernelEventTally> tallies_;
  std::map<std::string, LinkFlapTally> flaps_;
};

struct KernelLogPolicy {
  std::size_t flap_limit = 5;        // more link downs than this within flap_span_s: FAIL
  double flap_span_s = 24 * 3600.0;  // "more than 5 in 24 h"
  std::size_t corrected_aer_warn = 100;
};

// The metrics node.kernel_log emits, for Probe::metrics().
std::vector<MetricSpec> kernel_log_metrics();

// Measurements of `scan` under node.kernel_log: xid_events, sxid_events, aer_errors, pcie_limited
// (per device and code/severity, value = count), link_flaps (per interface, value = most downs in
// any policy.flap_span_s) and lines_scanned; params carry what the judgement and people need.
std::vector<Measurement> kernel_log_measurements(const KernelLogScan& scan,
                                                 const KernelLogPolicy& policy,
                                                 const std::string& source);

// Findings for node.kernel_log measurements: critical Xid, fatal SXid, flapping links, limited PCIe
// links and fatal AER errors FAIL; reset-needing Xid, non-fatal SXid and AER, many corrected AER
// errors WARN; the other Xids are listed as PASS notes (usually the application's own faults).
std::vector<Finding> judge_kernel_log(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
