#include "mcp/live_session.h"

namespace paddock::mcp {

namespace {

void not_live(SessionEntry& entry, std::string why) {
  entry.not_live = std::move(why);
  entry.interpreter.store(SessionEntry::Interpreter::kNotLive, std::memory_order_release);
}

// The kernel, once it is known to be there.
const LiveKernel* live_kernel(const SessionEntry& entry) {
  return entry.interpreter.load(std::memory_order_acquire) == SessionEntry::Interpreter::kLive
             ? entry.kernel.get()
             : nullptr;
}

std::string not_live_reason(const SessionEntry& entry) {
  return entry.interpreter.load(std::memory_order_acquire) == SessionEntry::Interpreter::kPending
             ? "the interpreter is starting"
             : entry.not_live;
}

}  // namespace

void start_interpreter(SessionEntry& entry, bool wanted, const SecretMask& secrets) {
  const LanguagePolicy& policy = *entry.policy;
  if (!wanted) return not_live(entry, "created with live: false; each call runs as a new process");
  if (policy.kernel.name.empty()) {
    return not_live(entry, policy.name +
                               " has no interpreter that stays between calls; files and "
                               "installed libraries persist, each call is a new process");
  }
  auto started = LiveKernel::start(*entry.session, policy.kernel, kKernelReadySeconds);
  if (!started && started.error().code == ENOTSUP) {
    return not_live(entry, started.error().message);  // the backend's own words say it all
  }
  if (!started) {
    return not_live(entry, secrets.apply(started.error().message) +
                               "; each call runs as a new process instead");
  }
  entry.kernel = std::move(*started);
  entry.interpreter.store(SessionEntry::Interpreter::kLive, std::memory_order_release);
}

json interpreter_json(const SessionEntry& entry) {
  const LiveKernel* kernel = live_kernel(entry);
  if (kernel == nullptr) return {{"live", false}, {"not_live_reason", not_live_reason(entry)}};
  KernelStatus status = kernel->status();
  json interpreter = {{"state", status.state},
                      {"kernel", status.kernel},
                      {"implementation", status.implementation},
                      {"language_version", status.language_version},
                      {"cells", status.cells},
                      {"restarts", status.restarts}};
  if (!status.last_loss.empty()) interpreter["last_state_lost"] = status.last_loss;
  return {{"live", true}, {"interpreter", std::move(interpreter)}};
}

std::string interpreter_line(const SessionEntry& entry) {
  const LiveKernel* kernel = live_kernel(entry);
  if (kernel == nullptr) return "not live: " + not_live_reason(entry);
  KernelStatus status = kernel->status();
  std::string line = "live: variables, functions and imports persist between calls (" +
                     status.kernel + " kernel, " + status.state;
  if (status.restarts > 0) {
    line +=
        ", restarted " + std::to_string(status.restarts) + "x, last because " + status.last_loss;
  }
  return line + ")";
}

json interpreter_schema_properties() {
  return json::parse(R"({
    "live": {"type": "boolean", "description": "Whether the session keeps an interpreter whose variables persist between calls."},
    "not_live_reason": {"type": "string"},
    "interpreter": {"type": "object", "properties": {
      "state": {"type": "string", "enum": ["idle", "busy", "starting", "dead"]},
      "kernel": {"type": "string"}, "implementation": {"type": "string"},
      "language_version": {"type": "string"}, "cells": {"type": "integer"},
      "restarts": {"type": "integer"}, "last_state_lost": {"type": "string"}}}
  })");
}

}  // namespace paddock::mcp
