// Runs one ONNX model once on ONNX Runtime (onnxruntime-node, CPU), for the conformance
// comparison (tests/onnx_conformance/ort_conformance.py). Usage: node ort_run_model.js SPEC.json
// SPEC.json: {"model": PATH, "out": DIR, "inputs": [{"name", "dtype", "shape", "file"}]}, each
// input's file holding its raw little-endian bytes (bool: one byte per element). Writes
// DIR/output_K.bin the same way and prints one JSON line: [{"name", "dtype", "shape"}] per output.
// An error from ONNX Runtime (an unsupported op or type) exits 1 with its message on stderr.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

// numpy dtype name -> [ONNX Runtime tensor type, typed array]; bfloat16 has no typed array in
// the Node binding, so such a test is an error here.
const TYPES = {
  float32: ['float32', Float32Array],
  float64: ['float64', Float64Array],
  float16: ['float16', Uint16Array],
  int8: ['int8', Int8Array],
  uint8: ['uint8', Uint8Array],
  int16: ['int16', Int16Array],
  uint16: ['uint16', Uint16Array],
  int32: ['int32', Int32Array],
  uint32: ['uint32', Uint32Array],
  int64: ['int64', BigInt64Array],
  uint64: ['uint64', BigUint64Array],
  bool: ['bool', Uint8Array],
};
const NUMPY = Object.fromEntries(Object.entries(TYPES).map(([numpy, [ortType]]) => [ortType, numpy]));

function tensorOf(spec) {
  const entry = TYPES[spec.dtype];
  if (!entry) throw new Error(`input ${spec.name}: dtype ${spec.dtype} has no ONNX Runtime tensor in Node`);
  const bytes = fs.readFileSync(spec.file);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);  // aligned for the typed array
  const [ortType, View] = entry;
  return new ort.Tensor(ortType, new View(copy.buffer, 0, bytes.length / View.BYTES_PER_ELEMENT),
                        spec.shape);
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const feeds = {};
  for (const input of spec.inputs) feeds[input.name] = tensorOf(input);
  const session = await ort.InferenceSession.create(spec.model, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const result = await session.run(feeds);
  const described = session.outputNames.map((name, k) => {
    const t = result[name];
    const dtype = NUMPY[t.type];
    if (!dtype) throw new Error(`output ${name}: type ${t.type} is not read back here`);
    const data = t.data;
    fs.writeFileSync(path.join(spec.out, `output_${k}.bin`),
                     Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    return { name, dtype, shape: t.dims };
  });
  process.stdout.write(JSON.stringify(described) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e.message || e) + '\n');
  process.exit(1);
});
