#pragma once

// The messages the sandbox's init and payload send to paddock over a SOCK_SEQPACKET socketpair.
// Fixed-size and trivially copyable: the child sends them with one write(), no allocation.

#include <cstdint>

namespace paddock {

enum class SetupPhase : std::int32_t {
  kWaitForMaps,
  kBindSource,  // detail: the index of the bind whose source could not be opened
  kIdentity,
  kHostname,
  kMount,  // detail: the index of the failed MountStep
  kSpawnPayload,
  kStdio,
  kWorkdir,
  kRlimit,  // detail: the index of the failed RlimitSetting
  kNoNewPrivs,
  kCapabilities,
  kSeccomp,
  kExec,
};

enum class ChildMessageKind : std::int32_t {
  kGo,             // parent -> init: the id maps are written
  kSetupFailed,    // a setup step failed: phase, detail, error
  kExecFailed,     // execve failed: error
  kPayloadExited,  // init -> parent: the payload's wait status
  kWorkdir,        // init -> parent: an fd of the work directory rides along (SCM_RIGHTS), so
                   // that files can be collected after the sandbox is gone, even on timeout
};

struct ChildMessage {
  ChildMessageKind kind = ChildMessageKind::kGo;
  SetupPhase phase = SetupPhase::kWaitForMaps;
  std::int32_t detail = 0;
  std::int32_t error = 0;   // errno
  std::int32_t status = 0;  // wait status for kPayloadExited
  std::int32_t step = 0;    // which command (prelude first, argv last) the message is about
};

const char* describe(SetupPhase phase);

}  // namespace paddock
