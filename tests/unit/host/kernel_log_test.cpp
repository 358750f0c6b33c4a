// Kernel log: time prefixes of every form, message classification, tallies over fixtures
// (synthetic, see tests/fixtures/host/kernel-log/README.md), windows and the flap limit at their
// edges, the judgement, and `fabcheck kernel-log`'s exit codes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "bench/sys/config_error.hpp"
#include "host/kernel_event.hpp"
#include "host/kernel_log_command.hpp"
#include "host/kernel_log_file.hpp"
#include "host/kernel_log_line.hpp"
#include "host/kernel_log_scan.hpp"
#include "host/time_phrase.hpp"
#include "results/line_input.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

// Stamps without a zone are local time: the tests read them as UTC.
const bool kUtc = [] {
  setenv("TZ", "UTC", 1);
  tzset();
  return true;
}();

const std::string kFixtures = std::string(FABCHECK_FIXTURES_DIR) + "/host/kernel-log/";
constexpr double kMar5_2024 = 1709596800;  // 2024-03-05T00:00:00Z

KernelLogScan scan_file(const std::string& name, KernelLogWindow window = {},
                        double reference_s = kMar5_2024 + 86400) {
  KernelLogScan scan(window);
  read_lines(kFixtures + name, "a kernel log",
             [&](std::string_view line, std::size_t number, bool) {
               scan.add_line(line, name, number, reference_s);
             });
  return scan;
}

std::vector<Measurement> of_metric(const std::vector<Measurement>& all, const std::string& metric) {
  std::vector<Measurement> out;
  for (const auto& m : all) {
    if (m.metric == metric) out.push_back(m);
  }
  return out;
}

std::vector<Finding> with_severity(const std::vector<Finding>& all, Severity severity) {
  std::vector<Finding> out;
  for (const auto& f : all) {
    if (f.severity == severity) out.push_back(f);
  }
  return out;
}

