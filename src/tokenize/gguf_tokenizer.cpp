// A GGUF model's tokenizer (tokenizer.ggml.*) as the tokenizer that tokenizes like llama.cpp does
// with it, written as the equivalent tokenizer.json and loaded from that:
// - "gpt2" models: byte-level BPE with the pre-tokenizer regexes llama.cpp uses for the known
//   `tokenizer.ggml.pre` names, no normalizer (llama.cpp applies none);
// - "llama" models (SentencePiece-style, Llama 2, Gemma): llama.cpp merges by token scores, not
//   by a merge list (spm.cpp), so the model is BPE with no merges plus the scores, set after
//   loading; spaces become U+2581, and with add_space_prefix (default true) each text piece
//   between special tokens gets one in front, as llama.cpp's "prefix with space if previous is
//   special" does; byte tokens <0xXX> for characters left unmerged.
// Control (and unknown) tokens become special added tokens, user-defined ones plain added tokens
// (llama.cpp matches both in text; only control/unknown ones are turned off by its parse_special),
// with llama.cpp's overrides of types by token text; BOS/EOS added as add_bos_token/add_eos_token
// say (for "llama" models BOS by default, id 1 unless given, as llama.cpp).
#include <string>
#include <unordered_set>

#include "chat/gguf.hpp"
#include "tokenize/impl.hpp"
#include "toolchat/error.hpp"
#include "toolchat/json.hpp"

