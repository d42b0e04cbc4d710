/* /proc/cpuinfo in Linux's format: one block per CPU, its flags named from CPUID as Linux names them. */
#include <ccos/file.h>
#include <ccos/proc.h>
#include <ccos/clock.h>
#include <ccos/lib.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <asm/arch.h>

#define CPUINFO_MAX	4096	/* a CPU's block: about 1,500 bytes on a CPU with every flag */

/*
 * Linux's names of CPUID's feature bits (arch/x86/include/asm/cpufeatures.h
 * gives them; a bit it does not name, or names "", is not shown), in the
 * order Linux prints its capability words. The leaves are the Intel SDM's
 * (Vol. 2A, CPUID) and AMD's (APM Vol. 3, appendix E).
 */
static const char *const leaf1_edx[32] = {
	"fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", NULL, "sep",
	"mtrr", "pge", "mca", "cmov", "pat", "pse36", "pn", "clflush", NULL, "dts", "acpi",
	"mmx", "fxsr", "sse", "sse2", "ss", "ht", "tm", "ia64", "pbe",
};

static const char *const ext1_edx[32] = {	/* 0x80000001 EDX */
	[11] = "syscall", [19] = "mp", [20] = "nx", [22] = "mmxext", [25] = "fxsr_opt",
	[26] = "pdpe1gb", [27] = "rdtscp", [29] = "lm", [30] = "3dnowext", [31] = "3dnow",
};

static const char *const leaf1_ecx[32] = {
	"pni", "pclmulqdq", "dtes64", "monitor", "ds_cpl", "vmx", "smx", "est", "tm2",
	"ssse3", "cid", "sdbg", "fma", "cx16", "xtpr", "pdcm", NULL, "pcid", "dca", "sse4_1",
	"sse4_2", "x2apic", "movbe", "popcnt", "tsc_deadline_timer", "aes", "xsave", NULL,
	"avx", "f16c", "rdrand", "hypervisor",
};

static const char *const ext1_ecx[32] = {	/* 0x80000001 ECX */
	"lahf_lm", "cmp_legacy", "svm", "extapic", "cr8_legacy", "abm", "sse4a",
	"misalignsse", "3dnowprefetch", "osvw", "ibs", "xop", "skinit", "wdt", NULL, "lwp",
	"fma4", "tce", NULL, "nodeid_msr", NULL, "tbm", "topoext", "perfctr_core",
	"perfctr_nb", NULL, "bpext", "ptsc", "perfctr_llc", "mwaitx",
};

static const char *const leaf7_ebx[32] = {
	"fsgsbase", "tsc_adjust", "sgx", "bmi1", "hle", "avx2", NULL, "smep", "bmi2", "erms",
	"invpcid", "rtm", "cqm", NULL, "mpx", "rdt_a", "avx512f", "avx512dq", "rdseed", "adx",
	"smap", "avx512ifma", NULL, "clflushopt", "clwb", "intel_pt", "avx512pf", "avx512er",
	"avx512cd", "sha_ni", "avx512bw", "avx512vl",
};

static const char *const leafd1_eax[32] = { "xsaveopt", "xsavec", "xgetbv1", "xsaves" };

static const char *const leaf6_eax[32] = {
	"dtherm", "ida", "arat", NULL, "pln", NULL, "pts", "hwp", "hwp_notify",
	"hwp_act_window", "hwp_epp", "hwp_pkg_req",
};

static const char *const leaf7_ecx[32] = {
	NULL, "avx512vbmi", "umip", "pku", "ospke", "waitpkg", "avx512_vbmi2", NULL, "gfni",
	"vaes", "vpclmulqdq", "avx512_vnni", "avx512_bitalg", "tme", "avx512_vpopcntdq",
	NULL, "la57", [22] = "rdpid", [25] = "cldemote", [27] = "movdiri", "movdir64b",
	"enqcmd",
};

static const char *const leaf7_edx[32] = {
	[2] = "avx512_4vnniw", "avx512_4fmaps", "fsrm", [8] = "avx512_vp2intersect",
	[10] = "md_clear", [14] = "serialize", [16] = "tsxldtrk", [18] = "pconfig",
	"arch_lbr", [28] = "flush_l1d", "arch_capabilities",
};

/* 0x80000007 EDX: Linux's x86_power_flags, what "power management:" lists. */
static const char *const power_edx[32] = {
	"ts", "fid", "vid", "ttp", "tm", "stc", "100mhzsteps", "hwpstate", NULL, "cpb",
	"eff_freq_ro", "proc_feedback", "acc_power",
};

#define INVARIANT_TSC	(1u << 8)	/* 0x80000007 EDX bit 8 (SDM Vol. 3B 18.17.1) */

struct cpu_ids {
	uint32_t max, max_ext;		/* the highest basic and extended leaves */
	uint32_t r[4];			/* the last leaf asked */
};

/* A leaf's registers, all zero past the highest leaf (which would repeat the highest's). */
static uint32_t *leaf(struct cpu_ids *id, uint32_t nr, uint32_t sub)
{
	uint32_t top = nr & 0x80000000u ? id->max_ext : id->max;

	memset(id->r, 0, sizeof(id->r));
	if (nr <= top)
		cpuid(nr, sub, &id->r[0], &id->r[1], &id->r[2], &id->r[3]);
	return id->r;
}

static size_t add_flags(char *buf, size_t size, uint32_t bits, const char *const names[32])
{
	size_t n = 0;
	int i;

	for (i = 0; i < 32; i++)
		if ((bits & (1u << i)) && names[i])
			n += snprintf(buf + n, size > n ? size - n : 0, " %s", names[i]);
	return n;
}

