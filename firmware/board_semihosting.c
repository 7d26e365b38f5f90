/* board_semihosting.c - the console of an image under QEMU (or a debugger): Arm semihosting
 * calls (BKPT 0xAB on M-profile), enabled by qemu-system-arm -semihosting-config enable=on. */
#include "board_io.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026 /* QEMU exits with status 0 */
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023   /* QEMU exits with status 1 */

static int semihost(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void board_write(const char *text)
{
    (void)semihost(SYS_WRITE0, text);
}

void board_exit(int code)
{
    /* 32-bit semihosting: the reason code itself is the parameter */
    const unsigned long reason =
        (code == 0) ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUN_TIME_ERROR;
    (void)semihost(SYS_EXIT, (const void *)reason);
    for (;;) {
    }
}

void board_fault(void)
{
    board_write("fault: HardFault or another processor exception\n");
    board_exit(3);
}

/* SysTick (ARMv7-M): control and status, reload, current value */
#define SYST_CSR (*(volatile unsigned long *)0xE000E010UL)
#define SYST_RVR (*(volatile unsigned long *)0xE000E014UL)
#define SYST_CVR (*(volatile unsigned long *)0xE000E018UL)
#define SYST_RELOAD 0xFFFFFFUL

static unsigned long cycles_last;
static unsigned long cycles_wraps;

void board_cycles_start(void)
{
    SYST_RVR = SYST_RELOAD;
    SYST_CVR = 0UL;
    SYST_CSR = 5UL; /* enabled, the processor clock, no interrupt */
    cycles_last = SYST_CVR;
    cycles_wraps = 0UL;
}

unsigned long board_cycles(void)
{
    const unsigned long now = SYST_CVR & SYST_RELOAD; /* counts down */
    if (now > cycles_last) {
        ++cycles_wraps;
    }
    cycles_last = now;
    return (cycles_wraps * (SYST_RELOAD + 1UL)) + (SYST_RELOAD - now);
}
