// The pass infrastructure of every IR (TVM's include/tvm/ir/transform.h): PassInfo, the
// PassContext a compilation runs under (opt level, required and disabled passes, the config map,
// the target, the instruments), the stack of current contexts, and passes over any module type
// with Sequential. Relay passes are PassNode<relay::IRModule> (relay/transform/pass.h), TIR
// lowering passes PassNode<tir::TirModule> (tir/transform/pass.h); the driver runs its own
// steps through the same instruments, so --time-passes and --print-after see all of them.
//
//   PassContext ctx;
//   ctx.optLevel = 3;
//   ctx.setConfig("tir.disable_vectorize", "true");
//   PassContext::Scope scope(ctx);  // `with PassContext(...)`: current() is ctx until it ends
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/attr_value.h"
#include "target/target.h"

namespace tessera::transform {

/// Wall time of one pass execution (filled when PassContext::timePasses is set).
struct PassTiming {
  std::string name;
  double milliseconds = 0;
  int depth = 0;     ///< nesting inside Sequentials and steps
  long peakMiB = 0;  ///< the process's peak resident memory when the pass ended
};

/// What a config value holds; `setConfig` parses and checks a value against its key's kind.
enum class ConfigKind : uint8_t {
  kBool,      ///< true/false (also 1/0)
  kInt,       ///< an integer
  kPassList,  ///< [[phase, "PassName"], ...]: tir.add_lower_pass
  kDict,      ///< {"field": value, ...} with the fields the option lists
};

/// One known config key (TVM's TVM_REGISTER_PASS_CONFIG_OPTION), as a row of data.
struct ConfigOption {
  const char* key;
  ConfigKind kind;
  const char* summary;
  /// kDict: the allowed fields and each one's kind (kBool or kInt).
  std::vector<std::pair<const char*, ConfigKind>> fields = {};
};

/// Every config key a PassContext accepts, in documentation order.
const std::vector<ConfigOption>& configOptions();

/// The environment passes run in (TVM's PassContext). Default opt level 2, as in TVM.
struct PassContext {
  int optLevel = 2;
  std::set<std::string> requiredPasses;     ///< run even when the opt level is too low
  std::set<std::string> disabledPasses;     ///< never run inside a Sequential
  std::map<std::string, AttrValue> config;  ///< e.g. "tir.disable_vectorize" -> True
  /// The target being compiled for (TVM's Target.current()); target hooks such as
  /// AlterOpLayout's do nothing without one.
  std::optional<target::Target> target;
  /// Instrumentation.
  bool timePasses = false;
  std::vector<PassTiming> timings;
  std::set<std::string> printAfter;  ///< print the module after each pass with one of these names
  bool printAfterAll = false;
  std::ostream* printStream = nullptr;  ///< where printAfter goes (std::cerr when null)

  /// The config value for `key`, or `fallback` when unset.
  AttrValue configValue(const std::string& key, AttrValue fallback = {}) const;
  /// A boolean config value (`fallback` when unset).
  bool configFlag(const std::string& key, bool fallback = false) const;
  /// One field of a kDict config value (`fallback` when the key or the field is unset).
  AttrValue configField(const std::string& key, const std::string& field,
                        AttrValue fallback = {}) const;
  /// Sets `key` from its text as `--pass-config KEY=VALUE` writes it: true/false, an integer,
  /// or JSON for pass lists and dicts. DiagnosticError (code "pass_config", naming the key) for an
  /// unknown key, a value of the wrong kind or an unknown dict field.
  void setConfig(const std::string& key, const std::string& text);
  /// Sets `key` to `value` after the same checks.
  void setConfig(const std::string& key, const AttrValue& value);

  /// The innermost context entered on this thread, or the thread's default context (opt level
  /// 2, nothing configured) when none is: what every entry point runs under when given none.
  static PassContext& current();
  /// Makes `ctx` current until the matching exit() (Python's `with PassContext(...)`).
  static void enter(PassContext& ctx);
  /// Leaves the innermost entered context.
  static void exit();

