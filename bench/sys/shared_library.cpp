// dlopen with a reason that names the library: "not found" when no file of that name was found
// anywhere dlopen looks, else the loader's own message (wrong architecture, a missing dependency).
#include "bench/sys/shared_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>

namespace fabcheck {
namespace {

bool not_found(const std::string& message) {
  return message.find("No such file or directory") != std::string::npos;
}

// The file behind an opened handle (the loader's link map), links resolved; "" when unknown.
std::string opened_path(void* handle) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_name == nullptr ||
      *map->l_name == '\0')
    return "";
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(map->l_name, error);
  return error ? std::string(map->l_name) : resolved.string();
}

}  // namespace

SharedLibrary open_shared_library(const std::string& name,
                                  const std::vector<std::string>& fallback_dirs) {
  SharedLibrary library;
  std::vector<std::string> candidates = {name};
  if (name.find('/') == std::string::npos) {
    for (const std::string& dir : fallback_dirs) {
      if (!dir.empty()) candidates.push_back(dir + "/" + name);
    }
  }
  std::string first_other_error;
  for (const std::string& candidate : candidates) {
    library.handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library.handle != nullptr) {
      library.path = opened_path(library.handle);
      return library;
    }
    const char* error = dlerror();
    const std::string message = error != nullptr ? error : "";
    if (!not_found(message) && first_other_error.empty()) first_other_error = message;
  }
  library.reason = first_other_error.empty()
                       ? library_file_name(name) + " not found"
                       : library_file_name(name) + " cannot load: " + first_other_error;
  return library;
}

void* shared_library_symbol(void* handle, const char* symbol) {
  return handle == nullptr ? nullptr : dlsym(handle, symbol);
}

std::string library_file_name(const std::string& library) {
  const auto slash = library.rfind('/');
  return slash == std::string::npos ? library : library.substr(slash + 1);
}

std::string library_to_open(const char* override_variable, const std::string& soname) {
  const char* path = std::getenv(override_variable);
  return path != nullptr && *path != '\0' ? path : soname;
}

}  // namespace fabcheck
