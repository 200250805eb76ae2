// Hands the heap's free pages back to the kernel, for long-lived threads that have just settled.

#pragma once

#include <malloc.h>

namespace paddock::core {

// Under AddressSanitizer the heap is ASan's own, and glibc's malloc is still uninitialised when
// the first malloc_trim comes: two pools' threads trimming at once race glibc's lazy set-up, and
// one walks empty bins (a SEGV in mtrim; it took down servers in CI's sanitized suites, and a
// two-thread program shows it in about 1 run in 30). There is nothing of glibc's to trim there,
// so it is not called. In a normal build glibc's malloc is set up before any thread starts.
#if defined(__SANITIZE_ADDRESS__)
#define PADDOCK_HEAP_IS_ASANS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PADDOCK_HEAP_IS_ASANS 1
#endif
#endif

inline void trim_free_heap() {
#ifndef PADDOCK_HEAP_IS_ASANS
  malloc_trim(0);
#endif
}

}  // namespace paddock::core
