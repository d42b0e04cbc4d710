"""The boot configurations of the test matrix, one line each (see harness.Config).

Every configuration here gets a test_boot case (no panic, no hang, an
isa-debug-exit status, and complete KTAP when ktap=True); with ktap=True each
KTAP result line of its log becomes a pytest case of its own. Other tests
name a configuration to read its log: boot("ktest-bios").
"""
from harness import Config, register

# The CPUs of each boot (docs/testing.md): the -smp 1, 2 and 4 matrix is
# spread over the boots instead of multiplying them, each firmware at all
# three. -smp 4: ktest-bios, ktest-uefi, init-bios (with lockdebug);
# -smp 2: init-uefi and pti-init-bios (long boots, which 4 vCPUs on 2 host
# cores made twice as long),
# every qemu64 boot (getcpu's LSL path on each CPU),
# the SeaBIOS vsyscall boots that call the page (native and xonly: getcpu
# pinned to each CPU), fuzz-bios; the others, vsyscall-native-uefi among them, one
# CPU. make test SMP=n boots every one with n CPUs instead.
SMP2 = ("-smp", "2")
SMP4 = ("-smp", "4")

CONFIGS = [
    # In-kernel tests (kernel/*_test.c) under both firmwares, and on a
    # baseline CPU model (no SMEP, SMAP, RDRAND, invariant TSC, ...). The
    # boot summary lines of the first two are checked too (test_boot.py).
    # These three start more CPUs (arch/x86/smp_test.c checks each one);
    # ptdump-bios runs the same tests on one CPU.
    Config("ktest-bios", fw="bios", cmdline="ktest lockdebug", ktap=True, extra=SMP4),
    Config("ktest-uefi", fw="uefi", cmdline="ktest", ktap=True, extra=SMP4),
    Config("ktest-qemu64", fw="bios", cpu="qemu64", cmdline="ktest", ktap=True, extra=SMP2),
    # The x2APIC path (MSRs instead of the MMIO page) where QEMU offers it
    # (QEMU 8 and later; every other boot pins xAPIC, harness.qemu_cpu): the
    # in-kernel tests on 4 CPUs, each one's timer, and muslsmp's IPIs and
    # TLB shootdowns under OVMF.
    Config("ktest-x2apic", fw="bios", cmdline="ktest lockdebug", ktap=True, apic="x2apic",
           extra=SMP4),
    Config("smp-x2apic", fw="uefi", cmdline="-- /bin/muslsmp", ktap=True, apic="x2apic",
           extra=SMP4),
    # init and the user-space test programs (user/*.c), under both firmwares.
    # `-- test` makes init run them (`-- test PROG...` those named); without
    # it init starts the shell.
    Config("init-bios", fw="bios", ktap=True, cmdline="lockdebug -- test", extra=SMP4),
    Config("init-uefi", fw="uefi", ktap=True, cmdline="-- test", extra=SMP2),
    # The controlling terminal (user/systty.c): only init can free the
    # console its session holds, so the program runs as init.
    Config("tty-bios", fw="bios", ktap=True, cmdline="init=/bin/systty"),
    # The kernel's page tables as ptdump prints them (test_memory.py).
    Config("ptdump-bios", fw="bios", cmdline="ptdump ktest"),
    # The vDSO's clock-dependent tests (user/vdsotest.c) and its lookup, maps
    # lines and shared pages (user/vdsomap.c) with the other clock modes
    # (init-* run both on the TSC): the HPET read in user mode, and jiffies,
    # where the fine clocks must fall back to a system call; and vdsotest on a
    # CPU without RDRAND, RDSEED or RDTSCP, where the vDSO's address comes
    # from the TSC and RTC (init-qemu64 runs vdsomap there).
    Config("vdso-hpet", fw="bios", cmdline="clocksource=hpet -- test /bin/vdsotest /bin/vdsomap", ktap=True),
    Config("vdso-jiffies", fw="bios", cmdline="clocksource=jiffies -- test /bin/vdsotest /bin/vdsomap",
           ktap=True),
    Config("vdso-qemu64", fw="bios", cpu="qemu64", cmdline="-- /bin/vdsotest", ktap=True, extra=SMP2),
    # Malformed and unknown options are warned about and defaulted; the
    # words after -- reach init, split at spaces outside double quotes, which
    # go: init fails to run "a b" and exits with 1.
    Config("badopts-bios", fw="bios", cmdline='vsyscall=bogus clocksource= frobnicate -- "a b" c',
           status=1),
    # A crafted ELF as init (tools/mkbadelf): a text segment, then one with
    # p_memsz 0, which maps nothing; the program exits with 42.
    Config("init-oddelf", fw="bios", init="build/bad/odd-memsz0-after-text", status=42),
    # The vsyscall page (test_vsyscall.py): user/vsyscalltest alone in each mode,
    # then mapstest in xonly and none, where the [vsyscall] line differs (test_maps.py).
    # emulate under SeaBIOS and OVMF is init-bios and init-uefi above; the
    # qemu64 boots take the LSL path of getcpu (no RDTSCP), and without
    # SMEP and SMAP; the clocksource boots feed the native page each counter,
    # jiffies making it fall back to its system call.
    Config("vsyscall-native-bios", fw="bios", mode="native", ktap=True,
           cmdline="clocksource=tsc -- /bin/vsyscalltest", extra=SMP2),
    Config("vsyscall-xonly-bios", fw="bios", mode="xonly", ktap=True,
           cmdline="-- test /bin/vsyscalltest /bin/mapstest", extra=SMP2),
    Config("vsyscall-none-bios", fw="bios", mode="none", ktap=True,
           cmdline="-- test /bin/vsyscalltest /bin/mapstest"),
    Config("vsyscall-native-uefi", fw="uefi", mode="native", ktap=True,
           cmdline="-- /bin/vsyscalltest"),
    Config("vsyscall-emulate-qemu64", fw="bios", mode="emulate", cpu="qemu64", ktap=True,
           cmdline="-- /bin/vsyscalltest", extra=SMP2),
    Config("vsyscall-native-qemu64", fw="bios", mode="native", cpu="qemu64", ktap=True,
           cmdline="-- /bin/vsyscalltest", extra=SMP2),
    Config("vsyscall-native-hpet", fw="bios", mode="native", ktap=True,
           cmdline="clocksource=hpet -- /bin/vsyscalltest"),
    Config("vsyscall-native-jiffies", fw="bios", mode="native", ktap=True,
           cmdline="clocksource=jiffies -- /bin/vsyscalltest"),
    # Signals and /proc/self/maps (test_maps.py). init-* run the signal
    # tests (user/sig*.c) and mapstest in emulate mode; here every program
    # init runs, the signal tests among them, on a baseline CPU (no SMEP,
    # SMAP), and the article's experiment: cat /proc/self/maps, twice
    # (user/catmaps.c).
    Config("init-qemu64", fw="bios", cpu="qemu64", ktap=True, cmdline="-- test", extra=SMP2),
    Config("maps-twice", fw="bios", ktap=True, cmdline="-- /bin/catmaps"),
    # A short run of the system-call fuzzer (user/fuzz.c) with a fixed seed;
    # make fuzz runs long ones with fresh seeds in every mode. Silence of 240 s:
    # the fuzzer prints its results once its 3000 calls are done.
    Config("fuzz-bios", fw="bios", ktap=True, cmdline="lockdebug -- /bin/fuzz 1 3000", silence=240,
           extra=SMP2),
    # The attack lab (test_attack.py, docs/attack.md): user/attack/attack in
    # each mode, with the heatmap's 4096 jumps (-m), given the copy of the
    # native page that the attacker studies; and the layout of its static-pie
    # programs with randomization turned off on the command line. Silence of
    # 240 s: the heatmap's 4096 jumps print one line when all are done.
] + [Config("attack-%s" % mode, fw="bios", mode=mode, ktap=True, silence=240,
            modules=("build/vsyscall_native.bin",), cmdline="-- /bin/attack -m")
     for mode in ("native", "emulate", "xonly", "none")] + [
    Config("aslr-norandmaps", fw="bios", ktap=True, cmdline="norandmaps -- /bin/attack -a"),
    # Page-table isolation (docs/pti.md, test_pti.py): the user programs and
    # the in-kernel tests with pti=on, and the vsyscall page in each mode,
    # where the user page table maps it differently (the emulate page is
    # init's); pti=auto on a CPU that says it is Intel's (on) and AMD's
    # (QEMU's max under TCG: off). make test PTI=on boots all of them so.
    Config("pti-init-bios", fw="bios", ktap=True, cmdline="pti=on lockdebug -- test", extra=SMP2),
    Config("pti-ktest-uefi", fw="uefi", ktap=True, cmdline="pti=on ptdump ktest", extra=SMP2),
    Config("pti-native-uefi", fw="uefi", mode="native", ktap=True,
           cmdline="pti=on -- /bin/vsyscalltest", extra=SMP2),
    Config("pti-xonly-bios", fw="bios", mode="xonly", ktap=True,
           cmdline="pti=on -- /bin/vsyscalltest", extra=SMP4),
    Config("pti-none-bios", fw="bios", mode="none", ktap=True, cmdline="pti=on -- /bin/vsyscalltest"),
    Config("pti-native-hpet", fw="bios", mode="native", ktap=True,
           cmdline="pti=on clocksource=hpet -- /bin/vsyscalltest"),
    Config("pti-auto-intel", fw="bios", cpu="max,vendor=GenuineIntel", ktap=True,
           cmdline="-- /bin/vsyscalltest"),
]

register(CONFIGS)
