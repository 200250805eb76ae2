#pragma once

// The media type of a file, as collected files and session files are labelled for clients: one
// table for every floor that labels files, and one rule for which types are text.

#include <string>
#include <string_view>

namespace paddock::core {

// By the name's extension: "image/png" for "plot.png", "text/x-python" for "main.py", ...,
// "application/octet-stream" when the extension is unknown.
std::string mime_type_for(const std::string& path);

// By the extension, and when that is unknown by the bytes: text (looks_like_text) is
// "text/plain". `cut`: `bytes` is only the file's beginning, so a character split at its end
// does not make it binary.
std::string mime_type_for(const std::string& path, std::string_view bytes, bool cut = false);

// Whether a file of this type is text a client reads as it is: text/*, JSON, XML, YAML,
// JavaScript, shell and the like ("+xml" and "+json" types too). Parameters ("; charset=")
// are ignored.
bool is_text_mime_type(std::string_view mime_type);

// Whether bytes read as UTF-8 text: no NUL and only valid sequences, so that they survive JSON
// serialisation unchanged. `cut`: the bytes are a file's beginning, and a sequence cut short at
// the very end is allowed.
bool looks_like_text(std::string_view bytes, bool cut = false);

}  // namespace paddock::core