TEST(KernelLogLine, ReadsEveryTimePrefix) {
  ASSERT_TRUE(kUtc);
  auto raw = split_kernel_log_line("[ 8841.100231] NVRM: Xid (0000:3b:00): 48, x", 0);
  ASSERT_TRUE(raw.monotonic_s);
  EXPECT_NEAR(*raw.monotonic_s, 8841.100231, 1e-6);
  EXPECT_FALSE(raw.wall_s);
  EXPECT_EQ(raw.message, "NVRM: Xid (0000:3b:00): 48, x");

  auto ctime = split_kernel_log_line("[Tue Mar  5 10:21:33 2024] NVRM: hello", 0);
  ASSERT_TRUE(ctime.wall_s);
  EXPECT_DOUBLE_EQ(*ctime.wall_s, kMar5_2024 + 10 * 3600 + 21 * 60 + 33);
  EXPECT_EQ(ctime.message, "NVRM: hello");

  auto iso = split_kernel_log_line(
      "2024-03-05T11:40:00.500000+01:00 gpu-node-07 kernel: nvidia-nvswitch3: SXid", 0);
  ASSERT_TRUE(iso.wall_s);
  EXPECT_DOUBLE_EQ(*iso.wall_s, kMar5_2024 + 10 * 3600 + 40 * 60 + 0.5);
  EXPECT_EQ(iso.message, "nvidia-nvswitch3: SXid");

  // dmesg --time-format iso: comma before the fraction, no host; the interface stays.
  auto dmesg_iso =
      split_kernel_log_line("2024-03-05T10:00:00,250000+0000 ixgbe eth0: NIC Link is Down", 0);
  ASSERT_TRUE(dmesg_iso.wall_s);
  EXPECT_DOUBLE_EQ(*dmesg_iso.wall_s, kMar5_2024 + 36000.25);
  EXPECT_EQ(dmesg_iso.message, "ixgbe eth0: NIC Link is Down");

  // Classic syslog: no year, taken from the reference; printk's own stamp after the tag.
  auto syslog = split_kernel_log_line(
      "Mar  5 13:05:10 gpu-node-07 kernel: [ 9120.552001] mlx5_core 0000:4d:00.0: FW",
      kMar5_2024 + 86400);
  ASSERT_TRUE(syslog.wall_s);
  EXPECT_DOUBLE_EQ(*syslog.wall_s, kMar5_2024 + 13 * 3600 + 5 * 60 + 10);
  ASSERT_TRUE(syslog.monotonic_s);
  EXPECT_EQ(syslog.message, "mlx5_core 0000:4d:00.0: FW");
  // A December line read in January belongs to the year before.
  auto december = split_kernel_log_line("Dec 31 23:59:59 host kernel: x", kMar5_2024);
  ASSERT_TRUE(december.wall_s);
  EXPECT_DOUBLE_EQ(*december.wall_s, kMar5_2024 - 65 * 86400 + 86399);

  auto journal =
      split_kernel_log_line("Mar 05 12:00:01 gpu-node-07 kernel: NVRM: x", kMar5_2024 + 86400);
  ASSERT_TRUE(journal.wall_s);
  EXPECT_EQ(journal.message, "NVRM: x");

  auto kmsg = split_kernel_log_line("4,1234,8841100231,-;NVRM: Xid (PCI:0000:3b:00): 79, x", 0);
  ASSERT_TRUE(kmsg.monotonic_s);
  EXPECT_NEAR(*kmsg.monotonic_s, 8841.100231, 1e-6);
  EXPECT_EQ(kmsg.message, "NVRM: Xid (PCI:0000:3b:00): 79, x");

  auto bare = split_kernel_log_line("NVRM: Xid (PCI:0000:3b:00): 79, x", 0);
  EXPECT_FALSE(bare.wall_s);
  EXPECT_FALSE(bare.monotonic_s);
  EXPECT_EQ(bare.message, "NVRM: Xid (PCI:0000:3b:00): 79, x");

  // Absurd stamps (found by the fuzzer) are not stamps, and no time is formatted out of range.
  EXPECT_FALSE(split_kernel_log_line("[99999999999999999999999.5] x", 0).monotonic_s);
  EXPECT_EQ(format_utc(9.1e39), "out-of-range time");
  // Broken stamps are left in the message, never half-read.
  EXPECT_EQ(split_kernel_log_line("[12x.5] text", 0).message, "[12x.5] text");
  EXPECT_FALSE(split_kernel_log_line("2024-13-05T10:00:00Z text", 0).wall_s);
}

TEST(KernelLogLine, ParsesIsoBounds) {
  EXPECT_EQ(parse_iso_time("2024-03-05T00:00:00Z"), kMar5_2024);
  EXPECT_EQ(parse_iso_time("2024-03-05 02:00:00+02:00"), kMar5_2024);
  EXPECT_EQ(parse_iso_time("2024-03-05"), kMar5_2024);
  EXPECT_FALSE(parse_iso_time("2024-03-05T00:00:00Z trailing"));
  EXPECT_FALSE(parse_iso_time("yesterday"));
  EXPECT_EQ(format_utc(kMar5_2024 + 3661.9), "2024-03-05T01:01:01Z");
  EXPECT_EQ(parse_time_bound("--since", "-24h", kMar5_2024), kMar5_2024 - 86400);
  EXPECT_EQ(parse_time_bound("--since", "-90m", kMar5_2024), kMar5_2024 - 5400);
  EXPECT_EQ(parse_time_bound("--until", "tomorrow", kMar5_2024 + 3600), kMar5_2024 + 86400);
  EXPECT_EQ(parse_time_bound("--since", "2024-03-05 10:00", kMar5_2024), kMar5_2024 + 36000);
  EXPECT_THROW(parse_time_bound("--since", "-24x", kMar5_2024), ConfigError);
}

