// The ONNX Runtime engine of the peer benchmark (onnxruntime-node, CPU), driven by run_peers.py
// over stdin/stdout with one JSON request per line, as torch_worker.py:
//   {"cmd": "threads", "n": T}  -> uses a session with intraOpNumThreads T (made once per T)
//   {"cmd": "run", "k": K}      -> K timed session.run calls; replies {"ms": [...]}
//   {"cmd": "check"}            -> one run; replies {"max_abs_diff": D} against NAME.ref.npy
//   {"cmd": "info"}             -> the ONNX Runtime version
// Sessions: all graph optimizations, sequential execution, one inter-op thread.
// Usage: node ort_worker.js NAME INPUT_NAME CACHE_DIR   (after scripts/install_model_deps.sh)
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

// Reads a little-endian float32, C-order .npy file (format versions 1 to 3).
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', headerStart, headerStart + headerLen);
  if (!header.includes("'<f4'") || header.includes("'fortran_order': True"))
    throw new Error(`${file}: expected C-order float32, header ${header}`);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim())
    .map(Number);
  const start = headerStart + headerLen;
  // Copy: the buffer's offset need not be 4-byte aligned.
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + start,
                                                   bytes.byteOffset + bytes.length));
  return { shape, data };
}

async function main() {
  const [name, inputName, cache] = process.argv.slice(2);
  const modelPath = path.join(cache, `${name}.onnx`);
  const input = readNpy(path.join(cache, `${name}.input.npy`));
  const ref = readNpy(path.join(cache, `${name}.ref.npy`));
  const feeds = { [inputName]: new ort.Tensor('float32', input.data, input.shape) };
  const sessions = new Map();
  let session = null;

  const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    if (request.cmd === 'threads') {
      if (!sessions.has(request.n)) {
        sessions.set(request.n, await ort.InferenceSession.create(modelPath, {
          intraOpNumThreads: request.n,
          interOpNumThreads: 1,
          executionMode: 'sequential',
          graphOptimizationLevel: 'all',
        }));
      }
      session = sessions.get(request.n);
      reply({ ok: true });
    } else if (request.cmd === 'run') {
      const ms = [];
      for (let i = 0; i < request.k; ++i) {
        const start = process.hrtime.bigint();
        await session.run(feeds);
        ms.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      reply({ ms });
    } else if (request.cmd === 'check') {
      const out = await session.run(feeds);
      const data = out[session.outputNames[0]].data;
      let diff = 0;
      for (let i = 0; i < data.length; ++i) diff = Math.max(diff, Math.abs(data[i] - ref.data[i]));
      reply({ max_abs_diff: data.length === ref.data.length ? diff : null });
    } else if (request.cmd === 'info') {
      const version = require(path.join(__dirname, 'node_modules', 'onnxruntime-node',
                                        'package.json')).version;
      reply({ onnxruntime: version, node: process.version });
    } else {
      reply({ error: `unknown command ${request.cmd}` });
    }
  }
}

main().catch((e) => {
  process.stderr.write(`ort_worker: ${e.stack || e}\n`);
  process.exit(1);
});
