#include "http/curl_handle.h"

#include <cerrno>

namespace paddock::http {

core::Result<CurlHandle> new_handle() {
  auto library = load_curl();
  if (!library) return library.error();
  CurlHandle handle((*library)->easy_init());
  if (!handle) return core::Error{ENOMEM, "libcurl could not start a transfer"};
  return handle;
}

core::Status append_header(HeaderList& list, const std::string& line) {
  curl_slist* longer = curl().slist_append(list.get(), line.c_str());
  if (longer == nullptr) return core::Error{ENOMEM, "libcurl could not add a request header"};
  (void)list.release();  // now part of `longer`
  list.reset(longer);
  return {};
}

}  // namespace paddock::http
