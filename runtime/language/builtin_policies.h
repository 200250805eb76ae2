#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace paddock {

// policies/*.json (but schema.json) as they were when paddock was built: file name and text.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_policy_texts();

}  // namespace paddock
