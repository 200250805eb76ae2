#pragma once

// What paddock tells models about its languages (app/language_catalog.h), as JSON: the list,
// and one language's details (toolchain version, file extension, package manager, example,
// limits).

#include <vector>

#include "app/language_catalog.h"
#include "language/policy_store.h"
#include "mcp/json_rpc.h"

namespace paddock::mcp {

json language_list(const std::vector<app::LanguageSummary>& languages);
json language_details(const app::LanguageDetails& details);
// The limits a language's runs get, as both get_language_details and get_session show them
// (their timeout already under the cap: the spec builder's): the timeout, memory, pids, output,
// work directory and network.
json limits_summary(const runtime::Limits& limits, runtime::NetworkMode network);
// What each language has preinstalled, a sentence each ("Preinstalled for python: numpy, ...."),
// for the server's instructions: a model that does not know numpy is there installs it again.
std::string preinstalled_lines(const language::PolicyStore& policies);

}  // namespace paddock::mcp
