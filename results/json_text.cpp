// The one JSON serialisation of product code: nlohmann's dump with invalid UTF-8 replaced.
#include "results/json_text.hpp"

namespace fabcheck {

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fabcheck
