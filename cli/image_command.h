#pragma once

#include "cli/command_line.h"

namespace paddock::cli {

// `paddock images|import|pull|rmi|gc`.
int image_command(const ImageRequest& request);

// `paddock import|pull`, which need libarchive, libcurl and libcrypto: these live in a second
// executable, paddock-full, next to paddock, so that every other command (a sandbox's start
// above all) does not pay for loading them (about 6 ms of CPU per process).
int image_transfer_command(const ImageRequest& request);  // in paddock-full

}  // namespace paddock::cli
