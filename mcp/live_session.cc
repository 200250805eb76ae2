#include "mcp/live_session.h"

namespace paddock::mcp {

void start_interpreter(SessionEntry& entry) {
  const LanguagePolicy& policy = *entry.policy;
  if (policy.kernel.name.empty()) {
    entry.not_live = policy.name +
                     " has no interpreter that stays between calls; files and installed "
                     "libraries persist, each call is a new process";
    return;
  }
  auto started = LiveKernel::start(*entry.session, policy.kernel, kKernelReadySeconds);
  if (!started) {
    entry.not_live = started.error().message + "; each call runs as a new process instead";
    return;
  }
  entry.kernel = std::move(*started);
}

json interpreter_json(const SessionEntry& entry) {
  if (!entry.kernel) return {{"live", false}, {"not_live_reason", entry.not_live}};
  KernelStatus status = entry.kernel->status();
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
  if (!entry.kernel) return "not live: " + entry.not_live;
  KernelStatus status = entry.kernel->status();
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
