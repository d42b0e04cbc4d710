/* Tests of the ACPI checksum and RSDP checks on synthetic tables. */
#include <ccos/ktest.h>
#include <asm/acpi.h>
#include <ccos/lib.h>

static void fix_checksum(void *p, size_t len, uint8_t *field)
{
	const uint8_t *b = p;
	uint8_t sum = 0;
	size_t i;

	*field = 0;
	for (i = 0; i < len; i++)
		sum += b[i];
	*field = -sum;
}

KTEST(acpi_checksum_synthetic_table)
{
	struct {
		struct acpi_sdt_header h;
		uint8_t body[20];
	} __packed t;
	size_t i;

	memset(&t, 0, sizeof(t));
	memcpy(t.h.signature, "TEST", 4);
	t.h.length = sizeof(t);
	for (i = 0; i < sizeof(t.body); i++)
		t.body[i] = i * 37 + 1;
	KEXPECT(!acpi_checksum_ok(&t, sizeof(t)));
	fix_checksum(&t, sizeof(t), &t.h.checksum);
	KEXPECT(acpi_checksum_ok(&t, sizeof(t)));
	t.body[7] ^= 0x10;		/* one bit flipped */
	KEXPECT(!acpi_checksum_ok(&t, sizeof(t)));
}

KTEST(acpi_rsdp_checks)
{
	struct acpi_rsdp r;

	memset(&r, 0, sizeof(r));
	memcpy(r.signature, "RSD PTR ", 8);
	memcpy(r.oem_id, "CCOS  ", 6);
	r.rsdt_address = 0x1000;
	fix_checksum(&r, 20, &r.checksum);
	KEXPECT(acpi_rsdp_valid(&r));		/* revision 0: 20 bytes */

	r.revision = 2;
	r.length = sizeof(r);
	r.xsdt_address = 0x2000;
	fix_checksum(&r, 20, &r.checksum);
	KEXPECT(!acpi_rsdp_valid(&r));		/* extended checksum not yet right */
	fix_checksum(&r, sizeof(r), &r.extended_checksum);
	KEXPECT(acpi_rsdp_valid(&r));

	r.signature[0] = 'X';
	KEXPECT(!acpi_rsdp_valid(&r));
}
