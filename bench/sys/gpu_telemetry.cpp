// GpuTelemetry helpers: phase names, clock-event reason names, bus id normalisation.
#include "bench/sys/gpu_telemetry.hpp"

#include <cctype>
#include <utility>

#include "bench/sys/nvml_api.hpp"

namespace fabcheck {

const char* to_string(TelemetryPhase phase) {
  return phase == TelemetryPhase::load ? "load" : "idle";
}

std::string describe_clock_event_reasons(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {nvml_reasons::kGpuIdle, "idle"},
      {nvml_reasons::kApplicationsClocksSetting, "app-clocks"},
      {nvml_reasons::kSwPowerCap, "power-cap"},
      {nvml_reasons::kHwSlowdown, "hw-slowdown"},
      {nvml_reasons::kSyncBoost, "sync-boost"},
      {nvml_reasons::kSwThermalSlowdown, "thermal-sw"},
      {nvml_reasons::kHwThermalSlowdown, "thermal-hw"},
      {nvml_reasons::kHwPowerBrakeSlowdown, "power-brake"},
      {nvml_reasons::kDisplayClockSetting, "display-clocks"},
  };
  std::string out;
  std::uint64_t named = 0;
  for (const auto& [bit, name] : kNames) {
    if ((reasons & bit) == 0) continue;
    named |= bit;
    if (!out.empty()) out += ',';
    out += name;
  }
  if ((reasons & ~named) != 0) {
    if (!out.empty()) out += ',';
    out += "other";
  }
  return out.empty() ? "none" : out;
}

std::string normalize_bus_id(const std::string& nvml_bus_id) {
  std::string id;
  for (char c : nvml_bus_id) {
    id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  // NVML writes an 8-digit domain ("00000000:17:00.0"); sysfs and lspci write 4 digits.
  const auto colon = id.find(':');
  if (colon == 8 && id.compare(0, 4, "0000") == 0) id.erase(0, 4);
  return id;
}

}  // namespace fabcheck