namespace toolchat::tokenize {

namespace {

// llama.cpp's token types (llama_token_type): 2 unknown, 3 control, 4 user-defined.
constexpr int64_t kUnknown = 2, kControl = 3, kUserDefined = 4;

struct PreSplit {
  const char* name;
  std::vector<const char*> regexes;  // Split (Isolated) one after the other, then ByteLevel
  bool ignore_merges;
};

const std::vector<PreSplit>& pre_splits() {
  static const std::vector<PreSplit> v = {
      {"qwen2",
       {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
       false},
      {"llama-bpe",
       {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
       true},
      {"deepseek-v3",
       {R"(\p{N}{1,3})", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
        R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^)" "\r\n" R"(\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[)" "\r\n"
        R"(]*|\s*[)" "\r\n" R"(]+|\s+(?!\S)|\s+)"},
       false},
      {"gpt-4o",
       {R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
       false},
  };
  return v;
}

// Token texts llama.cpp makes control tokens whatever their type in the file (it finds the
// end-of-turn, end-of-generation and fill-in-the-middle tokens by their text, and marks them
// control, so that they are matched in text as special tokens), and those it makes user-defined.
const std::unordered_set<std::string_view>& control_by_text() {
  static const std::unordered_set<std::string_view> v = {
      "</s>", "<EOT>", "<MID>", "<PAD>", "<PRE>", "<REPO>",
      "<SUF>", "<end_of_turn>", "<end_of_utterance>", "<eos>", "<fim-middle>", "<fim-pad>",
      "<fim-prefix>", "<fim-repo>", "<fim-suffix>", "<fim_middle>", "<fim_pad>", "<fim_prefix>",
      "<fim_suffix>", "<reponame>", "<turn|>", "<|calls|>", "<|call|>", "<|code_middle|>",
      "<|code_prefix|>", "<|code_suffix|>", "<|end_of_text|>", "<|endoftext|>", "<|end|>", "<|eom_id|>",
      "<|eot_id|>", "<|file_sep|>", "<|fim_middle|>", "<|fim_pad|>", "<|fim_prefix|>", "<|fim_repo|>",
      "<|fim_suffix|>", "<|flush|>", "<|im_end|>", "<|middle|>", "<|prefix|>", "<|repo_name|>",
      "<|return|>", "<|suffix|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "<｜fim▁begin｜>", "<｜fim▁end｜>",
      "<｜fim▁hole｜>", "[EOS]", "[EOT]", "[PAD]", "[e~[", "_<EOT>",
      "▁<MID>", "▁<PRE>", "▁<SUF>"};
  return v;
}
const std::unordered_set<std::string_view>& user_defined_by_text() {
  static const std::unordered_set<std::string_view> v = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};
  return v;
}

void add_str(std::string& out, std::string_view s) { json::dump_string(out, s, false); }

}  // namespace

namespace {

// The vocabulary's entries into `j` (a repeated piece keeps its first id); the added tokens'
// entries (control, unknown and user-defined tokens) returned; with `score_list`, each token's score
// into `scores` (sized by the caller).
std::string append_vocab(std::string& j, const chat::GgufValue& tokens, const chat::GgufValue* types,
                         const chat::GgufValue* score_list, std::vector<float>& scores) {
  std::string added;
  Vocab seen;  // the pieces written so far
  seen.reserve(tokens.items.size());
  bool first = true;
  for (size_t i = 0; i < tokens.items.size(); ++i) {
    const std::string& t = tokens.items[i].s;
    if (score_list) {
      const chat::GgufValue& v = score_list->items[i];
      scores[i] = static_cast<float>(v.is_integer() ? static_cast<double>(v.as_int()) : v.f);
    }
    int64_t type = types ? types->items[i].as_int() : 1;
    if (user_defined_by_text().count(t)) type = kUserDefined;
    else if (control_by_text().count(t)) type = kControl;
    if (type == kControl || type == kUnknown || type == kUserDefined) {
      if (!added.empty()) added += ", ";
      added += "{\"id\": " + std::to_string(i) + ", \"content\": ";
      add_str(added, t);
      added += type == kUserDefined ? ", \"special\": false" : ", \"special\": true";
      added += ", \"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"single_word\": false}";
    }
    // Added tokens stay in the vocabulary too: a merge may make one ("</s>").
    if (seen.set(t, 0) >= 0) continue;  // a repeated piece: the first id, as a map keeps it
    if (!first) j += ", ";
    first = false;
    add_str(j, t);
    j += ": ";
    j += std::to_string(i);
  }
  return added;
}

// The TemplateProcessing post-processor that puts `bos` before and `eos` after the text (-1: none),
// or null.
void append_post_processor(std::string& j, const chat::GgufValue& tokens, int64_t bos, int64_t eos) {
  if (bos < 0 && eos < 0) {
    j += "null";
  } else {
    std::vector<std::string> single;
    std::string specials;
    auto special = [&](int64_t id) {
      const std::string& t = tokens.items[static_cast<size_t>(id)].s;
      std::string item = "{\"SpecialToken\": {\"id\": ";
      add_str(item, t);
      single.push_back(item + ", \"type_id\": 0}}");
      if (!specials.empty()) specials += ", ";
      add_str(specials, t);
      specials += ": {\"id\": ";
      add_str(specials, t);
      specials += ", \"ids\": [" + std::to_string(id) + "], \"tokens\": [";
      add_str(specials, t);
      specials += "]}";
    };
    if (bos >= 0) special(bos);
    single.push_back("{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}");
    if (eos >= 0) special(eos);
    j += "{\"type\": \"TemplateProcessing\", \"single\": [";
    for (size_t i = 0; i < single.size(); ++i) j += (i ? ", " : "") + single[i];
    j += "], \"special_tokens\": {" + specials + "}}";
  }
}

// The tokenizer.json text; for "llama" models also the score of each token (`scores`).
std::string json_from_gguf(const chat::GgufMetadata& md, const std::string& name, std::vector<float>& scores) {
  auto str = [&](const char* key) -> std::string {
    const chat::GgufValue* v = md.find(key);
    return v && v->type == chat::GgufType::String ? v->s : std::string();
  };
  auto fail = [&](const std::string& what) -> void { throw_error(ErrorKind::ValueError, name + ": " + what); };
  const std::string model = str("tokenizer.ggml.model"), pre = str("tokenizer.ggml.pre");
  if (model.empty()) fail("GGUF: no tokenizer.ggml.model (the file carries no tokenizer)");
  if (model != "gpt2" && model != "llama")
    fail("GGUF: tokenizer.ggml.model \"" + model +
         "\" is not supported (byte-level BPE \"gpt2\" and SentencePiece-style \"llama\" models only)");
  const bool spm = model == "llama";
  const chat::GgufValue* tokens = md.find("tokenizer.ggml.tokens");
  const chat::GgufValue* merges = md.find("tokenizer.ggml.merges");
  const chat::GgufValue* types = md.find("tokenizer.ggml.token_type");
  const chat::GgufValue* score_list = md.find("tokenizer.ggml.scores");
  if (!tokens || tokens->type != chat::GgufType::Array || tokens->elem != chat::GgufType::String)
    fail("GGUF: tokenizer.ggml.tokens is missing or not a list of strings");
  if (!spm && (!merges || merges->type != chat::GgufType::Array || merges->elem != chat::GgufType::String))
    fail("GGUF: tokenizer.ggml.merges is missing or not a list of strings");
  if (types && (types->type != chat::GgufType::Array || types->items.size() != tokens->items.size()))
    fail("GGUF: tokenizer.ggml.token_type does not have one entry per token");
  if (spm && score_list &&
      (score_list->type != chat::GgufType::Array || score_list->items.size() < tokens->items.size() ||
       (score_list->elem != chat::GgufType::Float32 && score_list->elem != chat::GgufType::Int32)))
    fail("GGUF: tokenizer.ggml.scores is not a list of float32 or int32 with one entry per token");
  const PreSplit* split = nullptr;
  std::string pre_name = pre.empty() || pre == "default" ? "gpt2" : pre;
  if (!spm) {
    for (const auto& p : pre_splits())
      if (pre_name == p.name) split = &p;
    if (!split && pre_name != "gpt2")
      fail("GGUF: tokenizer.ggml.pre \"" + pre + "\" is not supported (qwen2, llama-bpe, deepseek-v3, gpt-4o, gpt2)");
  }
  auto flag = [&](const char* key, bool dflt) {
    const chat::GgufValue* f = md.find(key);
    return f && f->type == chat::GgufType::Bool ? bool(f->u) : dflt;
  };

  std::string j;
  j.reserve(32 * (tokens->items.size() + (merges ? merges->items.size() : 0)) + 4096);  // no regrowth copies
  j += "{\"model\": {\"type\": \"BPE\", \"byte_fallback\": ";
  j += spm ? "true" : "false";
  j += ", \"ignore_merges\": ";
  j += split && split->ignore_merges ? "true" : "false";
  j += ", \"vocab\": {";
  if (spm) scores.assign(tokens->items.size(), 0.0f);
  std::string added = append_vocab(j, *tokens, types, spm ? score_list : nullptr, scores);
  j += "}, \"merges\": [";
  for (size_t i = 0; !spm && i < merges->items.size(); ++i) {
    if (i) j += ", ";
    add_str(j, merges->items[i].s);
  }
  const bool space_prefix = spm && flag("tokenizer.ggml.add_space_prefix", true);
  if (spm) {
    j += "]}, \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [";
    if (space_prefix) j += "{\"type\": \"Prepend\", \"prepend\": \"\u2581\"}, ";
    j += "{\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\u2581\"}]}, \"pre_tokenizer\": null";
  } else {
    j += "]}, \"normalizer\": null, \"pre_tokenizer\": ";
  }
  if (split) {
    j += "{\"type\": \"Sequence\", \"pretokenizers\": [";
    for (const char* r : split->regexes) {
      j += "{\"type\": \"Split\", \"pattern\": {\"Regex\": ";
      add_str(j, r);
      j += "}, \"behavior\": \"Isolated\", \"invert\": false}, ";
    }
    j += "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false, \"use_regex\": false}]}";
  } else if (!spm) {
    j += "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false, \"use_regex\": true}";
  }
  // add_bos_token / add_eos_token: the ids the post-processor puts around the text ("llama"
  // models: BOS by default, and ids 1 / 2 when the file names none, as llama.cpp).
  auto flag_id = [&](const char* flag_key, const char* id_key, bool dflt, int64_t dflt_id) -> int64_t {
    if (!flag(flag_key, dflt)) return -1;
    const chat::GgufValue* id = md.find(id_key);
    const int64_t v = id && id->is_integer() ? id->as_int() : dflt_id;
    return v >= 0 && static_cast<size_t>(v) < tokens->items.size() ? v : -1;
  };
  const int64_t bos = flag_id("tokenizer.ggml.add_bos_token", "tokenizer.ggml.bos_token_id", spm, spm ? 1 : -1);
  const int64_t eos = flag_id("tokenizer.ggml.add_eos_token", "tokenizer.ggml.eos_token_id", false, spm ? 2 : -1);
  j += ", \"post_processor\": ";
  append_post_processor(j, *tokens, bos, eos);
  if (spm) {
    j += ", \"decoder\": {\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Replace\", \"pattern\": {\"String\": \"\u2581\"}, "
         "\"content\": \" \"}, {\"type\": \"ByteFallback\"}, {\"type\": \"Fuse\"}";
    if (space_prefix) j += ", {\"type\": \"Strip\", \"content\": \" \", \"start\": 1, \"stop\": 0}";
    j += "]}";
  } else {
    j += ", \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false, \"use_regex\": false}";
  }
  j += ", \"added_tokens\": [" + added + "]}";
  return j;
}

}  // namespace

TokenizerImpl load_gguf_tokenizer(const chat::GgufMetadata& md, const std::string& name) {
  std::vector<float> scores;
  TokenizerImpl t = load_tokenizer_json(json_from_gguf(md, name, scores), name);
  if (!scores.empty()) {
    Bpe& m = t.model;
    m.spm_scores = std::move(scores);
    // Long texts are cut before U+2581 where no token reaches across (bpe.hpp): with merges by
    // text, any token of the vocabulary can form, so all of them say where not to cut.
    m.cut_unsafe_prev.clear();
    m.vocab.for_each([&](std::string_view tok, uint32_t) { Bpe::note_cut_unsafe(tok, m.cut_unsafe_prev); });
  }
  return t;
}

}  // namespace toolchat::tokenize
