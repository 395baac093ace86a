#include "core/allocator.h"

#include <cstdlib>  // defines __GLIBC__ on glibc (through <features.h>)

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fabdiag {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1024 * 1024;
  mallopt(M_MMAP_THRESHOLD, 32 * kMiB);  // also ends the dynamic threshold (32 MiB is its cap)
  mallopt(M_TRIM_THRESHOLD, 64 * kMiB);
#endif
}

}  // namespace fabdiag
