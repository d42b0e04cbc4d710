/* ACPI tables: check the RSDP, walk the RSDT or XSDT, and read HPET, MADT and FADT. */
#include <asm/acpi.h>
#include <ccos/layout.h>
#include <ccos/boot.h>
#include <ccos/mm.h>
#include <ccos/printk.h>
#include <ccos/lib.h>

#define MAX_TABLES	32

struct acpi_info acpi_info;
static const struct acpi_sdt_header *tables[MAX_TABLES];

bool acpi_checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum == 0;
}

/*
 * ACPI §5.2.5.3: the first 20 bytes (the ACPI 1.0 structure) sum to 0;
 * from revision 2 the whole structure, `length` bytes, sums to 0 as well.
 */
bool acpi_rsdp_valid(const struct acpi_rsdp *rsdp)
{
	if (memcmp(rsdp->signature, "RSD PTR ", 8))
		return false;
	if (!acpi_checksum_ok(rsdp, 20))
		return false;
	if (rsdp->revision >= 2)
		return rsdp->length >= sizeof(*rsdp) && rsdp->length < 4096 &&
		       acpi_checksum_ok(rsdp, rsdp->length);
	return true;
}

/* A signature or OEM id, which are not NUL-terminated, as a C string. */
static const char *sig_str(const char *s, size_t n, char *buf)
{
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/*
 * Firmware keeps its tables in RAM or ACPI areas, which the direct map
 * covers (QEMU's SeaBIOS in a reserved hole just below the end of RAM,
 * inside its 2 MiB rounding). A table outside gets an ioremap instead.
 */
static const void *acpi_map(uint64_t phys, size_t len)
{
	if (!phys || phys + len < phys)
		return NULL;
	if (phys + len <= direct_map_end)
		return phys_to_virt(phys);
	return ioremap(phys, len);
}

/* A table at phys, if its header and checksum are sound; else NULL, with a message. */
static const struct acpi_sdt_header *acpi_map_table(uint64_t phys, const char *what)
{
	const struct acpi_sdt_header *h = acpi_map(phys, sizeof(*h));
	char sig[8];

	if (!h) {
		printk(KERN_WARNING "acpi: %s at 0x%lx cannot be mapped; ignored\n", what, phys);
		return NULL;
	}
	if (h->length < sizeof(*h) || h->length > (1u << 20)) {
		printk(KERN_WARNING "acpi: %s at 0x%lx claims %u bytes; ignored\n", what, phys,
		       h->length);
		return NULL;
	}
	h = acpi_map(phys, h->length);		/* now all of it */
	if (!h)
		return NULL;
	if (!acpi_checksum_ok(h, h->length)) {
		printk(KERN_WARNING "acpi: %s %s at 0x%lx: bad checksum (its %u bytes should sum to 0); ignored\n",
		       what, sig_str(h->signature, 4, sig), phys, h->length);
		return NULL;
	}
	return h;
}

const struct acpi_sdt_header *acpi_find_table(const char sig[4])
{
	int i;

	for (i = 0; i < acpi_info.n_tables; i++)
		if (!memcmp(tables[i]->signature, sig, 4))
			return tables[i];
	return NULL;
}

/* HPET table (IA-PC HPET spec §3.2.4): a Generic Address Structure at 40. */
static void parse_hpet(const struct acpi_sdt_header *h)
{
	const uint8_t *t = (const uint8_t *)h;

	if (h->length < 56) {
		printk(KERN_WARNING "acpi: HPET table of %u bytes, expected 56; ignored\n", h->length);
		return;
	}
	if (t[40] != 0) {	/* address space 0: system memory */
		printk(KERN_WARNING "acpi: HPET in address space %u, expected 0 (memory); ignored\n", t[40]);
		return;
	}
	memcpy(&acpi_info.hpet_address, t + 44, 8);
}

/* MADT (ACPI §5.2.12): the local APIC address, then variable-length entries. */
static void parse_madt(const struct acpi_sdt_header *h)
{
	const uint8_t *t = (const uint8_t *)h, *e, *end = t + h->length;
	uint32_t lapic, flags, ioapic;
	uint64_t lapic64;
	int irq;

	if (h->length < 44)
		return;
	memcpy(&lapic, t + 36, 4);
	acpi_info.lapic_address = lapic;
	for (irq = 0; irq < 16; irq++)
		acpi_info.isa_gsi[irq] = irq;	/* identity unless overridden */
	for (e = t + 44; e + 2 <= end && e[1] >= 2 && e + e[1] <= end; e += e[1]) {
		switch (e[0]) {
		case 0:		/* processor local APIC: UID, APIC id, flags (bit 0: enabled) */
			if (e[1] >= 8) {
				memcpy(&flags, e + 4, 4);
				if (!(flags & 1))
					break;
				if (acpi_info.n_cpus < ACPI_MAX_CPUS)
					acpi_info.cpu_apic_ids[acpi_info.n_cpus] = e[3];
				acpi_info.n_cpus++;
			}
			break;
		case 1:		/* I/O APIC: id, reserved, address, GSI base */
			if (e[1] >= 12 && acpi_info.n_ioapics++ == 0) {
				memcpy(&ioapic, e + 4, 4);
				acpi_info.ioapic_address = ioapic;
				memcpy(&acpi_info.ioapic_gsi_base, e + 8, 4);
			}
			break;
		case 2:		/* interrupt source override: bus 0 (ISA), IRQ, GSI, flags */
			if (e[1] >= 10 && e[2] == 0 && e[3] < 16) {
				memcpy(&acpi_info.isa_gsi[e[3]], e + 4, 4);
				memcpy(&acpi_info.isa_flags[e[3]], e + 8, 2);
			}
			break;
		case 5:		/* 64-bit local APIC address override */
			if (e[1] >= 12) {
				memcpy(&lapic64, e + 4, 8);
				acpi_info.lapic_address = lapic64;
			}
			break;
		}
	}
}

/* FADT (ACPI §5.2.9): byte 108 is the CMOS index of the RTC's century, 0 if none. */
static void parse_fadt(const struct acpi_sdt_header *h)
{
	if (h->length > 108)
		acpi_info.century_reg = ((const uint8_t *)h)[108];
}

void acpi_init(uint64_t rsdp_phys)
{
	const struct acpi_rsdp *rsdp = acpi_map(rsdp_phys, sizeof(struct acpi_rsdp));
	const struct acpi_sdt_header *root, *t;
	uint64_t entry, root_phys;
	size_t esize, n, i;
	char names[MAX_TABLES * 5 + 1] = "", sig[8], oem[8];
	int len = 0;

	if (!rsdp) {
		printk(KERN_WARNING "acpi: no RSDP from the boot loader; no ACPI tables (no HPET, no MADT)\n");
		return;
	}
	if (!acpi_rsdp_valid(rsdp)) {
		printk(KERN_WARNING "acpi: the RSDP at 0x%lx has a bad signature or checksum; ACPI ignored\n",
		       rsdp_phys);
		return;
	}
	/* Revision 2+ has an XSDT of 64-bit pointers; prefer it to the RSDT's 32-bit ones. */
	if (rsdp->revision >= 2 && rsdp->xsdt_address) {
		root_phys = rsdp->xsdt_address;
		root = acpi_map_table(root_phys, "XSDT");
		esize = 8;
	} else {
		root_phys = rsdp->rsdt_address;
		root = acpi_map_table(root_phys, "RSDT");
		esize = 4;
	}
	if (!root)
		return;
	n = (root->length - sizeof(*root)) / esize;
	for (i = 0; i < n; i++) {
		entry = 0;
		memcpy(&entry, (const char *)(root + 1) + i * esize, esize);
		t = acpi_map_table(entry, "table");
		if (!t)
			continue;
		if (acpi_info.n_tables == MAX_TABLES) {
			printk(KERN_WARNING "acpi: more than %d tables; the rest ignored\n", MAX_TABLES);
			break;
		}
		tables[acpi_info.n_tables++] = t;
		len += snprintf(names + len, sizeof(names) - len, " %s",
				sig_str(t->signature, 4, sig));
		if (!memcmp(t->signature, "HPET", 4))
			parse_hpet(t);
		else if (!memcmp(t->signature, "APIC", 4))
			parse_madt(t);
		else if (!memcmp(t->signature, "FACP", 4))
			parse_fadt(t);
	}
	printk("acpi: %s (RSDP revision %d) at 0x%lx, OEM %s, %d tables:%s\n",
	       sig_str(root->signature, 4, sig), rsdp->revision, root_phys,
	       sig_str(rsdp->oem_id, 6, oem), acpi_info.n_tables, names);
	if (acpi_find_table("APIC"))
		printk("acpi: MADT: %d CPU%s, local APIC at 0x%lx, %d I/O APIC%s\n",
		       acpi_info.n_cpus, acpi_info.n_cpus == 1 ? "" : "s",
		       acpi_info.lapic_address, acpi_info.n_ioapics,
		       acpi_info.n_ioapics == 1 ? "" : "s");
}
