#pragma once

// The media type of a file by its name, as collected files and session files are labelled for
// clients: one table for every floor that labels files.

#include <string>

namespace paddock {

// "image/png" for "plot.png", ..., "application/octet-stream" when unknown.
std::string mime_type_for(const std::string& path);

}  // namespace paddock
