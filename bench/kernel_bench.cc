// Kernel benchmark: Tessera's compiled dense and conv2d (default x86 schedules, weights packed at
// compile time) side by side with OpenBLAS SGEMM and oneDNN's convolution, in one run, with 1
// and 2 threads; and (--only int8) the int8 x int8 -> int32 ones (Tessera's VNNI kernels) against
// oneDNN's int8 matmul and convolution (ResNet's and MobileNetV2's; --only int8-dw MobileNetV2's
// depthwise ones alone, --only int8-mnv2 all of MobileNetV2's). Engines alternate within each case
// (one timed block each, repeated), so both see the same machine state. Prints a markdown table
// (GFLOPS or GOPS, and Tessera's ratio to the peer) for bench/results/. Usage: kernel_bench
// [--quick] [--threads 1,2] [--only gemm|conv|int8|int8-dw|int8-mnv2]
// [--conv C,H,W,OC,K,S,P]
// [--int8-conv C,H,W,OC,K,S,P] (one fp32 or int8 case alone)
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dnnl.hpp>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codegen/llvm/target.h"
#include "driver/build.h"
#include "relay/builder.h"
#include "relay/type_infer.h"
#include "runtime/graph_executor/graph_executor.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"

extern "C" void openblas_set_num_threads(int);

