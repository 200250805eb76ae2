#pragma once

// What of a session file's bytes (a file read, a figure a run made) the client may see, whatever
// carries it to the client afterwards.

#include <optional>
#include <string>
#include <string_view>

#include "app/secret_mask.h"

namespace paddock::app {

// A file's bytes (`cut`: only its beginning) as the client may see them. Text has every
// passed-through value masked; other content that holds one is withheld (nullopt), because
// masking would corrupt it without a sign. kWithheld says why, after the file's name.
std::optional<std::string> client_view(const SecretMask& secrets, std::string data, bool cut);
// Text from inside a file, `before` being the bytes just ahead of it (the longest value's length
// less one, or all there are): masked like the rest, or nullopt when a value runs across the
// window's start, which masking the window alone would show in part; then read from earlier.
// `cut`: more of the file follows the window.
std::optional<std::string> client_text_window(const SecretMask& secrets, std::string_view before,
                                              std::string window, bool cut);
inline constexpr std::string_view kWithheld =
    "holds the value of a passed-through variable and is not text, which cannot be masked: it "
    "is withheld";

}  // namespace paddock::app
