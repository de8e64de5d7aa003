#include "textflag.h"

// func cloneVM(flags, stack uintptr, pl *forkPlan, entry uintptr) (pid, errno uintptr)
//
// clone(2) of a process that shares this one's memory and starts on its
// own stack, whose top is stack. The child calls entry(pl), the code of
// a nosplit, norace Go function taken in Go's internal ABI (a func
// value's: no ABI wrapper, which under the race detector would enter the
// race runtime), and never returns here.
TEXT ·cloneVM(SB),NOSPLIT|NOFRAME,$0-48
	MOVQ	flags+0(FP), DI
	MOVQ	stack+8(FP), SI
	MOVQ	pl+16(FP), R12
	MOVQ	entry+24(FP), R13
	XORQ	DX, DX	// parent_tid
	XORQ	R10, R10	// child_tid
	XORQ	R8, R8	// tls
	MOVL	$56, AX	// SYS_clone
	SYSCALL
	TESTQ	AX, AX
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	NEGQ	AX
	MOVQ	$0, pid+32(FP)
	MOVQ	AX, errno+40(FP)
	RET
ok:
	MOVQ	AX, pid+32(FP)
	MOVQ	$0, errno+40(FP)
	RET
child:
	// The internal ABI: the argument in AX, X15 zero, and room on the
	// stack for the callee to spill its argument.
	SUBQ	$16, SP
	MOVQ	R12, AX
	XORPS	X15, X15
	CALL	R13
	MOVL	$127, DI
	MOVL	$231, AX	// SYS_exit_group
	SYSCALL
	INT	$3