  /// Enters a context for the lifetime of the scope.
  class Scope {
   public:
    explicit Scope(PassContext& ctx) { enter(ctx); }
    ~Scope() { exit(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };
};

/// Name, minimal opt level, and passes that must run first (e.g. InferType).
struct PassInfo {
  std::string name;
  int optLevel = 0;
  std::vector<std::string> required;
};

/// True when `ctx` lets a pass with `info` run inside a Sequential (TVM's enable rule).
bool passEnabled(const PassInfo& info, const PassContext& ctx);

/// Runs `body` as the step or pass `name` under `ctx`'s instruments: its wall time goes to
/// ctx.timings (steps and passes run inside it are listed below it, one level deeper), and when
/// `ctx` prints after `name` (or after all), `print()` goes to its print stream under
/// "// after NAME".
void runInstrumented(PassContext& ctx, const std::string& name, const std::function<void()>& body,
                     const std::function<std::string()>& print);

/// Whether `ctx` prints after the step or pass `name`.
bool printsAfter(const PassContext& ctx, const std::string& name);

/// A transformation of a module of type `Module`. Calling a pass directly runs it regardless of
/// opt level (as TVM does); inside a Sequential it is gated by the context. The module type
/// provides `std::string printForInstruments(const Module&)` (found by argument-dependent lookup)
/// for --print-after.
template <typename Module>
class PassNode {
 public:
  explicit PassNode(PassInfo info) : info_(std::move(info)) {}
  virtual ~PassNode() = default;
  const PassInfo& info() const { return info_; }
  /// Runs the pass with instrumentation (timing, printing after). A module passed by value
  /// (std::move) is the pass's to consume. A caller that keeps its module keeps it intact.
  Module operator()(Module module, PassContext& ctx) const {
    Module result;
    runInstrumented(
        ctx, info_.name, [&] { result = transform(std::move(module), ctx); },
        [&] { return printForInstruments(result); });
    return result;
  }
  /// Runs the pass under the current context.
  Module operator()(Module module) const {
    return (*this)(std::move(module), PassContext::current());
  }

 protected:
  /// The transformation itself.
  virtual Module transform(Module module, PassContext& ctx) const = 0;

 private:
  PassInfo info_;
};

template <typename Module>
using PassOf = std::shared_ptr<const PassNode<Module>>;

/// A pass made of a function over the whole module.
template <typename Module>
class ModulePass final : public PassNode<Module> {
 public:
  using Transform = std::function<Module(Module, PassContext&)>;
  ModulePass(PassInfo info, Transform fn) : PassNode<Module>(std::move(info)), fn_(std::move(fn)) {}

 protected:
  Module transform(Module module, PassContext& ctx) const override {
    return fn_(std::move(module), ctx);
  }

 private:
  Transform fn_;
};

/// Runs passes in order, skipping those the context disables or whose opt level is above the
/// context's (unless required), running each pass's required passes (found by `lookup`) first.
template <typename Module>
class SequentialPass final : public PassNode<Module> {
 public:
  using Lookup = std::function<PassOf<Module>(const std::string&)>;
  SequentialPass(PassInfo info, std::vector<PassOf<Module>> passes, Lookup lookup)
      : PassNode<Module>(std::move(info)), passes_(std::move(passes)), lookup_(std::move(lookup)) {}
  const std::vector<PassOf<Module>>& passes() const { return passes_; }

 protected:
  Module transform(Module module, PassContext& ctx) const override {
    Module m = std::move(module);
    for (const PassOf<Module>& pass : passes_) {
      if (!passEnabled(pass->info(), ctx)) continue;
      for (const std::string& required : pass->info().required)
        m = (*lookup_(required))(std::move(m), ctx);
      m = (*pass)(std::move(m), ctx);
    }
    return m;
  }

 private:
  std::vector<PassOf<Module>> passes_;
  Lookup lookup_;
};

}  // namespace tessera::transform
