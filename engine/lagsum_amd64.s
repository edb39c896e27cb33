#include "textflag.h"

// func addSq2SSE2(sse, xs, ys []float64, dx, dy float64)
//
// sse[j] += (xs[j]-dx)*(xs[j]-dx) + (ys[j]-dy)*(ys[j]-dy), four candidates
// an iteration in two packed pairs, then one at a time. The Go version's
// operations in its order, lane by lane (addSq2Go).
TEXT ·addSq2SSE2(SB), NOSPLIT, $0-88
	MOVQ     sse_base+0(FP), DI
	MOVQ     sse_len+8(FP), CX
	MOVQ     xs_base+24(FP), SI
	MOVQ     ys_base+48(FP), DX
	MOVSD    dx+72(FP), X0
	MOVSD    dy+80(FP), X1
	UNPCKLPD X0, X0 // dx in both lanes
	UNPCKLPD X1, X1
	XORQ     AX, AX
	MOVQ     CX, BX
	ANDQ     $-4, BX // the candidates taken four at a time
	JZ       tail

loop4:
	MOVUPD (SI)(AX*8), X2
	MOVUPD 16(SI)(AX*8), X3
	MOVUPD (DX)(AX*8), X4
	MOVUPD 16(DX)(AX*8), X5
	SUBPD  X0, X2 // ex = x - dx
	SUBPD  X0, X3
	SUBPD  X1, X4 // ey = y - dy
	SUBPD  X1, X5
	MULPD  X2, X2
	MULPD  X3, X3
	MULPD  X4, X4
	MULPD  X5, X5
	ADDPD  X4, X2 // ex² + ey²
	ADDPD  X5, X3
	MOVUPD (DI)(AX*8), X6
	MOVUPD 16(DI)(AX*8), X7
	ADDPD  X6, X2 // sse + (ex² + ey²): addition commutes to the bit
	ADDPD  X7, X3
	MOVUPD X2, (DI)(AX*8)
	MOVUPD X3, 16(DI)(AX*8)
	ADDQ   $4, AX
	CMPQ   AX, BX
	JLT    loop4

tail:
	CMPQ AX, CX
	JGE  done

loop1:
	MOVSD (SI)(AX*8), X2
	SUBSD X0, X2
	MOVSD (DX)(AX*8), X4
	SUBSD X1, X4
	MULSD X2, X2
	MULSD X4, X4
	ADDSD X4, X2
	ADDSD (DI)(AX*8), X2
	MOVSD X2, (DI)(AX*8)
	INCQ  AX
	CMPQ  AX, CX
	JLT   loop1

done:
	RET

// func addSq3SSE2(sse, xs, ys, zs []float64, dx, dy, dz float64)
//
// sse[j] += sq3(xs[j]-dx, ys[j]-dy, zs[j]-dz): addSq2SSE2 with z, added
// last as sq3 adds it (addSq3Go).
TEXT ·addSq3SSE2(SB), NOSPLIT, $0-120
	MOVQ     sse_base+0(FP), DI
	MOVQ     sse_len+8(FP), CX
	MOVQ     xs_base+24(FP), SI
	MOVQ     ys_base+48(FP), DX
	MOVQ     zs_base+72(FP), R8
	MOVSD    dx+96(FP), X0
	MOVSD    dy+104(FP), X1
	MOVSD    dz+112(FP), X8
	UNPCKLPD X0, X0
	UNPCKLPD X1, X1
	UNPCKLPD X8, X8
	XORQ     AX, AX
	MOVQ     CX, BX
	ANDQ     $-4, BX
	JZ       tail3

loop34:
	MOVUPD (SI)(AX*8), X2
	MOVUPD 16(SI)(AX*8), X3
	MOVUPD (DX)(AX*8), X4
	MOVUPD 16(DX)(AX*8), X5
	MOVUPD (R8)(AX*8), X9
	MOVUPD 16(R8)(AX*8), X10
	SUBPD  X0, X2
	SUBPD  X0, X3
	SUBPD  X1, X4
	SUBPD  X1, X5
	SUBPD  X8, X9
	SUBPD  X8, X10
	MULPD  X2, X2
	MULPD  X3, X3
	MULPD  X4, X4
	MULPD  X5, X5
	MULPD  X9, X9
	MULPD  X10, X10
	ADDPD  X4, X2 // ex² + ey²
	ADDPD  X5, X3
	ADDPD  X9, X2 // + ez²
	ADDPD  X10, X3
	MOVUPD (DI)(AX*8), X6
	MOVUPD 16(DI)(AX*8), X7
	ADDPD  X6, X2
	ADDPD  X7, X3
	MOVUPD X2, (DI)(AX*8)
	MOVUPD X3, 16(DI)(AX*8)
	ADDQ   $4, AX
	CMPQ   AX, BX
	JLT    loop34

tail3:
	CMPQ AX, CX
	JGE  done3

loop31:
	MOVSD (SI)(AX*8), X2
	SUBSD X0, X2
	MOVSD (DX)(AX*8), X4
	SUBSD X1, X4
	MOVSD (R8)(AX*8), X9
	SUBSD X8, X9
	MULSD X2, X2
	MULSD X4, X4
	MULSD X9, X9
	ADDSD X4, X2
	ADDSD X9, X2
	ADDSD (DI)(AX*8), X2
	MOVSD X2, (DI)(AX*8)
	INCQ  AX
	CMPQ  AX, CX
	JLT   loop31

done3:
	RET
