// The HTTP server of `toolchat serve`: serve() and ServeStop are public API
// (include/toolchat/gateway.hpp). Every failure is an OpenAI error object with its status (400 with
// the JSON path, 404, 413, 502, 504).
#pragma once

#include "toolchat/gateway.hpp"
