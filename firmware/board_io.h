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

#endif /* BOARD_IO_H */
