// Hex encoding and World exchange of ncclUniqueId bytes (see nccl_unique_id.hpp).
#include "bench/coll/nccl_unique_id.hpp"

#include "bench/coll/nccl_error.hpp"

namespace fabcheck {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string encode_unique_id(const NcclUniqueIdBytes& id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(id.size() * 2);
  for (const std::uint8_t byte : id) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0xf]);
  }
  return hex;
}

NcclUniqueIdBytes decode_unique_id(const std::string& hex) {
  const auto shown = hex.size() > 40 ? hex.substr(0, 40) + "..." : hex;
  if (hex.size() != kNcclUniqueIdBytes * 2) {
    throw NcclError("nccl: unique id \"" + shown + "\" has " + std::to_string(hex.size()) +
                    " hex characters, expected " + std::to_string(kNcclUniqueIdBytes * 2));
  }
  NcclUniqueIdBytes id{};
  for (std::size_t i = 0; i < id.size(); ++i) {
    const int high = hex_digit(hex[2 * i]);
    const int low = hex_digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      throw NcclError("nccl: unique id \"" + shown + "\" is not hex at character " +
                      std::to_string(2 * i + (high < 0 ? 0 : 1)));
    }
    id[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return id;
}

NcclUniqueIdBytes exchange_unique_id(World& world,
                                     const std::function<NcclUniqueIdBytes()>& make_id) {
  const std::string mine = world.is_root() ? encode_unique_id(make_id()) : std::string();
  return decode_unique_id(world.broadcast_from_root(mine));
}

NcclUniqueIdBytes exchange_unique_id_per_host(World& world,
                                              const std::function<NcclUniqueIdBytes()>& make_id) {
  // Each host's first rank contributes its id as hex, the others "": every rank gets all of them.
  const std::string mine = world.local_rank() == 0 ? encode_unique_id(make_id()) : std::string();
  const std::vector<std::string> per_rank = world.all_gather_values(mine);
  const auto& hosts = world.hosts();
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] == world.host() && !per_rank[r].empty()) return decode_unique_id(per_rank[r]);
  }
  throw NcclError("nccl: no unique id was made for host " + world.host());
}

}  // namespace fabcheck
