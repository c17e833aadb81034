// Shared pieces of the `tessera` command-line tool: argument scanning, file reading, value
// printing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "relay/module.h"
#include "relay/value.h"

namespace tessera::cli {

/// Exit codes: 0 success, 1 bad input (a diagnostic was printed), 2 bad usage.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

/// Thrown for a command-line mistake; main prints the message and the command's usage.
struct UsageError {
  std::string message;
};

/// A simple scanner over argv: positional arguments and `--flag`, `--flag VALUE`, `--flag=VALUE`.
class Args {
 public:
  explicit Args(std::vector<std::string> args) : args_(std::move(args)) {}
  /// True (and consumed) when `--name` is present.
  bool flag(const std::string& name);
  /// Every value of a repeatable `--name VALUE` option, consumed.
  std::vector<std::string> values(const std::string& name);
  /// The value of `--name VALUE`, consumed; nullopt when absent.
  std::optional<std::string> value(const std::string& name);
  /// The remaining positional arguments; a leftover `--option` is a UsageError.
  std::vector<std::string> positionals();
  /// The first remaining argument (a subcommand such as `vta pack`), or "" when none is left.
  std::string first() const { return args_.empty() ? std::string() : args_.front(); }

 private:
  std::vector<std::string> args_;
};

/// Reads a whole file; throws DiagnosticError naming the file when it cannot be read.
std::string readTextFile(const std::string& path);
/// The first `bytes` bytes of the file (fewer when it is shorter); the same errors as readTextFile.
std::string readFilePrefix(const std::string& path, size_t bytes);
/// Writes a file atomically (temporary file + rename).
void writeTextFile(const std::string& path, const std::string& text);
/// Prints `text` (ending it with a newline) to OUT when given, else to standard output.
void emitText(std::string text, const std::optional<std::string>& out);

/// `--input-shape NAME=D0,D1,...` values as a map; malformed ones are UsageErrors.
std::map<std::string, std::vector<int64_t>> parseInputShapes(const std::vector<std::string>& specs);
/// The module in `path`: an ONNX model (by the .onnx extension or its content) imported with the
/// given `--input-shape` values (and, for inputs it needs as constants, such as a Reshape's shape
/// or a Resize's sizes, the `inputValues`: the model is specialised to them), or Relay text.
/// `dynamicDims`: a dynamic input dimension neither fixes stays `?` (compiled once for all).
relay::IRModule loadModule(const std::string& path, const std::vector<std::string>& inputShapes,
                           const std::map<std::string, NDArray>& inputValues = {},
                           bool dynamicDims = false);

/// "Tensor[(2, 3), float32]\n[[0.1, ...],\n [...]]": the type, then the values as NumPy prints
/// them (formatValues); a tuple lists its fields.
std::string formatValue(const relay::Value& v);

int cmdPrint(Args& args);
int cmdRun(Args& args);
int cmdDemo(Args& args);
int cmdVta(Args& args);
int cmdOpt(Args& args);
int cmdImport(Args& args);
int cmdTir(Args& args);
int cmdTune(Args& args);
int cmdCompile(Args& args);
int cmdClassify(Args& args);
int cmdEval(Args& args);
int cmdQuantize(Args& args);

extern const char* const kPrintUsage;
extern const char* const kRunUsage;
extern const char* const kDemoUsage;
extern const char* const kVtaUsage;
extern const char* const kOptUsage;
extern const char* const kImportUsage;
extern const char* const kTirUsage;
extern const char* const kTuneUsage;
extern const char* const kCompileUsage;
extern const char* const kClassifyUsage;
extern const char* const kEvalUsage;
extern const char* const kQuantizeUsage;

}  // namespace tessera::cli
