// Kernel message classification from the drivers' own format strings: NVIDIA's "NVRM: Xid (PCI:%s):
// %d, ..." and "nvidia-nvswitch%d: SXid (PCI:%s): %05d, %s, ...", PCI's pcie_print_link_status and
// AER reports, and the link messages of mlx5e, Intel NICs, bonding and systemd-networkd.
#include "host/kernel_event.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A PCI address at `at`: "0000:3b:00.0", or "0000:3b:00" (Xid, no function) which becomes ".0";
// an old "3b:00" without domain becomes "0000:3b:00.0". Sets `length` to the characters used.
std::optional<std::string> bus_id_at(std::string_view text, std::size_t at, std::size_t& length) {
  auto hex_run = [&](std::size_t from) {
    std::size_t end = from;
    while (end < text.size() && is_hex(text[end])) ++end;
    return end - from;
  };
  std::size_t pos = at;
  std::string domain = "0000";
  std::size_t first = hex_run(pos);
  if (first == 4 && pos + 4 < text.size() && text[pos + 4] == ':') {
    domain = text::lower(text.substr(pos, 4));
    pos += 5;
    first = hex_run(pos);
  }
  if (first != 2 || pos + 2 >= text.size() || text[pos + 2] != ':') return std::nullopt;
  const std::string bus = text::lower(text.substr(pos, 2));
  pos += 3;
  if (hex_run(pos) != 2) return std::nullopt;
  const std::string device = text::lower(text.substr(pos, 2));
  pos += 2;
  std::string function = "0";
  if (pos + 1 < text.size() && text[pos] == '.' && is_digit(text[pos + 1])) {
    function = std::string(1, text[pos + 1]);
    pos += 2;
  }
  length = pos - at;
  return domain + ":" + bus + ":" + device + "." + function;
}

// The device a driver message names in its prefix: "nvidia 0000:3b:00.0: ..." -> its bus id.
std::string device_prefix(std::string_view message) {
  const std::size_t space = message.find(' ');
  if (space == std::string_view::npos) return {};
  std::size_t length = 0;
  auto bus = bus_id_at(message, space + 1, length);
  if (!bus || space + 1 + length >= message.size() || message[space + 1 + length] != ':') return {};
  return *bus;
}

std::optional<int> number_at(std::string_view text, std::size_t& at) {
  const std::size_t first = at;
  long value = 0;
  while (at < text.size() && is_digit(text[at]) && at - first < 9)
    value = value * 10 + (text[at++] - '0');
  if (at == first) return std::nullopt;
  return static_cast<int>(value);
}

// Drops the "pid=1234, name=python3, " that drivers since R470 put before an Xid's text.
std::string_view without_process(std::string_view rest) {
  for (const std::string_view key : {std::string_view("pid="), std::string_view("name=")}) {
    rest = text::trim(rest);
    if (rest.substr(0, key.size()) != key) continue;
    const std::size_t comma = rest.find(", ");
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
  }
  return text::trim(rest);
}

std::optional<KernelEvent> xid_event(std::string_view message) {
  const std::size_t at = message.find("NVRM: Xid (");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t pos = at + 11;
  if (message.substr(pos, 4) == "PCI:") pos += 4;
  std::size_t length = 0;
  auto bus = bus_id_at(message, pos, length);
  if (!bus) return std::nullopt;
  pos += length;
  if (message.substr(pos, 3) != "): ") return std::nullopt;
  pos += 3;
  auto code = number_at(message, pos);
  if (!code) return std::nullopt;
  KernelEvent event;
  event.kind = KernelEventKind::xid;
  event.device = *bus;
  event.code = *code;
  if (pos < message.size() && message[pos] == ',')
    event.detail = without_process(message.substr(pos + 1));
  return event;
}

std::optional<KernelEvent> sxid_event(std::string_view message) {
  const std::size_t at = message.find("SXid (PCI:");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t pos = at + 10;
  std::size_t length = 0;
  auto bus = bus_id_at(message, pos, length);
  if (!bus) return std::nullopt;
  pos += length;
  if (message.substr(pos, 3) != "): ") return std::nullopt;
  pos += 3;
  auto code = number_at(message, pos);
  if (!code || message.substr(pos, 2) != ", ") return std::nullopt;
  std::string_view rest = message.substr(pos + 2);
  const std::size_t comma = rest.find(',');
  const std::string severity = text::lower(text::trim(rest.substr(0, comma)));
  // The lines after the first ("28006, Severity 0 Engine ...", "28006, Data {...}") carry no
  // severity word: they are details of the same event.
  if (severity != "fatal" && severity != "non-fatal" && severity != "nonfatal") return std::nullopt;
  KernelEvent event;
  event.kind = KernelEventKind::sxid;
  event.device = *bus;
  event.code = *code;
  event.severity = severity == "fatal" ? "Fatal" : "Non-fatal";
  if (comma != std::string_view::npos)
    event.detail = std::string(text::trim(rest.substr(comma + 1)));
  return event;
}

