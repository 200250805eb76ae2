#include "http/curl_handle.h"

#include <cerrno>
#include <mutex>

namespace paddock::http {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Result<CurlHandle> new_handle() {
  global_init();
  CurlHandle handle(curl_easy_init());
  if (!handle) return Error{ENOMEM, "libcurl could not start a transfer"};
  return handle;
}

Status append_header(HeaderList& list, const std::string& line) {
  curl_slist* longer = curl_slist_append(list.get(), line.c_str());
  if (longer == nullptr) return Error{ENOMEM, "libcurl could not add a request header"};
  (void)list.release();  // now part of `longer`
  list.reset(longer);
  return {};
}

}  // namespace paddock::http
