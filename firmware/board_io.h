/* board_io.h - the console of a board (firmware/board_semihosting.c under QEMU,
 * firmware/board_host.c on a host), for firmware/board_report.c. */
#ifndef BOARD_IO_H
#define BOARD_IO_H

/* Write a NUL-terminated text to the console. */
void board_write(const char *text);

/* End the program: code 0 is success. Does not return. */
void board_exit(int code);

/* A processor fault (HardFault and the others): say so and end with a failing code. */
void board_fault(void);

/* Start the processor's cycle counter (Cortex-M: SysTick on the processor clock; nothing on a
 * host). */
void board_cycles_start(void);

/* Its counts since board_cycles_start, wraps included (call it at least every 2^24 counts: 0.67 s
 * of mps2-an386's 25 MHz); 0 on a host. Under QEMU with -icount shift=0 (one instruction a
 * nanosecond of virtual time) a count is 40 instructions. */
unsigned long board_cycles(void);

#endif /* BOARD_IO_H */
