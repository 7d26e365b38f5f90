/* mcs_board.h - what the firmware example needs from the board it runs on (firmware/: QEMU's
 * mps2-an386 through semihosting, or a host through stdio, for the comparison of the two). */
#ifndef MCS_BOARD_H
#define MCS_BOARD_H

#include "mcs/mcs_sim.h"

/* The end of a run: its status and the state sim reached. A board with a console prints them
 * (firmware/board_report.c); under QEMU and on a host the program then exits, with status 0
 * when `status` is MCS_OK. A board without one may do nothing and return. */
void mcs_board_report(mcs_status status, mcs_sim *sim);

/* A named real (`value <key> <hex>`) and a named count (`count <key> <n>`) of an application
 * (firmware/delta_control.c: its tracking error and its ticks' cycles), printed before the
 * report. */
void mcs_board_value(const char *key, mcs_real value);
void mcs_board_count(const char *key, unsigned long count);

#endif /* MCS_BOARD_H */
