// Times one ONNX model on ONNX Runtime (onnxruntime-node, CPU) with inputs of any dtype, for
// control_flow_bench.py. Usage: node ort_time.js MODEL.onnx INPUTS.json THREADS RUNS
// INPUTS.json: [{"name": ..., "dtype": "float32"|"int64"|"bool", "shape": [...], "data": [...]}].
// Prints one JSON line: {"ms": [per-run milliseconds], "output": [first output, flattened]}.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

function tensorOf(spec) {
  if (spec.dtype === 'float32') return new ort.Tensor('float32', Float32Array.from(spec.data), spec.shape);
  if (spec.dtype === 'int64')
    return new ort.Tensor('int64', BigInt64Array.from(spec.data.map(BigInt)), spec.shape);
  if (spec.dtype === 'bool') return new ort.Tensor('bool', Uint8Array.from(spec.data), spec.shape);
  throw new Error(`unsupported dtype ${spec.dtype}`);
}

async function main() {
  const [model, inputsPath, threads, runs] = process.argv.slice(2);
  const feeds = {};
  for (const spec of JSON.parse(fs.readFileSync(inputsPath, 'utf8'))) feeds[spec.name] = tensorOf(spec);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  let result = await session.run(feeds);  // warm-up
  const ms = [];
  for (let i = 0; i < Number(runs); ++i) {
    const start = process.hrtime.bigint();
    result = await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const first = result[session.outputNames[0]];
  process.stdout.write(JSON.stringify({ ms, output: Array.from(first.data, Number) }) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e.stack || e) + '\n');
  process.exit(1);
});
