// Wire: the byte encoding of typed values that cross ranks (World::gather_values and friends).
// Every rank runs the same binary, so numbers travel in native layout; a reader never reads past
// its input and throws WireError on a short or malformed one.
//
// Built in: arithmetic types and enums, std::string, std::vector, std::array, std::map, std::pair,
// std::optional. A
// struct joins by declaring, next to it (found by argument-dependent lookup):
//   void wire_write(WireWriter& out, const HostFacts& value);
//   void wire_read(WireReader& in, HostFacts& value);
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace fabcheck {

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class WireWriter {
 public:
  void bytes(const void* data, std::size_t size) {
    const char* first = static_cast<const char*>(data);
    buffer_.append(first, size);
  }
  const std::string& buffer() const { return buffer_; }
  std::string take() { return std::move(buffer_); }

 private:
  std::string buffer_;
};

class WireReader {
 public:
  explicit WireReader(const std::string& buffer) : buffer_(buffer) {}
  void bytes(void* data, std::size_t size) {
    if (size > buffer_.size() - offset_) {
      throw WireError("typed data between ranks: wanted " + std::to_string(size) +
                      " more bytes at offset " + std::to_string(offset_) + " of " +
                      std::to_string(buffer_.size()));
    }
    std::memcpy(data, buffer_.data() + offset_, size);
    offset_ += size;
  }
  std::size_t remaining() const { return buffer_.size() - offset_; }

 private:
  const std::string& buffer_;
  std::size_t offset_ = 0;
};

template <typename T>
requires std::is_arithmetic_v<T> || std::is_enum_v<T>
void wire_write(WireWriter& out, const T& value) { out.bytes(&value, sizeof(value)); }
template <typename T>
requires std::is_arithmetic_v<T> || std::is_enum_v<T>
void wire_read(WireReader& in, T& value) { in.bytes(&value, sizeof(value)); }

inline void wire_write(WireWriter& out, const std::string& value) {
  const std::uint64_t size = value.size();
  out.bytes(&size, sizeof(size));
  out.bytes(value.data(), value.size());
}
inline void wire_read(WireReader& in, std::string& value) {
  std::uint64_t size = 0;
  in.bytes(&size, sizeof(size));
  if (size > in.remaining()) {
    throw WireError("typed data between ranks: a string of " + std::to_string(size) +
                    " bytes with " + std::to_string(in.remaining()) + " left");
  }
  value.resize(size);
  in.bytes(value.data(), size);
}

template <typename A, typename B>
void wire_write(WireWriter& out, const std::pair<A, B>& value);
template <typename A, typename B>
void wire_read(WireReader& in, std::pair<A, B>& value);
template <typename T>
void wire_write(WireWriter& out, const std::optional<T>& value);
template <typename T>
void wire_read(WireReader& in, std::optional<T>& value);

template <typename T, std::size_t N>
void wire_write(WireWriter& out, const std::array<T, N>& values);
template <typename T, std::size_t N>
void wire_read(WireReader& in, std::array<T, N>& values);
template <typename K, typename V>
void wire_write(WireWriter& out, const std::map<K, V>& values);
template <typename K, typename V>
void wire_read(WireReader& in, std::map<K, V>& values);

template <typename T>
void wire_write(WireWriter& out, const std::vector<T>& values) {
  const std::uint64_t size = values.size();
  out.bytes(&size, sizeof(size));
  for (const auto& value : values) wire_write(out, value);
}
template <typename T>
void wire_read(WireReader& in, std::vector<T>& values) {
  std::uint64_t size = 0;
  in.bytes(&size, sizeof(size));
  if (size > in.remaining()) {  // every element takes at least a byte: a bound before allocating
    throw WireError("typed data between ranks: a list of " + std::to_string(size) +
                    " elements with " + std::to_string(in.remaining()) + " bytes left");
  }
  values.clear();
  values.resize(size);
  for (auto& value : values) wire_read(in, value);
}

// A fixed number of elements: no count (both ends know it).
template <typename T, std::size_t N>
void wire_write(WireWriter& out, const std::array<T, N>& values) {
  for (const auto& value : values) wire_write(out, value);
}
template <typename T, std::size_t N>
void wire_read(WireReader& in, std::array<T, N>& values) {
  for (auto& value : values) wire_read(in, value);
}

// Its entries in key order, as pairs; a key sent twice is malformed.
template <typename K, typename V>
void wire_write(WireWriter& out, const std::map<K, V>& values) {
  const std::uint64_t size = values.size();
  out.bytes(&size, sizeof(size));
  for (const auto& [key, value] : values) {
    wire_write(out, key);
    wire_write(out, value);
  }
}
template <typename K, typename V>
void wire_read(WireReader& in, std::map<K, V>& values) {
  std::uint64_t size = 0;
  in.bytes(&size, sizeof(size));
  if (size > in.remaining()) {
    throw WireError("typed data between ranks: a map of " + std::to_string(size) +
                    " entries with " + std::to_string(in.remaining()) + " bytes left");
  }
  values.clear();
  for (std::uint64_t i = 0; i < size; ++i) {
    K key{};
    V value{};
    wire_read(in, key);
    wire_read(in, value);
    if (!values.emplace(std::move(key), std::move(value)).second)
      throw WireError("typed data between ranks: a map with a key twice");
  }
}

template <typename A, typename B>
void wire_write(WireWriter& out, const std::pair<A, B>& value) {
  wire_write(out, value.first);
  wire_write(out, value.second);
}
template <typename A, typename B>
void wire_read(WireReader& in, std::pair<A, B>& value) {
  wire_read(in, value.first);
  wire_read(in, value.second);
}

template <typename T>
void wire_write(WireWriter& out, const std::optional<T>& value) {
  const std::uint8_t present = value.has_value() ? 1 : 0;
  out.bytes(&present, 1);
  if (value) wire_write(out, *value);
}
template <typename T>
void wire_read(WireReader& in, std::optional<T>& value) {
  std::uint8_t present = 0;
  in.bytes(&present, 1);
  value.reset();
  if (present == 0) return;
  if (present != 1) throw WireError("typed data between ranks: a malformed optional");
  T inner{};
  wire_read(in, inner);
  value = std::move(inner);
}

// The whole encoding of one value.
template <typename T>
std::string wire_encode(const T& value) {
  WireWriter out;
  wire_write(out, value);
  return out.take();
}

// Decodes one value that must fill `buffer` exactly; throws WireError naming `what` otherwise.
template <typename T>
T wire_decode(const std::string& buffer, const std::string& what) {
  T value{};
  try {
    WireReader in(buffer);
    wire_read(in, value);
    if (in.remaining() != 0) {
      throw WireError(std::to_string(in.remaining()) + " bytes left over");
    }
  } catch (const WireError& error) {
    throw WireError(what + ": " + error.what());
  }
  return value;
}

}  // namespace fabcheck
