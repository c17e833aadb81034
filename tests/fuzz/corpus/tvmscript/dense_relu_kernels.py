# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def fused_nn_dense_add_nn_relu(p0: T.Buffer((1, 784), "float32"), p1: T.Buffer((128, 784), "float32"), p2: T.Buffer((128,), "float32"), T_relu: T.Buffer((1, 128), "float32")):
        T.func_attr({"layout_free_buffers": [1], "tir.noalias": T.bool(True)})
        # with T.block("root"):
        T_matmul_NT = T.alloc_buffer((1, 128))
        T_add = T.alloc_buffer((1, 128))
        for i0, i1, k in T.grid(1, 128, 784):
            with T.block("T_matmul_NT"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(p0[v_i0, v_k], p1[v_i1, v_k])
                T.writes(T_matmul_NT[v_i0, v_i1])
                with T.init():
                    T_matmul_NT[v_i0, v_i1] = T.float32(0.0)
                T_matmul_NT[v_i0, v_i1] = T_matmul_NT[v_i0, v_i1] + p0[v_i0, v_k] * p1[v_i1, v_k]
        for ax0, ax1 in T.grid(1, 128):
            with T.block("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(T_matmul_NT[v_ax0, v_ax1], p2[v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = T_matmul_NT[v_ax0, v_ax1] + p2[v_ax1]
        for i0, i1 in T.grid(1, 128):
            with T.block("T_relu"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(T_add[v_i0, v_i1])
                T.writes(T_relu[v_i0, v_i1])
                T_relu[v_i0, v_i1] = T.max(T_add[v_i0, v_i1], T.float32(0.0))