// "...available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:c0:01.1 (capable of
// 252.048 Gb/s with 16.0 GT/s PCIe x16 link)" (drivers/pci/pci.c), and mlx5's own older
// "PCIe link width is x8, device supports x16".
std::optional<KernelEvent> pcie_limited_event(std::string_view message) {
  std::string detail;
  if (message.find("available PCIe bandwidth, limited by ") != std::string_view::npos) {
    // The whole report after the device: "63.008 Gb/s available PCIe bandwidth, limited by ...".
    const std::size_t colon = message.find(": ");
    detail = std::string(
        text::trim(colon == std::string_view::npos ? message : message.substr(colon + 2)));
  } else {
    for (const std::string_view what :
         {std::string_view("PCIe link width is "), std::string_view("PCIe link speed is ")}) {
      const std::size_t start = message.find(what);
      if (start == std::string_view::npos) continue;
      std::string_view rest = message.substr(start + what.size());
      const std::size_t comma = rest.find(", device supports ");
      if (comma == std::string_view::npos) continue;
      const std::string_view have = text::trim(rest.substr(0, comma));
      const std::string_view can = text::trim(rest.substr(comma + 18));
      if (have == can) return std::nullopt;
      detail =
          std::string(what.substr(5, 11)) + std::string(have) + ", capable of " + std::string(can);
    }
    if (detail.empty()) return std::nullopt;
  }
  KernelEvent event;
  event.kind = KernelEventKind::pcie_limited;
  event.device = device_prefix(message);
  event.detail = detail;
  return event;
}

// "<driver> 0000:3b:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)";
// newer kernels write "Correctable" / "Uncorrectable (Non-Fatal)".
std::optional<KernelEvent> aer_event(std::string_view message) {
  const std::size_t at = message.find("PCIe Bus Error: severity=");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(at + 25);
  const std::size_t comma = rest.find(',');
  const std::string severity = text::lower(text::trim(rest.substr(0, comma)));
  KernelEvent event;
  event.kind = KernelEventKind::aer;
  event.device = device_prefix(message);
  if (severity.rfind("correct", 0) == 0) {
    event.severity = "Corrected";
  } else if (severity.find("fatal") != std::string::npos &&
             severity.find("non") == std::string::npos) {
    event.severity = "Uncorrected (Fatal)";
  } else if (severity.rfind("uncorrect", 0) == 0) {
    event.severity = "Uncorrected (Non-Fatal)";
  } else {
    return std::nullopt;
  }
  if (comma != std::string_view::npos)
    event.detail = std::string(text::trim(rest.substr(comma + 1)));
  return event;
}

// The word before `at` that ends in ':' ("... ens1f0: Link down" -> "ens1f0").
std::string interface_before(std::string_view message, std::size_t at) {
  std::string_view head = text::trim(message.substr(0, at));
  if (head.empty() || head.back() != ':') return {};
  head.remove_suffix(1);
  const std::size_t space = head.rfind(' ');
  return std::string(space == std::string_view::npos ? head : head.substr(space + 1));
}

