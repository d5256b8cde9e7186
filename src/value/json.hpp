// JSON is public API now: include/toolchat/json.hpp. This name stays for the internal includes.
#pragma once
#include "toolchat/json.hpp"
