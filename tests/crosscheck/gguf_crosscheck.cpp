// ctest gguf_crosscheck: our GGUF writer and reader against the npm package @huggingface/gguf
// (tests/tools/gguf_check.mjs). Files we write must read back in node as exactly the types
// and values we wrote; a file node writes must read back with our reader the same way.
// Exit 77 (ctest: skipped) with a message when node or the npm package cannot be had.
//
//   gguf_crosscheck SOURCE_DIR WORK_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "chat/gguf.hpp"
#include "chat/template_source.hpp"
#include "shell_quote.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::chat;
namespace fs = std::filesystem;

namespace {

int failures = 0;

void fail(const std::string& what) {
  std::cerr << "FAIL: " << what << "\n";
  ++failures;
}

using toolchat::testing::shell_quote;

bool run(const std::string& cmd, std::string* out) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    if (out) out->append(buf, n);
  return pclose(p) == 0;
}

// Our value as gguf_check.mjs prints it: 64-bit integers as decimal strings.
Value node_form(const GgufValue& v) {
  switch (v.type) {
    case GgufType::Uint64: return Value::string(std::to_string(v.u));
    case GgufType::Int64: return Value::string(std::to_string(v.as_int()));
    case GgufType::Array: {
      std::vector<Value> items;
      for (const auto& i : v.items) items.push_back(node_form(i));
      return Value::list(std::move(items));
    }
    default: return v.to_value();
  }
}

std::string show(const Value& v) { return json::dumps(v); }

// Compares one kv list with node's [[key, type, subType, value], ...].
void compare_kvs(const std::string& label, const std::vector<GgufKV>& ours, const Value& theirs) {
  if (!theirs.is_list() || theirs.items().size() != ours.size()) {
    fail(label + ": node sees " + (theirs.is_list() ? std::to_string(theirs.items().size()) : "no") +
         " keys, we wrote " + std::to_string(ours.size()));
    return;
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    const auto& row = theirs.items()[i].items();
    const GgufKV& kv = ours[i];
    std::string where = label + " key " + kv.key;
    if (row[0].str() != kv.key) fail(where + ": node has key " + std::string(row[0].str()) + " in that place");
    if (row[1].as_int() != static_cast<int64_t>(kv.value.type))
      fail(where + ": type " + std::to_string(row[1].as_int()) + " in node");
    if (kv.value.type == GgufType::Array && row[2].as_int() != static_cast<int64_t>(kv.value.elem))
      fail(where + ": element type " + show(row[2]) + " in node");
    Value mine = node_form(kv.value);
    if (!py_equal(mine, row[3])) fail(where + ": value " + show(row[3]).substr(0, 200) + " in node, ours " +
                                      show(mine).substr(0, 200));
  }
}

std::vector<std::vector<GgufKV>> scalar_cases() {
  using T = GgufType;
  std::vector<GgufKV> all = {
      {"general.architecture", GgufValue::str("llama")},
      {"t.u8", GgufValue::uint(T::Uint8, 255)},
      {"t.i8", GgufValue::sint(T::Int8, -128)},
      {"t.u16", GgufValue::uint(T::Uint16, 65535)},
      {"t.i16", GgufValue::sint(T::Int16, -32768)},
      {"t.u32", GgufValue::uint(T::Uint32, 4294967295u)},
      {"t.i32", GgufValue::sint(T::Int32, -2147483647 - 1)},
      {"t.u64", GgufValue::uint(T::Uint64, 18446744073709551615ull)},
      {"t.i64", GgufValue::sint(T::Int64, INT64_MIN)},
      {"t.f32", GgufValue::f32(0.15625f)},
      {"t.f64", GgufValue::f64(-1.0e-300)},
      {"t.true", GgufValue::boolean(true)},
      {"t.false", GgufValue::boolean(false)},
      {"t.str", GgufValue::str("h\xC3\xA9llo \xE2\x96\x81 {{ bos_token }}\n\"quoted\"")},
      {"t.empty", GgufValue::str("")},
      {"t.arr.u8", GgufValue::array(T::Uint8, {GgufValue::uint(T::Uint8, 1), GgufValue::uint(T::Uint8, 2)})},
      {"t.arr.i64", GgufValue::array(T::Int64, {GgufValue::sint(T::Int64, -5), GgufValue::sint(T::Int64, 1ll << 60)})},
      {"t.arr.f32", GgufValue::array(T::Float32, {GgufValue::f32(1.5f), GgufValue::f32(-0.25f)})},
      {"t.arr.bool", GgufValue::array(T::Bool, {GgufValue::boolean(true), GgufValue::boolean(false)})},
      {"t.arr.str", GgufValue::strings({"<s>", "</s>", "", "\xE2\x96\x81hi"})},
      {"t.arr.empty", GgufValue::array(T::Int32, {})},
  };
  std::vector<GgufKV> nested = {
      {"t.nested", GgufValue::array(T::Array, {GgufValue::strings({"a", "b"}), GgufValue::strings({"c"})})},
  };
  return {all, nested};
}