namespace {

using namespace tessera;

NDArray randomInt8(const std::vector<int64_t>& shape, uint32_t seed) {
  NDArray a = NDArray::empty(shape, DataType::int8());
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  auto* p = static_cast<int8_t*>(a.data());
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = static_cast<int8_t>(dist(gen));
  return a;
}

NDArray randomArray(const std::vector<int64_t>& shape, uint32_t seed) {
  NDArray a = NDArray::empty(shape, DataType::float32());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  float* p = a.as<float>();
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = dist(gen);
  return a;
}

// Median seconds per call of each engine, measured in alternating blocks of ~minMs each.
std::vector<double> interleaved(const std::vector<std::function<void()>>& engines, int rounds,
                                double minMs) {
  std::vector<std::vector<double>> samples(engines.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t e = 0; e < engines.size(); ++e) {
      TimingResult t = timeEvaluator(
          engines[e], {.number = 1, .repeat = 1, .minRepeatMs = minMs, .warmup = r == 0 ? 2 : 0});
      samples[e].push_back(t.mean);
      // Idle OpenMP (oneDNN) and pool threads spin for a while after a run; let them park so the
      // next engine's block gets both cores.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  std::vector<double> medians;
  for (auto& s : samples) {
    std::sort(s.begin(), s.end());
    medians.push_back(s[s.size() / 2]);
  }
  return medians;
}

struct Compiled {
  driver::Built built;
  std::unique_ptr<runtime::GraphExecutor> exec;
  double compileSeconds = 0;
};

Compiled compile(const relay::Expr& body, const NDArray& input) {
  Compiled c;
  auto start = std::chrono::steady_clock::now();
  relay::IRModule mod = relay::inferTypes(relay::IRModule::fromExpr(relay::function(body)));
  c.built = driver::build(mod, codegen::hostTarget());
  c.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  c.exec = std::make_unique<runtime::GraphExecutor>(c.built.model());
  c.exec->setInput(0, input);
  return c;
}

double maxAbsDiff(const float* a, const float* b, int64_t n) {
  double m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

void setThreads(int n) {
  runtime::setNumThreads(n);
  openblas_set_num_threads(n);
  omp_set_num_threads(n);
}

// --- GEMM: C(M,N) = A(M,K) * W(N,K)^T, Tessera's nn.dense vs cblas_sgemm ---

struct GemmCase {
  const char* name;
  int64_t m, n, k;
};

void benchGemm(const GemmCase& g, const std::vector<int>& threads, int rounds, double minMs) {
  NDArray a = randomArray({g.m, g.k}, 1), w = randomArray({g.n, g.k}, 2);
  NDArray c = NDArray::empty({g.m, g.n}, DataType::float32());
  Compiled t = compile(relay::nn::dense(relay::var("x", {g.m, g.k}), relay::constant(w)), a);
  const double flops = 2.0 * g.m * g.n * g.k;
  for (int nt : threads) {
    setThreads(nt);
    auto tessera = [&] { t.exec->run(); };
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, g.m, g.n, g.k, 1.0f, a.as<float>(), g.k,
                  w.as<float>(), g.k, 0.0f, c.as<float>(), g.n);
    };
    std::vector<double> s = interleaved({tessera, blas}, rounds, minMs);
    const double diff = maxAbsDiff(t.exec->getOutput(0).as<float>(), c.as<float>(), g.m * g.n);
    std::printf("| gemm %s | %d | %.3f | %.1f | %.1f | %.2f | %.1e | %.2f |\n", g.name, nt,
                s[0] * 1e3, flops / s[0] * 1e-9, flops / s[1] * 1e-9, s[1] / s[0], diff,
                t.compileSeconds);
    std::fflush(stdout);
  }
}

// --- conv2d NCHW, batch 1: Tessera's nn.conv2d vs oneDNN (plain nchw activations, weights in
// the layout oneDNN prefers, reordered once outside the timing, as Tessera packs them once) ---

struct ConvCase {
  const char* name;
  int64_t c, h, w, oc, k, stride, pad;
  int64_t groups = 1;  // c for a depthwise convolution
};

// The distinct convolutions of ResNet-18 (batch 1, 224x224).
const ConvCase kResNet18Convs[] = {
    {"C1 3x224 k7s2 ->64", 3, 224, 224, 64, 7, 2, 3},
    {"C2 64x56 k3 ->64", 64, 56, 56, 64, 3, 1, 1},
    {"C3 64x56 k3s2 ->128", 64, 56, 56, 128, 3, 2, 1},
    {"C4 64x56 k1s2 ->128", 64, 56, 56, 128, 1, 2, 0},
    {"C5 128x28 k3 ->128", 128, 28, 28, 128, 3, 1, 1},
    {"C6 128x28 k3s2 ->256", 128, 28, 28, 256, 3, 2, 1},
    {"C7 128x28 k1s2 ->256", 128, 28, 28, 256, 1, 2, 0},
    {"C8 256x14 k3 ->256", 256, 14, 14, 256, 3, 1, 1},
    {"C9 256x14 k3s2 ->512", 256, 14, 14, 512, 3, 2, 1},
    {"C10 256x14 k1s2 ->512", 256, 14, 14, 512, 1, 2, 0},
    {"C11 512x7 k3 ->512", 512, 7, 7, 512, 3, 1, 1},
};

// The pointwise convolutions ResNet-50 adds (its bottlenecks and downsampling projections); the
// int8 cases time them too (two thirds of its quantized layers).
const ConvCase kResNet50PointwiseConvs[] = {
    {"P1 64x56 k1 ->256", 64, 56, 56, 256, 1, 1, 0},
    {"P2 256x56 k1 ->64", 256, 56, 56, 64, 1, 1, 0},
    {"P3 256x56 k1s2 ->512", 256, 56, 56, 512, 1, 2, 0},
    {"P4 512x28 k1 ->128", 512, 28, 28, 128, 1, 1, 0},
    {"P5 256x14 k1 ->1024", 256, 14, 14, 1024, 1, 1, 0},
    {"P6 1024x14 k1 ->256", 1024, 14, 14, 256, 1, 1, 0},
    {"P7 1024x14 k1s2 ->2048", 1024, 14, 14, 2048, 1, 2, 0},
    {"P8 512x7 k1 ->2048", 512, 7, 7, 2048, 1, 1, 0},
    {"P9 2048x7 k1 ->512", 2048, 7, 7, 512, 1, 1, 0},
};

// MobileNetV2's stem and a pointwise expansion of each image size (int8 only): the stem's 3
// channels and the small reductions are where the output stage weighs most.
const ConvCase kMobileNetV2Convs[] = {
    {"M1 3x224 k3s2 ->32", 3, 224, 224, 32, 3, 2, 1},
    {"M2 16x112 k1 ->96", 16, 112, 112, 96, 1, 1, 0},
    {"M3 24x56 k1 ->144", 24, 56, 56, 144, 1, 1, 0},
    {"M4 96x14 k1 ->576", 96, 14, 14, 576, 1, 1, 0},
    {"M5 160x7 k1 ->960", 160, 7, 7, 960, 1, 1, 0},
};

// MobileNetV2's depthwise convolutions (int8 only; every distinct one of its 17).
const ConvCase kMobileNetV2DepthwiseConvs[] = {
    {"D1 32x112 k3 dw", 32, 112, 112, 32, 3, 1, 1, 32},
    {"D2 96x112 k3s2 dw", 96, 112, 112, 96, 3, 2, 1, 96},
    {"D3 144x56 k3 dw", 144, 56, 56, 144, 3, 1, 1, 144},
    {"D4 144x56 k3s2 dw", 144, 56, 56, 144, 3, 2, 1, 144},
    {"D5 192x28 k3 dw", 192, 28, 28, 192, 3, 1, 1, 192},
    {"D6 192x28 k3s2 dw", 192, 28, 28, 192, 3, 2, 1, 192},
    {"D7 384x14 k3 dw", 384, 14, 14, 384, 3, 1, 1, 384},
    {"D8 576x14 k3 dw", 576, 14, 14, 576, 3, 1, 1, 576},
    {"D9 576x14 k3s2 dw", 576, 14, 14, 576, 3, 2, 1, 576},
    {"D10 960x7 k3 dw", 960, 7, 7, 960, 3, 1, 1, 960},
};

void benchConv(const ConvCase& v, const std::vector<int>& threads, int rounds, double minMs) {
  using dnnl::memory;
  const int64_t oh = (v.h + 2 * v.pad - v.k) / v.stride + 1,
                ow = (v.w + 2 * v.pad - v.k) / v.stride + 1;
  NDArray x = randomArray({1, v.c, v.h, v.w}, 3), wt = randomArray({v.oc, v.c, v.k, v.k}, 4);
  relay::Conv2DAttrs attrs;
  attrs.strides = {v.stride, v.stride};
  attrs.padding = {v.pad, v.pad};
  attrs.kernelSize = std::vector<int64_t>{v.k, v.k};
  attrs.channels = v.oc;
  Compiled t = compile(
      relay::nn::conv2d(relay::var("x", {1, v.c, v.h, v.w}), relay::constant(wt), attrs), x);

  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  memory::desc src({1, v.c, v.h, v.w}, memory::data_type::f32, memory::format_tag::nchw);
  memory::desc dst({1, v.oc, oh, ow}, memory::data_type::f32, memory::format_tag::nchw);
  memory::desc wAny({v.oc, v.c, v.k, v.k}, memory::data_type::f32, memory::format_tag::any);
  const double flops = 2.0 * v.oc * oh * ow * v.c * v.k * v.k;
  for (int nt : threads) {
    setThreads(nt);
    // oneDNN's OpenMP primitives take their thread count when they are created.
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, src, wAny, dst,
                                         {v.stride, v.stride}, {v.pad, v.pad}, {v.pad, v.pad});
    dnnl::convolution_forward::primitive_desc pd(desc, eng);
    memory srcMem(src, eng, x.data());
    NDArray out = NDArray::empty({1, v.oc, oh, ow}, DataType::float32());
    memory dstMem(dst, eng, out.data());
    memory wPlain({{v.oc, v.c, v.k, v.k}, memory::data_type::f32, memory::format_tag::oihw}, eng,
                  wt.data());
    memory wMem(pd.weights_desc(), eng);
    dnnl::reorder(wPlain, wMem).execute(strm, wPlain, wMem);
    dnnl::convolution_forward conv(pd);
    auto tessera = [&] { t.exec->run(); };
    auto onednn = [&] {
      conv.execute(strm,
                   {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_WEIGHTS, wMem}, {DNNL_ARG_DST, dstMem}});
      strm.wait();
    };
    std::vector<double> s = interleaved({tessera, onednn}, rounds, minMs);
    const double diff = maxAbsDiff(t.exec->getOutput(0).as<float>(), out.as<float>(), out.numel());
    std::printf("| conv %s | %d | %.3f | %.1f | %.1f | %.2f | %.1e | %.2f |\n", v.name, nt,
                s[0] * 1e3, flops / s[0] * 1e-9, flops / s[1] * 1e-9, s[1] / s[0], diff,
                t.compileSeconds);
    std::fflush(stdout);
  }
}

