// compile(): TirModule -> LLVM IR -> O3 -> object files (the functions split into parts compiled
// concurrently), which are both linked in-process by ORC LLJIT and kept for exportLibrary
// (`cc -shared`). The JIT's symbols are bound as a
// runtime::Module (slots filled from the runtime's C-function registry), exactly as
// runtime::loadModule binds an exported library.
#include "codegen/llvm/build.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#include "codegen/llvm/codegen_llvm.h"
#include "codegen/llvm/llvm_backend.h"
#include "runtime/thread_pool.h"
#include "support/check.h"
#include "support/diagnostic.h"

extern char** environ;

namespace tessera::codegen {

struct CompiledModule::Impl {
  runtime::Module module;  ///< not loaded for another target's code
  std::vector<std::string> names;
  std::string entry;
  std::string ir;
  std::vector<std::string> objects;  ///< one per part; none for a loaded library
  std::string triple;
};

namespace {

std::string llvmError(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return os.str();
}

void linkInProcess(CompiledModule::Impl& impl) {
  initializeLLVM();  // a module from fromObjects may be the first code this process sees
  auto created = llvm::orc::LLJITBuilder().create();
  if (!created)
    throwDiagnostic("codegen", "cannot start the JIT: " + llvmError(created.takeError()));
  std::shared_ptr<llvm::orc::LLJIT> jit = std::move(*created);
  // libm and memcpy/memset come from the process.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit->getDataLayout().getGlobalPrefix());
  if (!generator) throwDiagnostic("codegen", llvmError(generator.takeError()));
  jit->getMainJITDylib().addGenerator(std::move(*generator));
  for (size_t i = 0; i < impl.objects.size(); ++i) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        impl.objects[i], "tessera_module_" + std::to_string(i) + ".o");
    if (llvm::Error error = jit->addObjectFile(std::move(buffer))) {
      throwDiagnostic("codegen", "cannot load compiled code: " + llvmError(std::move(error)));
    }
  }
  // Linking happens at the first lookup. Look every kernel up once here, so that a symbol the
  // code needs but nothing provides is reported by name (LLVM's "Symbols not found" list) rather
  // than as the first runtime slot that bind() could then not find.
  // The missing symbols themselves reach the session's error reporter, not the lookup's error.
  auto reported = std::make_shared<std::string>();
  jit->getExecutionSession().setErrorReporter([reported](llvm::Error error) {
    *reported += (reported->empty() ? "" : "; ") + llvmError(std::move(error));
  });
  for (const std::string& name : impl.names) {
    auto address = jit->lookup(name);
    if (!address) {
      const std::string failed = llvmError(address.takeError());
      throwDiagnostic("codegen", "cannot link kernel " + name + ": " +
                                     (reported->empty() ? failed : *reported));
    }
  }
  auto lookup = [jit](const char* symbol) -> void* {
    auto address = jit->lookup(symbol);
    if (!address) {
      llvm::consumeError(address.takeError());
      return nullptr;
    }
    return address->toPtr<void*>();
  };
  // The module owns the JIT: its code stays mapped while any copy of the module lives.
  impl.module = runtime::Module::bind(lookup, impl.names, impl.entry, jit, "codegen", "");
}

