#include "chat/gguf.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>

#include "value/bigint.hpp"
#include "value/files.hpp"

namespace toolchat::chat {

namespace {

static_assert(std::endian::native == std::endian::little, "the GGUF reader assumes a little-endian host");

constexpr uint32_t kMaxType = 12;

size_t fixed_size(GgufType t) {
  switch (t) {
    case GgufType::Uint8: case GgufType::Int8: case GgufType::Bool: return 1;
    case GgufType::Uint16: case GgufType::Int16: return 2;
    case GgufType::Uint32: case GgufType::Int32: case GgufType::Float32: return 4;
    case GgufType::Uint64: case GgufType::Int64: case GgufType::Float64: return 8;
    default: return 0;
  }
}

// Smallest encoding of one value of type t (bounds the element count of an array).
uint64_t min_size(GgufType t) {
  if (t == GgufType::String) return 8;
  if (t == GgufType::Array) return 12;
  return fixed_size(t);
}

// Sequential reader over bytes in memory or a file read in chunks.
class Reader {
 public:
  Reader(std::string_view mem, std::string name, const GgufLimits& lim)
      : data_(mem), size_(mem.size()), name_(std::move(name)), lim_(lim) {}
  Reader(std::ifstream* file, uint64_t size, std::string name, const GgufLimits& lim)
      : file_(file), size_(size), name_(std::move(name)), lim_(lim) {}

  uint64_t offset() const { return base_ + pos_; }
  uint64_t remaining() const { return size_ - offset(); }

  [[noreturn]] void fail(const std::string& what, uint64_t at) const {
    throw Error(ErrorKind::ValueError, name_ + ": GGUF: " + what + " at byte " + std::to_string(at));
  }

  const char* need(uint64_t n, const char* what) {
    if (n > remaining())
      fail(std::string("unexpected end of file reading ") + what + " (" + std::to_string(n) + " bytes needed, " +
               std::to_string(remaining()) + " left)",
           offset());
    if (offset() + n > lim_.max_header_bytes)
      fail("metadata larger than the limit (" + std::to_string(lim_.max_header_bytes) + " bytes)", offset());
    if (file_ && pos_ + n > data_.size()) refill(n);
    const char* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }

  void skip(uint64_t n, const char* what) {
    if (n > remaining() || offset() + n > lim_.max_header_bytes || !file_ || pos_ + n <= data_.size()) {
      need(n, what);
      return;
    }
    base_ = offset() + n;
    pos_ = 0;
    buf_.clear();
    data_ = {};
    file_->clear();
    file_->seekg(static_cast<std::streamoff>(base_));
  }

  template <class T> T pod(const char* what) {
    T v;
    std::memcpy(&v, need(sizeof(T), what), sizeof(T));
    return v;
  }

  std::string string(const char* what) {
    uint64_t at = offset();
    uint64_t len = pod<uint64_t>(what);
    if (len > lim_.max_string_bytes)
      fail(std::string(what) + " of " + std::to_string(len) + " bytes exceeds the limit (" +
               std::to_string(lim_.max_string_bytes) + ")",
           at);
    const char* p = need(len, what);
    return std::string(p, static_cast<size_t>(len));
  }

 private:
  void refill(uint64_t n) {
    buf_.erase(0, pos_);
    base_ += pos_;
    pos_ = 0;
    uint64_t want = std::max<uint64_t>(n, 1u << 20);
    want = std::min<uint64_t>(want, size_ - base_) - buf_.size();
    size_t old = buf_.size();
    buf_.resize(old + static_cast<size_t>(want));
    file_->clear();
    file_->seekg(static_cast<std::streamoff>(base_ + old));
    file_->read(buf_.data() + old, static_cast<std::streamsize>(want));
    if (static_cast<uint64_t>(file_->gcount()) != want) fail("read error", base_ + old);
    data_ = buf_;
  }

