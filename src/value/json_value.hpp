// json.dumps straight into a str Value: the text is written once into the string's own block,
// without a std::string in between (the tojson filter makes one per call).
#pragma once

#include "toolchat/json.hpp"
#include "toolchat/value.hpp"

namespace toolchat::json {

// Value::string(dumps(v, o)), with dumps' errors.
Value dumps_value(const Value& v, const DumpOptions& o = {});

}  // namespace toolchat::json
