// Probe for the next int8 depthwise kernel: two hand-written inner loops of a 3x3, stride-1,
// pad-1 depthwise convolution of uint8 data in [0, 127] with int8 weights into int32, timed
// alternately on MobileNetV2's stride-1 depthwise shapes at one thread.
//
//  * widen: what `depthwise_conv2d_int8` does today (topi/depthwise_conv2d_int8.h): 16 output
//    columns per vector, each tap a widening load, `vpmulld` and `vpaddd`: 27 instructions per
//    16 outputs.
//  * vnni: each kernel row's three taps as VNNI's byte group: one 64-byte load, one `vpermb`
//    with a fixed index table (lane i gets bytes i, i+1, i+2 and a zero-weighted fourth) and one
//    `vpdpbusd` per kernel row. Four output rows at a time share their input rows' permuted
//    vectors, so 16 outputs cost 1.5 loads, 1.5 vpermb and 3 vpdpbusd instead of 27
//    instructions. Rows of at most 8 columns are folded two to a vector (the table reads the
//    second row one row pitch further on).
//
// Both compute the same integers (checked on int32 outputs); the timed runs write int8 through
// the same stand-in epilogue (a shift and a saturating narrow), so the figures are the loops'
// own, not a compiled kernel's. Needs AVX-512 VNNI and VBMI; says so and exits 0 without.
// Usage: depthwise_int8_probe [ROUNDS]; pin it with taskset for one core.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

struct Shape {
  int channels, height, width;  // input = output extents (stride 1, pad 1)
};

// The padded input: rows of width + 2 bytes, planes of (height + 2) rows, 64 bytes of slack at
// the end so that every 64-byte load stays inside the buffer.
struct Layer {
  Shape s;
  int pitch, plane;
  std::vector<uint8_t> data;
  std::vector<int8_t> weight;  // (channels, 3, 3)
  std::vector<int32_t> out;    // (channels, height, width): the check's
  std::vector<int8_t> out8;    // the timed runs': acc >> 8, narrowed with saturation

  explicit Layer(Shape shape)
      : s(shape), pitch(shape.width + 2), plane(pitch * (shape.height + 2)) {
    std::mt19937 gen(20261201);
    std::uniform_int_distribution<int> byte(0, 127), w(-127, 127);
    data.assign(static_cast<size_t>(plane) * s.channels + 64, 0);
    for (int c = 0; c < s.channels; ++c)
      for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
          data[c * plane + (y + 1) * pitch + x + 1] = static_cast<uint8_t>(byte(gen));
    weight.resize(static_cast<size_t>(s.channels) * 9);
    for (auto& v : weight) v = static_cast<int8_t>(w(gen));
    out.assign(static_cast<size_t>(s.channels) * s.height * s.width, 0);
    out8.assign(out.size(), 0);
  }
  double ops() const { return 2.0 * 9 * s.channels * s.height * s.width; }
};

__mmask16 laneMask(int lanes) {
  return static_cast<__mmask16>((1u << lanes) - 1);
}

// A masked store of 16 accumulators: int32 as they are, or int8 as a requantizing epilogue would
// write them (here acc >> 8 with saturation: the same cost for both loops).
__attribute__((target("avx512f,avx512bw"))) inline void store(int32_t* p, __mmask16 m,
                                                              __m512i acc) {
  _mm512_mask_storeu_epi32(p, m, acc);
}
__attribute__((target("avx512f,avx512bw"))) inline void store(int8_t* p, __mmask16 m, __m512i acc) {
  _mm512_mask_cvtsepi32_storeu_epi8(p, m, _mm512_srai_epi32(acc, 8));
}

template <class Out>
__attribute__((target("avx512f,avx512bw"))) void widen(Layer& l, Out* outBase) {
  const Shape& s = l.s;
  for (int c = 0; c < s.channels; ++c) {
    const uint8_t* in = l.data.data() + c * l.plane;
    __m512i w[9];
    for (int t = 0; t < 9; ++t) w[t] = _mm512_set1_epi32(l.weight[c * 9 + t]);
    for (int y = 0; y < s.height; ++y)
      for (int x0 = 0; x0 < s.width; x0 += 16) {
        __m512i acc = _mm512_setzero_si512();
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw) {
            const auto* p = reinterpret_cast<const __m128i*>(in + (y + kh) * l.pitch + x0 + kw);
            acc = _mm512_add_epi32(
                acc, _mm512_mullo_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128(p)), w[kh * 3 + kw]));
          }
        store(outBase + (c * s.height + y) * s.width + x0, laneMask(std::min(16, s.width - x0)),
              acc);
      }
  }
}

// The vpermb table: lane i reads bytes base(i) + 0, 1, 2 (and base(i) again for the fourth,
// whose weight is zero); base(i) = i, or with two folded rows of `width` columns, i for the first
// row's lanes and pitch + (i - width) for the second's.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) __m512i tapTable(int width, int pitch,
                                                                        bool folded) {
  alignas(64) uint8_t idx[64];
  for (int i = 0; i < 16; ++i) {
    const int base = folded && i >= width ? pitch + (i - width) : i;
    for (int j = 0; j < 4; ++j) idx[4 * i + j] = static_cast<uint8_t>(base + (j < 3 ? j : 0));
  }
  return _mm512_load_si512(idx);
}

