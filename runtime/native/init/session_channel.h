#pragma once

// What paddock asks of a session's init, over the same SOCK_SEQPACKET channel the init reports
// on. One request is one packet, with up to three fds riding along (SCM_RIGHTS). Both sides use
// these helpers; init must not allocate, so they work on caller-provided buffers only.

#include <cstddef>
#include <cstdint>

namespace paddock::init {

enum class SessionRequestKind : std::int32_t {
  // data: files to write first (files_length bytes: each a 4-byte size, a NUL-terminated path
  // relative to the work directory, and that many bytes), then argv strings and env strings,
  // each NUL-terminated; fds: stdin, stdout, stderr. The files spare a round trip each (kOpen).
  kExec,
  kKill,  // kill every process of the sandbox but init (a timeout or a cancellation)
  kOpen,  // data: a relative path; init answers kOpened with an fd of it, or an errno
  // A live session's resident process (the kernel bridge): started like kExec, but it stays
  // until it exits or kKillResident; init answers kResidentStarted, and kResidentExited when it
  // ends. Every sweep spares it and its children.
  kStartResident,
  kSweep,         // kill every process but init, the resident and its children; answer kSwept
  kFreeze,        // sweep, then stop every process left (SIGSTOP); answer kFrozen
  kThaw,          // let them run again (SIGCONT)
  kKillResident,  // kill the resident, its children, and everything else but init
  // A parked command (a warm interpreter, runtime/warm_interpreter.h) is ready: what it was
  // refused while it started is not its call's. Init does nothing; its relay restarts the count.
  kParkedReady,
  // An idle session (Session::freeze without a cgroup): stop every process but init (SIGSTOP)
  // and kill none; answer kFrozen. kThaw continues them.
  kStop,
};

enum class SessionOpenMode : std::int32_t {
  kRead,             // a regular file, for reading
  kWrite,            // a regular file, created or truncated, parent directories made as needed
  kDirectory,        // a directory, for listing
  kWriteExecutable,  // as kWrite, made with mode 0755 (an uploaded script keeps its x bit)
  kMakeDirectory,    // a directory, made with its parents as needed (an uploaded empty folder)
  // A symlink, its parents made as needed: the data is its path, then its target (both
  // NUL-terminated). The fd sent back is its directory's. A kept session's links, restored.
  kMakeSymlink,
  // Whatever the path names, never following it (O_PATH | O_NOFOLLOW, no symlink on the way):
  // a symlink comes back as itself. A kept session's walk examines what the server may not.
  kExamine,
  // A hard link at the path to the file at the second path (both NUL-terminated), parents made
  // as needed; the new name's file comes back. A kept session's hard links, restored as links.
  kMakeHardLink,
};

inline constexpr std::size_t kSessionDataMax = 64 * 1024;
// A kExec flag: the command and what it starts cannot inspect or signal the sandbox's other
// processes (process_domain.h). paddock sets it on a command with a network (an installer),
// whose packages' code must not read a live session's interpreter, which holds the secrets.
inline constexpr std::uint32_t kSessionOwnProcessDomain = 1u << 0;
// A command's stdin, stdout and stderr, and for a warm interpreter whose streams are its call's
// from the start (runtime/warm_interpreter.h) the socket it waits for its call on (fd 3), or the
// pipes its call comes on and it answers on (fds 4 and 5).
inline constexpr int kSessionMaxFds = 5;

struct SessionRequest {
  SessionRequestKind kind = SessionRequestKind::kKill;
  std::int32_t argc_or_mode = 0;   // kExec: how many strings of data are argv; kOpen: the mode
  std::int32_t step = 0;           // kExec: echoed in the replies about this command
  std::uint32_t files_length = 0;  // kExec: bytes of data that are files to write first
  std::uint32_t flags = 0;         // kExec: kSessionOwnProcessDomain
  std::uint32_t length = 0;        // bytes of data in use
  char data[kSessionDataMax];
};

// Sends `length` bytes and `fd_count` fds as one packet. Returns 0 or an errno.
int send_packet(int socket, const void* data, std::size_t length, const int* fds, int fd_count);

// The bytes of a request before its data.
inline constexpr std::size_t kSessionHeaderSize = offsetof(SessionRequest, data);

// Sends a request that carries nothing but its kind (kKill, kSweep, kFreeze...). Returns 0 or
// an errno.
int send_session_request(int socket, SessionRequestKind kind);

// Receives one packet into `data` (at most `capacity` bytes) and up to `max_fds` fds (the rest
// are closed). Returns the byte count, 0 at EOF, or -errno. `fd_count` receives how many fds came.
long receive_packet(int socket, void* data, std::size_t capacity, int* fds, int max_fds,
                    int* fd_count);

}  // namespace paddock::init
