#pragma once

// An image's layers merged into one directory, as overlayfs would show them: for kernels that
// cannot mount overlayfs inside a user namespace (before 5.11). Files are hard links into the
// layers, so a copy costs directories and links, not data.

#include <string>
#include <vector>

#include "core/result.h"

namespace paddock::rootfs {

// Makes `destination` the merge of `layers_top_first` unless it exists already. Whiteouts
// (0/0 character devices) remove what lower layers have; an opaque directory
// (user.overlay.opaque) hides their contents. Built beside `destination` and renamed into
// place, so a reader never sees half a copy and two builders race harmlessly.
core::Status flatten_layers(const std::vector<std::string>& layers_top_first,
                            const std::string& destination);

}  // namespace paddock::rootfs
