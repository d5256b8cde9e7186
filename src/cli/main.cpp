// toolchat: one binary, one verb per file (cmd_*.cpp); this file only dispatches.
#include <cstdio>
#include <cstring>
#include <string>

namespace toolchat::cli {
int cmd_render(int argc, char** argv);
int cmd_detect(int argc, char** argv);
int cmd_parse(int argc, char** argv);
int cmd_convert(int argc, char** argv);
int cmd_check(int argc, char** argv);
int cmd_serve(int argc, char** argv);
int cmd_tokenize(int argc, char** argv);
}

namespace {
void usage() {
  std::fputs(
      "usage: toolchat VERB [options]\n"
      "verbs:\n"
      "  render   render a chat template with a context (same contract as hf_render.py)\n"
      "  detect   print a template's capabilities and warnings as JSON\n"
      "  parse    parse model output with a dialect: content, reasoning, tool calls\n"
      "  convert  training data (sharegpt, chatglm3, openai, qwen-agent) -> text + loss spans\n"
      "  check    detect + round trip: render 1 and 2 tool calls, parse them back (exit 1 on failure)\n"
      "  serve    OpenAI-compatible gateway in front of a completion backend\n"
      "  tokenize text -> token ids (and back) with a Hugging Face tokenizer.json\n",
      stderr);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  std::string verb = argv[1];
  if (verb == "render") return toolchat::cli::cmd_render(argc, argv);
  if (verb == "detect") return toolchat::cli::cmd_detect(argc, argv);
  if (verb == "parse") return toolchat::cli::cmd_parse(argc, argv);
  if (verb == "convert") return toolchat::cli::cmd_convert(argc, argv);
  if (verb == "check") return toolchat::cli::cmd_check(argc, argv);
  if (verb == "serve") return toolchat::cli::cmd_serve(argc, argv);
  if (verb == "tokenize") return toolchat::cli::cmd_tokenize(argc, argv);
  std::fprintf(stderr, "toolchat: unknown verb '%s'\n", verb.c_str());
  usage();
  return 2;
}
