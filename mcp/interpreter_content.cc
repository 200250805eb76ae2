#include "mcp/interpreter_content.h"

#include "app/live_session.h"

namespace paddock::mcp {

json interpreter_json(const app::SessionEntry& entry) {
  const runtime::LiveKernel* kernel = entry.live_kernel();
  if (kernel == nullptr) return {{"live", false}, {"not_live_reason", entry.not_live_reason()}};
  runtime::KernelStatus status = kernel->status();
  json interpreter = {{"state", status.state},
                      {"kernel", status.kernel},
                      {"implementation", status.implementation},
                      {"language_version", status.language_version},
                      {"cells", status.cells},
                      {"restarts", status.restarts}};
  if (!status.last_loss.empty()) interpreter["last_state_lost"] = status.last_loss;
  return {{"live", true}, {"interpreter", std::move(interpreter)}};
}

json interpreter_schema_properties() {
  return json::parse(R"({
    "live": {"type": "boolean"},
    "not_live_reason": {"type": "string"},
    "interpreter": {"type": "object", "properties": {
      "state": {"type": "string", "enum": ["idle", "busy", "starting", "dead"]},
      "kernel": {"type": "string"}, "implementation": {"type": "string"},
      "language_version": {"type": "string"}, "cells": {"type": "integer"},
      "restarts": {"type": "integer"}, "last_state_lost": {"type": "string"}}}
  })");
}

}  // namespace paddock::mcp