// --- int8: Tessera's VNNI kernels vs oneDNN's int8 primitives (s8 x s8 -> s32) ---

int64_t countDiffs(const int32_t* a, const int32_t* b, int64_t n) {
  int64_t d = 0;
  for (int64_t i = 0; i < n; ++i) d += a[i] != b[i];
  return d;
}

void printInt8Row(const std::string& name, int nt, const std::vector<double>& s, double ops,
                  int64_t diffs, double compileSeconds) {
  std::printf("| %s | %d | %.3f | %.1f | %.1f | %.2f | %ld | %.2f |\n", name.c_str(), nt,
              s[0] * 1e3, ops / s[0] * 1e-9, ops / s[1] * 1e-9, s[1] / s[0],
              static_cast<long>(diffs), compileSeconds);
  std::fflush(stdout);
}

// C(M,N) = A(M,K) W(N,K)^T: Tessera's nn.dense (out_dtype int32) vs a oneDNN matmul with the
// weight in the layout oneDNN prefers (reordered once, as Tessera packs once).
void benchGemmInt8(const GemmCase& g, const std::vector<int>& threads, int rounds, double minMs) {
  using dnnl::memory;
  NDArray a = randomInt8({g.m, g.k}, 1), w = randomInt8({g.n, g.k}, 2);
  Compiled t = compile(
      relay::callOp("nn.dense",
                    {relay::var("x", tensorType({g.m, g.k}, DataType::int8())), relay::constant(w)},
                    {{"out_dtype", AttrValue::string("int32")}}),
      a);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  memory::desc aDesc({g.m, g.k}, memory::data_type::s8, memory::format_tag::ab);
  memory::desc wAny({g.k, g.n}, memory::data_type::s8, memory::format_tag::any);
  memory::desc cDesc({g.m, g.n}, memory::data_type::s32, memory::format_tag::ab);
  const double ops = 2.0 * g.m * g.n * g.k;
  for (int nt : threads) {
    setThreads(nt);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(aDesc, wAny, cDesc), eng);
    memory aMem(aDesc, eng, a.data());
    NDArray c = NDArray::empty({g.m, g.n}, DataType::int32());
    memory cMem(cDesc, eng, c.data());
    // W^T as a (K, N) matrix: the (N, K) array read with strides (1, K).
    memory wPlain({{g.k, g.n}, memory::data_type::s8, memory::format_tag::ba}, eng, w.data());
    memory wMem(pd.weights_desc(), eng);
    dnnl::reorder(wPlain, wMem).execute(strm, wPlain, wMem);
    dnnl::matmul mm(pd);
    auto tessera = [&] { t.exec->run(); };
    auto onednn = [&] {
      mm.execute(strm, {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, wMem}, {DNNL_ARG_DST, cMem}});
      strm.wait();
    };
    std::vector<double> s = interleaved({tessera, onednn}, rounds, minMs);
    printInt8Row(std::string("int8 gemm ") + g.name, nt, s, ops,
                 countDiffs(t.exec->getOutput(0).as<int32_t>(), c.as<int32_t>(), g.m * g.n),
                 t.compileSeconds);
  }
}

