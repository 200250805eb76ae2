#!/bin/sh
# /init of the VM that scripts/vm-test boots: a busybox sh script, PID 1 on a pure cgroup v2
# kernel. It mounts the basics, hands the user "tester" (uid 1000) a delegated cgroup subtree,
# then runs the same scenarios three times: as root from the root cgroup, and twice as tester
# inside the subtree (each paddock in a scope of its own, and paddock in the shell's cgroup).
# Each check prints one line "VMTEST <pass>.<scenario> PASS|FAIL <detail>", VMINFO
# lines carry figures worth reading, and "VMTEST-DONE" comes last, right before the power-off.
#
#   /init                       as PID 1 on the initramfs: move to a tmpfs root, then...
#   /init booted                as PID 1 there: set up, run the three passes, power off
#   /init pass ROLE [SCOPES]    one pass as the current user (PID 1 starts it as a child, so a
#                               crashing pass is reported instead of panicking the kernel)
# shellcheck disable=SC3040 # busybox's ash, the only shell in the VM, has pipefail
set -eu -o pipefail

PROBE=/usr/bin/paddock_probe
CGROOT=/sys/fs/cgroup
TESTER_CG=$CGROOT/tester
# Controllers the limits need; the kernel check and the delegation both use this list.
CONTROLLERS="memory pids cpu"
# Outer bound on one paddock command, so that a hang costs one FAIL and not the whole VM run.
GUARD_SECONDS=120
# The console gets a "VMBEAT" line this often: scripts/vm-test tells a frozen VM (no heartbeat)
# from a stuck command (heartbeats go on, and the guard reports it) by it.
HEARTBEAT_SECONDS=10

# --- reporting -----------------------------------------------------------------------------

# Every check of a scenario adds to $problems; finish prints the scenario's one line.
begin() { problems=""; }
expect() {
  what=$1
  shift
  if ! "$@" 2>/dev/null; then problems="${problems:+$problems; }$what"; fi
}
finish() {
  if [ -z "$problems" ]; then
    echo "VMTEST $ROLE.$1 PASS $2"
  else
    echo "VMTEST $ROLE.$1 FAIL $problems | $2"
  fi
}