  std::ifstream* file_ = nullptr;
  std::string buf_;
  std::string_view data_;
  uint64_t base_ = 0;  // file offset of data_[0]
  size_t pos_ = 0;
  uint64_t size_;
  std::string name_;
  const GgufLimits& lim_;
};

GgufType read_type(Reader& r, const char* what) {
  uint64_t at = r.offset();
  uint32_t t = r.pod<uint32_t>(what);
  if (t > kMaxType) r.fail(std::string("unknown ") + what + " " + std::to_string(t), at);
  return static_cast<GgufType>(t);
}

GgufValue read_scalar(Reader& r, GgufType t) {
  GgufValue v;
  v.type = t;
  switch (t) {
    case GgufType::Uint8: v.u = r.pod<uint8_t>("uint8"); break;
    case GgufType::Int8: v.u = static_cast<uint64_t>(static_cast<int64_t>(r.pod<int8_t>("int8"))); break;
    case GgufType::Uint16: v.u = r.pod<uint16_t>("uint16"); break;
    case GgufType::Int16: v.u = static_cast<uint64_t>(static_cast<int64_t>(r.pod<int16_t>("int16"))); break;
    case GgufType::Uint32: v.u = r.pod<uint32_t>("uint32"); break;
    case GgufType::Int32: v.u = static_cast<uint64_t>(static_cast<int64_t>(r.pod<int32_t>("int32"))); break;
    case GgufType::Uint64: v.u = r.pod<uint64_t>("uint64"); break;
    case GgufType::Int64: v.u = r.pod<uint64_t>("int64"); break;
    case GgufType::Float32: v.f = r.pod<float>("float32"); break;
    case GgufType::Float64: v.f = r.pod<double>("float64"); break;
    case GgufType::Bool: {
      uint64_t at = r.offset();
      uint8_t b = r.pod<uint8_t>("bool");
      if (b > 1) r.fail("invalid bool value " + std::to_string(b), at);
      v.u = b;
      break;
    }
    case GgufType::String: v.s = r.string("string value"); break;
    case GgufType::Array: break;  // handled by read_value
  }
  return v;
}

GgufValue read_value(Reader& r, GgufType t, uint32_t depth, bool keep, const GgufLimits& lim) {
  if (t != GgufType::Array) {
    if (!keep && fixed_size(t)) {
      if (t == GgufType::Bool) return read_scalar(r, t);
      r.skip(fixed_size(t), gguf_type_name(t));
      return {};
    }
    return read_scalar(r, t);
  }
  uint64_t at = r.offset();
  if (depth >= lim.max_array_depth)
    r.fail("arrays nested deeper than the limit (" + std::to_string(lim.max_array_depth) + ")", at);
  GgufType elem = read_type(r, "array element type");
  uint64_t count_at = r.offset();
  uint64_t n = r.pod<uint64_t>("array length");
  if (n > lim.max_array_len)
    r.fail("array of " + std::to_string(n) + " elements exceeds the limit (" + std::to_string(lim.max_array_len) + ")",
           count_at);
  if (n > r.remaining() / min_size(elem))
    r.fail("array of " + std::to_string(n) + " " + gguf_type_name(elem) + " elements is longer than the file",
           count_at);
  GgufValue v;
  v.type = GgufType::Array;
  v.elem = elem;
  if (!keep && fixed_size(elem) && elem != GgufType::Bool) {
    r.skip(n * fixed_size(elem), "array data");
    return v;
  }
  if (keep) v.items.reserve(static_cast<size_t>(n));
  for (uint64_t i = 0; i < n; ++i) {
    GgufValue item = read_value(r, elem, depth + 1, keep, lim);
    if (keep) v.items.push_back(std::move(item));
  }
  return v;
}

uint32_t bswap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

GgufMetadata parse(Reader& r, const GgufReadOptions& opts) {
  const GgufLimits& lim = opts.limits;
  GgufMetadata md;
  const char* magic = r.need(4, "magic");
  if (std::memcmp(magic, "GGUF", 4) != 0) r.fail("not a GGUF file (bad magic)", 0);
  uint32_t version = r.pod<uint32_t>("version");
  if (version != 2 && version != 3) {
    uint32_t swapped = bswap32(version);
    if (swapped >= 1 && swapped <= 3)
      r.fail("big-endian GGUF (version " + std::to_string(swapped) + ") is not supported", 4);
    if (version == 1) r.fail("GGUF version 1 is not supported (only 2 and 3)", 4);
    r.fail("unsupported GGUF version " + std::to_string(version), 4);
  }
  md.version = version;
  md.tensor_count = r.pod<uint64_t>("tensor count");
  uint64_t kv_at = r.offset();
  md.kv_count = r.pod<uint64_t>("key/value count");
  if (md.kv_count > lim.max_kv_count)
    r.fail("key/value count " + std::to_string(md.kv_count) + " exceeds the limit (" +
               std::to_string(lim.max_kv_count) + ")",
           kv_at);
  if (md.kv_count > r.remaining() / 13)
    r.fail("key/value count " + std::to_string(md.kv_count) + " is larger than the file can hold", kv_at);
  for (uint64_t i = 0; i < md.kv_count; ++i) {
    uint64_t at = r.offset();
    std::string key = r.string("key");
    for (const auto& kv : md.kvs)
      if (kv.key == key) r.fail("duplicate key '" + key + "'", at);
    GgufType t = read_type(r, "value type");
    bool keep = !opts.keep || opts.keep(key);
    GgufValue v = read_value(r, t, 0, keep, lim);
    if (keep) md.kvs.push_back({std::move(key), std::move(v)});
  }
  md.header_bytes = r.offset();
  return md;
}

void put_bytes(std::string& out, const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }
template <class T> void put(std::string& out, T v) { put_bytes(out, &v, sizeof v); }
void put_string(std::string& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out += s;
}

void encode_value(std::string& out, const GgufValue& v) {
  switch (v.type) {
    case GgufType::Uint8: case GgufType::Int8: case GgufType::Bool: put<uint8_t>(out, static_cast<uint8_t>(v.u)); break;
    case GgufType::Uint16: case GgufType::Int16: put<uint16_t>(out, static_cast<uint16_t>(v.u)); break;
    case GgufType::Uint32: case GgufType::Int32: put<uint32_t>(out, static_cast<uint32_t>(v.u)); break;
    case GgufType::Uint64: case GgufType::Int64: put<uint64_t>(out, v.u); break;
    case GgufType::Float32: put<float>(out, static_cast<float>(v.f)); break;
    case GgufType::Float64: put<double>(out, v.f); break;
    case GgufType::String: put_string(out, v.s); break;
    case GgufType::Array:
      put<uint32_t>(out, static_cast<uint32_t>(v.elem));
      put<uint64_t>(out, v.items.size());
      for (const auto& item : v.items) {
        if (item.type != v.elem)
          throw Error(ErrorKind::ValueError, std::string("GGUF writer: array of ") + gguf_type_name(v.elem) +
                                                 " holds a " + gguf_type_name(item.type));
        encode_value(out, item);
      }
      break;
  }
}

}  // namespace

const char* gguf_type_name(GgufType t) {
  static const char* const names[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
                                      "bool", "string", "array", "uint64", "int64", "float64"};
  auto i = static_cast<uint32_t>(t);
  return i <= kMaxType ? names[i] : "unknown";
}

GgufValue GgufValue::uint(GgufType t, uint64_t v) {
  GgufValue g;
  g.type = t;
  g.u = v;
  return g;
}
GgufValue GgufValue::sint(GgufType t, int64_t v) { return uint(t, static_cast<uint64_t>(v)); }
GgufValue GgufValue::f32(float v) {
  GgufValue g;
  g.type = GgufType::Float32;
  g.f = v;
  return g;
}
GgufValue GgufValue::f64(double v) {
  GgufValue g;
  g.type = GgufType::Float64;
  g.f = v;
  return g;
}
GgufValue GgufValue::boolean(bool v) { return uint(GgufType::Bool, v ? 1 : 0); }
GgufValue GgufValue::str(std::string v) {
  GgufValue g;
  g.type = GgufType::String;
  g.s = std::move(v);
  return g;
}
GgufValue GgufValue::array(GgufType elem, std::vector<GgufValue> items) {
  GgufValue g;
  g.type = GgufType::Array;
  g.elem = elem;
  g.items = std::move(items);
  return g;
}
GgufValue GgufValue::strings(const std::vector<std::string>& v) {
  std::vector<GgufValue> items;
  items.reserve(v.size());
  for (const auto& s : v) items.push_back(str(s));
  return array(GgufType::String, std::move(items));
}

bool GgufValue::is_integer() const {
  return fixed_size(type) && type != GgufType::Bool && type != GgufType::Float32 && type != GgufType::Float64;
}

Value GgufValue::to_value() const {
  switch (type) {
    case GgufType::Bool: return Value::boolean(u != 0);
    case GgufType::Float32: case GgufType::Float64: return Value::floating(f);
    case GgufType::String: return Value::string(s);
    case GgufType::Uint64:
      if (u > static_cast<uint64_t>(INT64_MAX)) {
        BigInt b;
        BigInt::from_decimal(std::to_string(u), b);
        return make_int(b);
      }
      return Value::integer(static_cast<int64_t>(u));
    case GgufType::Array: {
      std::vector<Value> out;
      out.reserve(items.size());
      for (const auto& i : items) out.push_back(i.to_value());
      return Value::list(std::move(out));
    }
    default: return Value::integer(static_cast<int64_t>(u));
  }
}

const GgufValue* GgufMetadata::find(std::string_view key) const {
  for (const auto& kv : kvs)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

GgufMetadata parse_gguf(std::string_view bytes, const GgufReadOptions& opts, const std::string& name) {
  Reader r(bytes, name, opts.limits);
  return parse(r, opts);
}

GgufMetadata read_gguf(const std::string& path, const GgufReadOptions& opts) {
  uint64_t size = files::check_readable(path);  // the OS's reason: missing, no permission, a directory
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::OSError, path + ": cannot open file");
  Reader r(&in, size, path, opts.limits);
  return parse(r, opts);
}

std::string encode_gguf(const std::vector<GgufKV>& kvs, uint32_t version) {
  if (version != 2 && version != 3) throw Error(ErrorKind::ValueError, "GGUF writer: version must be 2 or 3");
  std::string out = "GGUF";
  put<uint32_t>(out, version);
  put<uint64_t>(out, 0);  // tensors
  put<uint64_t>(out, kvs.size());
  for (const auto& kv : kvs) {
    put_string(out, kv.key);
    put<uint32_t>(out, static_cast<uint32_t>(kv.value.type));
    encode_value(out, kv.value);
  }
  return out;
}

void write_gguf(const std::string& path, const std::vector<GgufKV>& kvs, uint32_t version) {
  std::string bytes = encode_gguf(kvs, version);
  files::AtomicOutput out(path);
  out.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.commit();
}

const std::vector<GgufSpecialKey>& gguf_special_keys() {
  // llama.cpp's names (with its "seperator" spelling), then the spellings others write.
  static const std::vector<GgufSpecialKey> keys = {
      {"tokenizer.ggml.bos_token_id", "bos_token"},      {"tokenizer.ggml.eos_token_id", "eos_token"},
      {"tokenizer.ggml.unknown_token_id", "unk_token"},  {"tokenizer.ggml.unk_token_id", "unk_token"},
      {"tokenizer.ggml.seperator_token_id", "sep_token"}, {"tokenizer.ggml.separator_token_id", "sep_token"},
      {"tokenizer.ggml.padding_token_id", "pad_token"},  {"tokenizer.ggml.pad_token_id", "pad_token"},
      {"tokenizer.ggml.cls_token_id", "cls_token"},      {"tokenizer.ggml.mask_token_id", "mask_token"},
  };
  return keys;
}

TemplateSet gguf_template_set(const GgufMetadata& md) {
  TemplateSet set;
  const std::string prefix = "tokenizer.chat_template";
  if (const GgufValue* t = md.find(prefix); t && t->type == GgufType::String) set.put("default", t->s, true);
  for (const auto& kv : md.kvs)
    if (kv.key.size() > prefix.size() + 1 && kv.key.compare(0, prefix.size() + 1, prefix + ".") == 0 &&
        kv.value.type == GgufType::String)
      set.put(kv.key.substr(prefix.size() + 1), kv.value.s, true);
  const GgufValue* tokens = md.find("tokenizer.ggml.tokens");
  if (tokens && tokens->type == GgufType::Array && tokens->elem == GgufType::String) {
    auto& st = set.special_tokens.dict_obj();
    for (const auto& k : gguf_special_keys()) {
      const GgufValue* id = md.find(k.gguf_key);
      if (!id || !id->is_integer() || st.find(k.token_name)) continue;
      int64_t i = id->as_int();
      if (i < 0 || static_cast<uint64_t>(i) >= tokens->items.size()) continue;
      st.set(Value::string(k.token_name), Value::string(tokens->items[static_cast<size_t>(i)].s));
    }
  }
  return set;
}

TemplateSet load_gguf_templates(const std::string& path, const GgufLimits& limits) {
  GgufReadOptions opts;
  opts.limits = limits;
  opts.keep = [](std::string_view key) {
    if (key.rfind("tokenizer.chat_template", 0) == 0 || key == "tokenizer.ggml.tokens") return true;
    for (const auto& k : gguf_special_keys())
      if (key == k.gguf_key) return true;
    return false;
  };
  return gguf_template_set(read_gguf(path, opts));
}

std::vector<GgufKV> gguf_kvs_for(const TemplateSet& set, const std::vector<std::string>& extra_tokens) {
  std::vector<GgufKV> kvs;
  kvs.push_back({"general.architecture", GgufValue::str("llama")});
  for (const auto& [name, src] : set.templates)
    kvs.push_back({name == "default" ? "tokenizer.chat_template" : "tokenizer.chat_template." + name,
                   GgufValue::str(src)});
  std::vector<std::string> tokens = extra_tokens;
  std::vector<GgufKV> ids;
  std::vector<std::string> done;  // token names written (the first spelling of each key only)
  for (const auto& k : gguf_special_keys()) {
    const Value* v = set.special_tokens.is_dict() ? set.special_tokens.dict_obj().find(k.token_name) : nullptr;
    if (!v || !v->is_str() || std::find(done.begin(), done.end(), k.token_name) != done.end()) continue;
    done.push_back(k.token_name);
    size_t id = tokens.size();
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] == v->str()) id = i;
    if (id == tokens.size()) tokens.emplace_back(v->str());
    ids.push_back({k.gguf_key, GgufValue::u32(static_cast<uint32_t>(id))});
  }
  kvs.push_back({"tokenizer.ggml.model", GgufValue::str("gpt2")});
  kvs.push_back({"tokenizer.ggml.tokens", GgufValue::strings(tokens)});
  for (auto& kv : ids) kvs.push_back(std::move(kv));
  return kvs;
}

}  // namespace toolchat::chat
