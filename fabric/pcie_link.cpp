// PCIe link state of GPUs, NICs and NVMe controllers, read from sysfs under a chosen root.
#include "fabric/pcie_link.hpp"

#include <algorithm>
#include <cmath>

#include "bench/sys/sysfs_file.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

bool looks_like_bdf(std::string_view name) {
  // "0000:17:00.0"
  if (name.size() != 12 || name[4] != ':' || name[7] != ':' || name[10] != '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return c == ':' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
  });
}

void garbage(std::vector<SysfsProblem>* problems, const fs::path& file, const std::string& text,
             const char* expected) {
  if (problems) problems->push_back({file.string(), "holds \"" + text + "\", not " + expected});
}

std::optional<int> read_width(const fs::path& file, std::vector<SysfsProblem>* problems) {
  auto content = read_sysfs_text(file, problems);
  if (!content) return std::nullopt;
  auto width = text::parse_small_int(*content);
  if (!width) garbage(problems, file, *content, "a link width");
  if (!width || *width == 0 || *width > 32) return std::nullopt;  // 0: no link
  return width;
}

std::optional<double> read_speed(const fs::path& file, std::vector<SysfsProblem>* problems) {
  auto content = read_sysfs_text(file, problems);
  if (!content) return std::nullopt;
  auto speed = parse_link_speed_gts(*content);
  // "Unknown" is what the kernel says for a link it cannot tell (down, virtual): not garbage.
  if (!speed && *content != "Unknown" && !content->empty())
    garbage(problems, file, *content, "a link speed");
  return speed;
}

std::optional<std::uint64_t> read_aer(const fs::path& file, std::vector<SysfsProblem>* problems) {
  auto content = read_sysfs_text(file, problems);
  if (!content) return std::nullopt;
  auto total = parse_aer_total(*content);
  if (!total) garbage(problems, file, content->substr(0, 80), "AER counts with a TOTAL_ERR_ line");
  return total;
}

}  // namespace

const char* to_string(PcieDeviceKind kind) {
  switch (kind) {
    case PcieDeviceKind::gpu:
      return "gpu";
    case PcieDeviceKind::hca:
      return "hca";
    case PcieDeviceKind::nic:
      return "nic";
    case PcieDeviceKind::nvme:
      return "nvme";
    case PcieDeviceKind::other:
      return "other";
  }
  return "other";
}

PcieDeviceKind classify_pci_device(std::string_view class_code, std::string_view vendor) {
  std::string code = text::lower(text::trim(class_code));
  std::string vendor_id = text::lower(text::trim(vendor));
  if (code.rfind("0x", 0) == 0) code.erase(0, 2);
  if (code.size() != 6) return PcieDeviceKind::other;
  std::string base_sub = code.substr(0, 4);
  bool gpu_vendor = vendor_id == "0x10de" || vendor_id == "0x1002" || vendor_id == "0x8086";
  if ((base_sub == "0302" || base_sub == "0300" || base_sub == "0380") && gpu_vendor) {
    // Intel's integrated display controllers are not what a cluster means by a GPU.
    return (vendor_id == "0x8086" && base_sub == "0300") ? PcieDeviceKind::other
                                                         : PcieDeviceKind::gpu;
  }
  if (base_sub == "0207") return PcieDeviceKind::hca;
  if (base_sub == "0200") return PcieDeviceKind::nic;
  if (code == "010802") return PcieDeviceKind::nvme;
  return PcieDeviceKind::other;
}

std::optional<double> parse_link_speed_gts(std::string_view text) {
  auto tokens = text::split_whitespace(text);
  if (tokens.size() < 2 || tokens.size() > 3 || tokens[1] != "GT/s") return std::nullopt;
  if (tokens.size() == 3 && tokens[2] != "PCIe") return std::nullopt;
  auto value = text::parse_number(tokens[0]);
  if (!value || pcie_generation(*value) == 0) return std::nullopt;
  return value;
}

int pcie_generation(double gts) {
  static constexpr double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(gts - kRates[i]) < 0.01) return i + 1;
  }
  return 0;
}

std::optional<std::uint64_t> parse_aer_total(std::string_view text) {
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    auto tokens = text::split_whitespace(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (tokens.size() == 2 && tokens[0].substr(0, 10) == "TOTAL_ERR_") {
      return text::parse_unsigned(tokens[1]);
    }
  }
  return std::nullopt;
}

std::string PcieLinkState::describe() const {
  auto part = [](int gen, std::optional<int> width) {
    return (gen > 0 ? "Gen" + std::to_string(gen) : std::string("Gen?")) + " x" +
           (width ? std::to_string(*width) : std::string("?"));
  };
  return part(current_gen(), current_width) + " (max " + part(max_gen(), max_width) + ")";
}

PcieLinkState read_pcie_device(const fs::path& device_dir, const std::string& bdf,
                               std::vector<SysfsProblem>* problems) {
  PcieLinkState state;
  state.bdf = bdf;
  state.class_code = read_sysfs_text(device_dir / "class", problems).value_or("");
  state.vendor = read_sysfs_text(device_dir / "vendor", problems).value_or("");
  state.device = read_sysfs_text(device_dir / "device", problems).value_or("");
  state.kind = classify_pci_device(state.class_code, state.vendor);
  std::error_code error;
  if (state.kind == PcieDeviceKind::nic && fs::is_directory(device_dir / "infiniband", error)) {
    state.kind = PcieDeviceKind::hca;  // RoCE: an Ethernet function with RDMA
  }
  fs::path driver = fs::read_symlink(device_dir / "driver", error);
  if (!error) state.driver = driver.filename().string();
  fs::path real = fs::canonical(device_dir, error);
  if (!error) {
    std::string parent = real.parent_path().filename().string();
    if (looks_like_bdf(parent)) state.upstream_port = parent;
  }
  // Only the devices judged: reading the rest (bridges, USB) would report what nobody asked for.
  std::vector<SysfsProblem>* judged = state.kind == PcieDeviceKind::other ? nullptr : problems;
  state.current_gts = read_speed(device_dir / "current_link_speed", judged);
  state.max_gts = read_speed(device_dir / "max_link_speed", judged);
  state.current_width = read_width(device_dir / "current_link_width", judged);
  state.max_width = read_width(device_dir / "max_link_width", judged);
  state.aer_correctable = read_aer(device_dir / "aer_dev_correctable", judged);
  state.aer_nonfatal = read_aer(device_dir / "aer_dev_nonfatal", judged);
  state.aer_fatal = read_aer(device_dir / "aer_dev_fatal", judged);
  return state;
}

std::vector<PcieLinkState> read_pcie_links(const fs::path& sysfs_root,
                                           std::vector<SysfsProblem>* problems) {
  std::vector<PcieLinkState> links;
  const fs::path devices = sysfs_root / "sys/bus/pci/devices";
  for (const fs::path& entry : list_sysfs_dir(devices, problems)) {
    const std::string name = entry.filename().string();
    if (!looks_like_bdf(name)) continue;
    const std::size_t before = problems ? problems->size() : 0;
    PcieLinkState state = read_pcie_device(devices / name, name, problems);
    // A device whose class cannot be read may be a GPU: its problem stays reported.
    if (state.kind != PcieDeviceKind::other) {
      links.push_back(std::move(state));
    } else if (problems && !state.class_code.empty() && !state.vendor.empty()) {
      problems->resize(before);  // a bridge or another device nobody judges
    }
  }
  return links;
}

}  // namespace fabcheck
