// glassbox-decompile: the command line over the bytecode core.
//
//   glassbox-decompile FILE.pyc [FILE.pyc ...]         Python source that recompiles to the same
//   bytecode glassbox-decompile --dis FILE.pyc [FILE.pyc ...]   listing equivalent to that
//   version's dis.dis glassbox-decompile [--python 3.X] ...               force the version instead
//   of the magic number
//
// Exit codes: 0 success, 1 output with marked fallbacks, 2 bad input or usage.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bytecode/disassembler.hpp"
#include "bytecode/marshal.hpp"
#include "decompiler/decompiler.hpp"

namespace {

using glassbox::bytecode::BytecodeError;
using glassbox::bytecode::PyMinor;

constexpr int kExitOk = 0;
constexpr int kExitFallbacks = 1;
constexpr int kExitBadInput = 2;

struct Options {
  bool dis = false;
  std::optional<PyMinor> minor;
  std::vector<std::string> files;
};

void print_usage(std::ostream& out) {
  out << "usage: glassbox-decompile [--dis] [--python 3.X] FILE.pyc [FILE.pyc ...]\n"
         "  (default)      print Python source that recompiles to the same bytecode\n"
         "  --dis          print a listing equivalent to that version's dis.dis\n"
         "  --python 3.X   read the bytecode as CPython 3.X (10..13) instead of by magic number\n";
}

std::optional<PyMinor> parse_version(const std::string& text) {
  for (PyMinor minor = glassbox::bytecode::kMinSupportedMinor;
       minor <= glassbox::bytecode::kMaxSupportedMinor; ++minor) {
    if (text == "3." + std::to_string(minor)) return minor;
  }
  return std::nullopt;
}

// Returns the parsed options, or nullopt after printing why the command line is wrong.
std::optional<Options> parse_args(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--dis") {
      options.dis = true;
    } else if (arg == "--python" && i + 1 < argc) {
      options.minor = parse_version(argv[++i]);
      if (!options.minor) {
        std::cerr << "glassbox-decompile: unsupported Python version '" << argv[i]
                  << "' (supported: 3.10 to 3.13)\n";
        return std::nullopt;
      }
    } else if (arg == "-h" || arg == "--help") {
      print_usage(std::cout);
      std::exit(kExitOk);
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "glassbox-decompile: unknown option '" << arg << "'\n";
      print_usage(std::cerr);
      return std::nullopt;
    } else {
      options.files.push_back(arg);
    }
  }
  if (options.files.empty()) {
    print_usage(std::cerr);
    return std::nullopt;
  }
  return options;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The listing of one .pyc on stdout; returns its exit code.
int print_listing(const glassbox::bytecode::PycFile& pyc, const std::string&) {
  std::cout << glassbox::bytecode::disassemble(*pyc.code);
  return kExitOk;
}

// The source of one .pyc on stdout, each fallback reported on stderr; returns its exit code.
int print_source(const glassbox::bytecode::PycFile& pyc, const std::string& path) {
  auto result = glassbox::decompiler::decompile_module(*pyc.code);
  std::cout << result.source;
  std::cout.flush();
  for (const auto& fallback : result.fallbacks) {
    std::cerr << "glassbox-decompile: " << path << ": line " << fallback.first_line << " in "
              << fallback.code_name << ": could not reconstruct: " << fallback.reason << "\n";
  }
  return result.fallbacks.empty() ? kExitOk : kExitFallbacks;
}

// Reads one file and hands its parsed .pyc to `print`; bad input is reported here.
int process_file(const std::string& path, const Options& options,
                 int (*print)(const glassbox::bytecode::PycFile&, const std::string&)) {
  std::optional<std::string> data = read_file(path);
  if (!data) {
    std::cerr << "glassbox-decompile: " << path << ": cannot read file\n";
    return kExitBadInput;
  }
  try {
    return print(glassbox::bytecode::read_pyc(*data, options.minor), path);
  } catch (const BytecodeError& error) {
    std::cout.flush();
    std::cerr << "glassbox-decompile: " << path << ": " << error.what() << "\n";
    return kExitBadInput;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<Options> options = parse_args(argc, argv);
  if (!options) return kExitBadInput;
  int status = kExitOk;
  for (const std::string& path : options->files) {
    if (options->files.size() > 1) std::cout << "### " << path << "\n";
    int file_status = process_file(path, *options, options->dis ? print_listing : print_source);
    status = std::max(status, file_status);
  }
  std::cout.flush();
  return status;
}
