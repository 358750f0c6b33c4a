// What a kernel message says about the hardware fabcheck cares for: NVIDIA Xid and NVSwitch SXid
// events, network links going down or up, a PCIe device limited below its capability, AER errors.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fabcheck {

enum class KernelEventKind { xid, sxid, link_down, link_up, pcie_limited, aer };

const char* to_string(KernelEventKind kind);  // "xid", "sxid", "link_down", ...

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::xid;
  // Bus id "0000:3b:00.0" (Xid, SXid, PCIe limited, AER), or the link: "ib0", "ens1f0",
  // "0000:c1:00.0 module 0".
  std::string device;
  int code = 0;          // the Xid or SXid number
  std::string severity;  // SXid "Fatal" / "Non-fatal"; AER "Corrected", "Uncorrected (Fatal)", ...
  std::string detail;  // Xid/SXid text without pid/name; PCIe: "8.0 GT/s PCIe x8 of 16.0 GT/s ..."
};

// Nullopt for a message that is none of these (most of a kernel log).
std::optional<KernelEvent> classify_kernel_message(std::string_view message);

// How an Xid is judged: Azure's critical list (azurehpc-health-checks: 48, 56, 57, 58, 62, 63, 64,
// 65, 68, 69, 73, 74, 79, 80, 81, 92, 119, 120), a few more that need a GPU reset (94, 95, and
// 154 when it asks for a reset or reboot), and the rest, mostly the application's own faults.
enum class XidSeverity { critical, needs_reset, informational };
XidSeverity xid_severity(int xid, std::string_view detail);
const char* to_string(XidSeverity severity);  // "critical", "needs_reset", "informational"

// NVIDIA's name for an Xid ("GPU has fallen off the bus"), "" for codes not in fabcheck's table.
std::string_view xid_name(int xid);

}  // namespace fabcheck