// A time refused names the option and the value, says what is wrong where a part was read, and
// lists the forms read (parse_time_phrase's tests hold each form).
TEST(KernelLogLine, RefusedBoundsNameOptionValueAndForms) {
  const auto message = [](const std::string& option, const std::string& value) {
    try {
      parse_time_bound(option, value, kMar5_2024);
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string("read");
  };
  const std::string forms = "; expected " + std::string(time_phrase_forms());
  EXPECT_EQ(message("--since", "2026-13-01"),
            "--since \"2026-13-01\": there is no month 13" + forms);
  EXPECT_EQ(message("--until", "25:00"), "--until \"25:00\": there is no hour 25" + forms);
  EXPECT_EQ(message("--since", "yesterdayy"), "--since \"yesterdayy\": not a time" + forms);
  EXPECT_EQ(
      message("--since", "-5x"),
      "--since \"-5x\": no time unit \"x\" (us, ms, s, min, h, d, w, M, y or their names)" + forms);
  EXPECT_EQ(message("--since", ""), "--since \"\": empty" + forms);
  EXPECT_EQ(message("--since", "Thu 2024-03-05"),
            "--since \"Thu 2024-03-05\": 2024-03-05 is a Tuesday, not a Thursday" + forms);
}

TEST(KernelEvent, ReadsXidOfSeveralDriverGenerations) {
  auto modern = classify_kernel_message(
      "NVRM: Xid (PCI:0000:3B:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
      "bus.");
  ASSERT_TRUE(modern);
  EXPECT_EQ(modern->kind, KernelEventKind::xid);
  EXPECT_EQ(modern->device, "0000:3b:00.0");
  EXPECT_EQ(modern->code, 79);
  EXPECT_EQ(modern->detail, "GPU has fallen off the bus.");

  auto with_process = classify_kernel_message(
      "NVRM: Xid (PCI:0000:3b:00): 31, pid=2391, name=python3, Ch 00000008, intr 10000000.");
  ASSERT_TRUE(with_process);
  EXPECT_EQ(with_process->code, 31);
  EXPECT_EQ(with_process->detail, "Ch 00000008, intr 10000000.");

  auto old =
      classify_kernel_message("NVRM: Xid (0000:03:00): 48, An uncorrectable double bit error");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->device, "0000:03:00.0");
  EXPECT_EQ(old->code, 48);

  EXPECT_FALSE(classify_kernel_message("NVRM: Xid (PCI:0000:3b:00): x79, broken"));
  EXPECT_FALSE(classify_kernel_message("NVRM: GPU at PCI:0000:3b:00: GPU-b6c3b2be"));
  EXPECT_EQ(xid_severity(79, ""), XidSeverity::critical);
  EXPECT_EQ(xid_severity(13, ""), XidSeverity::informational);
  EXPECT_EQ(xid_severity(95, ""), XidSeverity::needs_reset);
  EXPECT_EQ(
      xid_severity(154, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"),
      XidSeverity::needs_reset);
  EXPECT_EQ(
      xid_severity(154, "GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)"),
      XidSeverity::informational);
}

TEST(KernelEvent, ReadsSxidAerPcieAndLinks) {
  auto sxid = classify_kernel_message(
      "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 30 LTSSM Fault Up");
  ASSERT_TRUE(sxid);
  EXPECT_EQ(sxid->kind, KernelEventKind::sxid);
  EXPECT_EQ(sxid->device, "0000:05:00.0");
  EXPECT_EQ(sxid->code, 20034);
  EXPECT_EQ(sxid->severity, "Fatal");
  EXPECT_EQ(sxid->detail, "Link 30 LTSSM Fault Up");
  // Detail lines of the same SXid carry no severity: not a second event.
  EXPECT_FALSE(classify_kernel_message(
      "nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 28006, Severity 0 Engine instance 46"));

  auto aer = classify_kernel_message(
      "nvme 0000:5d:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer");
  ASSERT_TRUE(aer);
  EXPECT_EQ(aer->kind, KernelEventKind::aer);
  EXPECT_EQ(aer->device, "0000:5d:00.0");
  EXPECT_EQ(aer->severity, "Uncorrected (Fatal)");
  EXPECT_EQ(classify_kernel_message("nvidia 0000:18:00.0: PCIe Bus Error: severity=Correctable, "
                                    "type=Data Link Layer, (Transmitter ID)")
                ->severity,
            "Corrected");
  EXPECT_EQ(classify_kernel_message("x 0000:18:00.0: PCIe Bus Error: severity=Uncorrectable "
                                    "(Non-Fatal), type=Transaction Layer")
                ->severity,
            "Uncorrected (Non-Fatal)");

  auto limited = classify_kernel_message(
      "mlx5_core 0000:c1:00.0: 126.016 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 "
      "link at 0000:c0:01.1 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->kind, KernelEventKind::pcie_limited);
  EXPECT_EQ(limited->device, "0000:c1:00.0");
  EXPECT_NE(limited->detail.find("x8 link at 0000:c0:01.1"), std::string::npos);
  EXPECT_FALSE(classify_kernel_message(
      "mlx5_core 0000:c2:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)"));
  EXPECT_TRUE(classify_kernel_message(
      "mlx5_core 0000:81:00.0: PCIe link width is x8, device supports x16"));
  EXPECT_FALSE(classify_kernel_message(
      "mlx5_core 0000:81:00.0: PCIe link width is x16, device supports x16"));

  auto down = classify_kernel_message("mlx5_core 0000:0c:00.0 ens1f0: Link down");
  ASSERT_TRUE(down);
  EXPECT_EQ(down->kind, KernelEventKind::link_down);
  EXPECT_EQ(down->device, "ens1f0");
  EXPECT_EQ(classify_kernel_message("ib0: Lost carrier")->device, "ib0");
  EXPECT_EQ(classify_kernel_message("ixgbe 0000:02:00.1 eth3: NIC Link is Down")->kind,
            KernelEventKind::link_down);
  auto bond = classify_kernel_message(
      "bond0: (slave ens2f1): link status definitely down, disabling slave");
  ASSERT_TRUE(bond);
  EXPECT_EQ(bond->device, "ens2f1");
  EXPECT_EQ(bond->kind, KernelEventKind::link_down);
  auto module = classify_kernel_message(
      "mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged");
  ASSERT_TRUE(module);
  EXPECT_EQ(module->device, "0000:c1:00.0 module 0");
  EXPECT_FALSE(
      classify_kernel_message("IPv6: ADDRCONF(NETDEV_CHANGE): ens1f0: link becomes ready"));
}

TEST(KernelLogScan, Xid79FailsNamingTheGpuAndApplicationXidsAreNotes) {
  const auto scan = scan_file("dmesg_T_xid79.log");
  const auto measurements = kernel_log_measurements(scan, {}, "dmesg_T_xid79.log");
  const auto xids = of_metric(measurements, "xid_events");
  ASSERT_EQ(xids.size(), 2u);
  const auto findings = judge_kernel_log(measurements);
  const auto fails = with_severity(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].subject, "0000:3b:00.0");
  EXPECT_NE(fails[0].message.find("Xid 79 (GPU has fallen off the bus)"), std::string::npos)
      << fails[0].message;
  EXPECT_NE(fails[0].message.find("2024-03-05T10:21:33Z"), std::string::npos);
  EXPECT_NE(fails[0].evidence.find("dmesg_T_xid79.log:8:"), std::string::npos) << fails[0].evidence;
  EXPECT_NE(fails[0].remedy.find("fell off the PCIe bus"), std::string::npos);
  const auto notes = with_severity(findings, Severity::pass);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].subject, "0000:1b:00.0");
  EXPECT_NE(notes[0].message.find("Xid 13"), std::string::npos);
  EXPECT_NE(notes[0].message.find("2 time(s)"), std::string::npos);
}

