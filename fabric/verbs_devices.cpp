// RDMA devices as rdma-core's libibverbs sees them, loaded at run time with dlopen.
#include "fabric/verbs_devices.hpp"

#include <dlfcn.h>

namespace fabcheck {

namespace {

// The three entry points used, with libibverbs' signatures (infiniband/verbs.h); the device type
// stays opaque so that the header is not needed.
struct ibv_device_opaque;
using GetDeviceList = ibv_device_opaque** (*)(int*);
using FreeDeviceList = void (*)(ibv_device_opaque**);
using GetDeviceName = const char* (*)(ibv_device_opaque*);

}  // namespace

VerbsDevices list_verbs_devices() {
  VerbsDevices result;
  void* library = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    result.problem = std::string("libibverbs.so.1 not loadable: ") + (error ? error : "unknown");
    return result;
  }
  auto get_list = reinterpret_cast<GetDeviceList>(dlsym(library, "ibv_get_device_list"));
  auto free_list = reinterpret_cast<FreeDeviceList>(dlsym(library, "ibv_free_device_list"));
  auto get_name = reinterpret_cast<GetDeviceName>(dlsym(library, "ibv_get_device_name"));
  if (!get_list || !free_list || !get_name) {
    result.problem = "libibverbs.so.1 lacks ibv_get_device_list / ibv_get_device_name";
    dlclose(library);
    return result;
  }
  result.library_loaded = true;
  int count = 0;
  ibv_device_opaque** list = get_list(&count);
  if (list == nullptr) {
    result.problem = "ibv_get_device_list failed (no RDMA subsystem in this kernel?)";
  } else {
    for (int i = 0; i < count && list[i] != nullptr; ++i) {
      const char* name = get_name(list[i]);
      if (name) result.names.emplace_back(name);
    }
    free_list(list);
  }
  // libibverbs is left loaded: its providers register destructors that must not run twice.
  return result;
}

}  // namespace fabcheck
