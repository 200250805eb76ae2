#pragma once

// The shell scripts of an engine session: the keeper that is its container's first process, and
// those it runs (as the sandbox user, inside the container) to read, write and list files (the
// archive API cannot see the tmpfs work directory) and to measure its usage. They keep
// the native session's rules: nothing outside the work directory is read or listed, even
// through a symlink code made, and writing follows no symlink at all. A refusal is an exit
// status from kRefusedBase on, mapped back to its errno by refusal_errno().
//
// Arguments: $1 the work directory, $2 the path relative to it, then per script.

#include <cerrno>
#include <iterator>

namespace paddock::container {

inline constexpr int kRefusedBase = 10;

// Exit statuses kRefusedBase + index: the errno session_path_error() explains.
inline constexpr int kRefusals[] = {ENOENT, EXDEV, ELOOP, EINVAL, ENOTDIR, EISDIR};

// The errno a script's exit status stands for, or 0 when it is not a refusal.
inline int refusal_errno(long status) {
  long index = status - kRefusedBase;
  if (index < 0 || index >= static_cast<long>(std::size(kRefusals))) return 0;
  return kRefusals[index];
}

// Resolves $W/$2 into r, refusing what is missing (10) or resolves outside $W (11).
#define PADDOCK_RESOLVE_INSIDE                       \
  "W=$1; p=$W${2:+/$2}; test -e \"$p\" || exit 10; " \
  "r=$(realpath -e -- \"$p\") || exit 10; "          \
  "case \"$r\" in \"$W\"|\"$W\"/*) ;; *) exit 11;; esac; "

// $3: at most this many bytes, from byte $4 (counted from 1) on. Prints the file's size on a
// line, then those bytes.
inline constexpr const char* kReadScript = PADDOCK_RESOLVE_INSIDE
    "test -d \"$r\" && exit 15; test -f \"$r\" || exit 13; "
    "stat -c %s -- \"$r\" && tail -c +\"${4:-1}\" -- \"$r\" | head -c \"$3\"";

// Entries as "TYPE SIZE NAME\0" (find's %y: f, d, l, ...).
inline constexpr const char* kListScript = PADDOCK_RESOLVE_INSIDE
    "test -d \"$r\" || exit 14; find \"$r\" -mindepth 1 -maxdepth 1 -printf '%y %s %f\\0'";

// $3: "new" (create or truncate) or "append"; then the bytes as base64: "-" and N for N bytes of
// it on stdin (Kubernetes: the content stays out of the exec URL), or pieces of it, one per
// argument (each argument is at most 128 KiB, so a large write takes several). Parent
// directories are made one by one, and any symlink on the way, or as the file, is refused (12).
// The split components are not globbed (set -f): "[a]b" would be checked as a directory "ab"
// it matches, and then written through a symlink named "[a]b".
inline constexpr const char* kWriteScript =
    "set -f; W=$1; r=$2; m=$3; shift 3; p=$W/$r; q=$W; parent=${r%/*}; "
    "[ \"$parent\" = \"$r\" ] && parent=; "
    "IFS=/; for c in $parent; do [ -z \"$c\" ] && continue; q=$q/$c; "
    "[ -L \"$q\" ] && exit 12; [ -e \"$q\" ] && [ ! -d \"$q\" ] && exit 14; "
    "[ -d \"$q\" ] || mkdir -- \"$q\" || exit 10; done; unset IFS; "
    "[ -L \"$p\" ] && exit 12; [ -d \"$p\" ] && exit 15; "
    "d() { if [ \"$1\" = - ]; then head -c \"$2\"; else for piece do printf %s \"$piece\"; done; "
    "fi "
    "| base64 -d; }; "
    "if [ \"$m\" = new ]; then d \"$@\" > \"$p\"; else d \"$@\" >> \"$p\"; fi";

// The container's first process, which only keeps it alive (commands come as execs): sleep,
// with SIGCHLD ignored where the image's env can ask for it (GNU coreutils 8.31+). As PID 1 it
// adopts what a killed command leaves behind, and a parent ignoring SIGCHLD has its children
// reaped by the kernel; a plain sleep would keep them as zombies, each holding a slot of the
// pids limit for the rest of the session. (dash cannot ignore SIGCHLD for what it execs.)
inline constexpr const char* kKeeperScript =
    "env --ignore-signal=CHLD true 2>/dev/null && exec env --ignore-signal=CHLD sleep infinity; "
    "exec sleep infinity";

// For usage(): prints "USED_BYTES PROCESSES" for the work directory $1. On a tmpfs of its own
// (docker, podman, a Kubernetes emptyDir in memory) the file system's use is exact and instant;
// on any other file system, which others may share (a disk-backed emptyDir), du counts $1 alone.
// PID 1 (the container's keeper) and this shell are not counted; the shell starts nothing while
// it counts (the glob is its own, stat and du have ended). Only the container's processes are
// in its /proc.
inline constexpr const char* kUsageScript =
    "if [ \"$(stat -f -c %T -- \"$1\")\" = tmpfs ]; then "
    "u=$(stat -f -c '%b %f %S' -- \"$1\") || exit 1; set -- $u; used=$((($1 - $2) * $3)); "
    "else u=$(du -skx -- \"$1\") || exit 1; used=$((${u%%[!0-9]*} * 1024)); fi; n=0; "
    "for p in /proc/[0-9]*; do [ -d \"$p\" ] && n=$((n + 1)); done; "
    "echo $used $((n - 2))";

#undef PADDOCK_RESOLVE_INSIDE

}  // namespace paddock::container