# Milliseconds since boot, from /proc/uptime ("12.34"); "1$cs - 100" keeps a fraction such as
# "05" from being read as octal.
now_ms() {
  read -r up _ </proc/uptime
  echo $((${up%.*} * 1000 + (1${up#*.} - 100) * 10))
}

# matches TEXT PATTERN: TEXT matches the shell pattern PATTERN.
matches() {
  # shellcheck disable=SC2254 # $2 is a pattern on purpose
  case $1 in
    $2) return 0 ;;
  esac
  return 1
}

# within N LOW HIGH: LOW <= N <= HIGH.
within() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# A non-negative integer, or -1 for anything else (missing field, paddock error text), so that
# numeric tests fail cleanly instead of tripping over an empty string.
num() {
  case $1 in
    '' | *[!0-9]*) echo -1 ;;
    *) echo "$1" ;;
  esac
}

# --- running paddock -----------------------------------------------------------------------

# guarded COMMAND...: runs COMMAND (in the background, so stdin is /dev/null) under the guard.
# Still running after GUARD_SECONDS, it is stuck: what every process is doing goes to the
# console first, so that a hang can be diagnosed from the log alone, then COMMAND gets TERM,
# and KILL 10 s later for a process that no longer handles TERM.
guarded() {
  "$@" &
  guarded_pid=$!
  stop_when_stuck "$guarded_pid" &
  watcher=$!
  guarded_status=0
  wait "$guarded_pid" || guarded_status=$?
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  return "$guarded_status"
}

# stop_when_stuck PID: the guard's watcher (see guarded); TERM ends it and its sleep.
stop_when_stuck() {
  sleep "$GUARD_SECONDS" &
  nap=$!
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  wait "$nap" || true
  trap - TERM
  kill -0 "$1" 2>/dev/null || exit 0
  echo "VMINFO $ROLE stuck after ${GUARD_SECONDS} s: $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
  show_processes
  kill -TERM "$1" 2>/dev/null || true
  sleep 10
  if kill -KILL "$1" 2>/dev/null; then echo "VMINFO $ROLE stuck: TERM did not end it, KILL sent"; fi
}

# One VMINFO line per process but kernel threads: pid, parent, state, the kernel function it
# waits in, command.
show_processes() {
  for dir in /proc/[0-9]*; do
    stat=$(cat "$dir/stat" 2>/dev/null) || continue
    # The fields after "(comm)": state, then ppid.
    # shellcheck disable=SC2086 # split into fields on purpose
    set -- ${stat##*) }
    if [ "$2" = 2 ] || [ "$dir" = /proc/2 ]; then continue; fi
    echo "VMINFO   ${dir#/proc/} ppid=$2 state=$1 wchan=$(cat "$dir/wchan" 2>/dev/null || echo ?)" \
      "$(tr '\0' ' ' <"$dir/cmdline" 2>/dev/null | cut -c 1-160)"
  done
}

scope_count=0

# Runs "$@" (a paddock command) under the guard timeout. With $SCOPES set, it runs as the only
# process of a fresh cgroup below $SCOPES, as `systemd-run --user --scope -p Delegate=yes` would
# give it (the kernel lets a cgroup hand controllers to children only while it holds no process
# itself). Without $SCOPES, paddock runs in this shell's cgroup: the root cgroup, which that rule
# exempts, or the tester's delegated leaf, whose delegated parent must then hold the sandboxes.
in_scope() {
  if [ -z "$SCOPES" ]; then
    guarded "$@"
    return
  fi
  scope_count=$((scope_count + 1))
  scope=$SCOPES/run-$scope_count
  mkdir "$scope"
  status=0
  # Only paddock enters the scope: the guard's watcher is a process of its own.
  # shellcheck disable=SC2016 # $$ and $1 belong to the inner shell
  guarded sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
    in-scope "$scope" "$@" || status=$?
  # Like systemd when a scope ends, remove what paddock could not (the leaf it moved itself
  # into stays until it exits), but never a sandbox-* cgroup: a leaked one must stay visible.
  for leaf in "$scope"/paddock-*; do
    if [ -d "$leaf" ]; then rmdir "$leaf" 2>/dev/null || true; fi
  done
  rmdir "$scope" 2>/dev/null || true
  return "$status"
}

# sandbox NAME [RUN-OPTIONS...] -- COMMAND...: one `paddock run --json` with the probe bound in
# read-only at /probe. Leaves the exit status in $rc, the JSON's top level in $top (see field),
# paddock's first stderr line in $err and the wall-clock time seen from outside in $wall_ms.
sandbox() {
  name=$1
  shift
  out=$WORK/$name.json
  start=$(now_ms)
  rc=0
  in_scope paddock run --json --ro-bind "$PROBE:/probe" "$@" >"$out" 2>"$WORK/$name.err" || rc=$?
  wall_ms=$(($(now_ms) - start))
  # Nested objects ("isolation") become null, so a key is only ever found at the top level.
  top=$(sed -e ':a' -e 's/\(.\){[^{}]*}/\1null/' -e 'ta' "$out")
  err=$(head -n 1 "$WORK/$name.err")
}

# field KEY: KEY's value at the top level of the last sandbox's JSON (strings unquoted), or
# nothing when it is missing.
field() {
  printf '%s\n' "$top" | grep -oE "\"$1\":(\"[^\"]*\"|[^,}]*)" | head -n 1 |
    sed -e "s/^\"$1\"://" -e 's/^"\(.*\)"$/\1/' || true
}

# Every limit checked here must come from the cgroup, not from the rlimit fallback.
expect_cgroup2() {
  expect "limits_mode=$(field limits_mode), not cgroup2" [ "$(field limits_mode)" = cgroup2 ]
}

# The fields most details show, and the paddock error if there was one.
summary() {
  echo "rc=$rc outcome=$(field outcome) limits_mode=$(field limits_mode) wall_ms=$wall_ms${err:+ stderr=$err}"
}

sandbox_cgroups_left() { find "$CGROOT" -name 'sandbox-*' 2>/dev/null | tr '\n' ' '; }

# --- scenarios -----------------------------------------------------------------------------

scenario_cgroup_mode() {
  sandbox cgroup_mode -- true
  begin
  expect "exit status $rc" [ "$rc" = 0 ]
  expect_cgroup2
  # The contract names sandbox cgroups sandbox-<paddock pid>-<n>.
  expect "cgroup '$(field cgroup)' is not a sandbox-* path" \
    matches "$(field cgroup)" '*/sandbox-*-*'
  finish cgroup_mode "cgroup=$(field cgroup) duration_ms=$(field duration_ms) $(summary)"
  echo "VMINFO $ROLE one paddock run of true: duration_ms=$(field duration_ms), wall_ms=$wall_ms"
}

scenario_oom() {
  limit=$((64 << 20))
  slack=$((4 << 20))
  sandbox oom --memory 64m --timeout 60 -- /probe alloc 256
  peak=$(num "$(field memory_peak_bytes)")
  reached=$(field stdout | grep -oE '(touched|done) [0-9]+ MiB' | tail -n 1 || true)
  begin
  expect_cgroup2
  expect "oom_killed is not true" [ "$(field oom_killed)" = true ]
  expect "outcome is not signaled" [ "$(field outcome)" = signaled ]
  expect "signal is not 9" [ "$(field signal)" = 9 ]
  expect "memory_peak_bytes=$peak not in (0, 64 MiB + 4 MiB]" within "$peak" 1 $((limit + slack))
  finish oom "memory_peak_bytes=$peak signal=$(field signal) oom_killed=$(field oom_killed) last='$reached' $(summary)"
}

scenario_pids() {
  timeout_s=20
  sandbox pids --pids 32 --timeout "$timeout_s" -- /probe forkbomb 1
  forked=$(num "$(field stdout | grep -oE 'forked [0-9]+' | grep -oE '[0-9]+' || true)")
  begin
  expect_cgroup2
  expect "exit status $rc" [ "$rc" = 0 ]
  expect "timed out" [ "$(field timed_out)" = false ]
  # 32 counts paddock-init's relay, the sandbox's init and the probe; at least 16 shows the forks
  # did happen.
  expect "forked $forked, not within 16..32" within "$forked" 16 32
  expect "took ${wall_ms} ms, not within --timeout" [ "$wall_ms" -lt $((timeout_s * 1000)) ]
  # The forks refused at the limit are counted (the cgroup's pids.events), for the result's
  # refusal line: refused.process_limit, in a nested object the flattening above hides.
  refused=$(num "$(grep -oE '"process_limit":[0-9]+' "$WORK/pids.json" | grep -oE '[0-9]+$' || true)")
  expect "refused.process_limit=$refused, not counted" [ "$refused" -gt 0 ]
  detail="forked=$forked refused_at_the_limit=$refused $(summary)"
  # Right after the bomb, a plain run must still work: nothing was left holding pids.
  sandbox pids_after -- echo still-responsive
  expect "echo afterwards: rc=$rc stdout=$(field stdout)" [ "$rc" = 0 ]
  expect "echo afterwards printed nothing" matches "$(field stdout)" '*still-responsive*'
  finish pids "$detail; echo afterwards: rc=$rc wall_ms=$wall_ms"
}

# cpu_ms as a percentage of duration_ms for the last sandbox, -1 when either is missing.
cpu_percent() {
  cpu=$(num "$(field cpu_ms)")
  duration=$(num "$(field duration_ms)")
  if [ "$cpu" -lt 0 ] || [ "$duration" -le 0 ]; then echo -1; else echo $((cpu * 100 / duration)); fi
}

scenario_cpu() {
  # Two workers for 2 s of wall time. Without a quota they use both vCPUs (about 200%); the
  # baseline run proves this VM can tell, so a run that applied no quota cannot pass.
  sandbox cpu_baseline --timeout 30 -- /probe spin 2 2
  baseline=$(cpu_percent)
  baseline_rc=$rc
  sandbox cpu --cpus 0.5 --timeout 30 -- /probe spin 2 2
  used=$(cpu_percent)
  begin
  expect_cgroup2
  expect "exit status $rc" [ "$rc" = 0 ]
  expect "cpu_ms is ${used}% of duration_ms, not 30..75%" within "$used" 30 75
  expect "baseline without --cpus (rc=$baseline_rc) used only ${baseline}%: the VM cannot tell a quota from none" \
    [ "$baseline" -gt 75 ]
  finish cpu "with --cpus 0.5: ${used}% (cpu_ms=$(field cpu_ms) duration_ms=$(field duration_ms)); without: ${baseline}% $(summary)"
}

scenario_timeout_cleanup() {
  sandbox timeout_cleanup --timeout 1 -- /probe spin 30 4
  left=$(sandbox_cgroups_left)
  begin
  expect_cgroup2
  expect "timed_out is not true" [ "$(field timed_out)" = true ]
  expect "outcome is not timed_out" [ "$(field outcome)" = timed_out ]
  expect "exit status $rc, not 124" [ "$rc" = 124 ]
  expect "took ${wall_ms} ms for a 1 s timeout" [ "$wall_ms" -lt 15000 ]
  expect "cgroups left: $left" [ -z "$left" ]
  finish timeout_cleanup "$(summary)"
}

scenario_require_cgroups() {
  sandbox require_cgroups --require-cgroups -- true
  begin
  expect "exit status $rc" [ "$rc" = 0 ]
  expect_cgroup2
  finish require_cgroups "$(summary)"
}

scenario_doctor() {
  rc=0
  in_scope paddock doctor --json >"$WORK/doctor.json" 2>"$WORK/doctor.err" || rc=$?
  # doctor pretty-prints: one line, and each wanted object cut out by its key.
  report=$(tr '\n' ' ' <"$WORK/doctor.json")
  delegated=$(printf '%s' "$report" | grep -oE '"cgroup_v2_delegated": *\{[^}]*\}' || true)
  will_use=$(printf '%s' "$report" | grep -oE '"will_use": *\{[^}]*\}' || true)
  available=$(printf '%s' "$delegated" | grep -oE '"available": *[a-z]+' | grep -oE '[a-z]+$' || true)
  mode=$(printf '%s' "$will_use" | grep -oE '"limits_mode": *"[^"]*"' | grep -oE '"[^"]*"$' | tr -d '"' || true)
  detail=$(printf '%s' "$delegated" | grep -oE '"detail": *"[^"]*"' | sed 's/^"detail": *//' || true)
  begin
  expect "exit status $rc" [ "$rc" = 0 ]
  expect "cgroup_v2_delegated.available=$available" [ "$available" = true ]
  expect "will_use.limits_mode=$mode" [ "$mode" = cgroup2 ]
  finish doctor "delegated=$available ($detail) limits_mode=$mode"
}

# SIGKILL of paddock mid-run: its sandbox dies with it (PR_SET_PDEATHSIG), leaving an empty
# cgroup that the next paddock to start in the same place removes. Both run from this shell's
# cgroup (not a scope of their own), so they share a base cgroup.
scenario_killed_paddock() {
  start=$(now_ms)
  paddock run -- "$PROBE" spin 60 1 >/dev/null 2>&1 &
  victim=$!
  stale=""
  # cgroupfs files always report size 0: read them, never test them with -s.
  for _ in $(seq 100); do
    stale=$(find "$CGROOT" -type d -name "sandbox-$victim-*" 2>/dev/null | head -n 1)
    # Running: paddock-init's relay and the sandbox's init at least (the first is alone in
    # the cgroup for the moment between its clone and its fork).
    [ -n "$stale" ] && [ "$(cat "$stale/cgroup.procs" 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  running=$(cat "$stale/cgroup.procs" 2>/dev/null | wc -l)
  kill -9 "$victim"
  wait "$victim" 2>/dev/null || true
  for _ in $(seq 100); do
    [ -z "$(cat "$stale/cgroup.procs" 2>/dev/null)" ] && break
    sleep 0.1
  done
  survivors=$(cat "$stale/cgroup.procs" 2>/dev/null | tr '\n' ' ')
  begin
  expect "no sandbox cgroup appeared for paddock $victim" [ -n "$stale" ]
  expect "the sandbox was not running when paddock was killed" [ "$running" -ge 2 ]
  expect "processes survived paddock: $survivors" [ -z "$survivors" ]
  expect "the stale cgroup vanished before any paddock started" [ -d "$stale" ]
  next_rc=0
  guarded paddock run -- true >/dev/null 2>&1 || next_rc=$?
  expect "the next paddock failed ($next_rc)" [ "$next_rc" = 0 ]
  expect "the next paddock left the stale $stale" [ ! -d "$stale" ]
  finish killed_paddock "stale=${stale:-none} processes=$running next_rc=$next_rc wall_ms=$(($(now_ms) - start))"
}

# An image on a kernel without overlayfs (no modules in the VM): paddock falls back to a
# flattened copy of the layers, says so, and the sandbox sees exactly what overlayfs would show
# (the upper layer's files, a whiteout and an opaque directory applied, the image's user).
scenario_image_fallback() {
  store=$WORK/images
  rm -rf "$store"
  cp -a /images "$store"
  sandbox image_fallback --root "$store" --image tiny:1 -- sh -c \
    'cat /etc/motd; ls /data; ls /etc/gone 2>&1; id -u; touch /bin/new 2>&1 || echo ro'
  output=$(field stdout)
  root=$(grep -oE '"root": *"[^"]*"' "$out" | head -n 1 || true)
  begin
  expect "exit status $rc" [ "$rc" = 0 ]
  expect "root $root" matches "$root" '*flattened copy*'
  expect "stdout $output" matches "$output" '*layer two*new*No such file*1234*ro*'
  expect "no root_reason" grep -q '"root_reason": *"this kernel will not mount overlayfs' "$out"
  in_scope paddock run --root "$store" --image tiny:1 -- true 2>"$WORK/image_note.err" || true
  expect "no note on stderr: $(head -c 400 "$WORK/image_note.err" | tr '\n' ' ')" \
    grep -q 'runs from a flattened copy' "$WORK/image_note.err"
  expect "no flattened copy in the store" [ -n "$(ls "$store/flat")" ]
  overlay_rc=0
  PADDOCK_IMAGE_ROOT=overlay in_scope paddock run --root "$store" --image tiny:1 -- true \
    >/dev/null 2>"$WORK/image_overlay.err" || overlay_rc=$?
  expect "PADDOCK_IMAGE_ROOT=overlay did not fail" [ "$overlay_rc" != 0 ]
  expect "its error does not name overlayfs" grep -q overlayfs "$WORK/image_overlay.err"
  finish image_fallback "$(summary) $root overlay_only: $(head -n 1 "$WORK/image_overlay.err")"
}

# Whatever the pass did (OOM kills included), no sandbox cgroup may outlive its run.
scenario_leftovers() {
  left=$(sandbox_cgroups_left)
  begin
  expect "sandbox cgroups left: $left" [ -z "$left" ]
  finish leftovers "${left:-none}"
  others=$(find "$CGROOT" -mindepth 1 -type d | grep -vE "^($TESTER_CG|$TESTER_CG/driver)\$" | tr '\n' ' ' || true)
  echo "VMINFO $ROLE other cgroups now: ${others:-none}"
}

# pass ROLE [SCOPES]: every scenario, as whoever runs it.
run_pass() {
  ROLE=$1
  SCOPES=${2:-}
  WORK=/tmp/vmtest-$ROLE
  mkdir -p "$WORK"
  echo "VMINFO $ROLE pass: $(id), in cgroup $(cut -d: -f3 /proc/self/cgroup)"
  for scenario in cgroup_mode oom pids cpu timeout_cleanup killed_paddock require_cgroups doctor \
    image_fallback leftovers; do
    "scenario_$scenario"
  done
}

# --- PID 1 ---------------------------------------------------------------------------------

mount_basics() {
  mount -t proc proc /proc
  mount -t sysfs sysfs /sys
  mount -t devtmpfs devtmpfs /dev
  # The cpio may lack /dev/console (only root can make the node): talk to it now that it exists.
  exec </dev/console >/dev/console 2>&1
  # The firmware leaves its last line ("Booting from ROM..") unterminated: start a fresh one.
  echo
  mkdir -p /dev/pts
  mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
  mount -t tmpfs -o mode=1777 tmpfs /tmp
  mount -t cgroup2 none "$CGROOT"
  # Kernel messages (OOM reports above all) would otherwise split VMTEST lines on the console.
  echo 1 >/proc/sys/kernel/printk
  hostname vm
  export PATH=/usr/bin:/usr/sbin HOME=/tmp
}

check_kernel() {
  controllers=$(cat "$CGROOT/cgroup.controllers")
  ROLE=boot
  begin
  for controller in $CONTROLLERS; do
    expect "no $controller controller" matches " $controllers " "* $controller *"
  done
  expect "cgroup v1 is mounted" sh -c '! grep -q " cgroup " /proc/mounts'
  finish cgroup2 "kernel $(uname -r), controllers: $controllers"
  echo "VMINFO booted in $(cut -d' ' -f1 /proc/uptime) s"
}

# The delegation a systemd host gives a user (Delegate=yes): controllers enabled down to the
# user's subtree, which the user owns, and the user's shell in a leaf of it. Only controllers
# the kernel has: without one (cgroup_disable=...) the passes still run and show paddock's
# fallback failing the checks.
delegate_to_tester() {
  available=$(cat "$CGROOT/cgroup.controllers")
  plus=""
  for controller in $CONTROLLERS; do
    if matches " $available " "* $controller *"; then plus="$plus +$controller"; fi
  done
  mkdir "$TESTER_CG" "$TESTER_CG/driver"
  if [ -n "$plus" ]; then
    echo "$plus" >"$CGROOT/cgroup.subtree_control"
    echo "$plus" >"$TESTER_CG/cgroup.subtree_control"
  fi
  chown -R 1000:1000 "$TESTER_CG"
}

# Runs one pass as a child and reports when it died before finishing its scenarios.
spawn_pass() {
  role=$1
  shift
  status=0
  "$@" || status=$?
  if [ "$status" != 0 ]; then echo "VMTEST $role.pass FAIL the pass itself exited with status $status"; fi
}

# pivot_root(2) refuses to leave the initramfs' rootfs (EINVAL), and every sandbox pivot_roots:
# copy the image into a tmpfs and make that the root, as distributions' initramfs scripts do
# before they start the real init.
leave_rootfs() {
  mkdir /newroot
  mount -t tmpfs -o mode=0755 tmpfs /newroot
  for entry in /*; do
    case $entry in
      /newroot) ;;
      /dev | /proc | /sys | /tmp) mkdir "/newroot$entry" ;;
      *) cp -a "$entry" /newroot/ ;;
    esac
  done
  exec switch_root /newroot /init booted
}

# spawn_tester_pass ROLE SCOPES: a pass as tester, from the leaf "driver" of the delegated
# subtree. The shell enters it before it drops root: afterwards it could not.
spawn_tester_pass() {
  # shellcheck disable=SC2016 # $$ and $1.. belong to the inner shell
  spawn_pass "$1" sh -c 'echo $$ >"$1/driver/cgroup.procs" && exec "$2" runas 1000 1000 -- /init pass "$3" "$4"' \
    - "$TESTER_CG" "$PROBE" "$1" "$2"
}

# A line on the console every HEARTBEAT_SECONDS, for as long as the VM runs (see vm-test).
heartbeat() {
  while sleep "$HEARTBEAT_SECONDS"; do echo "VMBEAT $(cut -d' ' -f1 /proc/uptime)"; done
}

boot() {
  mount_basics
  check_kernel
  delegate_to_tester
  heartbeat &
  spawn_pass root /init pass root
  # Each paddock in a scope of its own, the layout paddock doctor recommends...
  spawn_tester_pass tester "$TESTER_CG"
  # ...and paddock started right in the shell's delegated cgroup.
  spawn_tester_pass tester-shared ""
  echo "VMTEST-DONE"
  poweroff -f
}

if [ "${1:-}" = pass ]; then
  shift
  run_pass "$@"
elif [ "$$" = 1 ] && [ "${1:-}" = booted ]; then
  boot
elif [ "$$" = 1 ]; then
  leave_rootfs
else
  echo "usage: /init [booted] (as PID 1) | /init pass ROLE [SCOPES]" >&2
  exit 2
fi
