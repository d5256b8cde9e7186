// The dialect interface is public API now: include/toolchat/dialects.hpp. This name stays for the
// internal includes.
#pragma once
#include "toolchat/dialects.hpp"
