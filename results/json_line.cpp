// Strict JSON parsing of one line into a reusable tree (recursive descent, depth-limited).
#include "results/json_line.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

namespace fabcheck {
namespace {

constexpr std::uint32_t kFailed = 0xffffffffu;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

}  // namespace

bool JsonLine::fail(const std::string& what) {
  if (!failed_) error_ = what + " at byte " + std::to_string(at_ + 1);
  failed_ = true;
  return false;
}

void JsonLine::skip_whitespace() {
  while (at_ < input_.size()) {
    const char c = input_[at_];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
    ++at_;
  }
}

bool JsonLine::parse(std::string_view text, std::size_t max_depth) {
  input_ = text;
  at_ = 0;
  max_depth_ = max_depth;
  nodes_.clear();
  decoded_.clear();
  if (decoded_.capacity() < text.size()) decoded_.reserve(text.size());
  error_.clear();
  failed_ = false;
  skip_whitespace();
  if (parse_value(0) == kFailed) return false;
  skip_whitespace();
  if (at_ != input_.size()) return fail("unexpected text after the JSON value");
  return true;
}

std::uint32_t JsonLine::parse_value(std::size_t depth) {
  if (at_ >= input_.size()) {
    fail("unexpected end of the line");
    return kFailed;
  }
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  const char c = input_[at_];
  if (c == '{' || c == '[') {
    const bool object = c == '{';
    nodes_[index].kind = object ? Kind::object : Kind::array;
    if (depth >= max_depth_) {
      fail("nested deeper than " + std::to_string(max_depth_) + " levels");
      return kFailed;
    }
    ++at_;
    skip_whitespace();
    const char close = object ? '}' : ']';
    if (at_ < input_.size() && input_[at_] == close) {
      ++at_;
      return index;
    }
    std::uint32_t previous = 0;
    while (true) {
      std::string_view key;
      if (object) {
        if (at_ >= input_.size() || input_[at_] != '"') {
          fail("expected a member name in quotes");
          return kFailed;
        }
        if (!parse_string(key)) return kFailed;
        skip_whitespace();
        if (at_ >= input_.size() || input_[at_] != ':') {
          fail("expected ':' after a member name");
          return kFailed;
        }
        ++at_;
        skip_whitespace();
      }
      const std::uint32_t child = parse_value(depth + 1);
      if (child == kFailed) return kFailed;
      nodes_[child].key = key;
      if (previous == 0) {
        nodes_[index].first_child = child;
      } else {
        nodes_[previous].next = child;
      }
      previous = child;
      skip_whitespace();
      if (at_ >= input_.size()) {
        fail(object ? "unterminated object" : "unterminated array");
        return kFailed;
      }
      if (input_[at_] == ',') {
        ++at_;
        skip_whitespace();
        continue;
      }
      if (input_[at_] == close) {
        ++at_;
        return index;
      }
      fail(object ? "expected ',' or '}'" : "expected ',' or ']'");
      return kFailed;
    }
  }
  if (c == '"') {
    nodes_[index].kind = Kind::string;
    std::string_view text;
    if (!parse_string(text)) return kFailed;
    nodes_[index].text = text;
    return index;
  }
  if (c == '-' || is_digit(c)) {
    nodes_[index].kind = Kind::number;
    std::string_view text;
    if (!parse_number(text)) return kFailed;
    nodes_[index].text = text;
    return index;
  }
  auto literal = [&](std::string_view word, Kind kind, bool value) {
    if (input_.substr(at_, word.size()) != word) return false;
    nodes_[index].kind = kind;
    nodes_[index].boolean = value;
    at_ += word.size();
    return true;
  };
  if (literal("true", Kind::boolean, true) || literal("false", Kind::boolean, false) ||
      literal("null", Kind::null, false)) {
    return index;
  }
  fail("unexpected character");
  return kFailed;
}

bool JsonLine::parse_string(std::string_view& out) {
  ++at_;  // the opening quote
  const std::size_t start = at_;
  // Fast path: no escapes, the text is a view of the input.
  while (at_ < input_.size()) {
    const char c = input_[at_];
    if (c == '"') {
      out = input_.substr(start, at_ - start);
      ++at_;
      return true;
    }
    if (c == '\\') break;
    if (static_cast<unsigned char>(c) < 0x20) return fail("control character inside a string");
    ++at_;
  }
  if (at_ >= input_.size()) return fail("unterminated string");
  // Escapes: decode into decoded_, which never reallocates (reserved to the input's size, and
  // decoding only shortens).
  const std::size_t begin = decoded_.size();
  decoded_.append(input_.data() + start, at_ - start);
  while (at_ < input_.size()) {
    const char c = input_[at_];
    if (c == '"') {
      out = std::string_view(decoded_.data() + begin, decoded_.size() - begin);
      ++at_;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return fail("control character inside a string");
    if (c != '\\') {
      decoded_ += c;
      ++at_;
      continue;
    }
    if (at_ + 1 >= input_.size()) break;
    const char escape = input_[at_ + 1];
    at_ += 2;
    switch (escape) {
      case '"':
      case '\\':
      case '/':
        decoded_ += escape;
        break;
      case 'b':
        decoded_ += '\b';
        break;
      case 'f':
        decoded_ += '\f';
        break;
      case 'n':
        decoded_ += '\n';
        break;
      case 'r':
        decoded_ += '\r';
        break;
      case 't':
        decoded_ += '\t';
        break;
      case 'u': {
        auto read_hex = [&](std::uint32_t& code) {
          if (at_ + 4 > input_.size()) return false;
          code = 0;
          for (int i = 0; i < 4; ++i) {
            const int digit = hex_value(input_[at_ + i]);
            if (digit < 0) return false;
            code = code * 16 + static_cast<std::uint32_t>(digit);
          }
          at_ += 4;
          return true;
        };
        std::uint32_t code = 0;
        if (!read_hex(code)) return fail("malformed \\u escape");
        if (code >= 0xd800 && code <= 0xdbff) {
          std::uint32_t low = 0;
          if (input_.substr(at_, 2) != "\\u") return fail("unpaired surrogate in \\u escape");
          at_ += 2;
          if (!read_hex(low) || low < 0xdc00 || low > 0xdfff) {
            return fail("unpaired surrogate in \\u escape");
          }
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        } else if (code >= 0xdc00 && code <= 0xdfff) {
          return fail("unpaired surrogate in \\u escape");
        }
        append_utf8(decoded_, code);
        break;
      }
      default:
        --at_;
        return fail("unknown escape");
    }
  }
  return fail("unterminated string");
}

bool JsonLine::parse_number(std::string_view& out) {
  const std::size_t start = at_;
  if (input_[at_] == '-') ++at_;
  if (at_ >= input_.size() || !is_digit(input_[at_])) return fail("malformed number");
  if (input_[at_] == '0') {
    ++at_;
  } else {
    while (at_ < input_.size() && is_digit(input_[at_])) ++at_;
  }
  if (at_ < input_.size() && input_[at_] == '.') {
    ++at_;
    if (at_ >= input_.size() || !is_digit(input_[at_])) return fail("malformed number");
    while (at_ < input_.size() && is_digit(input_[at_])) ++at_;
  }
  if (at_ < input_.size() && (input_[at_] == 'e' || input_[at_] == 'E')) {
    ++at_;
    if (at_ < input_.size() && (input_[at_] == '+' || input_[at_] == '-')) ++at_;
    if (at_ >= input_.size() || !is_digit(input_[at_])) return fail("malformed number");
    while (at_ < input_.size() && is_digit(input_[at_])) ++at_;
  }
  out = input_.substr(start, at_ - start);
  return true;
}

const JsonLine::Node* JsonLine::member(const Node& object, std::string_view key) const {
  if (object.kind != Kind::object) return nullptr;
  for (std::uint32_t i = object.first_child; i != 0; i = nodes_[i].next) {
    if (nodes_[i].key == key) return &nodes_[i];
  }
  return nullptr;
}

const JsonLine::Node* JsonLine::member(const Node& object, std::string_view key,
                                       std::uint32_t& cursor) const {
  if (object.kind != Kind::object) return nullptr;
  const std::uint32_t start = cursor != 0 ? cursor : object.first_child;
  auto found = [&](std::uint32_t i) {
    cursor = nodes_[i].next;
    return &nodes_[i];
  };
  for (std::uint32_t i = start; i != 0; i = nodes_[i].next) {
    if (nodes_[i].key == key) return found(i);
  }
  for (std::uint32_t i = object.first_child; i != start && i != 0; i = nodes_[i].next) {
    if (nodes_[i].key == key) return found(i);
  }
  return nullptr;
}

std::optional<double> JsonLine::as_double(const Node& node) {
  if (node.kind != Kind::number) return std::nullopt;
  double value = 0;
  const auto [end, error] =
      std::from_chars(node.text.data(), node.text.data() + node.text.size(), value);
  if (error == std::errc::result_out_of_range) {
    // Beyond a double's range: infinity or zero, as strtod says (a rare path, so a copy is fine).
    return std::strtod(std::string(node.text).c_str(), nullptr);
  }
  if (error != std::errc() || end != node.text.data() + node.text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> JsonLine::as_int64(const Node& node) {
  if (node.kind != Kind::number) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] =
      std::from_chars(node.text.data(), node.text.data() + node.text.size(), value);
  if (error != std::errc() || end != node.text.data() + node.text.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> JsonLine::as_uint64(const Node& node) {
  if (node.kind != Kind::number || node.text.empty() || node.text.front() == '-') {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(node.text.data(), node.text.data() + node.text.size(), value);
  if (error != std::errc() || end != node.text.data() + node.text.size()) return std::nullopt;
  return value;
}

}  // namespace fabcheck
