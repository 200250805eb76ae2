#pragma once

// libcurl, loaded the first time paddock speaks HTTP rather than when the program starts.
// Linked as a dependency, libcurl maps about thirty libraries (GnuTLS, Kerberos, LDAP, SSH, IDN,
// p11-kit...) into every process: 3 MiB of an idle MCP server's memory and part of every start,
// though most servers never pull an image or reach a container engine. Its headers still give
// every type and constant; only the functions paddock calls come through here.

#include <curl/curl.h>

#include "core/result.h"

namespace paddock::http {

struct CurlLibrary {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_send) easy_send;
  decltype(&::curl_easy_recv) easy_recv;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_easy_escape) easy_escape;
  decltype(&::curl_free) free;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

// Loads libcurl once per process (thread-safe) and runs curl_global_init; later calls return the
// same table. The error names the library and how to install it.
core::Result<const CurlLibrary*> load_curl();

// The table, for code that holds a handle (so load_curl() has succeeded).
const CurlLibrary& curl();

}  // namespace paddock::http
