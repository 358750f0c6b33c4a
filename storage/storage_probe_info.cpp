// The storage probes' shared declaration.
#include "storage/storage_probe_info.hpp"

#include <string>
#include <utility>

#include "storage/storage_options.hpp"

namespace fabcheck {

Requirement storage_path_requirement() {
  return {"--storage-path", true, [](const World&, const RunOptions& options) {
            return options.storage_paths.empty() ? std::string("no --storage-path given")
                                                 : std::string();
          }};
}

ProbeInfo storage_probe_info(ProbeInfo info) {
  info.needs.insert(info.needs.begin(), storage_path_requirement());
  info.heavy = true;
  info.plan_stage = plan_stage::storage;
  // A storage figure below its tier is the filesystem's or the drive's, never one part's alone;
  // wrong bits read back are corruption on the path (drive, controller, filesystem, network).
  if (info.repairs.empty()) {
    info.repairs = {{"wrong_elements", "data-corruption", repair_action::inspect},
                    {"", "storage-slow", repair_action::inspect, FailKind::noisy_figure}};
  }
  // The probe's own options first (those declared in its file), then the shared ones.
  info.check_options = [own = std::move(info.check_options)](const RunOptions& options) {
    if (own) own(options);
    storage_options_from(options);
  };
  return info;
}

std::string probe_short_name(const std::string& probe_id) {
  const auto dot = probe_id.find('.');
  return dot == std::string::npos ? probe_id : probe_id.substr(dot + 1);
}

}  // namespace fabcheck
