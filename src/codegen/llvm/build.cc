// compile(): TirModule -> LLVM IR -> O3 -> one object file, which is both linked in-process by ORC
// LLJIT and kept for exportLibrary (`cc -shared`). The JIT's symbols are bound as a
// runtime::Module (slots filled from the runtime's C-function registry), exactly as
// runtime::loadModule binds an exported library.
#include "codegen/llvm/build.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

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
  std::string object;  ///< empty for a loaded library
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
  auto created = llvm::orc::LLJITBuilder().create();
  if (!created)
    throwDiagnostic("codegen", "cannot start the JIT: " + llvmError(created.takeError()));
  std::shared_ptr<llvm::orc::LLJIT> jit = std::move(*created);
  // libm and memcpy/memset come from the process.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit->getDataLayout().getGlobalPrefix());
  if (!generator) throwDiagnostic("codegen", llvmError(generator.takeError()));
  jit->getMainJITDylib().addGenerator(std::move(*generator));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(impl.object, "tessera_module.o");
  if (llvm::Error error = jit->addObjectFile(std::move(buffer))) {
    throwDiagnostic("codegen", "cannot load compiled code: " + llvmError(std::move(error)));
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

CompiledModule compile(const tir::TirModule& module, const target::Target& requested) {
  const target::Target target = withHostDefaults(requested);
  auto impl = std::make_shared<CompiledModule::Impl>();
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(target);
  llvm::LLVMContext ctx;
  llvm::Module llvmModule("tessera", ctx);
  llvmModule.setTargetTriple(target.triple);
  llvmModule.setDataLayout(machine->createDataLayout());
  CodeGenLLVM codegen(ctx, llvmModule);
  for (const tir::PrimFunc& func : module.functions()) {
    codegen.addFunction(func);
    impl->names.push_back(CodeGenLLVM::symbolOf(func));
  }
  codegen.addModuleInfo(impl->names);
  if (impl->names.size() == 1) impl->entry = impl->names[0];
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  TS_CHECK(!llvm::verifyModule(llvmModule, &problemStream)) << "invalid LLVM IR: " << problems;
  optimizeModule(llvmModule, *machine);
  llvm::raw_string_ostream irStream(impl->ir);
  llvmModule.print(irStream, nullptr);
  impl->object = emitObject(llvmModule, *machine);
  impl->triple = target.triple;
  if (isHostCompatible(target)) linkInProcess(*impl);
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
  if (!impl_ || impl_->object.empty()) {
    throwDiagnostic("codegen_export", "only a module built by compile() can be exported", {}, path);
  }
  std::string objectPath = path + ".o";
  {
    std::ofstream out(objectPath, std::ios::binary);
    out.write(impl_->object.data(), static_cast<std::streamsize>(impl_->object.size()));
    if (!out) throwDiagnostic("codegen_export", "cannot write " + objectPath, {}, path);
  }
  std::string log;
  int rc = runProcess({"cc", "-shared", "-o", path, objectPath, "-lm"}, &log);
  std::remove(objectPath.c_str());
  if (rc != 0)
    throwDiagnostic("codegen_export", "linking the shared library failed: " + log, {}, path);
}

}  // namespace tessera::codegen
