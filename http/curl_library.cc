#include "http/curl_library.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>

namespace paddock::http {
namespace {

// The SONAME of Debian's libcurl4 (OpenSSL); the GnuTLS build is another package and name.
constexpr const char* kLibrary = "libcurl.so.4";

CurlLibrary library;
std::string load_error;

template <typename Function>
bool bind(void* handle, const char* name, Function& slot) {
  slot = reinterpret_cast<Function>(dlsym(handle, name));
  if (slot == nullptr) load_error = std::string(kLibrary) + " has no " + name;
  return slot != nullptr;
}

void load() {
  // RTLD_LOCAL: its symbols serve only this table. It stays loaded for the process's life.
  void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    load_error = std::string("libcurl could not be loaded (install Debian's libcurl4): ") +
                 (why != nullptr ? why : kLibrary);
    return;
  }
  bool bound = bind(handle, "curl_global_init", library.global_init) &&
               bind(handle, "curl_easy_init", library.easy_init) &&
               bind(handle, "curl_easy_cleanup", library.easy_cleanup) &&
               bind(handle, "curl_easy_reset", library.easy_reset) &&
               bind(handle, "curl_easy_setopt", library.easy_setopt) &&
               bind(handle, "curl_easy_getinfo", library.easy_getinfo) &&
               bind(handle, "curl_easy_perform", library.easy_perform) &&
               bind(handle, "curl_easy_send", library.easy_send) &&
               bind(handle, "curl_easy_recv", library.easy_recv) &&
               bind(handle, "curl_easy_strerror", library.easy_strerror) &&
               bind(handle, "curl_easy_escape", library.easy_escape) &&
               bind(handle, "curl_free", library.free) &&
               bind(handle, "curl_slist_append", library.slist_append) &&
               bind(handle, "curl_slist_free_all", library.slist_free_all);
  if (!bound) return;
  // curl_global_init is not thread-safe itself: call_once in load_curl() runs it once.
  if (CURLcode code = library.global_init(CURL_GLOBAL_DEFAULT); code != CURLE_OK) {
    load_error = std::string("libcurl could not start: ") + library.easy_strerror(code);
  }
}

}  // namespace

core::Result<const CurlLibrary*> load_curl() {
  static std::once_flag once;
  std::call_once(once, load);
  if (!load_error.empty()) return core::Error{ELIBACC, load_error};
  return &library;
}

const CurlLibrary& curl() {
  // Every handle came from new_handle(), which loaded the library first.
  if (library.easy_setopt == nullptr) std::abort();
  return library;
}

}  // namespace paddock::http
