"""relay.quantize from Python: qconfig as a nested context manager, and quantize() of a conv
block under PassContext(opt_level=3), compiled and compared with the float model."""
import unittest

import numpy as np

import tessera
from tessera import relay


def conv_module(rng):
    x = relay.var("data", shape=(1, 8, 12, 12))
    w = relay.const(rng.uniform(-0.5, 0.5, (16, 8, 3, 3)).astype("float32"))
    w2 = relay.const(rng.uniform(-0.5, 0.5, (16, 16, 3, 3)).astype("float32"))
    y = relay.nn.relu(relay.nn.conv2d(x, w, padding=(1, 1), channels=16, kernel_size=(3, 3)))
    y = relay.nn.relu(relay.nn.conv2d(y, w2, padding=(1, 1), channels=16, kernel_size=(3, 3)))
    return tessera.IRModule.from_expr(relay.Function([x], y))


class QuantizeTest(unittest.TestCase):
    def test_qconfig_scopes(self):
        self.assertIsNone(relay.quantize.current_qconfig().skip_conv_layers)
        with relay.quantize.qconfig(global_scale=4.0) as outer:
            self.assertEqual(relay.quantize.current_qconfig().global_scale, 4.0)
            self.assertEqual(relay.quantize.current_qconfig().skip_conv_layers, [0])
            with relay.quantize.qconfig(calibrate_mode="kl_divergence", weight_scale="max"):
                self.assertEqual(relay.quantize.current_qconfig().calibrate_mode,
                                 "kl_divergence")
            self.assertEqual(relay.quantize.current_qconfig().calibrate_mode, "global_scale")
            self.assertIn("global_scale=4", str(outer))
        self.assertEqual(relay.quantize.current_qconfig().global_scale, 8.0)
        with self.assertRaises(AttributeError):
            relay.quantize.qconfig(no_such_field=1)
        with self.assertRaises(tessera.DiagnosticError) as raised:
            with relay.quantize.qconfig(calibrate_mode="nonsense"):
                pass
        self.assertEqual(raised.exception.code, "qconfig")

    def test_quantize_and_run(self):
        rng = np.random.default_rng(0)
        mod = conv_module(rng)
        x = rng.uniform(0, 1, (1, 8, 12, 12)).astype("float32")
        dataset = [{"data": rng.uniform(0, 1, (1, 8, 12, 12)).astype("float32")}
                   for _ in range(2)]
        with tessera.transform.PassContext(opt_level=3):
            with relay.quantize.qconfig(calibrate_mode="global_scale", global_scale=8.0,
                                        skip_conv_layers=[]):
                qmod = relay.quantize.quantize(mod, params={}, dataset=dataset)
        text = str(qmod)
        self.assertIn("int8", text)
        self.assertIn('out_dtype="int32"', text)
        float_out = relay.create_executor("graph", mod=mod).evaluate()(x).numpy()
        int8_out = relay.create_executor("graph", mod=qmod).evaluate()(x).numpy()
        cosine = np.dot(float_out.ravel(), int8_out.ravel()) / (
            np.linalg.norm(float_out) * np.linalg.norm(int8_out))
        self.assertGreater(cosine, 0.98)

    def test_stages_as_passes(self):
        mod = relay.transform.InferType()(conv_module(np.random.default_rng(1)))
        with relay.quantize.qconfig(skip_conv_layers=[]):
            partitioned = relay.quantize.partition()(mod)
            annotated = relay.quantize.annotate()(partitioned)
        self.assertIn("simulated_quantize", str(annotated))
        with tessera.transform.PassContext(opt_level=3):
            self.assertIsInstance(relay.quantize.prerequisite_optimize(mod), tessera.IRModule)


if __name__ == "__main__":
    unittest.main()
