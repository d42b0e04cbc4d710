"""Every configuration boots cleanly; the boot summary is right under SeaBIOS and OVMF."""
import filecmp
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
    """Each module of the ISO is listed with its name and the exact size of its copy in the ISO
    (tools/mkiso puts the build's ELF files in without their debug sections)."""
    b = boot(name)
    mods = harness.iso_modules(b.config)
    m = b.expect(r"^ccos: (\d+) modules?$")
    assert int(m.group(1)) == len(mods), b.report("expected %d modules" % len(mods))
    copies = os.path.join(os.path.dirname(b.log_path), "ccos-root", "boot", "modules")
    for path, module in mods:
        copy = os.path.join(copies, module.strip("/").replace("/", "_"))
        b.expect(r"^  %s +%d bytes at [0-9a-f]+$" % (re.escape(module), os.path.getsize(copy)),
                 "module %s from %s" % (module, path))
        if not path.endswith(".elf"):
            assert filecmp.cmp(path, copy, shallow=False), "%s is not %s byte for byte" % (copy, path)


@pytest.mark.parametrize("name", SUMMARY_BOOTS)
def test_command_line(boot, name):
    b = boot(name)
    b.expect(r'^ccos: command line "%s"$' % re.escape(b.config.full_cmdline))
    b.expect(r"^ccos: vsyscall=emulate clocksource=default init=/bin/init$")


# (config, -smp N): the boot lists every CPU the MADT names, by APIC id
# (QEMU numbers them 0..N-1); arch/x86/smp_test.c checks each one's state.
# Each firmware boots 1, 2 and 4 CPUs (docs/testing.md); make test SMP=n
# boots every configuration with n instead.
SMP_BOOTS = [("ktest-bios", 4), ("init-bios", 4), ("ktest-uefi", 4), ("init-uefi", 2),
             ("ktest-qemu64", 2), ("ptdump-bios", 1), ("vsyscall-native-uefi", 1),
             ("ktest-x2apic", 4), ("smp-x2apic", 4)]


def booted_cpus(name, ncpus):
    """The CPUs a boot of name starts, once configs.py is found to give it ncpus."""
    smp = ("-smp", str(ncpus)) if ncpus > 1 else ()
    assert tuple(harness.config(name).extra) == smp, \
        "configs.py: %s should boot with %r" % (name, smp)
    return harness.cpus(harness.config(name))


@pytest.mark.parametrize("name,ncpus", SMP_BOOTS)
def test_smp_cpus_up(boot, name, ncpus):
    ncpus = booted_cpus(name, ncpus)
    b = boot(name)
    b.expect(r"^acpi: MADT: %d CPUs?," % ncpus)
    # The APIC mode the configuration asked QEMU for (harness.qemu_cpu).
    b.expect(r"^smp: %d CPUs? up, APIC ids %s \(%s\); processes run on every CPU$"
             % (ncpus, " ".join(str(i) for i in range(ncpus)),
                {"xapic": "xAPIC", "x2apic": "x2APIC"}[b.config.apic]))
    # The tick: each CPU's local APIC timer, at HZ, measured to within 1%.
    m = b.expect(r"^timer: local APIC timer at 100 Hz \((\d+) counts of (\d+) Hz, (\d+) ns a tick\)"
                 r" on every CPU, vector 0xf0$")
    count, rate, ns = (int(x) for x in m.groups())
    assert count == rate // 100 and abs(ns - 10**7) < 10**5, b.report("the tick: " + m.group(0))


# (config, -smp N, instruction): getcpu pinned to each CPU in turn
# (user/vsyscall/pinned.c) read every CPU of the boot, on the qemu64 boots
# through lsl (no RDTSCP there), elsewhere through rdtscp.
PINNED_BOOTS = [("init-bios", 4, "rdtscp"), ("init-uefi", 2, "rdtscp"),
                ("vsyscall-native-uefi", 1, "rdtscp"),
                ("init-qemu64", 2, "lsl"), ("vsyscall-native-bios", 2, "rdtscp"),
                ("vsyscall-native-qemu64", 2, "lsl"), ("vsyscall-emulate-qemu64", 2, "lsl"),
                ("vsyscall-xonly-bios", 2, "rdtscp"), ("vsyscall-native-jiffies", 1, "rdtscp")]


@pytest.mark.parametrize("name,ncpus,insn", PINNED_BOOTS)
def test_getcpu_pinned_on_every_cpu(boot, name, ncpus, insn):
    ncpus = booted_cpus(name, ncpus)
    b = boot(name)
    b.expect(r"^# getcpu pinned: %d CPUs, each one read through all four paths \(%s\)$"
             % (ncpus, insn))


SMPSTAT = (r"cpu(\d) kernel_lock (\d+) waited (\d+) for \d+ us switches (\d+) halts \d+"
           r" tlb \d+ for \d+ us")


def test_smpstat_per_cpu(boot):
    """/proc/smpstat as user/fuzz.c copies it: a line per CPU of fuzz-bios, in docs/smp.md's format."""
    b = boot("fuzz-bios")
    ncpus = int(b.expect(r"^smp: (\d+) CPUs? up").group(1))
    lines = re.findall(r"^# smpstat: (.*)$", b.log, re.M)
    stats = [re.fullmatch(SMPSTAT, line) for line in lines]
    assert len(stats) == ncpus and all(stats), b.report("smpstat lines: %r" % lines)
    for i, m in enumerate(stats):
        cpu, taken, waited, switches = (int(x) for x in m.groups())
        assert cpu == i and taken > 0 and switches > 0 and waited <= taken, m.group(0)
    with open(os.path.join(harness.ROOT, "docs", "smp.md")) as f:
        assert re.search(r"^    %s$" % SMPSTAT, f.read(), re.M), "docs/smp.md: no smpstat sample"
