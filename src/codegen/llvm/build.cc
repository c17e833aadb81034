// compile(): TirModule -> LLVM IR -> O3 -> one object file, which is both linked in-process by ORC
// LLJIT and kept for exportLibrary (`cc -shared`). loadLibrary() dlopens such a library. Both
// loaders fill the module's runtime slots (abi.h) before handing out any function.
#include "codegen/llvm/build.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unordered_map>

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
  std::unique_ptr<llvm::orc::LLJIT> jit;
  void* library = nullptr;  ///< dlopen handle
  std::vector<std::string> names;
  std::string entry;
  std::unordered_map<std::string, PackedFunction> functions;
  std::string ir;
  std::string object;  ///< empty for a loaded library
  std::string triple;

  ~Impl() {
    if (library != nullptr) dlclose(library);
  }
};

namespace {

std::string llvmError(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return os.str();
}

/// Fills the slots and collects the functions through `lookup` (symbol -> address or null).
template <typename Lookup>
void bindModule(CompiledModule::Impl& impl, Lookup lookup, const char* errorCode) {
  int count = 0;
  const RuntimeSlot* slots = runtimeSlots(&count);
  for (int i = 0; i < count; ++i) {
    void* slot = lookup(slots[i].symbol);
    if (slot == nullptr) {
      throwDiagnostic(errorCode,
                      std::string("compiled code lacks the runtime slot ") + slots[i].symbol);
    }
    *static_cast<void**>(slot) = slots[i].address;
  }
  for (const std::string& name : impl.names) {
    void* fn = lookup(name.c_str());
    if (fn == nullptr)
      throwDiagnostic(errorCode, "compiled code lacks the function '" + name + "'");
    impl.functions[name] = reinterpret_cast<PackedFunction>(fn);
  }
}

void linkInProcess(CompiledModule::Impl& impl) {
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) throwDiagnostic("codegen", "cannot start the JIT: " + llvmError(jit.takeError()));
  impl.jit = std::move(*jit);
  // libm and memcpy/memset come from the process.
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      impl.jit->getDataLayout().getGlobalPrefix());
  if (!generator) throwDiagnostic("codegen", llvmError(generator.takeError()));
  impl.jit->getMainJITDylib().addGenerator(std::move(*generator));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(impl.object, "tessera_module.o");
  if (llvm::Error error = impl.jit->addObjectFile(std::move(buffer))) {
    throwDiagnostic("codegen", "cannot load compiled code: " + llvmError(std::move(error)));
  }
  bindModule(
      impl,
      [&](const char* symbol) -> void* {
        auto address = impl.jit->lookup(symbol);
        if (!address) {
          llvm::consumeError(address.takeError());
          return nullptr;
        }
        return address->toPtr<void*>();
      },
      "codegen");
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

CompiledModule loadLibrary(const std::string& path) {
  auto impl = std::make_shared<CompiledModule::Impl>();
  impl->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (impl->library == nullptr) throwDiagnostic("codegen_load", dlerror(), {}, path);
  const auto* list = static_cast<const char*>(dlsym(impl->library, "__tessera_functions__"));
  if (list == nullptr)
    throwDiagnostic("codegen_load", "not a library exported by Tessera", {}, path);
  std::string names = list;
  for (size_t start = 0; start < names.size();) {
    size_t comma = names.find(',', start);
    if (comma == std::string::npos) comma = names.size();
    impl->names.push_back(names.substr(start, comma - start));
    start = comma + 1;
  }
  if (const auto* entry = static_cast<const char*>(dlsym(impl->library, "__tessera_main__"))) {
    impl->entry = entry;
  }
  bindModule(
      *impl, [&](const char* symbol) { return dlsym(impl->library, symbol); }, "codegen_load");
  return CompiledModule(impl);
}

PackedFunction CompiledModule::getFunction(const std::string& name) const {
  if (!impl_) return nullptr;
  auto it = impl_->functions.find(name);
  return it == impl_->functions.end() ? nullptr : it->second;
}

void CompiledModule::call(const std::string& name, const std::vector<NDArray>& args) const {
  PackedFunction fn = getFunction(name);
  if (fn == nullptr) {
    throwDiagnostic("codegen_call", "no compiled function named '" + name + "'" +
                                        (impl_ && impl_->jit == nullptr && impl_->library == nullptr
                                             ? " (the module was compiled for another target)"
                                             : ""));
  }
  std::vector<DLTensor> tensors(args.size());
  std::vector<void*> pointers(args.size(), nullptr);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].defined()) continue;
    tensors[i] = args[i].dlTensor();
    pointers[i] = &tensors[i];
  }
  if (fn(pointers.data(), static_cast<int32_t>(args.size())) != 0) {
    throwDiagnostic("codegen_call", TesseraGetLastError(), {}, name);
  }
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