// conv2d batch 1, int8 NCHW data and OIHW weights -> int32 NCHW: Tessera vs oneDNN, which gets
// its preferred layouts for data, weights and output (reordered outside the timing).
void benchConvInt8(const ConvCase& v, const std::vector<int>& threads, int rounds, double minMs) {
  using dnnl::memory;
  const int64_t oh = (v.h + 2 * v.pad - v.k) / v.stride + 1,
                ow = (v.w + 2 * v.pad - v.k) / v.stride + 1;
  const int64_t g = v.groups;
  NDArray x = randomInt8({1, v.c, v.h, v.w}, 3), wt = randomInt8({v.oc, v.c / g, v.k, v.k}, 4);
  relay::Conv2DAttrs attrs;
  attrs.strides = {v.stride, v.stride};
  attrs.padding = {v.pad, v.pad};
  attrs.kernelSize = std::vector<int64_t>{v.k, v.k};
  attrs.channels = v.oc;
  attrs.groups = g;
  attrs.outDtype = DataType::int32();
  Compiled t =
      compile(relay::nn::conv2d(relay::var("x", tensorType({1, v.c, v.h, v.w}, DataType::int8())),
                                relay::constant(wt), attrs),
              x);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  memory::desc srcAny({1, v.c, v.h, v.w}, memory::data_type::s8, memory::format_tag::any);
  memory::desc dstAny({1, v.oc, oh, ow}, memory::data_type::s32, memory::format_tag::any);
  // A grouped convolution's weights are (groups, oc / groups, c / groups, k, k) to oneDNN.
  const memory::dims wDims =
      g == 1 ? memory::dims{v.oc, v.c, v.k, v.k} : memory::dims{g, v.oc / g, v.c / g, v.k, v.k};
  memory::desc wAny(wDims, memory::data_type::s8, memory::format_tag::any);
  const double ops = 2.0 * v.oc * oh * ow * (v.c / g) * v.k * v.k;
  for (int nt : threads) {
    setThreads(nt);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, srcAny, wAny, dstAny,
                                         {v.stride, v.stride}, {v.pad, v.pad}, {v.pad, v.pad});
    dnnl::convolution_forward::primitive_desc pd(desc, eng);
    auto toPreferred = [&](const memory::desc& want, const memory::desc& plain, void* data) {
      memory from(plain, eng, data), to(want, eng);
      dnnl::reorder(from, to).execute(strm, from, to);
      return to;
    };
    memory srcMem = toPreferred(
        pd.src_desc(), {{1, v.c, v.h, v.w}, memory::data_type::s8, memory::format_tag::nchw},
        x.data());
    memory wMem = toPreferred(pd.weights_desc(),
                              {wDims, memory::data_type::s8,
                               g == 1 ? memory::format_tag::oihw : memory::format_tag::goihw},
                              wt.data());
    memory dstMem(pd.dst_desc(), eng);
    dnnl::convolution_forward conv(pd);
    auto tessera = [&] { t.exec->run(); };
    auto onednn = [&] {
      conv.execute(strm,
                   {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_WEIGHTS, wMem}, {DNNL_ARG_DST, dstMem}});
      strm.wait();
    };
    std::vector<double> s = interleaved({tessera, onednn}, rounds, minMs);
    NDArray out = NDArray::empty({1, v.oc, oh, ow}, DataType::int32());
    memory outPlain({{1, v.oc, oh, ow}, memory::data_type::s32, memory::format_tag::nchw}, eng,
                    out.data());
    dnnl::reorder(dstMem, outPlain).execute(strm, dstMem, outPlain);
    strm.wait();
    printInt8Row(std::string("int8 conv ") + v.name, nt, s, ops,
                 countDiffs(t.exec->getOutput(0).as<int32_t>(), out.as<int32_t>(), out.numel()),
                 t.compileSeconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string only;
  std::vector<ConvCase> customConvs;
  std::vector<std::string> customNames;
  std::vector<int> threads = {1, 2};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if ((!std::strcmp(argv[i], "--conv") || !std::strcmp(argv[i], "--int8-conv")) &&
             i + 1 < argc) {
      // C,H,W,OC,K,STRIDE,PAD: one fp32 or int8 convolution case instead of the lists
      const bool int8 = !std::strcmp(argv[i], "--int8-conv");
      ConvCase v{};
      customNames.push_back(argv[++i]);
      if (std::sscanf(argv[i], "%ld,%ld,%ld,%ld,%ld,%ld,%ld", &v.c, &v.h, &v.w, &v.oc, &v.k,
                      &v.stride, &v.pad) != 7) {
        std::fprintf(stderr, "%s expects C,H,W,OC,K,STRIDE,PAD\n", argv[i - 1]);
        return 2;
      }
      customConvs.push_back(v);
      only = int8 ? "int8-custom" : "custom";
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads.clear();
      for (const char* p = argv[++i]; *p; ++p)
        if (*p >= '1' && *p <= '9') threads.push_back(*p - '0');
    } else {
      std::fprintf(
          stderr,
          "usage: kernel_bench [--quick] [--threads 1,2] [--only gemm|conv|int8|int8-dw|int8-mnv2] "
          "[--conv "
          "C,H,W,OC,K,S,P] [--int8-conv C,H,W,OC,K,S,P]\n");
      return 2;
    }
  }
  const int rounds = quick ? 3 : 7;
  const double minMs = quick ? 20 : 100;
  std::printf(
      "| case | threads | Tessera ms | Tessera GFLOPS | peer GFLOPS | Tessera / peer speed "
      "| max abs diff | compile s |\n|---|---|---|---|---|---|---|---|\n");
  const GemmCase gemms[] = {{"mlp 1x784x128", 1, 128, 784},
                            {"128", 128, 128, 128},
                            {"512", 512, 512, 512},
                            {"1024", 1024, 1024, 1024},
                            {"2048", 2048, 2048, 2048}};
  if (only.empty() || only == "gemm") {
    for (const GemmCase& g : gemms)
      if (!quick || g.m <= 1024) benchGemm(g, threads, rounds, minMs);
  }
  for (size_t i = 0; i < customConvs.size(); ++i) customConvs[i].name = customNames[i].c_str();
  if (only == "custom")
    for (const ConvCase& v : customConvs) benchConv(v, threads, rounds, minMs);
  if (only.empty() || only == "conv") {
    for (const ConvCase& v : kResNet18Convs) benchConv(v, threads, rounds, minMs);
  }
  if (only == "int8") {
    // GOPS: int8 multiply-adds count 2 operations; the last column counts int32 results that
    // differ from oneDNN's (the products are exact: 0 expected).
    std::printf(
        "\n| int8 case | threads | Tessera ms | Tessera GOPS | oneDNN GOPS | Tessera / peer "
        "speed | differing results | compile s |\n|---|---|---|---|---|---|---|---|\n");
    for (const GemmCase& g : gemms)
      if (!quick || g.m <= 1024) benchGemmInt8(g, threads, rounds, minMs);
    for (const ConvCase& v : kResNet18Convs) benchConvInt8(v, threads, rounds, minMs);
    for (const ConvCase& v : kResNet50PointwiseConvs) benchConvInt8(v, threads, rounds, minMs);
    for (const ConvCase& v : kMobileNetV2Convs) benchConvInt8(v, threads, rounds, minMs);
    for (const ConvCase& v : kMobileNetV2DepthwiseConvs) benchConvInt8(v, threads, rounds, minMs);
  }
  if (only == "int8-dw" || only == "int8-mnv2") {
    std::printf(
        "\n| int8 case | threads | Tessera ms | Tessera GOPS | oneDNN GOPS | Tessera / peer "
        "speed | differing results | compile s |\n|---|---|---|---|---|---|---|---|\n");
    if (only == "int8-mnv2")
      for (const ConvCase& v : kMobileNetV2Convs) benchConvInt8(v, threads, rounds, minMs);
    for (const ConvCase& v : kMobileNetV2DepthwiseConvs) benchConvInt8(v, threads, rounds, minMs);
  }
  if (only == "int8-custom") {
    std::printf(
        "\n| int8 case | threads | Tessera ms | Tessera GOPS | oneDNN GOPS | Tessera / peer "
        "speed | differing results | compile s |\n|---|---|---|---|---|---|---|---|\n");
    for (const ConvCase& v : customConvs) benchConvInt8(v, threads, rounds, minMs);
  }
  return 0;
}
