#include "runtime/native/init/channel.h"

namespace paddock::init {

const char* describe(SetupPhase phase) {
  switch (phase) {
    case SetupPhase::kWaitForMaps:
      return "waiting for the user namespace maps";
    case SetupPhase::kInitExec:
      return "starting paddock-init, the sandbox's init (is it installed beside paddock?)";
    case SetupPhase::kInitPlan:
      return "reading the sandbox's plan (is paddock-init from the same build as paddock?)";
    case SetupPhase::kInitProcess:
      return "starting the sandbox's init in its PID namespace";
    case SetupPhase::kBindSource:
      return "opening a bind source";
    case SetupPhase::kLayerSource:
      return "opening an image layer";
    case SetupPhase::kIdentity:
      return "switching to the sandbox user";
    case SetupPhase::kHostname:
      return "setting the hostname";
    case SetupPhase::kUcountLimits:
      return "lowering the sandbox's inotify and namespace limits in /proc/sys/user";
    case SetupPhase::kLoopback:
      return "bringing up the sandbox's own loopback";
    case SetupPhase::kNetworkNamespace:
      return "making the sandbox's own network namespace";
    case SetupPhase::kNetworkFence:
      return "fencing user-mode networking off the host and private networks";
    case SetupPhase::kLateFile:
      return "writing the caller's files after the install step";
    case SetupPhase::kMount:
      return "building the file system";
    case SetupPhase::kCommandFile:
      return "writing the code's files into the work directory";
    case SetupPhase::kSpawnPayload:
      return "starting the program's process";
    case SetupPhase::kStdio:
      return "connecting standard input and output";
    case SetupPhase::kWorkdir:
      return "entering the working directory";
    case SetupPhase::kRlimit:
      return "setting resource limits";
    case SetupPhase::kNoNewPrivs:
      return "setting no_new_privs";
    case SetupPhase::kCapabilities:
      return "dropping capabilities";
    case SetupPhase::kProcessDomain:
      return "keeping the installer from the live interpreter's memory and environment, which "
             "needs Landlock (Linux 5.13 or later, with landlock in the kernel's lsm= list); "
             "install into a session that is not live (create_session with live: false)";
    case SetupPhase::kSeccomp:
      return "installing the seccomp filter";
    case SetupPhase::kExec:
      return "executing the command";
  }
  return "setting up the sandbox";
}

}  // namespace paddock::init
