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
