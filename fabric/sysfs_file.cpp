// Reading one small sysfs attribute file as trimmed text.
#include "fabric/sysfs_file.hpp"

#include <fstream>

#include "fabric/text_scan.hpp"

namespace fabcheck {

std::optional<std::string> read_sysfs_text(const std::filesystem::path& file) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  constexpr std::size_t kLimit = 64 * 1024;
  std::string content(kLimit, '\0');
  in.read(content.data(), static_cast<std::streamsize>(kLimit));
  content.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) return std::nullopt;
  return std::string(text::trim(content));
}

}  // namespace fabcheck