TEST(KernelLogScan, RawDmesgOldDriverAerAndLimitedLink) {
  const auto scan = scan_file("dmesg_raw.log");
  EXPECT_EQ(scan.dated_lines(), 0u);
  const auto findings = judge_kernel_log(kernel_log_measurements(scan, {}, "dmesg_raw.log"));
  int xid48 = 0, limited = 0, aer_fatal = 0, aer_corrected = 0;
  for (const auto& f : findings) {
    if (f.metric == "xid_events" && f.message.find("Xid 48") != std::string::npos) {
      EXPECT_EQ(f.severity, Severity::fail);
      ++xid48;
    }
    if (f.metric == "pcie_limited") {
      EXPECT_EQ(f.severity, Severity::fail);
      EXPECT_EQ(f.subject, "0000:c1:00.0");
      ++limited;
    }
    if (f.metric == "aer_errors" && f.subject == "0000:5d:00.0") {
      EXPECT_EQ(f.severity, Severity::fail);
      ++aer_fatal;
    }
    if (f.metric == "aer_errors" && f.subject == "0000:18:00.0") {
      EXPECT_EQ(f.severity, Severity::pass);  // 2 corrected errors, below 100
      EXPECT_EQ(f.observed, 2);
      ++aer_corrected;
    }
  }
  EXPECT_EQ(xid48, 1);
  EXPECT_EQ(limited, 1);
  EXPECT_EQ(aer_fatal, 1);
  EXPECT_EQ(aer_corrected, 1);
}

