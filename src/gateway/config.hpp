// The gateway's settings are public API now: include/toolchat/gateway.hpp. This name stays for the
// internal includes.
#pragma once
#include "toolchat/gateway.hpp"
