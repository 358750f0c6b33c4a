// Mount table parsing (proc(5) mountinfo) and filesystem classification.
#include "storage/mount_table.hpp"

#include <array>
#include <charconv>
#include <sstream>

namespace fabcheck {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string decode_octal_escapes(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string_view digits = field.substr(i + 1, 3);
      unsigned value = 0;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + 3, value, 8);
      if (error == std::errc() && end == digits.data() + 3) {
        out.push_back(static_cast<char>(value));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

bool parse_device(std::string_view field, unsigned& major, unsigned& minor) {
  const auto colon = field.find(':');
  if (colon == std::string_view::npos) return false;
  const auto [end1, e1] = std::from_chars(field.data(), field.data() + colon, major);
  const auto [end2, e2] =
      std::from_chars(field.data() + colon + 1, field.data() + field.size(), minor);
  return e1 == std::errc() && e2 == std::errc() && end1 == field.data() + colon &&
         end2 == field.data() + field.size();
}

bool path_is_under(const std::string& path, const std::string& mount_point) {
  if (mount_point == "/") return !path.empty() && path[0] == '/';
  return path.compare(0, mount_point.size(), mount_point) == 0 &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> before;  // up to the " - " separator
    std::string field;
    bool separator = false;
    while (fields >> field) {
      if (field == "-") {
        separator = true;
        break;
      }
      before.push_back(field);
    }
    std::string fs_type;
    std::string source;
    if (!separator || before.size() < 6 || !(fields >> fs_type)) continue;
    fields >> source;
    MountEntry entry;
    if (!parse_device(before[2], entry.major, entry.minor)) continue;
    entry.root = decode_octal_escapes(before[3]);
    entry.mount_point = decode_octal_escapes(before[4]);
    entry.options = before[5];
    entry.fs_type = fs_type;
    entry.source = decode_octal_escapes(source);
    mounts.push_back(std::move(entry));
  }
  return mounts;
}

std::optional<MountEntry> find_mount(const std::vector<MountEntry>& mounts,
                                     const std::string& absolute_path) {
  std::optional<MountEntry> best;
  for (const MountEntry& mount : mounts) {
    if (!path_is_under(absolute_path, mount.mount_point)) continue;
    if (!best || mount.mount_point.size() >= best->mount_point.size()) best = mount;
  }
  return best;
}

std::string filesystem_locality(const std::string& fs_type) {
  static constexpr std::array<std::string_view, 22> kNetwork = {"nfs",
                                                                "nfs4",
                                                                "cifs",
                                                                "smb3",
                                                                "smbfs",
                                                                "lustre",
                                                                "gpfs",
                                                                "beegfs",
                                                                "ceph",
                                                                "glusterfs",
                                                                "afs",
                                                                "9p",
                                                                "wekafs",
                                                                "panfs",
                                                                "orangefs",
                                                                "pvfs2",
                                                                "fuse.glusterfs",
                                                                "fuse.sshfs",
                                                                "fuse.gcsfuse",
                                                                "fuse.s3fs",
                                                                "fuse.juicefs",
                                                                "fuse.ceph"};
  static constexpr std::array<std::string_view, 8> kLocal = {"ext2",  "ext3", "ext4", "xfs",
                                                             "btrfs", "f2fs", "zfs",  "bcachefs"};
  for (std::string_view name : kNetwork) {
    if (fs_type == name) return "network";
  }
  for (std::string_view name : kLocal) {
    if (fs_type == name) return "local";
  }
  if (fs_type == "tmpfs" || fs_type == "ramfs") return "memory";
  return "other";
}

}  // namespace fabcheck