// Input row r's vector for 16 outputs from column x0: one 64-byte load and one vpermb. Output row
// y takes input rows y, y + 1, y + 2 with kernel rows 0, 1, 2.
__attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) inline __m512i taps(
    const uint8_t* in, int pitch, int r, int x0, __m512i table) {
  return _mm512_permutexvar_epi8(table, _mm512_loadu_si512(in + r * pitch + x0));
}

// kRows loop rows from input row y, each loop row kStep input rows below the last (kStep 2: a
// loop row is a folded pair of output rows). Each input row is loaded and permuted once and fed
// to every accumulator that reads it: one vpdpbusd per kernel row and loop row.
template <int kRows, int kStep, class Out>
__attribute__((target("avx512f,avx512bw,avx512vnni,avx512vbmi"), always_inline)) inline void
rowBlock(const uint8_t* in, int pitch, int y, int x0, __m512i table, const __m512i* w, Out* out,
         int rowStride, __mmask16 mask) {
  __m512i acc[kRows];
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) acc[i] = _mm512_setzero_si512();
#pragma GCC unroll 16
  for (int r = 0; r < kStep * (kRows - 1) + 3; ++r) {
    const __m512i p = taps(in, pitch, y + r, x0, table);
#pragma GCC unroll 8
    for (int i = 0; i < kRows; ++i) {
      const int kh = r - kStep * i;
      if (kh >= 0 && kh < 3) acc[i] = _mm512_dpbusd_epi32(acc[i], p, w[kh]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < kRows; ++i) store(out + i * rowStride, mask, acc[i]);
}

template <class Out>
__attribute__((target("avx512f,avx512bw,avx512vnni,avx512vbmi"))) void vnni(Layer& l,
                                                                            Out* outBase) {
  const Shape& s = l.s;
  // Two rows of at most 8 columns share a vector (the table reads the second one a pitch on).
  const bool folded = 2 * s.width <= 16;
  const __m512i table = tapTable(s.width, l.pitch, folded);
  for (int c = 0; c < s.channels; ++c) {
    const uint8_t* in = l.data.data() + c * l.plane;
    __m512i w[3];
    for (int kh = 0; kh < 3; ++kh) {
      const int8_t* k = &l.weight[c * 9 + kh * 3];
      w[kh] = _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint8_t>(k[0]) |
                                                     static_cast<uint8_t>(k[1]) << 8 |
                                                     static_cast<uint8_t>(k[2]) << 16));
    }
    Out* out = outBase + c * s.height * s.width;
    if (folded) {
      const int pair = 2 * s.width;
      int y = 0;
      for (; y + 8 <= s.height; y += 8)
        rowBlock<4, 2>(in, l.pitch, y, 0, table, w, out + y * s.width, pair, laneMask(pair));
      for (; y < s.height; y += 2)
        rowBlock<1, 2>(in, l.pitch, y, 0, table, w, out + y * s.width, pair,
                       laneMask(std::min(2, s.height - y) * s.width));
      continue;
    }
    for (int x0 = 0; x0 < s.width; x0 += 16) {
      const __mmask16 mask = laneMask(std::min(16, s.width - x0));
      int y = 0;
      for (; y + 4 <= s.height; y += 4)
        rowBlock<4, 1>(in, l.pitch, y, x0, table, w, out + y * s.width + x0, s.width, mask);
      for (; y < s.height; ++y)
        rowBlock<1, 1>(in, l.pitch, y, x0, table, w, out + y * s.width + x0, s.width, mask);
    }
  }
}

// Seconds per call over one timed block of `calls` calls (main alternates the two loops block by
// block, each block about 20 ms, and takes the medians).
template <class F>
double timeBlock(F&& f, Layer& l, int calls) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f(l, l.out8.data());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512vbmi")) {
    std::printf("depthwise_int8_probe: this CPU has no AVX-512 VNNI and VBMI; nothing to time\n");
    return 0;
  }
  const Shape shapes[] = {{32, 112, 112}, {144, 56, 56}, {192, 28, 28},
                          {384, 14, 14},  {576, 14, 14}, {960, 7, 7}};
  std::printf(
      "| depthwise 3x3 s1 | widen ms | widen GOP/s | vnni ms | vnni GOP/s | vnni / widen speed "
      "|\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const Shape& s : shapes) {
    Layer l(s);
    widen(l, l.out.data());
    const std::vector<int32_t> expected = l.out;
    std::fill(l.out.begin(), l.out.end(), 0);
    vnni(l, l.out.data());
    if (l.out != expected) {
      std::printf("depthwise_int8_probe: the loops differ on %dx%dx%d\n", s.channels, s.height,
                  s.width);
      return 1;
    }
    const double once = timeBlock(widen<int8_t>, l, 1);
    const int calls = std::max(1, static_cast<int>(0.02 / std::max(once, 1e-7)));
    std::vector<double> a, b;
    for (int r = 0; r < rounds; ++r) {
      a.push_back(timeBlock(widen<int8_t>, l, calls));
      b.push_back(timeBlock(vnni<int8_t>, l, calls));
    }
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const double ta = a[a.size() / 2], tb = b[b.size() / 2];
    std::printf("| %d x %dx%d | %.4f | %.1f | %.4f | %.1f | %.2f |\n", s.channels, s.height,
                s.width, ta * 1e3, l.ops() / ta * 1e-9, tb * 1e3, l.ops() / tb * 1e-9, ta / tb);
  }
  return 0;
}
