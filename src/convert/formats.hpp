// The training-data formats are public API now: include/toolchat/convert.hpp. This name stays for
// the internal includes.
#pragma once
#include "toolchat/convert.hpp"
