// JsonLine: one JSON text (a line of a .jsonl file) parsed strictly (RFC 8259) into a small
// reusable tree whose strings point into the line, for reading millions of records without an
// allocation per record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

class JsonLine {
 public:
  enum class Kind : std::uint8_t { null, boolean, number, string, object, array };

  struct Node {
    Kind kind = Kind::null;
    bool boolean = false;
    std::string_view key;           // the member name, inside an object
    std::string_view text;          // a string's decoded text, a number's literal
    std::uint32_t first_child = 0;  // 0: none (the root is node 0 and is nobody's child)
    std::uint32_t next = 0;         // the next member or element; 0: none
  };

  // Parses `text`; false (with `error()` saying what and at which byte) when it is not one JSON
  // value, nests deeper than `max_depth`, or is followed by anything but whitespace. The views
  // stay valid until the next parse and while `text` lives.
  bool parse(std::string_view text, std::size_t max_depth = 32);
  const std::string& error() const { return error_; }

  const Node& root() const { return nodes_.front(); }
  const Node& node(std::uint32_t index) const { return nodes_[index]; }
  // The member `key` of object `object`; nullptr when absent (or `object` is not an object).
  const Node* member(const Node& object, std::string_view key) const;
  // The same, searching from `cursor` (a child index; 0: the first child) round to where it began,
  // and leaving `cursor` after the member found: a record read in the order it was written finds
  // each member at the first look. Where a key repeats, the first one from the cursor is found.
  const Node* member(const Node& object, std::string_view key, std::uint32_t& cursor) const;
  // The children of an object or array, in order.
  template <typename Visit>
  void for_each_child(const Node& parent, Visit&& visit) const {
    for (std::uint32_t i = parent.first_child; i != 0; i = nodes_[i].next) visit(nodes_[i]);
  }

  // A number node's value: as a double (any number), as a signed or unsigned integer (only an
  // integer literal in range). nullopt for anything else.
  static std::optional<double> as_double(const Node& node);
  static std::optional<std::int64_t> as_int64(const Node& node);
  static std::optional<std::uint64_t> as_uint64(const Node& node);

 private:
  std::uint32_t parse_value(std::size_t depth);
  bool parse_string(std::string_view& out);
  bool parse_number(std::string_view& out);
  void skip_whitespace();
  bool fail(const std::string& what);

  std::string_view input_;
  std::size_t at_ = 0;
  std::size_t max_depth_ = 32;
  std::vector<Node> nodes_;
  std::string decoded_;  // escaped strings, decoded; reserved to the input's size so views hold
  std::string error_;
  bool failed_ = false;
};

}  // namespace fabcheck