TEST(KernelLogScan, SxidSeverityAndFlapsOverTheLimit) {
  const auto findings =
      judge_kernel_log(kernel_log_measurements(scan_file("journal_iso.log"), {}, "j"));
  std::map<std::string, Severity> by_subject;
  for (const auto& f : findings) by_subject[f.metric + " " + f.subject] = f.severity;
  EXPECT_EQ(by_subject["sxid_events 0000:05:00.0"], Severity::fail);
  EXPECT_EQ(by_subject["sxid_events 0000:c1:00.0"], Severity::warn);
  EXPECT_EQ(by_subject["link_flaps ens1f0"], Severity::fail);  // 7 downs in 3 h
  EXPECT_EQ(by_subject["link_flaps ib0"], Severity::pass);     // 2
  for (const auto& f : findings) {
    if (f.metric == "sxid_events" && f.subject == "0000:c1:00.0") {
      EXPECT_EQ(f.observed, 1);
    }
  }
}

TEST(KernelLogScan, NetworkdLostCarrierInSyslogCountsAsFlaps) {
  const auto measurements = kernel_log_measurements(scan_file("syslog.log"), {}, "syslog");
  const auto flaps = of_metric(measurements, "link_flaps");
  ASSERT_EQ(flaps.size(), 2u);
  EXPECT_EQ(flaps[0].subject, "ens2f1");
  EXPECT_EQ(flaps[0].value, 1);
  EXPECT_EQ(flaps[1].subject, "ib0");
  EXPECT_EQ(flaps[1].value, 6);
  const auto fails = with_severity(judge_kernel_log(measurements), Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].subject, "ib0");
}

TEST(KernelLogScan, GspAndRecoveryActionXids) {
  const auto findings =
      judge_kernel_log(kernel_log_measurements(scan_file("journal_short.log"), {}, "j"));
  int fails = 0, warns = 0, notes = 0;
  for (const auto& f : findings) {
    EXPECT_EQ(f.subject, "0000:9b:00.0");
    fails += f.severity == Severity::fail;
    warns += f.severity == Severity::warn;
    notes += f.severity == Severity::pass;
  }
  EXPECT_EQ(fails, 1);  // 119
  EXPECT_EQ(warns, 1);  // 154 asking for a reset
  EXPECT_EQ(notes, 1);  // 154 back to none
}

TEST(KernelLogScan, WindowEdgesAreIncluded) {
  KernelLogWindow window;
  window.since_s = kMar5_2024 + 10 * 3600;
  window.until_s = kMar5_2024 + 11 * 3600;
  auto xids = of_metric(kernel_log_measurements(scan_file("window_edges.log", window), {}, "w"),
                        "xid_events");
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_EQ(xids[0].subject, "0000:2a:00.0");
  EXPECT_EQ(xids[1].subject, "0000:3a:00.0");
  window.since_s = *window.since_s + 1;
  window.until_s = *window.until_s - 1;
  EXPECT_TRUE(of_metric(kernel_log_measurements(scan_file("window_edges.log", window), {}, "w"),
                        "xid_events")
                  .empty());
  // Undated lines cannot be placed: they are judged whatever the window.
  auto undated = scan_file("no_timestamps.log", window);
  EXPECT_EQ(undated.undated_lines(), 3u);
  EXPECT_EQ(
      with_severity(judge_kernel_log(kernel_log_measurements(undated, {}, "u")), Severity::fail)
          .size(),
      1u);
}

