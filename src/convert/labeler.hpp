// The labeler is public API now: include/toolchat/convert.hpp. This name stays for the internal
// includes (with the polyfills, which the labeler applies: chat/polyfill.hpp).
#pragma once
#include "chat/polyfill.hpp"
#include "toolchat/convert.hpp"
