/* vdsoutil: what the vDSO tests share: the vDSO's functions, found as a C library would, and /proc/self/maps. */
#ifndef USER_VDSOUTIL_H
#define USER_VDSOUTIL_H

#include "testutil.h"
#include "gate.h"
#include "vdso.h"

typedef int (*clock_getres_fn)(int clock, struct timespec *res);

/* This process's vDSO and its functions, once find_vdso has run. */
extern struct vdso vdso;
extern clock_gettime_fn v_clock_gettime;
extern gettimeofday_fn v_gettimeofday;
extern time_fn v_time;
extern getcpu_fn v_getcpu;
extern clock_getres_fn v_clock_getres;

/* Parse the vDSO at AT_SYSINFO_EHDR and look up its functions: 1, or 0 with the reason. */
int find_vdso(void);
/* vdso_lookup on the parsed vDSO: every export by both names and both hash tables: 1, or 0 with the reason. */
int vdso_lookup_check(void);

long read_maps(char *buf, size_t size);
int maps_line(const char *maps, const char *tag, char *line, size_t size);
unsigned long hex(const char *s);

#endif
