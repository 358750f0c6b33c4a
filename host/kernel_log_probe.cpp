// node.kernel_log: this node's kernel log over a window (default 24 h) from the journal (every boot
// it kept) or else /dev/kmsg (this boot), scanned for Xid, SXid, link flaps, PCIe limits and AER.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "bench/sys/child_process.hpp"
#include "host/kernel_log_file.hpp"
#include "host/kernel_log_scan.hpp"
#include "results/line_input.hpp"

namespace fabcheck {
namespace {

constexpr double kJournalTimeout_s = 20;

double clock_s(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// The journal's kernel messages since `since_s`, every boot it kept. Returns why not, or "".
std::string scan_journal(double since_s, KernelLogScan& scan, std::size_t& lines) {
  const std::string journalctl = find_in_path("journalctl");
  if (journalctl.empty()) return "journalctl not found";
  char since[32];
  std::snprintf(since, sizeof since, "--since=@%lld", static_cast<long long>(since_s));
  ChildProcess child(
      {journalctl, "_TRANSPORT=kernel", since, "-o", "short-iso-precise", "--no-pager", "-q"}, {});
  LineSplitter splitter;
  const double now_s = clock_s(CLOCK_REALTIME);
  const LineHandler add = [&](std::string_view line, std::size_t number, bool) {
    scan.add_line(line, "journal", number, now_s);
  };
  const ChildResult result =
      child.wait(kJournalTimeout_s, [&](std::string_view bytes) { splitter.feed(bytes, add); });
  splitter.finish(add);
  lines = splitter.lines();
  if (!result.problem.empty()) return result.problem;
  if (result.timed_out)
    return "journalctl took longer than " + std::to_string(static_cast<int>(kJournalTimeout_s)) +
           " s";
  if (result.exit_code != 0) return "journalctl exited with " + std::to_string(result.exit_code);
  if (lines == 0) return "the journal holds no kernel messages (no persistent journal?)";
  return "";
}

// This boot's ring buffer, one record per read. Returns why not, or "".
std::string scan_kmsg(KernelLogScan& scan) {
  const int fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    std::string why = std::string("/dev/kmsg: ") + std::strerror(error);
    if (error == EPERM || error == EACCES)
      why += " (kernel.dmesg_restrict=1: run as root or with CAP_SYSLOG)";
    return why;
  }
  const double now_s = clock_s(CLOCK_REALTIME);
  std::size_t number = 0;
  char record[16 * 1024];
  while (true) {
    const ssize_t got = ::read(fd, record, sizeof record);
    if (got < 0) {
      if (errno == EINTR || errno == EPIPE) continue;  // EPIPE: overwritten while reading
      break;                                           // EAGAIN: the end
    }
    if (got == 0) break;
    std::string_view text(record, static_cast<std::size_t>(got));
    const std::size_t newline = text.find('\n');  // continuation lines (" KEY=value") follow it
    scan.add_line(text.substr(0, newline), "/dev/kmsg", ++number, now_s);
  }
  ::close(fd);
  return number == 0 ? "/dev/kmsg gave no records" : "";
}

const OptionSpec kWindowHours{
    .key = "kernel_log.window_h",
    .type = OptionType::number,
    .default_value = "24",
    .meaning = "hours of kernel log node.kernel_log judges (0: all it can read)",
    .min = 0,
    .max = 24 * 3650};
const OptionSpec kFlapLimit{.key = "kernel_log.flap_limit",
                            .type = OptionType::integer,
                            .default_value = "5",
                            .meaning = "link downs within 24 h above which a link is flapping",
                            .min = 0,
                            .max = 1e6};
const OptionSpec kLogFile{.key = "kernel_log.file",
                          .type = OptionType::text,
                          .meaning =
                              "a saved kernel log to judge instead of the journal or /dev/kmsg "
                              "(absent: the live log)"};

class KernelLogProbe final : public Probe {
 public:
  KernelLogProbe()
      : Probe({.id = kKernelLogProbe,
               .description = "kernel log over a window (--opt kernel_log.window_h, default 24): "
                              "NVIDIA Xid (Azure's critical list) and NVSwitch SXid by bus id, "
                              "link flaps (more than --opt kernel_log.flap_limit=5 in 24 h), PCIe "
                              "links limited below capability, AER errors; --opt "
                              "kernel_log.file=PATH judges a saved log instead",
               .metrics = kernel_log_metrics(),
               .scope = ProbeScope::host,
               .options = {kWindowHours, kFlapLimit, kLogFile},
               .estimate = fixed_estimate(1, "reads the journal or /dev/kmsg"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"gate"}, {"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::node,
               .repairs = {{"xid_events", "gpu-xid", repair_action::reboot},
                           {"sxid_events", "nvswitch-xid", repair_action::reboot},
                           {"link_flaps", "link-flapping", repair_action::replace_cable},
                           {"pcie_limited", "pcie-link-degraded", repair_action::reseat},
                           {"aer_errors", "pcie-errors", repair_action::reseat},
                           {"", "kernel-log", repair_action::inspect}}}) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;  // one reading per host
    const RunOptions& options = context.options;
    const double window_h = option_number(options, kWindowHours);
    KernelLogPolicy policy;
    policy.flap_limit = static_cast<std::size_t>(option_integer(options, kFlapLimit));
    const std::string file = option_given(options, kLogFile) ? option_text(options, kLogFile) : "";
    const double now_s = clock_s(CLOCK_REALTIME);
    KernelLogWindow window;
    if (window_h > 0) window.since_s = now_s - window_h * 3600;
    window.boot_s = now_s - clock_s(CLOCK_MONOTONIC);
    KernelLogScan scan(window);
    std::string source;
    if (!file.empty()) {
      read_kernel_log_file(file, [&](std::string_view line, std::size_t number, bool) {
        scan.add_line(line, file, number, now_s);
      });
      source = file;
      if (scan.lines() > 0 && scan.recognised_lines() == 0) {
        // Not a kernel log (random bytes, a compression other than gzip): judging its bytes as
        // undated lines would pass whatever it holds.
        Measurement none;
        none.probe = kKernelLogProbe;
        none.metric = "lines_scanned";
        none.unit = "count";
        none.subject = "kernel log";
        none.status = MeasurementStatus::error;
        none.message = file +
                       ": no line a kernel log has (no dmesg, journalctl or syslog time "
                       "stamp, no kernel message fabcheck knows): not judged";
        sink.emit(std::move(none));
        return;
      }
    } else {
      std::size_t journal_lines = 0;
      const std::string journal = scan_journal(window.since_s.value_or(0), scan, journal_lines);
      if (journal.empty()) {
        source = "journal";
      } else {
        scan = KernelLogScan(window);
        const std::string kmsg = scan_kmsg(scan);
        if (!kmsg.empty()) {
          Measurement none;
          none.probe = kKernelLogProbe;
          none.metric = "lines_scanned";
          none.unit = "count";
          none.subject = "kernel log";
          none.status = MeasurementStatus::waived;
          none.message = "kernel log not readable: " + journal + "; " + kmsg;
          sink.emit(std::move(none));
          return;
        }
        source = "/dev/kmsg (this boot only: " + journal + ")";
      }
    }
    for (Measurement& m : kernel_log_measurements(scan, policy, source)) {
      if (window_h > 0) m.params["window_h"] = std::to_string(static_cast<long long>(window_h));
      sink.emit(std::move(m));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_kernel_log_probe() { return std::make_unique<KernelLogProbe>(); }

}  // namespace fabcheck
