/* Powering the machine off, with an exit status for QEMU. */
#ifndef CCOS_POWER_H
#define CCOS_POWER_H

#define PANIC_EXIT_STATUS	0x7f	/* QEMU exits with (0x7f << 1) | 1 = 255 */

__attribute__((noreturn)) void power_off(int status);

#endif
