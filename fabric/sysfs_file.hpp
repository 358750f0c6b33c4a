// Reading one small sysfs attribute file as trimmed text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fabcheck {

// The file's content without surrounding whitespace (at most 64 KiB); nullopt when unreadable.
std::optional<std::string> read_sysfs_text(const std::filesystem::path& file);

}  // namespace fabcheck
