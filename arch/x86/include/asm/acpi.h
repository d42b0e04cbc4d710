/* ACPI tables: find the RSDT/XSDT from the RSDP, check them, find HPET, MADT, FADT. */
#ifndef CCOS_ACPI_H
#define CCOS_ACPI_H

#include <ccos/types.h>

/* ACPI 6.5 §5.2.5.3: the Root System Description Pointer. */
struct acpi_rsdp {
	char signature[8];	/* "RSD PTR " */
	uint8_t checksum;	/* the first 20 bytes sum to 0 */
	char oem_id[6];
	uint8_t revision;	/* 0: ACPI 1.0, only the RSDT; 2+: XSDT too */
	uint32_t rsdt_address;
	uint32_t length;	/* revision 2+: the whole structure, 36 bytes */
	uint64_t xsdt_address;
	uint8_t extended_checksum;	/* all `length` bytes sum to 0 */
	uint8_t reserved[3];
} __packed;

/* ACPI §5.2.6: the header every System Description Table starts with. */
struct acpi_sdt_header {
	char signature[4];
	uint32_t length;	/* of the whole table, header included */
	uint8_t revision;
	uint8_t checksum;	/* all `length` bytes sum to 0 */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __packed;

#define ACPI_MAX_CPUS	64

/* What time and the platform code need from the tables; 0 = not found. */
struct acpi_info {
	int n_tables;
	uint64_t hpet_address;		/* HPET table: register block */
	uint64_t lapic_address;		/* MADT */
	int n_cpus, n_ioapics;		/* MADT: enabled local APICs, I/O APICs */
	uint8_t cpu_apic_ids[ACPI_MAX_CPUS];	/* MADT: the first enabled ones, in order */
	uint64_t ioapic_address;	/* MADT: the first I/O APIC */
	uint32_t ioapic_gsi_base;	/* MADT: the first global system interrupt of its pins */
	/* MADT interrupt source overrides: ISA IRQ n is GSI isa_gsi[n], with these MPS INTI flags. */
	uint32_t isa_gsi[16];
	uint16_t isa_flags[16];
	uint8_t century_reg;		/* FADT: CMOS index of the century, 0 = none */
};

extern struct acpi_info acpi_info;

void acpi_init(uint64_t rsdp_phys);		/* reports problems, never fatal */
bool acpi_checksum_ok(const void *p, size_t len);
bool acpi_rsdp_valid(const struct acpi_rsdp *rsdp);
const struct acpi_sdt_header *acpi_find_table(const char sig[4]);

#endif
