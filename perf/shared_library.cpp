#include "perf/shared_library.h"

#include <dlfcn.h>

#include "core/text.h"

namespace fabdiag::perf {

LoadedLibrary load_first_library(const std::vector<std::string>& candidates) {
  LoadedLibrary l;
  for (const auto& c : candidates) {
    dlerror();
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      l.handle = h;
      l.path = c;
      return l;
    }
    const char* err = dlerror();
    l.tried.push_back(err ? err : c + ": not found");
  }
  return l;
}

std::string library_file_of(void* symbol, const std::string& fallback) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return fallback;
}

std::string load_failures(const LoadedLibrary& l) { return join_first(l.tried, 3, "; ", "..."); }

}  // namespace fabdiag::perf