int runProcess(const std::vector<std::string>& argv, std::string* output) {
  std::string log = "/tmp/tessera_link_" + std::to_string(getpid()) + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  *output = text.str();
  std::remove(log.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

namespace {

// Kernels per LLVM module: small enough that LLVM's memory stays a few MB per thread (one
// unrolled conv kernel is ~10k instructions), large enough that the per-module work (target
// machine, pass setup, one more object to link) is noise. Measured 2026-11-27 (2, 4, 8; three
// interleaved rounds): compile time the same within 2%; googlenet peaks at 91 / 98 / 103 MB.
constexpr size_t kKernelsPerChunk = 2;

struct CompiledPart {
  std::string ir;
  std::string object;
};

// Functions [begin, end) of `functions` as one LLVM module (its own context and target machine:
// LLVM contexts are single-threaded), optimized and emitted. Chunk 0 also defines the runtime
// slots and the module info listing every function (`names`).
CompiledPart compileChunk(const std::vector<tir::PrimFunc>& functions,
                          const std::vector<std::string>& names, size_t begin, size_t end,
                          const target::Target& target, const CompileOptions& options,
                          bool usesAmxTiles, const std::vector<std::string>& extraSlots) {
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(target);
  llvm::LLVMContext ctx;
  llvm::Module llvmModule("tessera", ctx);
  llvmModule.setTargetTriple(target.triple);
  llvmModule.setDataLayout(machine->createDataLayout());
  CodeGenLLVM codegen(ctx, llvmModule, /*definesSlots=*/begin == 0, extraSlots);
  // x86 without AVX-512BW has no masked loads of 8- and 16-bit lanes.
  codegen.setNarrowMaskedLoads(target.triple.rfind("x86_64", 0) != 0 ||
                               target.hasFeature("avx512bw"));
  for (size_t i = begin; i < end; ++i) codegen.addFunction(functions[i]);
  if (begin == 0) codegen.addModuleInfo(names, usesAmxTiles);
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  TS_CHECK(!llvm::verifyModule(llvmModule, &problemStream)) << "invalid LLVM IR: " << problems;
  optimizeModule(llvmModule, *machine);
  CompiledPart out;
  if (options.keepIR) {
    llvm::raw_string_ostream irStream(out.ir);
    llvmModule.print(irStream, nullptr);
  }
  out.object = emitObject(llvmModule, *machine);
  return out;
}

}  // namespace

CompiledModule compile(const tir::TirModule& module, const target::Target& requested,
                       const CompileOptions& options) {
  const target::Target target = withHostDefaults(requested);
  auto impl = std::make_shared<CompiledModule::Impl>();
  const std::vector<tir::PrimFunc>& functions = module.functions();
  for (const tir::PrimFunc& func : functions) impl->names.push_back(CodeGenLLVM::symbolOf(func));
  if (impl->names.size() == 1) impl->entry = impl->names[0];
  // LLVM's time grows with the number of kernels (a DenseNet has over a hundred): they are
  // compiled in chunks, each its own LLVM module and object file, on as many threads as the
  // runtime uses. A chunk's IR and analyses are freed once its object is emitted, so LLVM holds
  // a few kernels per thread at a time, not the whole model.
  const size_t chunks =
      std::max<size_t>(1, (functions.size() + kKernelsPerChunk - 1) / kKernelsPerChunk);
  const size_t threads = std::clamp<size_t>(
      options.threads > 0 ? static_cast<size_t>(options.threads) : runtime::numThreads(), 1,
      chunks);
  // Chunk 0 carries the module info, so whether any chunk uses AMX tiles is known first.
  const bool usesAmxTiles =
      std::any_of(functions.begin(), functions.end(), CodeGenLLVM::usesAmxTiles);
  // Every part declares the slots of other runtimes that any function calls; part 0 defines them.
  std::set<std::string> extraSlotSet;
  for (const tir::PrimFunc& func : functions)
    for (std::string& slot : CodeGenLLVM::runtimeSlotsOf(func)) extraSlotSet.insert(slot);
  const std::vector<std::string> extraSlots(extraSlotSet.begin(), extraSlotSet.end());
  std::vector<CompiledPart> compiled(chunks);
  std::vector<std::exception_ptr> errors(chunks);
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t c; (c = next.fetch_add(1)) < chunks;) {
      try {
        const size_t begin = c * kKernelsPerChunk;
        const size_t end = std::min(functions.size(), begin + kKernelsPerChunk);
        compiled[c] = compileChunk(functions, impl->names, begin, end, target, options,
                                   usesAmxTiles, extraSlots);
      } catch (...) {
        errors[c] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  for (CompiledPart& part : compiled) {
    impl->ir += part.ir;
    impl->objects.push_back(std::move(part.object));
  }
  impl->triple = target.triple;
  if (options.link && isHostCompatible(target)) linkInProcess(*impl);
  return CompiledModule(impl);
}

CompiledObjects CompiledModule::objects() const {
  if (!impl_) return {};
  return {impl_->objects, impl_->names, impl_->entry, impl_->triple};
}

CompiledModule CompiledModule::fromObjects(CompiledObjects objects) {
  auto impl = std::make_shared<Impl>();
  impl->objects = std::move(objects.objects);
  impl->names = std::move(objects.names);
  impl->entry = std::move(objects.entry);
  impl->triple = std::move(objects.triple);
  target::Target built;
  built.triple = impl->triple;
  if (isHostCompatible(built)) linkInProcess(*impl);
  return CompiledModule(impl);
}

CompiledModule CompiledModule::fromLoaded(runtime::Module module) {
  auto impl = std::make_shared<Impl>();
  impl->names = module.functionNames();
  impl->entry = module.entryName();
  impl->module = std::move(module);
  return CompiledModule(impl);
}

CompiledModule loadLibrary(const std::string& path) {
  return CompiledModule::fromLoaded(runtime::loadModule(path));
}

runtime::KernelFunction CompiledModule::getFunction(const std::string& name) const {
  return impl_ ? impl_->module.getKernel(name) : nullptr;
}

const runtime::Module& CompiledModule::module() const {
  static const runtime::Module none;
  return impl_ ? impl_->module : none;
}

void CompiledModule::call(const std::string& name, const std::vector<NDArray>& args) const {
  if (impl_ && !impl_->module.loaded())
    throwDiagnostic("codegen_call", "no compiled function named '" + name +
                                        "' (the module was compiled for another target)");
  module().call(name, args);
}

const std::vector<std::string>& CompiledModule::functionNames() const {
  static const std::vector<std::string> none;
  return impl_ ? impl_->names : none;
}

std::string CompiledModule::entryName() const {
  return impl_ ? impl_->entry : "";
}

const std::string& CompiledModule::llvmIR() const {
  static const std::string none;
  return impl_ ? impl_->ir : none;
}

void CompiledModule::exportLibrary(const std::string& path) const {
  if (!impl_ || impl_->objects.empty()) {
    throwDiagnostic("codegen_export", "only a module built by compile() can be exported", {}, path);
  }
  // `cc` links for this machine only: another architecture's objects need a cross linker.
  target::Target built;
  built.triple = impl_->triple;
  if (!isHostCompatible(built))
    throwDiagnostic("codegen_export",
                    "the module was compiled for " + impl_->triple +
                        ", and this machine's linker makes shared libraries for " +
                        llvm::sys::getProcessTriple() + " only",
                    {}, path);
  std::vector<std::string> argv = {"cc", "-shared", "-o", path};
  std::vector<std::string> objectPaths;
  auto removeObjects = [&] {
    for (const std::string& p : objectPaths) std::remove(p.c_str());
  };
  for (size_t i = 0; i < impl_->objects.size(); ++i) {
    const std::string& object = impl_->objects[i];
    objectPaths.push_back(path + "." + std::to_string(i) + ".o");
    std::ofstream out(objectPaths.back(), std::ios::binary);
    out.write(object.data(), static_cast<std::streamsize>(object.size()));
    if (!out) {
      removeObjects();
      throwDiagnostic("codegen_export", "cannot write " + objectPaths.back(), {}, path);
    }
  }
  argv.insert(argv.end(), objectPaths.begin(), objectPaths.end());
  argv.push_back("-lm");
  std::string log;
  int rc = runProcess(argv, &log);
  removeObjects();
  if (rc != 0)
    throwDiagnostic("codegen_export", "linking the shared library failed: " + log, {}, path);
}

}  // namespace tessera::codegen
