"""Seed 002, sections 5 and 6: stochastic schedules with their traces, a random search over
them and tune_tir, tensor expressions (te_matmul, te_relu, their fusion), a BlockBuilder module
made with emit_te, and a PyTorch model imported node by node from torch.fx; the seed's own
from_fx helpers, then tessera.frontend.from_fx (the same structure as a library function).

Changes from the seed: `tvm` is `tessera`; Module (a 128x128 matmul, block "C") is made with TE
instead of TVMScript; the search's timings and decisions are random, so what is printed differs
from the seed's run by run, not in form; the default-space tune_tir runs 16 trials, not 64."""
import numpy as np
import torch
from torch import fx, nn

import tessera as tvm
from tessera import meta_schedule as ms
from tessera import relax, te
from tessera.frontend import from_fx as tessera_from_fx

# --- 5.1-5.3 stochastic schedules and random search -----------------------------------------
A = te.placeholder((128, 128), name="A", dtype="float32")
B = te.placeholder((128, 128), name="B", dtype="float32")
k = te.reduce_axis((0, 128), name="k")
C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
Module = tvm.IRModule.from_expr(te.create_prim_func([A, B, C]))


def stochastic_schedule_mm(sch: tvm.tir.Schedule):
    block_C = sch.get_block("C", "main")
    i, j, k = sch.get_loops(block=block_C)
    j_factors = sch.sample_perfect_tile(loop=j, n=2)
    j_0, j_1 = sch.split(loop=j, factors=j_factors)
    sch.reorder(i, j_0, k, j_1)
    sch.decompose_reduction(block_C, k)
    return sch


sch = tvm.tir.Schedule(Module, seed=1)
sch = stochastic_schedule_mm(sch)
print(sch.mod.script())
print(sch.trace)

rng = np.random.default_rng(0)
a_np = rng.uniform(size=(128, 128)).astype("float32")
b_np = rng.uniform(size=(128, 128)).astype("float32")
a_nd, b_nd = tvm.nd.array(a_np), tvm.nd.array(b_np)
c_nd = tvm.nd.empty((128, 128), "float32")


def random_search(mod: tvm.IRModule, num_trials=5):
    best_result = None
    best_sch = None
    for i in range(num_trials):
        sch = stochastic_schedule_mm(tvm.tir.Schedule(mod, seed=i))
        lib = tvm.build(sch.mod, target="llvm")
        f_time_after = lib.time_evaluator("main", tvm.cpu())
        result = f_time_after(a_nd, b_nd, c_nd).mean
        print("==========Attempt %d,time-cost:%.9f ms=======" % (i, result * 1000))
        print(sch.trace)
        if best_result is None or result < best_result:
            best_result = result
            best_sch = sch
    return best_sch


sch = random_search(Module)
lib = tvm.build(sch.mod, target="llvm")
lib["main"](a_nd, b_nd, c_nd)
print("best schedule, max |C - A @ B|:", float(np.abs(c_nd.numpy() - a_np @ b_np).max()))

# --- 5.3 tune_tir: the same space searched by the tuner, then its default space ---------------
database = ms.tune_tir(
    mod=Module,
    target="llvm --num-cores=1",
    max_trials_global=64,
    num_trials_per_iter=64,
    space=ms.space_generator.ScheduleFn(stochastic_schedule_mm),
    work_dir="./tune_tmp",
    task_name="main"
)
sch = ms.tir_integration.compile_tir(database, Module, "llvm --num-cores=1")
lib = tvm.build(sch.mod, target="llvm")
lib["main"](a_nd, b_nd, c_nd)
print("tune_tir (ScheduleFn), max |C - A @ B|:", float(np.abs(c_nd.numpy() - a_np @ b_np).max()))
database = ms.tune_tir(
    mod=Module,
    target="llvm --num-cores=1",
    max_trials_global=16,  # the seed's 64, fewer for a quick run
    num_trials_per_iter=16,
    work_dir="./tune_tmp",
    task_name="main",
)
sch = ms.tir_integration.compile_tir(database, Module, "llvm --num-cores=1")
lib = tvm.build(sch.mod, target="llvm")
lib["main"](a_nd, b_nd, c_nd)
print("tune_tir (default space), max |C - A @ B|:",
      float(np.abs(c_nd.numpy() - a_np @ b_np).max()))


# --- 6.1 tensor expressions -------------------------------------------------------------------
def te_matmul(A: te.Tensor, B: te.Tensor) -> te.Tensor:
    assert A.shape[1] == B.shape[0]
    n = A.shape[0]
    m = B.shape[1]
    k = te.reduce_axis((0, A.shape[1]), name="k")
    return te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")


def te_relu(A: te.Tensor) -> te.Tensor:
    return te.compute(A.shape, lambda i, j: te.max(A[i, j], 0), name="relu")


C = te_matmul(A, B)
te.create_prim_func([A, B, C]).show()
X1 = te.placeholder((1, 128), name="X1", dtype="float32")
Y1 = te_relu(X1)
te.create_prim_func([X1, Y1]).show()
D = te_relu(C)
te.create_prim_func([A, B, D]).show()  # fused: matmul is an intermediate buffer