TEST(KernelLogScan, FlapLimitAtItsEdge) {
  auto flaps_for = [](const std::vector<double>& hours) {
    KernelLogScan scan;
    std::size_t number = 0;
    for (double hour : hours) {
      const std::string line = format_utc(kMar5_2024 + hour * 3600) +
                               " host kernel: mlx5_core "
                               "0000:0c:00.0 ens1f0: Link down";
      scan.add_line(line, "t", ++number, kMar5_2024);
    }
    return judge_kernel_log(kernel_log_measurements(scan, {}, "t"));
  };
  EXPECT_EQ(flaps_for({0, 1, 2, 3, 4})[0].severity, Severity::pass);     // 5: not more than 5
  EXPECT_EQ(flaps_for({0, 1, 2, 3, 4, 5})[0].severity, Severity::fail);  // 6
  // Six in all, but never more than five within 24 h.
  EXPECT_EQ(flaps_for({0, 1, 2, 3, 4, 24.01})[0].severity, Severity::pass);
  EXPECT_EQ(flaps_for({0, 1, 2, 3, 4, 23.99})[0].severity, Severity::fail);
}

TEST(KernelLogCommand, ExitCodesAndRefusals) {
  testing::TempDir dir;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(kernel_log_command({kFixtures + "dmesg_T_xid79.log"}, {}, out), 1);
  EXPECT_EQ(kernel_log_command({kFixtures + "clean.log"}, {}, out), 0);
  EXPECT_EQ(kernel_log_command({kFixtures + "journal_short.log", kFixtures + "clean.log"},
                               {"2099-01-01T00:00:00Z", std::nullopt, 5}, out),
            3);  // every dated line before the window: nothing of that time read
  // Every line dated outside the window, none undated: nothing of that time was read (exit 3);
  // the minutes without seconds journalctl and Slurm write are read (a window from 1970 holds it).
  EXPECT_EQ(kernel_log_command({kFixtures + "journal_short.log"}, {"2099-01-01 00:00", {}, 5}, out),
            3);
  EXPECT_EQ(kernel_log_command({kFixtures + "journal_short.log"}, {"1970-01-02 00:00", {}, 5}, out),
            kernel_log_command({kFixtures + "journal_short.log"}, {}, out));
  EXPECT_EQ(kernel_log_command({(dir.path() / "missing.log").string()}, {}, out), 2);
  EXPECT_EQ(kernel_log_command({dir.path().string()}, {}, out), 2);
  const auto fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(kernel_log_command({fifo.string()}, {}, out), 2);  // refused, not waited on
  testing::write_whole_file(dir.path() / "empty.log", "");
  EXPECT_EQ(kernel_log_command({(dir.path() / "empty.log").string()}, {}, out), 3);
  EXPECT_EQ(kernel_log_command({kFixtures + "clean.log"}, {"last tuesday", {}, 5}, out), 2);
  // An empty bound is given, and refused: not read as no bound.
  EXPECT_EQ(kernel_log_command({kFixtures + "clean.log"}, {"", {}, 5}, out), 2);
  EXPECT_EQ(kernel_log_command({kFixtures + "clean.log"}, {{}, "", 5}, out), 2);
  EXPECT_EQ(kernel_log_command({kFixtures + "clean.log"}, {"2024-03-06", "2024-03-05", 5}, out), 2);
  std::fclose(out);
}