// Every case written as v2 and v3, read back by node; and by us (round trip).
void check_our_writer(const fs::path& work, const std::string& node_cmd) {
  auto cases = scalar_cases();
  // Model-like files: corpus templates with named templates and special tokens.
  TemplateSet set;
  set.put("default", "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}", true);
  set.put("tool_use", "{{ tools | tojson }}", true);
  set.special_tokens.dict_obj().set(Value::string("bos_token"), Value::string("<|begin_of_text|>"));
  set.special_tokens.dict_obj().set(Value::string("eos_token"), Value::string("<|eot_id|>"));
  cases.push_back(gguf_kvs_for(set, {"!", "\"", "\xC4\xA0the"}));
  int n = 0;
  for (const auto& kvs : cases) {
    for (uint32_t version : {2u, 3u}) {
      fs::path file = work / ("case" + std::to_string(n++) + "_v" + std::to_string(version) + ".gguf");
      write_gguf(file.string(), kvs, version);
      std::string out;
      if (!run(node_cmd + " read " + shell_quote(file.string()), &out)) {
        fail(file.string() + ": node could not read it");
        continue;
      }
      Value got = json::parse(out);
      const auto& d = got.dict_obj();
      if (d.find("version")->as_int() != version) fail(file.string() + ": version");
      if (d.find("tensor_count")->str() != "0") fail(file.string() + ": tensor_count");
      if (d.find("kv_count")->str() != std::to_string(kvs.size())) fail(file.string() + ": kv_count");
      compare_kvs(file.string(), kvs, *d.find("kvs"));
      GgufMetadata back = read_gguf(file.string());
      compare_kvs(file.string() + " (our reader)", back.kvs, *d.find("kvs"));
    }
  }
  std::cout << "our writer -> node: " << n << " files\n";
}

// Node writes the scalar case; our reader must see the same keys, types and values.
void check_node_writer(const fs::path& work, const std::string& node_cmd) {
  // @huggingface/gguf 0.4.6's serializer takes subType 0 (uint8) for a missing one and throws
  // "Array type requires subType to be specified": uint8 arrays are left out of this direction.
  std::vector<GgufKV> kvs;
  const auto cases = scalar_cases();
  for (const auto& kv : cases[0])
    if (!(kv.value.type == GgufType::Array && kv.value.elem == GgufType::Uint8)) kvs.push_back(kv);
  std::vector<Value> rows;
  for (const auto& kv : kvs)
    rows.push_back(Value::list({Value::string(kv.key), Value::integer(static_cast<int64_t>(kv.value.type)),
                                kv.value.type == GgufType::Array ? Value::integer(static_cast<int64_t>(kv.value.elem))
                                                                 : Value::none(),
                                node_form(kv.value)}));
  Value spec = Value::dict();
  spec.dict_obj().set(Value::string("version"), Value::integer(3));
  spec.dict_obj().set(Value::string("kvs"), Value::list(rows));
  fs::path spec_file = work / "node_spec.json";
  std::ofstream(spec_file) << json::dumps(spec);
  fs::path file = work / "node_written.gguf";
  if (!run(node_cmd + " write " + shell_quote(spec_file.string()) + " " + shell_quote(file.string()), nullptr)) {
    fail("node could not write " + file.string());
    return;
  }
  GgufMetadata md = read_gguf(file.string());
  if (md.version != 3 || md.tensor_count != 0) fail("node-written file: header");
  compare_kvs("node-written file", md.kvs, Value::list(rows));
  std::cout << "node writer -> our reader: " << md.kvs.size() << " keys\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gguf_crosscheck SOURCE_DIR WORK_DIR\n";
    return 2;
  }
  fs::path src = argv[1], work = argv[2];
  fs::path tools = src / "tests" / "tools";
  if (!run("bash " + shell_quote((tools / "install_node_deps.sh").string()) + " 1>&2", nullptr)) {
    std::cout << "SKIPPED: gguf_crosscheck needs node and @huggingface/gguf "
                 "(tests/tools/install_node_deps.sh could not install them)\n";
    return 77;
  }
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec || !fs::is_directory(work)) {
    std::cerr << "gguf_crosscheck: cannot create " << work << "\n";
    return 1;
  }
  std::string node_cmd = "node " + shell_quote((tools / "gguf_check.mjs").string());
  try {
    check_our_writer(work, node_cmd);
    check_node_writer(work, node_cmd);
  } catch (const Error& e) {
    fail(std::string("error: ") + e.message());
  } catch (const std::exception& e) {
    fail(std::string("error: ") + e.what());
  }
  std::cout << (failures ? "gguf_crosscheck: FAILED" : "gguf_crosscheck: ok") << "\n";
  return failures ? 1 : 0;
}
