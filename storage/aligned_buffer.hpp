// AlignedBuffer: page-aligned memory for O_DIRECT transfers, owned and freed with the object.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <span>

namespace fabcheck {

class AlignedBuffer {
 public:
  static constexpr std::size_t kAlignment = 4096;

  explicit AlignedBuffer(std::size_t size) : size_(size) {
    void* memory = nullptr;
    if (posix_memalign(&memory, kAlignment, size == 0 ? kAlignment : size) != 0) {
      throw std::bad_alloc();
    }
    data_ = static_cast<std::byte*>(memory);
  }
  ~AlignedBuffer() { std::free(data_); }
  AlignedBuffer(AlignedBuffer&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  AlignedBuffer& operator=(AlignedBuffer&&) = delete;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace fabcheck