std::string fixture_text(const std::string& name) {
  std::ifstream in(kFixtures + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` as one gzip member, the way logrotate's gzip writes it.
std::string gzipped(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A rotated log (kern.log.2.gz) holding Xid 79 fails as the plain log does (it passed, exit 0,
// its compressed bytes judged as undated lines); so does one whose Xid is in a second member.
TEST(KernelLogFile, GzipRotatedLogsAreReadAndJudged) {
  testing::TempDir dir;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  const std::string xid = fixture_text("dmesg_T_xid79.log");
  const auto rotated = dir.path() / "kern.log.2.gz";
  testing::write_whole_file(rotated, gzipped(xid));
  EXPECT_EQ(kernel_log_command({rotated.string()}, {}, out), 1);
  const auto two = dir.path() / "two-members.gz";
  testing::write_whole_file(two, gzipped(fixture_text("clean.log")) + gzipped(xid));
  EXPECT_EQ(kernel_log_command({two.string()}, {}, out), 1);
  const auto clean = dir.path() / "clean.log.1.gz";
  testing::write_whole_file(clean, gzipped(fixture_text("clean.log")));
  EXPECT_EQ(kernel_log_command({clean.string()}, {}, out), 0);
  std::size_t lines = 0;
  const KernelLogFileStats stats =
      read_kernel_log_file(rotated, [&](std::string_view, std::size_t, bool) { ++lines; });
  EXPECT_TRUE(stats.compressed);
  EXPECT_EQ(stats.bytes, xid.size());
  EXPECT_GT(lines, 0u);
  // Cut short (a rotation being written) or damaged: refused naming the file, nothing judged.
  const std::string whole = gzipped(xid);
  const auto cut = dir.path() / "cut.gz";
  testing::write_whole_file(cut, whole.substr(0, whole.size() / 2));
  EXPECT_EQ(kernel_log_command({cut.string()}, {}, out), 2);
  EXPECT_THROW(read_kernel_log_file(cut, [](std::string_view, std::size_t, bool) {}), ConfigError);
  std::fclose(out);
}

// 50 MB of random bytes is no kernel log: incomplete (exit 3), not PASS (it was exit 0).
TEST(KernelLogCommand, RandomBytesAreNotAKernelLog) {
  testing::TempDir dir;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  std::mt19937_64 random(11);
  std::string bytes(50u << 20, '\0');
  for (std::size_t i = 0; i + 8 <= bytes.size(); i += 8) {
    const std::uint64_t word = random();
    std::memcpy(bytes.data() + i, &word, 8);
  }
  const auto noise = dir.path() / "random.bin";
  testing::write_whole_file(noise, bytes);
  EXPECT_EQ(kernel_log_command({noise.string()}, {}, out), 3);
  // Beside a real log with a FAIL the node still fails; beside a clean one the answer is 3.
  EXPECT_EQ(kernel_log_command({noise.string(), kFixtures + "dmesg_T_xid79.log"}, {}, out), 1);
  EXPECT_EQ(kernel_log_command({kFixtures + "clean.log", noise.string()}, {}, out), 3);
  std::fclose(out);
}

// Property: no random input (plain or gzip-wrapped, 200 of up to 64 KiB) is ever judged PASS.
TEST(KernelLogCommand, RandomInputIsNeverAPass) {
  testing::TempDir dir;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  std::mt19937 random(111);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + random() % 65536, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    if (round % 2 == 1) bytes = gzipped(bytes);
    const auto file = dir.path() / ("r" + std::to_string(round));
    testing::write_whole_file(file, bytes);
    const int code = kernel_log_command({file.string()}, {}, out);
    ASSERT_TRUE(code == 3 || code == 2) << "round " << round << ": exit " << code;
  }
  std::fclose(out);
}

TEST(LineInput, BoundsLongLinesAndRefusesWhatIsNotAFile) {
  testing::TempDir dir;
  const auto file = dir.path() / "long.log";
  testing::write_whole_file(file, std::string(200000, 'x') + "\nshort\r\nlast");
  std::vector<std::pair<std::size_t, bool>> seen;
  std::vector<std::string> text;
  const auto stats = read_lines(
      file, "a kernel log",
      [&](std::string_view line, std::size_t number, bool truncated) {
        seen.emplace_back(line.size(), truncated);
        text.emplace_back(line.substr(0, 5));
        EXPECT_EQ(number, seen.size());
      },
      1000);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(std::size_t{1000}, true));
  EXPECT_EQ(text[1], "short");
  EXPECT_EQ(seen[1].first, 5u);  // "\r" dropped
  EXPECT_EQ(text[2], "last");
  EXPECT_EQ(stats.truncated_lines, 1u);
  try {
    read_lines(dir.path(), "a kernel log", [](std::string_view, std::size_t, bool) {});
    FAIL() << "a directory was read";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fabcheck
