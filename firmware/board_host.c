/* board_host.c - the console of the same program built for the host (stdio), so that its
 * double-precision run can be compared with the float run under QEMU. */
#include <stdio.h>
#include <stdlib.h>

#include "board_io.h"

void board_write(const char *text)
{
    (void)fputs(text, stdout);
}

void board_exit(int code)
{
    (void)fflush(stdout);
    exit(code);
}

void board_fault(void)
{
    board_write("fault\n");
    board_exit(3);
}

void board_cycles_start(void)
{
}

unsigned long board_cycles(void)
{
    return 0UL; /* a host has no cycle counter here: the counts are the target's */
}
