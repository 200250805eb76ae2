#pragma once

// libcurl's handles as owned values, for http::Client (client.h): a handle is released when its
// owner goes, on every path; nobody calls curl_easy_cleanup by hand.

#include <curl/curl.h>

#include <memory>
#include <string>

#include "core/result.h"

namespace paddock::http {

struct CurlCleanup {
  void operator()(CURL* handle) const { curl_easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlCleanup>;

struct HeaderListCleanup {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, HeaderListCleanup>;

// curl_global_init once per process, before the first handle (it is not thread-safe itself).
void global_init();

// A fresh easy handle, or an error naming what could not start.
Result<CurlHandle> new_handle();

// HeaderList with `line` ("Name: value") appended; keeps the list on failure.
Status append_header(HeaderList& list, const std::string& line);

}  // namespace paddock::http
