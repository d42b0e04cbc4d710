"""Every configuration boots cleanly; the boot summary is right under SeaBIOS and OVMF."""
import os
import re

import pytest

import harness
from configs import CONFIGS

SUMMARY_BOOTS = ["ktest-bios", "ktest-uefi"]


@pytest.mark.parametrize("name", [c.name for c in CONFIGS])
def test_boot(boot, name):
    """No panic, no hang, no triple fault; an exit status; a complete KTAP plan where expected."""
    boot(name).check()


@pytest.mark.parametrize("name", SUMMARY_BOOTS)
def test_firmware(boot, name):
    b = boot(name)
    want = {"bios": "BIOS", "uefi": "UEFI"}[b.config.fw]
    b.expect(r"^ccos: firmware %s, loader GRUB" % want)
    b.expect(r"^ccos: ACPI RSDP found \(revision \d\)$")


@pytest.mark.parametrize("name", SUMMARY_BOOTS)
def test_memory(boot, name):
    """QEMU has -m 256M: most of it is usable, and every region is listed."""
    b = boot(name)
    m = b.expect(r"^ccos: memory (\d+) MiB usable in (\d+) regions$")
    mib, regions = int(m.group(1)), int(m.group(2))
    assert 200 <= mib <= 256, "%d MiB usable with -m 256M" % mib
    listed = b.find(r"(?:^  [0-9a-f]{16}-[0-9a-f]{16} type \d+\n)+")
    assert listed and listed.group(0).count("\n") == regions, b.report("memory map lines != %d" % regions)


@pytest.mark.parametrize("name", SUMMARY_BOOTS)
def test_modules(boot, name):
    """Each module of the ISO is listed with its name and exact size."""
    b = boot(name)
    mods = harness.iso_modules(b.config)
    m = b.expect(r"^ccos: (\d+) modules?$")
    assert int(m.group(1)) == len(mods), b.report("expected %d modules" % len(mods))
    for path, module in mods:
        b.expect(r"^  %s +%d bytes at [0-9a-f]+$" % (re.escape(module), os.path.getsize(path)),
                 "module %s from %s" % (module, path))


@pytest.mark.parametrize("name", SUMMARY_BOOTS)
def test_command_line(boot, name):
    b = boot(name)
    b.expect(r'^ccos: command line "%s"$' % re.escape(b.config.full_cmdline))
    b.expect(r"^ccos: vsyscall=emulate clocksource=default init=/bin/init$")


# (config, -smp N): the boot lists every CPU the MADT names, by APIC id
# (QEMU numbers them 0..N-1); arch/x86/smp_test.c checks each one's state.
SMP_BOOTS = [("ktest-bios", 4), ("ktest-uefi", 2), ("ktest-qemu64", 1)]


@pytest.mark.parametrize("name,ncpus", SMP_BOOTS)
def test_smp_cpus_up(boot, name, ncpus):
    b = boot(name)
    smp = ("-smp", str(ncpus)) if ncpus > 1 else ()
    assert tuple(b.config.extra) == smp, "configs.py: %s should boot with %r" % (name, smp)
    b.expect(r"^acpi: MADT: %d CPUs?," % ncpus)
    b.expect(r"^smp: %d CPUs? up, APIC ids %s; processes run on CPU 0, the others halt$"
             % (ncpus, " ".join(str(i) for i in range(ncpus))))
