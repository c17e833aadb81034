# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def fused_nn_dense_add_nn_relu(p0: T.Buffer((1, 784), "float32"), p1: T.Buffer((128, 784), "float32"), p2: T.Buffer((128,), "float32"), T_relu: T.Buffer((1, 128), "float32")):
        T.func_attr({"tessera.implementation": "dense_pack_runtime.x86", "tir.noalias": T.bool(True)})
        T_pack_b = T.decl_buffer((100352,))
        for ax0_ax1_fused in T.parallel(3136):
            for ax2 in range(32):
                p1_1 = T.Buffer((100352,), data=p1.data)
                T_pack_b[ax0_ax1_fused * 32 + ax2] = p1_1[ax0_ax1_fused // 784 * 25088 + ax2 * 784 + ax0_ax1_fused % 784]
        for i1_0_i0_0_fused in T.parallel(4):
            T_dense_pack = T.decl_buffer((32,))
            T_dense_pack[0:32] = T.Broadcast(T.float32(0.0), 32)
            for ax2 in range(784):
                p0_1 = T.Buffer((784,), data=p0.data)
                T_dense_pack[0:32] = T_dense_pack[0:32] + T.Broadcast(p0_1[ax2], 32) * T_pack_b[i1_0_i0_0_fused * 25088 + ax2 * 32:i1_0_i0_0_fused * 25088 + ax2 * 32 + 32]
            cse_var_1: T.int32 = i1_0_i0_0_fused * 32
            T_relu_1 = T.Buffer((128,), data=T_relu.data)
            T_relu_1[cse_var_1:cse_var_1 + 32] = T.max(T_dense_pack[0:32] + p2[cse_var_1:cse_var_1 + 32], T.Broadcast(T.float32(0.0), 32))
