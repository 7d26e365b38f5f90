/* startup_cortex_m.S - reset and fault vectors of a Cortex-M4F image (firmware/mps2_an386.ld):
 * copy .data from flash, zero .bss, give the FPU full access (CPACR CP10/CP11; the float solver
 * uses it from the first instruction of main), call main. Every fault goes to board_fault (the
 * board's answer: under QEMU a message and a failing exit). */
    .syntax unified
    .cpu cortex-m4
    .thumb

    .section .vectors, "a"
    .word __stack_top
    .word Reset_Handler
    .word Fault_Handler /* NMI */
    .word Fault_Handler /* HardFault */
    .word Fault_Handler /* MemManage */
    .word Fault_Handler /* BusFault */
    .word Fault_Handler /* UsageFault */
    .word 0, 0, 0, 0
    .word Fault_Handler /* SVCall */
    .word Fault_Handler /* DebugMonitor */
    .word 0
    .word Fault_Handler /* PendSV */
    .word Fault_Handler /* SysTick */

    .text
    .thumb_func
    .global Reset_Handler
Reset_Handler:
    ldr r0, =__data_load
    ldr r1, =__data_start
    ldr r2, =__data_end
1:  cmp r1, r2
    bhs 2f
    ldr r3, [r0], #4
    str r3, [r1], #4
    b 1b
2:  ldr r1, =__bss_start
    ldr r2, =__bss_end
    movs r3, #0
3:  cmp r1, r2
    bhs 4f
    str r3, [r1], #4
    b 3b
4:  ldr r0, =0xE000ED88 /* CPACR */
    ldr r1, [r0]
    orr r1, r1, #(0xF << 20)
    str r1, [r0]
    dsb
    isb
    bl main
    b board_fault /* main does not return */

    .thumb_func
    .global Fault_Handler
Fault_Handler:
    b board_fault
