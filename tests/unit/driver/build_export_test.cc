// Exported modules (kernels.so, graph.json, params.npz) reopened in this and in a fresh process,
// and the executor's and loader's diagnostics for wrong inputs and damaged directories.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "build_test_util.h"
#include "runtime/npy.h"

namespace tessera::driver::test {

using runtime::GraphExecutor;
namespace {

namespace fs = std::filesystem;

const char* const kModel = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(4, 8), float32], %n: Tensor[(2, 4), int32]) {
  %0 = nn.dense(%x, %w, units=4);
  %1 = nn.relu(%0);
  %2 = add(%1, 1f);
  %3 = multiply(%n, 3);
  (%2, %3)
}
)";

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tessera_build_XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

// Runs argv with fork+exec, waiting for it; returns the exit status.
int runProcess(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Built builtWithParams() {
  std::map<std::string, NDArray> params{
      {"w", tessera::test::randomTensor({4, 8}, DataType::float32(), 21)}};
  return build(parse(kModel), codegen::hostTarget(), params);
}

// Both modules run kModel's inputs (seeded) to bitwise-equal outputs.
void expectSameOutputs(const Built& first, const Built& second) {
  const NDArray x = tessera::test::randomTensor({2, 8}, DataType::float32(), 22);
  const NDArray n = tessera::test::randomTensor({2, 4}, DataType::int32(), 23, -50, 50);
  GraphExecutor a(first.model()), b(second.model());
  for (GraphExecutor* e : {&a, &b}) {
    e->setInput("x", x);
    e->setInput("n", n);
    e->run();
  }
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(a.getOutput(i).bitwiseEqual(b.getOutput(i))) << i;
}

TEST(BuildExport, LoadedInThisProcessGivesSameOutputs) {
  TempDir dir;
  const Built built = builtWithParams();
  exportBuilt(built, dir.path.string());
  EXPECT_TRUE(fs::exists(dir.path / "kernels.so"));
  EXPECT_TRUE(isBuiltDirectory(dir.path.string()));
  const Built loaded = loadBuilt(dir.path.string());
  EXPECT_EQ(loaded.graph.toJson(), built.graph.toJson());

  expectSameOutputs(built, loaded);
}

TEST(BuildExport, ParamsWrittenDuringTheBuildAreCommittedByTheExport) {
  TempDir dir;
  std::map<std::string, NDArray> params{
      {"w", tessera::test::randomTensor({4, 8}, DataType::float32(), 21)}};
  BuildOptions options;
  options.paramsFile = (dir.path / "params.npz").string();
  const Built streamed = build(parse(kModel), codegen::hostTarget(), params, options);
  ASSERT_TRUE(streamed.writtenParams);
  EXPECT_TRUE(streamed.params.empty());
  EXPECT_FALSE(fs::exists(dir.path / "params.npz"));  // in place only once exported
  exportBuilt(streamed, dir.path.string());
  EXPECT_FALSE(fs::exists(dir.path / "params.npz.tmp-tessera"));

  const Built inMemory = builtWithParams();
  const std::map<std::string, NDArray> written = readNpz((dir.path / "params.npz").string());
  ASSERT_EQ(written.size(), inMemory.params.size());
  for (const auto& [name, data] : inMemory.params)
    EXPECT_TRUE(written.at(name).bitwiseEqual(data)) << name;
  const Built loaded = loadBuilt(dir.path.string());
  expectSameOutputs(inMemory, loaded);
  // Exported again elsewhere: the written params go along.
  TempDir again;
  exportBuilt(streamed, again.path.string());
  expectSameOutputs(inMemory, loadBuilt(again.path.string()));
}

TEST(BuildExport, FailedBuildLeavesNoParamsFile) {
  TempDir dir;
  BuildOptions options;
  options.paramsFile = (dir.path / "params.npz").string();
  const char* dataDependent = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  transpose(argwhere(%x), axes=[1, 0])
}
)";
  EXPECT_THROW(build(parse(dataDependent), codegen::hostTarget(), {}, options), DiagnosticError);
  EXPECT_TRUE(fs::is_empty(dir.path));
}

