#pragma once

// libcurl's handles as owned values, for http::Client (client.h): a handle is released when its
// owner goes, on every path; nobody calls curl_easy_cleanup by hand.

#include <memory>
#include <string>

#include "core/result.h"
#include "http/curl_library.h"

namespace paddock::http {

struct CurlCleanup {
  void operator()(CURL* handle) const { curl().easy_cleanup(handle); }
};
using CurlHandle = std::unique_ptr<CURL, CurlCleanup>;

struct HeaderListCleanup {
  void operator()(curl_slist* list) const { curl().slist_free_all(list); }
};
using HeaderList = std::unique_ptr<curl_slist, HeaderListCleanup>;

// A fresh easy handle (loading libcurl the first time), or an error naming what could not start.
core::Result<CurlHandle> new_handle();

// HeaderList with `line` ("Name: value") appended; keeps the list on failure. Only after
// new_handle() succeeded: a request's headers go with its handle.
core::Status append_header(HeaderList& list, const std::string& line);

}  // namespace paddock::http
