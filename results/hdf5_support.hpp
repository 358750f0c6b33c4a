// What the HDF5 files (run.h5, the fleet history) share: handles closed on scope exit, checked
// calls, compound types built member by member. Included only by *.hdf5.cpp files.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace fabcheck::hdf5 {

// Closes an HDF5 handle on scope exit; a negative id from the library is an error.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t), const std::string& what) : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error("HDF5: cannot create or open " + what);
  }
  ~Handle() { close_(id_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

inline void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: " + what + " failed");
}

// A compound type built member by member; text members are variable-length UTF-8 strings.
class CompoundBuilder {
 public:
  explicit CompoundBuilder(std::size_t size)
      : type_(H5Tcreate(H5T_COMPOUND, size), H5Tclose, "compound type"),
        string_(H5Tcopy(H5T_C_S1), H5Tclose, "string type") {
    check(H5Tset_size(string_.get(), H5T_VARIABLE), "H5Tset_size");
    check(H5Tset_cset(string_.get(), H5T_CSET_UTF8), "H5Tset_cset");
  }
  CompoundBuilder& text(const char* name, std::size_t offset) {
    return member(name, offset, string_.get());
  }
  CompoundBuilder& real(const char* name, std::size_t offset) {
    return member(name, offset, H5T_NATIVE_DOUBLE);
  }
  CompoundBuilder& int64(const char* name, std::size_t offset) {
    return member(name, offset, H5T_NATIVE_INT64);
  }
  CompoundBuilder& uint64(const char* name, std::size_t offset) {
    return member(name, offset, H5T_NATIVE_UINT64);
  }
  CompoundBuilder& uint32(const char* name, std::size_t offset) {
    return member(name, offset, H5T_NATIVE_UINT32);
  }
  CompoundBuilder& flag(const char* name, std::size_t offset) {
    return member(name, offset, H5T_NATIVE_UINT8);
  }
  hid_t get() const { return type_.get(); }

 private:
  CompoundBuilder& member(const char* name, std::size_t offset, hid_t type) {
    check(H5Tinsert(type_.get(), name, offset, type), std::string("H5Tinsert ") + name);
    return *this;
  }
  Handle type_;
  Handle string_;
};

}  // namespace fabcheck::hdf5
