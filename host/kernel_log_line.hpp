// One kernel log line as dmesg, dmesg -T, dmesg --time-format iso, journalctl (short, short-iso,
// short-iso-precise), syslog files and /dev/kmsg write it: its time prefix parsed, the message
// left.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fabcheck {

struct KernelLogLine {
  std::optional<double> wall_s;       // seconds since the epoch (UTC), when the line has a date
  std::optional<double> monotonic_s;  // seconds since boot ("[12345.678901]", /dev/kmsg)
  std::string_view message;           // "NVRM: Xid (PCI:0000:3b:00): 79, ..."
};

// Splits `line`. `reference_s` (seconds since the epoch) dates lines whose stamp has no year
// ("Mar  5 10:21:33", classic syslog and journalctl's default): the year that puts the line at
// most a day after the reference. Stamps without a zone (ctime, classic syslog) are local time.
KernelLogLine split_kernel_log_line(std::string_view line, double reference_s);

// "2024-03-05T10:21:33Z", "2024-03-05 10:21:33+01:00", "2024-03-05T10:21:33" (local time),
// "2024-03-05" (local midnight): seconds since the epoch; nullopt when malformed.
std::optional<double> parse_iso_time(std::string_view text);

// "2024-03-05T10:21:33Z" (UTC) for messages and params.
std::string format_utc(double epoch_s);

}  // namespace fabcheck
