#include "chat/template_source.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "chat/gguf.hpp"
#include "value/files.hpp"
#include "value/json.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::chat {

namespace fs = std::filesystem;

namespace {

const char* const kSpecialKeys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                    "pad_token", "cls_token", "mask_token"};

// A template file's text; like Python's open(p, encoding="utf-8").read(), bytes that are not
// UTF-8 are a UnicodeDecodeError.
std::string read_file(const fs::path& p) {
  std::string text = files::read_file(p.string());
  std::string bad = utf8::decode_error(text);
  if (!bad.empty()) throw Error(ErrorKind::UnicodeDecodeError, p.string() + ": " + bad);
  return text;
}

// Adds a chat_template field: a string (default), a dict of name -> source, or a list
// of {"name", "template"} objects.
void add_templates(TemplateSet& set, const Value& tpl) {
  if (tpl.is_str()) {
    set.put("default", std::string(tpl.str()), false);
  } else if (tpl.is_dict()) {
    for (const auto& [k, v] : tpl.dict_obj().entries)
      if (k.is_str() && v.is_str()) set.put(std::string(k.str()), std::string(v.str()), true);
  } else if (tpl.is_list()) {
    for (const auto& item : tpl.items()) {
      if (!item.is_dict()) continue;
      const Value* n = item.dict_obj().find("name");
      const Value* t = item.dict_obj().find("template");
      if (n && t && n->is_str() && t->is_str()) set.put(std::string(n->str()), std::string(t->str()), true);
    }
  }
}

// A .gguf file, or any file that starts with the GGUF magic.
bool is_gguf(const fs::path& p) {
  if (p.extension() == ".gguf") return true;
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  return in && in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

Value read_config(TemplateSet& set, const fs::path& p) {
  Value cfg = json::parse_file(p.string());
  if (!cfg.is_dict()) return Value();
  auto& d = cfg.dict_obj();
  DictBuilder tokens(set.special_tokens);
  for (const char* key : kSpecialKeys) {
    const Value* v = d.find(key);
    if (v && !v->is_none()) tokens.add(key, token_text(*v));
  }
  if (const Value* extra = d.find("additional_special_tokens"); extra && extra->is_list() && !extra->items().empty()) {
    std::vector<Value> toks;
    for (const auto& t : extra->items()) toks.push_back(token_text(t));
    tokens.add("additional_special_tokens", Value::list(std::move(toks)));
  }
  set.special_tokens = tokens.build();
  const Value* t = d.find("chat_template");
  return t ? *t : Value();
}

}  // namespace

const std::string* TemplateSet::find(const std::string& name) const {
  for (const auto& [n, s] : templates)
    if (n == name) return &s;
  return nullptr;
}

std::string TemplateSet::origin(const std::string& name) const {
  for (const auto& [n, o] : origins)
    if (n == name) return o;
  return name;
}

void TemplateSet::put(const std::string& name, std::string source, bool overwrite) {
  for (auto& [n, s] : templates) {
    if (n == name) {
      if (overwrite) s = std::move(source);
      return;
    }
  }
  templates.emplace_back(name, std::move(source));
}

Value token_text(const Value& tok) {
  if (tok.is_dict()) {
    const Value* c = tok.dict_obj().find("content");
    return c ? *c : Value::none();
  }
  return tok;
}

TemplateSet load_templates(const std::string& path) {
  TemplateSet set;
  fs::path p(path);
  if (fs::is_directory(p)) {
    Value in_config;
    fs::path cfg = p / "tokenizer_config.json";
    if (fs::exists(cfg)) in_config = read_config(set, cfg);
    fs::path jinja_file = p / "chat_template.jinja";
    fs::path json_file = p / "chat_template.json";
    if (fs::exists(jinja_file)) {
      set.put("default", read_file(jinja_file), true);
      set.origins.emplace_back("default", jinja_file.string());
    } else if (fs::exists(json_file)) {
      Value j = json::parse_file(json_file.string());
      if (j.is_dict())
        if (const Value* t = j.dict_obj().find("chat_template")) add_templates(set, *t);
    } else {
      add_templates(set, in_config);
    }
    fs::path extra = p / "additional_chat_templates";
    if (fs::is_directory(extra)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(extra))
        if (e.path().extension() == ".jinja") files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        set.put(f.stem().string(), read_file(f), true);
        set.origins.emplace_back(f.stem().string(), f.string());
      }
    }
  } else if (p.extension() == ".json") {
    Value head = json::parse_file(path);
    if (head.is_dict() && head.dict_obj().find("chat_template") && p.filename() == "chat_template.json")
      add_templates(set, *head.dict_obj().find("chat_template"));
    else
      add_templates(set, read_config(set, p));
  } else if (is_gguf(p)) {
    set = load_gguf_templates(path);
  } else {
    set.put("default", read_file(p), true);
    set.origins.emplace_back("default", path);
  }
  if (set.templates.empty()) throw Error(ErrorKind::ConfigError, "no chat template in " + path);
  for (const auto& [name, src] : set.templates)
    if (set.origin(name) == name) set.origins.emplace_back(name, path + " (template " + name + ")");
  return set;
}

const std::string& select_template(const TemplateSet& set, const std::optional<std::string>& name, bool has_tools) {
  auto names = [&] {
    std::vector<std::string> v;
    for (const auto& t : set.templates) v.push_back(t.first);
    std::sort(v.begin(), v.end());
    std::vector<Value> vals;
    for (auto& n : v) vals.push_back(Value::string(n));
    return py_repr(Value::list(std::move(vals)));
  };
  if (name) {
    if (const std::string* s = set.find(*name)) return *s;
    throw Error(ErrorKind::ConfigError, "no template named " + string_repr(*name) + "; have " + names());
  }
  if (set.templates.size() == 1 && set.templates[0].first == "default") return set.templates[0].second;
  if (has_tools)
    if (const std::string* s = set.find("tool_use")) return *s;
  if (const std::string* s = set.find("default")) return *s;
  throw Error(ErrorKind::ConfigError, "several templates and none named default: " + names());
}

}  // namespace toolchat::chat
