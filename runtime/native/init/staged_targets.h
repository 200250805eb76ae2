#pragma once

// The checks on the targets of a mount plan's steps in the staged root (mount_applier.cc), and
// what they remember between steps. Allocation-free: they run in the sandbox's init.

namespace paddock::init {

// Where the new root is built: the host's /tmp, covered only inside our private mount namespace.
inline constexpr const char* kStaging = "/tmp";

// Starts a plan's checks: no caller's bind is mounted yet.
void begin_target_checks();
// A caller's bind is (about to be) mounted: from now on every step checks its own parent.
void note_callers_bind();
// Another tree covers kStaging: the staged root and the clean directory are forgotten.
void forget_staging_root();
// A mount on `path` changes what every path through it resolves to.
void forget_clean_parent_under(const char* path);

// Where a target lies in the staged root, which holds an image's own files (its symlinks among
// them) once its layers are in place: every directory above the target must be a real one
// beneath the staging directory. A path through a symlink would be resolved with the host's
// view while init can still see the host, so a symlink such as /opt/in -> /proc/self/cwd would
// put a mount point, a file or a mount on the host. The staged tree is init's alone while it
// is built, so checking before use leaves no race there. A caller's bind is a host folder that
// others may change meanwhile: a step beneath one is checked right before it acts, which narrows
// that race but cannot close it (acting relative to the checked fd would). 0 or an errno.
int check_target_parent(const char* target);

// The target itself must not be a symlink either, for what mounts on it or makes it. *exists
// says whether it is there already (the steps below need not look again).
int check_target(const char* target, bool* exists);

}  // namespace paddock::init
