"""relay.frontend.from_onnx from Python on the FashionMNIST MLP (path and ModelProto), compiled
and compared with the reference interpreter and the VM."""
import os
import unittest

import numpy as np

import tessera
from tessera import relay
from tessera.contrib import graph_executor

MODEL = os.path.join(os.environ.get("TESSERA_SOURCE_DIR", "."), "examples", "fashion_mnist",
                     "mlp.onnx")


class OnnxTest(unittest.TestCase):
    def test_from_path_and_proto(self):
        mod, params = relay.frontend.from_onnx(MODEL)
        self.assertEqual(params, {})
        (name,) = [p.name_hint for p in mod["main"].params]
        shape = mod["main"].params[0].checked_type.concrete_shape
        try:
            import onnx
        except ImportError:
            onnx = None
        if onnx is not None:
            proto_mod, _ = relay.frontend.from_onnx(onnx.load(MODEL), shape={name: shape})
            self.assertTrue(tessera.ir.structural_equal(proto_mod, mod))
        x = np.random.default_rng(0).uniform(0, 1, shape).astype("float32")
        expected = relay.create_executor("debug", mod=mod).evaluate()(x).numpy()
        with tessera.transform.PassContext(opt_level=3):
            lib = relay.build(mod, target="llvm")
        module = graph_executor.GraphModule(lib["default"](tessera.cpu()))
        module.set_input(name, x)
        module.run()
        np.testing.assert_allclose(module.get_output(0).numpy(), expected, rtol=1e-4, atol=1e-4)
        vm_out = relay.create_executor("vm", mod=mod).evaluate()(x)
        np.testing.assert_allclose(vm_out.numpy(), expected, rtol=1e-4, atol=1e-4)

    def test_malformed_bytes(self):
        with self.assertRaises(tessera.DiagnosticError):
            relay.frontend.from_onnx(b"\x08\x07garbage")


if __name__ == "__main__":
    unittest.main()