/*
 * The flags line: CPUID's words, then the ones Linux makes up itself in
 * its word 3, at their place: constant_tsc and nonstop_tsc for an
 * invariant TSC, nopl (every x86-64 CPU has NOPL), xtopology where leaf
 * 0xb describes the topology, cpuid always.
 */
static size_t flags(struct cpu_ids *id, char *buf, size_t size)
{
	uint32_t edx1 = leaf(id, 1, 0)[3], ecx1 = id->r[2], power = leaf(id, 0x80000007, 0)[3];
	bool topology = leaf(id, 0xb, 0)[1] != 0;
	size_t n = snprintf(buf, size, "flags\t\t:");

	n += add_flags(buf + n, size - n, edx1, leaf1_edx);
	n += add_flags(buf + n, size - n, leaf(id, 0x80000001, 0)[3], ext1_edx);
	n += snprintf(buf + n, size - n, "%s%s%s%s cpuid", power & INVARIANT_TSC ? " constant_tsc" : "",
		      " nopl", topology ? " xtopology" : "", power & INVARIANT_TSC ? " nonstop_tsc" : "");
	n += add_flags(buf + n, size - n, ecx1, leaf1_ecx);
	n += add_flags(buf + n, size - n, leaf(id, 0x80000001, 0)[2], ext1_ecx);
	n += add_flags(buf + n, size - n, leaf(id, 7, 0)[1], leaf7_ebx);
	n += add_flags(buf + n, size - n, leaf(id, 0xd, 1)[0], leafd1_eax);
	n += add_flags(buf + n, size - n, leaf(id, 6, 0)[0], leaf6_eax);
	n += add_flags(buf + n, size - n, leaf(id, 7, 0)[2], leaf7_ecx);
	n += add_flags(buf + n, size - n, leaf(id, 7, 0)[3], leaf7_edx);
	n += snprintf(buf + n, size - n, "\n");
	return MIN(n, size);
}

/* The brand string of leaves 0x80000002-4, without its leading blanks (as Linux). */
static void model_name(struct cpu_ids *id, char name[49])
{
	char *s = name;
	uint32_t i;

	memset(name, 0, 49);
	for (i = 0; i < 3; i++)
		memcpy(name + 16 * i, leaf(id, 0x80000002 + i, 0), 16);
	while (*s == ' ')
		s++;
	memmove(name, s, strlen(s) + 1);
	if (!*name)
		strlcpy(name, "unknown", 49);
}

/* One CPU's block; this CPU's CPUID answers for all (they are alike), its APIC id is its own. */
static size_t cpu_block(int cpu, char *buf, size_t size)
{
	struct cpu_ids id = { 0 };
	uint32_t sig, misc, family, model, *r;
	char vendor[13] = { 0 }, name[49];
	size_t n;

	r = leaf(&id, 0, 0);
	id.max = r[0];
	memcpy(vendor, &r[1], 4);	/* EBX, EDX, ECX: "GenuineIntel" */
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	cpuid(0x80000000, 0, &id.max_ext, &id.r[1], &id.r[2], &id.r[3]);
	sig = leaf(&id, 1, 0)[0];
	misc = id.r[1];
	/* Family and model as the SDM's CPUID chapter combines the extended fields. */
	family = (sig >> 8 & 0xf) + ((sig >> 8 & 0xf) == 0xf ? (sig >> 20 & 0xff) : 0);
	model = (sig >> 4 & 0xf) | (family >= 6 ? (sig >> 16 & 0xf) << 4 : 0);
	model_name(&id, name);
	n = snprintf(buf, size, "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		     "model name\t: %s\nstepping\t: %u\ncpu MHz\t\t: %lu.%03lu\n", cpu, vendor,
		     family, model, name, sig & 0xf, tsc_khz / 1000, tsc_khz % 1000);
	if (leaf(&id, 0x80000006, 0)[2] >> 16)
		n += snprintf(buf + n, size - n, "cache size\t: %u KB\n", id.r[2] >> 16);
	n += snprintf(buf + n, size - n, "apicid\t\t: %u\ninitial apicid\t: %u\nfpu\t\t: yes\n"
		      "fpu_exception\t: yes\ncpuid level\t: %u\nwp\t\t: yes\n", cpus[cpu].apic_id,
		      cpus[cpu].apic_id, id.max);
	n += flags(&id, buf + n, size - n);
	/* Linux's bogomips: loops_per_jiffy * HZ / 500000, its delay loop being the TSC's cycles. */
	n += snprintf(buf + n, size - n, "bogomips\t: %lu.%02lu\nclflush size\t: %u\n"
		      "cache_alignment\t: %u\n", tsc_khz / 500, tsc_khz / 5 % 100,
		      (misc >> 8 & 0xff) * 8, (misc >> 8 & 0xff) * 8);
	r = leaf(&id, 0x80000008, 0);
	n += snprintf(buf + n, size - n, "address sizes\t: %u bits physical, %u bits virtual\n"
		      "power management:", r[0] & 0xff, r[0] >> 8 & 0xff);
	n += add_flags(buf + n, size - n, leaf(&id, 0x80000007, 0)[3], power_edx);
	n += snprintf(buf + n, size - n, "\n\n");
	return MIN(n, size);
}

char *proc_cpuinfo(size_t *len)
{
	size_t size = nr_cpus * CPUINFO_MAX, n = 0;
	char *buf = kmalloc(size);
	int i;

	if (!buf)
		return NULL;
	for (i = 0; i < nr_cpus; i++)
		n += cpu_block(i, buf + n, size - n);
	*len = n;
	return buf;
}
