// The Relax virtual machine under its Relax names (TVM's relax.VirtualMachine): the VM itself is
// part of the runtime (runtime/vm/vm.h); relax::compile (vm_compiler.h) produces what it runs.
#pragma once

#include "relax/vm_compiler.h"
#include "runtime/vm/vm.h"

namespace tessera::relax {

using runtime::vm::VirtualMachine;
using runtime::vm::VMValue;

}  // namespace tessera::relax