TEST(BuildExport, FreshProcessRunsTheDirectory) {
  TempDir dir;
  const Built built = builtWithParams();
  const std::string out = (dir.path / "module").string();
  exportBuilt(built, out);
  const NDArray x = tessera::test::randomTensor({2, 8}, DataType::float32(), 24);
  const NDArray n = tessera::test::randomTensor({2, 4}, DataType::int32(), 25, -50, 50);
  writeNpy((dir.path / "x.npy").string(), x);
  writeNpy((dir.path / "n.npy").string(), n);
  const std::string result = (dir.path / "y.npz").string();
  ASSERT_EQ(runProcess({TESSERA_CLI, "run", out, "--input", "x=" + (dir.path / "x.npy").string(),
                        "--input", "n=" + (dir.path / "n.npy").string(), "--output", result}),
            0);
  const std::map<std::string, NDArray> got = readNpz(result);
  GraphExecutor executor(built.model());
  executor.setInput("x", x);
  executor.setInput("n", n);
  executor.run();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(got.at("output_0").bitwiseEqual(executor.getOutput(0)));
  EXPECT_TRUE(got.at("output_1").bitwiseEqual(executor.getOutput("output_1")));
  // And the values are the interpreter's (the parameter bound as in build()).
  relay::IRModule module = parse(kModel);
  const std::vector<NDArray> expected = flatten(relay::Interpreter(module).run(
      {x, tessera::test::randomTensor({4, 8}, DataType::float32(), 21), n}));
  EXPECT_TRUE(tessera::test::allClose(got.at("output_0"), expected[0], 1e-5, 1e-6));
  EXPECT_TRUE(got.at("output_1").bitwiseEqual(expected[1]));
}

TEST(BuildExport, WrongInputsGiveClearErrors) {
  GraphExecutor executor(builtWithParams().model());
  ASSERT_EQ(executor.numInputs(), 2);
  EXPECT_EQ(executor.inputName(0), "x");
  Diagnostic d = tessera::test::diagnosticOf(
      [&] { executor.setInput("x", NDArray::empty({2, 7}, DataType::float32())); });
  EXPECT_EQ(d.code, "graph_input");
  EXPECT_EQ(d.context, "%x");
  EXPECT_NE(d.message.find("expected shape (2, 8)"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("got (2, 7)"), std::string::npos) << d.message;
  d = tessera::test::diagnosticOf(
      [&] { executor.setInput("n", NDArray::empty({2, 4}, DataType::float32())); });
  EXPECT_EQ(d.context, "%n");
  EXPECT_NE(d.message.find("expected dtype int32"), std::string::npos) << d.message;
  d = tessera::test::diagnosticOf(
      [&] { executor.setInput("y", NDArray::empty({2, 4}, DataType::int32())); });
  EXPECT_NE(d.message.find("no input named 'y'; the inputs are: x, n"), std::string::npos)
      << d.message;
  d = tessera::test::diagnosticOf([&] { executor.setInput(5, NDArray()); });
  EXPECT_NE(d.message.find("input index 5 is out of range (2 inputs)"), std::string::npos);
  d = tessera::test::diagnosticOf([&] { executor.getOutput(2); });
  EXPECT_EQ(d.code, "graph_output");
  d = tessera::test::diagnosticOf([&] { executor.getOutput("result"); });
  EXPECT_NE(d.message.find("output_0 to output_1"), std::string::npos) << d.message;
}

TEST(BuildExport, DamagedDirectoriesAreNamed) {
  TempDir dir;
  const std::string out = dir.path.string();
  Diagnostic d = tessera::test::diagnosticOf([&] { loadBuilt(out); });
  EXPECT_NE(d.message.find("no graph.json"), std::string::npos) << d.message;

  exportBuilt(builtWithParams(), out);
  fs::remove(dir.path / "params.npz");
  d = tessera::test::diagnosticOf([&] { loadBuilt(out); });
  EXPECT_NE(d.message.find("missing params.npz"), std::string::npos) << d.message;

  exportBuilt(builtWithParams(), out);
  writeNpz((dir.path / "params.npz").string(), {{"p0", NDArray::empty({3}, DataType::float32())}});
  d = tessera::test::diagnosticOf([&] { loadBuilt(out); });
  EXPECT_NE(d.message.find("array 'p0' is Tensor[(3), float32]"), std::string::npos) << d.message;

  exportBuilt(builtWithParams(), out);
  std::ofstream(dir.path / "graph.json") << "{\"format\": \"tessera-graph-1\", \"entries\": [";
  d = tessera::test::diagnosticOf([&] { loadBuilt(out); });
  EXPECT_EQ(d.code, "graph_json");
  EXPECT_NE(d.context.find("graph.json"), std::string::npos);
}

TEST(BuildExport, UncompilableModulesAreDiagnosed) {
  Diagnostic d = tessera::test::diagnosticOf([] {
    build(parse(R"(#[version = "0.0.5"]
def @main(%c: bool, %x: Tensor[(2), float32]) {
  if (%c) { add(%x, %x) } else { %x }
}
)"),
          codegen::hostTarget());
  });
  EXPECT_EQ(d.code, "build");
  EXPECT_NE(d.message.find("need the VM"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::driver::test
