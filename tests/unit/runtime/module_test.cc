// runtime::Module binding: the slots compiled code lists are filled from the C-function registry,
// a slot no runtime library registered is a located error, and functions are found by name.
#include "runtime/module.h"

#include <gtest/gtest.h>

#include <map>

#include "runtime/c_functions.h"
#include "test_util.h"

namespace tessera::runtime {
namespace {

// Loaded "code" made of plain C++ objects: the symbols a lookup resolves.
struct FakeCode {
  std::map<std::string, void*> symbols;
  SymbolLookup lookup() {
    return [this](const char* s) -> void* {
      auto it = symbols.find(s);
      return it == symbols.end() ? nullptr : it->second;
    };
  }
};

int32_t addOne(void** args, int32_t) {
  auto* t = static_cast<DLTensor*>(args[0]);
  static_cast<float*>(t->data)[0] += 1;
  return 0;
}

int someRuntimeFunction() {
  return 42;
}

TEST(RuntimeModule, FillsTheSlotsTheCodeListsFromTheRegistry) {
  void* cpuSlot = nullptr;
  void* testSlot = nullptr;
  FakeCode code;
  const char* slots = "__TesseraAPISetLastError,__TesseraModuleTestFunction";
  code.symbols = {{kSlotListSymbol, const_cast<char*>(slots)},
                  {"__TesseraAPISetLastError", &cpuSlot},
                  {"__TesseraModuleTestFunction", &testSlot},
                  {"add_one", reinterpret_cast<void*>(&addOne)}};
  // Not registered yet: the error names the slot.
  const Diagnostic missing = tessera::test::diagnosticOf([&] {
    Module::bind(code.lookup(), {"add_one"}, "add_one", nullptr, "codegen_load", "fake.so");
  });
  EXPECT_EQ(missing.code, "codegen_load");
  EXPECT_EQ(missing.context, "fake.so");
  EXPECT_EQ(missing.message,
            "compiled code needs the runtime function __TesseraModuleTestFunction, which no "
            "loaded runtime library registered");

  registerCFunction("__TesseraModuleTestFunction", reinterpret_cast<void*>(&someRuntimeFunction));
  const Module m =
      Module::bind(code.lookup(), {"add_one"}, "add_one", nullptr, "codegen_load", "fake.so");
  EXPECT_EQ(testSlot, reinterpret_cast<void*>(&someRuntimeFunction));
  EXPECT_EQ(cpuSlot, findCFunction("__TesseraAPISetLastError"));
  EXPECT_NE(cpuSlot, nullptr);
  EXPECT_EQ(m.entryName(), "add_one");

  // The same function through the C signature and as a packed function.
  NDArray x = NDArray::empty({1}, DataType::float32());
  static_cast<float*>(x.data())[0] = 1;
  m.call("add_one", {x});
  const PackedFunc f = m.getFunction("add_one");
  ASSERT_TRUE(f);
  const PackedValue args[] = {x};
  f(args);
  EXPECT_EQ(static_cast<float*>(x.data())[0], 3);
  EXPECT_FALSE(m.getFunction("nothing"));
  EXPECT_EQ(tessera::test::diagnosticOf([&] { m.call("nothing", {}); }).code, "codegen_call");
}

TEST(RuntimeModule, CodeWithoutASlotListGetsTheCpuRuntimesSlots) {
  FakeCode code;
  std::map<std::string, void*> cells;
  for (const std::string& slot : cpuRuntimeSlots()) {
    cells[slot] = nullptr;
    code.symbols[slot] = &cells[slot];
  }
  Module::bind(code.lookup(), {}, "", nullptr, "codegen_load", "old.so");
  for (const std::string& slot : cpuRuntimeSlots())
    EXPECT_EQ(cells[slot], findCFunction(slot)) << slot;
  code.symbols.erase(cpuRuntimeSlots()[0]);
  EXPECT_EQ(tessera::test::diagnosticOf([&] {
              Module::bind(code.lookup(), {}, "", nullptr, "codegen_load", "old.so");
            }).message,
            "compiled code lacks the runtime slot " + cpuRuntimeSlots()[0]);
}

TEST(RuntimeModule, LoadingSomethingElseIsADiagnostic) {
  EXPECT_EQ(tessera::test::diagnosticOf([] { loadModule("/nonexistent/kernels.so"); }).code,
            "codegen_load");
}

}  // namespace
}  // namespace tessera::runtime
