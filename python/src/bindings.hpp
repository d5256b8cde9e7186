// What the binding files share: the Template handle and each file's bind_* function (module.cpp
// calls them in order).
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "toolchat/chat.hpp"

namespace toolchat::py {

// A loaded model template as Python's toolchat.Template holds it (shared by the Python object
// and, for render(), the cache of compiled sources).
struct TemplateHandle {
  chat::ModelTemplate model;
  jinja::RenderOptions clock;          // strftime_now's instant (load_template's now=; render() brings its own)
  std::optional<std::string> name;     // load_template's name=, else chosen per call
  std::string path;
  // Per template name: the names it looks up (jinja::Template::uses). A variable not among them is
  // never read by that template, so apply does not convert it, as Jinja2 never reads it.
  struct NameHash {
    using is_transparent = void;
    // Looked up for every keyword of every call: the length and the first and last 8 bytes (names
    // are short identifiers), mixed by one multiplication, cost less than hashing every byte.
    size_t operator()(std::string_view s) const {
      uint64_t a = 0, b = 0;
      std::memcpy(&a, s.data(), std::min<size_t>(s.size(), 8));
      if (s.size() > 8) std::memcpy(&b, s.data() + s.size() - std::min<size_t>(s.size() - 8, 8), std::min<size_t>(s.size() - 8, 8));
      return static_cast<size_t>(((a ^ (b * 0x9E3779B97F4A7C15ull) ^ s.size()) * 0xFF51AFD7ED558CCDull) >> 7);
    }
  };
  using NameSet = std::unordered_set<std::string, NameHash, std::equal_to<>>;
  std::unordered_map<std::string, NameSet> names_read;

  // The names template `template_name` looks up; null when unknown (it did not compile: every
  // variable may be read).
  const NameSet* names_of(const std::string& template_name) const;
  // Lists the names each template reads, and which list a call that chooses no other template
  // uses (without and with tools), so that apply looks neither up per call.
  void index_names();
  struct DefaultRead {
    bool known = false;  // false: the choice failed here; the call looks it up (and raises)
    const NameSet* names = nullptr;
  };
  DefaultRead default_read[2];  // [tools given]

  // Renders an oracle-form context, text only (GIL held on entry; released while rendering).
  std::string render(const Value& context, const std::optional<std::string>& template_name,
                     const jinja::RenderOptions& clock) const;
};

// strftime_now's clock from a `now=` argument: None (the CLI's default instant, --now's default),
// "real", an ISO string (read by datetime.fromisoformat, as the oracle reads --now) or a datetime.
jinja::RenderOptions clock_from(const pybind11::object& now);

std::shared_ptr<TemplateHandle> load_handle(const std::string& path, const std::optional<std::string>& name,
                                            const pybind11::object& now);

void bind_templates(pybind11::module_& m);
void bind_parse(pybind11::module_& m);
void bind_convert(pybind11::module_& m);

}  // namespace toolchat::py