std::optional<KernelEvent> link_event(std::string_view message) {
  struct Pattern {
    std::string_view text;
    KernelEventKind kind;
  };
  // mlx5e and most drivers: "Link down"/"Link up"; Intel: "NIC Link is Down"; systemd-networkd and
  // NetworkManager in syslog: "Lost carrier"/"Gained carrier".
  static const Pattern patterns[] = {
      {"Link down", KernelEventKind::link_down},
      {"Link up", KernelEventKind::link_up},
      {"NIC Link is Down", KernelEventKind::link_down},
      {"NIC Link is Up", KernelEventKind::link_up},
      {"Lost carrier", KernelEventKind::link_down},
      {"lost carrier", KernelEventKind::link_down},
      {"Gained carrier", KernelEventKind::link_up},
  };
  for (const Pattern& pattern : patterns) {
    const std::size_t at = message.find(pattern.text);
    if (at == std::string_view::npos) continue;
    std::string device = interface_before(message, at);
    if (device.empty()) continue;
    KernelEvent event;
    event.kind = pattern.kind;
    event.device = std::move(device);
    return event;
  }
  // Bonding: "bond0: (slave ens1f0): link status definitely down, disabling slave".
  if (const std::size_t at = message.find("link status definitely ");
      at != std::string_view::npos) {
    const std::size_t slave = message.find("(slave ");
    if (slave == std::string_view::npos || slave > at) return std::nullopt;
    const std::size_t close = message.find(')', slave);
    if (close == std::string_view::npos) return std::nullopt;
    KernelEvent event;
    event.kind = message.substr(at + 23, 4) == "down" ? KernelEventKind::link_down
                                                      : KernelEventKind::link_up;
    event.device = std::string(message.substr(slave + 7, close - slave - 7));
    return event;
  }
  // mlx5: "mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged".
  if (const std::size_t at = message.find("Port module event: module ");
      at != std::string_view::npos && message.find("Cable unplugged") != std::string_view::npos) {
    std::size_t pos = at + 26;
    auto module = number_at(message, pos);
    KernelEvent event;
    event.kind = KernelEventKind::link_down;
    event.device = device_prefix(message) + " module " + (module ? std::to_string(*module) : "?");
    return event;
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(KernelEventKind kind) {
  switch (kind) {
    case KernelEventKind::xid:
      return "xid";
    case KernelEventKind::sxid:
      return "sxid";
    case KernelEventKind::link_down:
      return "link_down";
    case KernelEventKind::link_up:
      return "link_up";
    case KernelEventKind::pcie_limited:
      return "pcie_limited";
    case KernelEventKind::aer:
      return "aer";
  }
  return "?";
}

std::optional<KernelEvent> classify_kernel_message(std::string_view message) {
  if (auto event = xid_event(message)) return event;
  if (auto event = sxid_event(message)) return event;
  if (auto event = aer_event(message)) return event;
  if (auto event = pcie_limited_event(message)) return event;
  return link_event(message);
}

XidSeverity xid_severity(int xid, std::string_view detail) {
  static const int critical[] = {48, 56, 57, 58, 62, 63, 64, 65,  68,
                                 69, 73, 74, 79, 80, 81, 92, 119, 120};
  if (std::find(std::begin(critical), std::end(critical), xid) != std::end(critical))
    return XidSeverity::critical;
  if (xid == 94 || xid == 95) return XidSeverity::needs_reset;
  // R550+: "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)".
  if (xid == 154) {
    const std::size_t to = detail.rfind(" to ");
    const std::string_view target = to == std::string_view::npos ? detail : detail.substr(to);
    if (target.find("(None)") == std::string_view::npos) return XidSeverity::needs_reset;
  }
  return XidSeverity::informational;
}

const char* to_string(XidSeverity severity) {
  switch (severity) {
    case XidSeverity::critical:
      return "critical";
    case XidSeverity::needs_reset:
      return "needs_reset";
    case XidSeverity::informational:
      return "informational";
  }
  return "?";
}

std::string_view xid_name(int xid) {
  // NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors), the codes a fleet meets most.
  static const std::map<int, std::string_view> names = {
      {13, "Graphics Engine Exception"},
      {31, "GPU memory page fault"},
      {43, "GPU stopped processing"},
      {45, "Preemptive cleanup, due to previous errors"},
      {48, "Double Bit ECC Error"},
      {56, "Display Engine error"},
      {57, "Error programming video memory interface"},
      {58, "Unstable video memory interface detected"},
      {62, "Internal micro-controller halt"},
      {63, "ECC page retirement or row remapping recording event"},
      {64, "ECC page retirement or row remapper recording failure"},
      {65, "Video processor exception"},
      {68, "NVDEC0 Exception"},
      {69, "Graphics Engine class error"},
      {73, "NVENC2 Error"},
      {74, "NVLink Error"},
      {79, "GPU has fallen off the bus"},
      {80, "Corrupted data sent to GPU"},
      {81, "VGA Subsystem Error"},
      {92, "High single-bit ECC error rate"},
      {94, "Contained ECC error"},
      {95, "Uncontained ECC error"},
      {119, "GSP RPC Timeout"},
      {120, "GSP Error"},
      {154, "GPU Recovery Action Changed"},
  };
  const auto found = names.find(xid);
  return found == names.end() ? std::string_view() : found->second;
}

}  // namespace fabcheck