# --- 6.2 BlockBuilder -------------------------------------------------------------------------
A = relax.Var("A", relax.TensorStructInfo((128, 128), "float32"))
B = relax.Var("B", relax.TensorStructInfo((128, 128), "float32"))
bb = relax.BlockBuilder()
with bb.function("main"):
    with bb.dataflow():
        C = bb.emit_te(te_matmul, A, B)
        D = bb.emit_te(te_relu, C)
        R = bb.emit_output(D)
    bb.emit_func_output(R, params=[A, B])
MyModule = bb.get()
MyModule.show()
print("C is a DataflowVar:", isinstance(C, relax.DataflowVar), "and a Var:",
      isinstance(C, relax.Var))


# --- 6.3 importing a PyTorch model from torch.fx (the seed's code) ----------------------------
class MyModel(nn.Module):
    def __init__(self):
        super(MyModel, self).__init__()
        self.weight = nn.Parameter(torch.randn(128, 128))

    def forward(self, x):
        x = torch.matmul(x, self.weight)
        x = torch.relu(x)
        return x


def map_param(param: nn.Parameter):
    return relax.const(
        param.data.cpu().numpy(), relax.TensorStructInfo(param.data.shape, "float32")
    )


def fetch_attr(fx_mod, target: str):
    """Helper function to fetch an attr"""
    target_atoms = target.split('.')
    attr_itr = fx_mod
    for i, atom in enumerate(target_atoms):
        if not hasattr(attr_itr, atom):
            raise RuntimeError(f"Node referenced nonexistant target {'.'.join(target_atoms[:i])}")
        attr_itr = getattr(attr_itr, atom)
    return attr_itr


def from_fx(fx_mod, input_shapes, call_function_map, call_module_map):
    input_index = 0
    node_map = {}
    named_modules = dict(fx_mod.named_modules())
    bb = relax.BlockBuilder()
    fn_inputs = []
    fn_output = None
    with bb.function("main"):
        with bb.dataflow():
            for node in fx_mod.graph.nodes:
                if node.op == "placeholder":
                    shape = input_shapes[input_index]
                    input_index += 1
                    input_var = relax.Var(node.target, relax.TensorStructInfo(shape, "float32"))
                    fn_inputs.append(input_var)
                    node_map[node] = input_var
                elif node.op == "get_attr":
                    node_map[node] = map_param(fetch_attr(fx_mod, node.target))
                elif node.op == "call_function":
                    node_map[node] = call_function_map[node.target](bb, node_map, node)
                elif node.op == "call_module":
                    named_module = named_modules[node.target]
                    node_map[node] = call_module_map[type(named_module)](
                        bb, node_map, node, named_module)
                elif node.op == "output":
                    output = node_map[node.args[0]]
                    assert fn_output is None
                    fn_output = bb.emit_output(output)
        bb.emit_func_output(output, fn_inputs)
    return bb.get()


def map_matmul(bb, node_map, node: fx.Node):
    A = node_map[node.args[0]]
    B = node_map[node.args[1]]
    return bb.emit_te(te_matmul, A, B)


def map_relu(bb, node_map, node: fx.Node):
    A = node_map[node.args[0]]
    return bb.emit_te(te_relu, A)


torch.manual_seed(0)
model = MyModel()
fx_module = fx.symbolic_trace(model)
MyModule = from_fx(fx_module, input_shapes=[(1, 128)],
                   call_function_map={torch.matmul: map_matmul, torch.relu: map_relu},
                   call_module_map={})
MyModule.show()
x = torch.randn(1, 128)
vm = relax.VirtualMachine(relax.build(MyModule, target="llvm"), tvm.cpu())
out = vm["main"](tvm.nd.array(x.numpy())).numpy()
print("seed from_fx, max |tessera - torch|:",
      float(np.abs(out - model(x).detach().numpy()).max()))


# The FashionMNIST MLP with the library importer: its tables already map Linear and ReLU.
class MLP(nn.Module):
    def __init__(self):
        super(MLP, self).__init__()
        self.linear0 = nn.Linear(784, 128, bias=True)
        self.relu = nn.ReLU()
        self.linear1 = nn.Linear(128, 10, bias=True)

    def forward(self, x):
        x = self.linear0(x)
        x = self.relu(x)
        x = self.linear1(x)
        return x


mlp_model = MLP()
MLPModule = tessera_from_fx(fx.symbolic_trace(mlp_model), [((1, 784), "float32")])
MLPModule.show()
img = torch.rand(1, 784)
vm = relax.VirtualMachine(relax.build(MLPModule, target="llvm"), tvm.cpu())
out = vm["main"](tvm.nd.array(img.numpy())).numpy()
print("tessera.frontend.from_fx, max |tessera - torch|:",
      float(np.abs(out - mlp_model(img).detach().numpy()).max()))
