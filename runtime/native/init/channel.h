#pragma once

// The messages the sandbox's init and payload send to paddock over a SOCK_SEQPACKET socketpair.
// Fixed-size and trivially copyable: the child sends them with one write(), no allocation.

#include <sys/socket.h>
#include <sys/uio.h>

#include <cstdint>
#include <cstring>

namespace paddock::init {

enum class SetupPhase : std::int32_t {
  kWaitForMaps,
  kInitExec,     // exec of paddock-init
  kInitPlan,     // paddock-init could not read the plan
  kInitProcess,  // detail: 1 its PID namespace, 2 its socketpair, 3 its fork
  kBindSource,   // detail: the index of the bind whose source could not be opened
  kLayerSource,  // detail: the index of the image layer that could not be opened
  kIdentity,
  kHostname,
  kUcountLimits,  // detail: the index into kSandboxUcountLimits of the file not written
  kLoopback,
  kNetworkNamespace,  // detail: 1 made by the relay, 2 its word and channel to init, 3 joined
                      // by init, 4 the relay's pidfd, 5 a plan that also asks for a listener
  kNetworkFence,      // detail: the index of the routing rule the kernel refused
  kLateFile,  // detail: the index of the caller's file init could not write after the installer
  kMount,     // detail: the index of the failed MountStep
  kSpawnPayload,
  kCommandFile,  // detail: the index of the command's file init could not write (session kExec)
  kStdio,
  kWorkdir,
  kRlimit,  // detail: the index of the failed RlimitSetting
  kNoNewPrivs,
  kCapabilities,
  kProcessDomain,  // a command that must not see the sandbox's other processes (Landlock)
  kSeccomp,
  kExec,
};

enum class ChildMessageKind : std::int32_t {
  kGo,               // parent -> init: the plan is sealed and the id maps are written
  kSetupFailed,      // a setup step failed: phase, detail, error
  kExecFailed,       // execve failed: error
  kPayloadExited,    // init -> parent: the payload's wait status
  kStepBoundary,     // init -> parent: the networked steps are done; init waits for kGo
  kProxyListener,    // init -> parent: the egress proxy's listening socket rides along
  kWorkdir,          // init -> parent: an fd of the work directory rides along (SCM_RIGHTS), so
                     // that files can be collected after the sandbox is gone, even on timeout
  kCommandStarted,   // session init -> parent: a kExec's files are written and its command started
  kOpened,           // session init -> parent: the file asked for rides along, or `error` says why
  kResidentStarted,  // session init -> parent: `status` is the resident's PID, or `error` why not
  kResidentExited,   // session init -> parent: the resident's wait status in `status`
  kSwept,            // session init -> parent: a kSweep is done; `detail` processes were killed
  kFrozen,           // session init -> parent: kFreeze is done; `error` is ETIMEDOUT if not all
  kNetworkMade,      // relay -> init: the late network namespace is made, or `error` why not
  kSeccompListener,  // init -> relay: the listener of init's notify filter rides along; the
                     // relay keeps it (init_relay.h), paddock never sees this message
  kSocketFactory,    // session init -> parent: its end of the preview socket factory rides
                     // along (net/preview/socket_request.h)
};

// The system calls the seccomp filter refused while a command ran, counted by paddock-init's
// relay and carried to paddock in kPayloadExited: the most frequent numbers first come, the
// rest only counted. Counts stop at their maximum instead of wrapping.
struct RefusedCalls {
  static constexpr int kSlots = 16;
  std::int32_t numbers[kSlots] = {};  // system call numbers of the first `used` slots
  std::uint32_t counts[kSlots] = {};
  std::int32_t used = 0;
  std::uint32_t other = 0;  // refusals of numbers that found no slot
  bool counted = false;     // a listener was in place: the counts are complete

  void add(std::int32_t number) {
    for (int i = 0; i < used; ++i) {
      if (numbers[i] == number) {
        if (counts[i] != UINT32_MAX) ++counts[i];
        return;
      }
    }
    if (used < kSlots) {
      numbers[used] = number;
      counts[used++] = 1;
    } else if (other != UINT32_MAX) {
      ++other;
    }
  }
};

struct ChildMessage {
  ChildMessageKind kind = ChildMessageKind::kGo;
  SetupPhase phase = SetupPhase::kWaitForMaps;
  std::int32_t detail = 0;
  std::int32_t error = 0;   // errno
  std::int32_t status = 0;  // wait status for kPayloadExited
  std::int32_t step = 0;    // which command (prelude first, argv last) the message is about
  std::int64_t cpu_us = 0;  // kPayloadExited in a session: the command's CPU time
  RefusedCalls refused{};   // kPayloadExited: filled in by the relay on its way to paddock
};

// A ChildMessage with room for one fd passed along (SCM_RIGHTS), laid out for sendmsg and
// recvmsg on the stack: the child uses it too, so it must not allocate.
struct ChannelPacket {
  ChildMessage message;
  iovec data{&message, sizeof message};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};

  ChannelPacket() {
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
  }
  ChannelPacket(const ChannelPacket&) = delete;
  ChannelPacket& operator=(const ChannelPacket&) = delete;

  void attach_fd(int fd) {
    cmsghdr* rights = CMSG_FIRSTHDR(&header);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(rights), &fd, sizeof fd);
  }
  // The fd that came with a received packet, or -1.
  [[nodiscard]] int received_fd() {
    for (cmsghdr* part = CMSG_FIRSTHDR(&header); part != nullptr;
         part = CMSG_NXTHDR(&header, part)) {
      if (part->cmsg_level == SOL_SOCKET && part->cmsg_type == SCM_RIGHTS) {
        int fd = -1;
        std::memcpy(&fd, CMSG_DATA(part), sizeof fd);
        return fd;
      }
    }
    return -1;
  }
};

const char* describe(SetupPhase phase);

}  // namespace paddock::init
