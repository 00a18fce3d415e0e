/*
 * The LLVM IR builders every module of the code generator uses (the CPU
 * kernels of emit.c, the GPU kernels of gpu.c, the prologues of
 * prepare.c, the descriptions of aot.c), and the one place that bridges
 * LLVM 14's typed pointers and the opaque pointers of LLVM 15 on.
 */
#ifndef SG_CODEGEN_IR_H
#define SG_CODEGEN_IR_H

#include <llvm-c/Core.h>
#include <llvm/Config/llvm-config.h>

/* The pointer type of `address_space`: i8* with typed pointers, ptr with
 * opaque ones. */
static inline LLVMTypeRef sg_ir_ptr_type(LLVMContextRef c, unsigned address_space)
{
#if LLVM_VERSION_MAJOR < 15
    return LLVMPointerType(LLVMInt8TypeInContext(c), address_space);
#else
    return LLVMPointerTypeInContext(c, address_space);
#endif
}

/* p as a pointer a load or store of `type` takes: with typed pointers a
 * pointer to that type (in `address_space`); with opaque ones p itself. */
static inline LLVMValueRef sg_ir_typed(LLVMBuilderRef b, LLVMValueRef p, LLVMTypeRef type,
                                       unsigned address_space)
{
#if LLVM_VERSION_MAJOR < 15
    return LLVMBuildBitCast(b, p, LLVMPointerType(type, address_space), "");
#else
    (void)b;
    (void)type;
    (void)address_space;
    return p;
#endif
}

/* A constant pointer as the pointer type `ptr` (a constant's own pointer
 * type with typed pointers; unchanged with opaque ones). */
static inline LLVMValueRef sg_ir_const_ptr(LLVMValueRef v, LLVMTypeRef ptr)
{
#if LLVM_VERSION_MAJOR < 15
    return LLVMConstBitCast(v, ptr);
#else
    (void)ptr;
    return v;
#endif
}

/* A new block at the end of function fn. */
static inline LLVMBasicBlockRef sg_ir_block(LLVMContextRef c, LLVMValueRef fn, const char *name)
{
    return LLVMAppendBasicBlockInContext(c, fn, name);
}

#endif
