#pragma once

// What the parts of NativeSession (native_session.cc, native_session_commands.cc,
// native_session_resident.cc, native_session_files.cc) share with each other and nothing else.

#include "core/result.h"
#include "core/unique_fd.h"
#include "runtime/native/init/channel.h"
#include "runtime/native/native_session.h"

namespace paddock::native::native_session_parts {

// The next message from init: an error when init is gone or silent for too long.
core::Result<init::ChildMessage> receive_message(StartedSandbox& sandbox, core::UniqueFd* passed);

inline constexpr const char* kEndedBeforeStart =
    "the session's sandbox has ended (killed, or out of memory); open a new session";

}  // namespace paddock::native::native_session_parts
