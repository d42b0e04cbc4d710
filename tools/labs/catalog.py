"""The labs in the order of the story, the boots their graders need, and their checks.

Every check looks at behaviour from outside the student's code: the page
tables as ptdump prints them, what a ring-3 program sees (the KTAP results
of user/labcheck.c and user/vsyscalltest.c), the kernel's console lines. So
any correct solution passes, not only the one in the full tree. A lab's
grader must pass when every later lab is still a stub: a student tree has
them so.
"""
import dataclasses

import ptiaudit

from checks import (answers, count_between, exit_on_user_table, gate, kernel_on_its_table, kernel_user_half_nx, ktap, line,
                    only_fixmap_user, page, ring3_on_user_table, user_table_pages, user_tables_only_to)


@dataclasses.dataclass(frozen=True)
class BootSpec:
    """One boot a grader needs: a vsyscall mode, the command line after it, more files."""
    mode: str
    cmdline: str
    modules: tuple = ()     # paths in the tree's build/, each added as /bin/NAME
    extra: tuple = ()       # more QEMU arguments
    gdb: str = None         # a gdb script the boot runs under (tools/tests/gdbboot.py)


# Lab 8: stopped in ring 3 at init's main, QEMU walks that CPU's CR3 (info tlb); stopped in
# syscall_dispatch, the kernel's CR3 and its PML4 entry of the user half; then the programs
# run to the end, their KTAP on the console (checks.py, tools/tests/ptiaudit.py).
PTI_SCRIPT = r"""
python
def ccos_lab_break(sym, mnemonic, to_user_only):
    # A breakpoint at each instruction of sym (its local labels too) that starts with
    # mnemonic; to_user_only: only when the frame it pops returns to ring 3 (an iretq).
    arch = gdb.selected_frame().architecture()
    pc = int(gdb.parse_and_eval("(unsigned long)&%s" % sym))
    while True:
        name = gdb.execute("info symbol %d" % pc, to_string=True).split()[0]
        if name != sym and not name.startswith(sym + "."):
            break
        insn = arch.disassemble(pc)[0]
        if insn["asm"].startswith(mnemonic):
            gdb.execute("break *%d%s" % (pc, " if (*(unsigned long *)($rsp + 8) & 3) == 3"
                                          if to_user_only else ""))
        pc += insn["length"]
end
""" + ptiaudit.GDB_USER_STOP + ptiaudit.GDB_KERNEL_STOP + r"""echo @@@ sysret\n
delete
python ccos_lab_break("syscall_entry_pti", "sysret", False)
continue
print/x $cr3
echo @@@ iret\n
delete
python ccos_lab_break("trap_return", "iret", True)
continue
print/x $cr3
echo @@@ run\n
delete
continue
"""

MODES = ("native", "emulate", "xonly", "none")

BOOTS = {
    # The fixmap's pages, int $0xcc from ring 3, and the vsyscall page emulated.
    # The attack of lab 7 reads its copy of the native page from /bin/vsyscall_native.
    "emulate": BootSpec("emulate", "ptdump -- /bin/labcheck /bin/vsyscalltest /bin/attack",
                        ("vsyscall_native.bin",)),
    # Calls into a page that is not there, emulated from the fetch fault.
    "xonly": BootSpec("xonly", "-- /bin/vsyscalltest"),
    # vsyscalltest alone in the other three modes (labs 3 and 4): nothing
    # else in the boot can hang it before its results are out.
    "vt-emulate": BootSpec("emulate", "-- /bin/vsyscalltest"),
    "vt-native": BootSpec("native", "-- /bin/vsyscalltest"),
    "none": BootSpec("none", "-- /bin/vsyscalltest"),
    # The TSC as the clock: its rate, the vvar page, the native page and the vDSO.
    # Two CPUs: ring 3 reads the clock on one while the other updates it.
    "native": BootSpec("native", "clocksource=tsc -- /bin/labcheck /bin/vsyscalltest /bin/attack",
                       ("vsyscall_native.bin",), ("-smp", "2")),
    # No user-readable counter: the vDSO must fall back to the system call.
    "jiffies": BootSpec("emulate", "clocksource=jiffies -- /bin/labcheck"),
    # Labs 1 and 2 in every vsyscall mode: the page tables and the IDT as the CPU reads them.
    **{"dump-" + m: BootSpec(m, "ptdump idtdump -- /bin/labcheck") for m in MODES},
    # A machine without an HPET (ACPI has no HPET table): the TSC is calibrated against PIT
    # channel 2 (lab 5's fallback; without it the calibration reads an HPET that is not
    # there, a kernel page fault). One short boot: init runs echo and powers off.
    "nohpet": BootSpec("emulate", "-- /bin/echo no HPET", extra=("-machine", "hpet=off")),
    # The in-kernel tests: the calibration against counters of other rates, the writer.
    "ktest": BootSpec("emulate", "ktest"),
    # Page-table isolation under gdb: the HPET as the vDSO's clock in emulate (so the
    # user table maps it), the TSC elsewhere (so it must not); two CPUs in native.
    "pti-emulate": BootSpec("emulate", "pti=on clocksource=hpet -- /bin/labcheck /bin/vsyscalltest",
                            gdb=PTI_SCRIPT),
    "pti-native": BootSpec("native", "pti=on clocksource=tsc -- /bin/vsyscalltest", extra=("-smp", "2"),
                           gdb=PTI_SCRIPT),
    "pti-xonly": BootSpec("xonly", "pti=on -- /bin/vsyscalltest", gdb=PTI_SCRIPT),
}

VVAR = 0xffffffffff5ff000
HPET = 0xffffffffff5fe000
VSYSCALL = 0xffffffffff600000


@dataclasses.dataclass(frozen=True)
class Lab:
    number: int
    name: str
    title: str
    checks: tuple = ()          # empty: not graded yet (the handout says why)

    def __post_init__(self):
        """Each check's id is unique, and what it needs comes before it in the lab."""
        seen = set()
        for c in self.checks:
            if c.id in seen:
                raise ValueError("lab %s: two checks have the id %s" % (self.name, c.id))
            for n in c.needs:
                if n not in seen:
                    raise ValueError("lab %s: %s needs %s, which is not an earlier check of the lab"
                                     % (self.name, c.id, n))
            seen.add(c.id)

    @property
    def slug(self):
        return "%02d-%s" % (self.number, self.name)

    @property
    def handout(self):
        return "docs/labs/%s.md" % self.slug

    @property
    def answers(self):
        return "answers-%02d.txt" % self.number

    @property
    def boots(self):
        return sorted({c.boot for c in self.checks if c.boot})

    @property
    def points(self):
        return sum(c.points for c in self.checks)


CALLS = "gettimeofday_between_syscalls"     # the first call: what the refusals need


def calls_answer(boot, how, points=(20, 10, 10)):
    """The three entries answer as their system calls do, in the boot named."""
    return (ktap(points[0], "gettimeofday at +0x000 %s" % how, boot, CALLS),
            ktap(points[1], "time at +0x400 %s" % how, boot, "time_matches_syscall"),
            ktap(points[2], "getcpu at +0x800 %s" % how, boot, "getcpu_matches_syscall"))


def bad_input_kills(boot, points=(5, 5, 10)):
    """An emulated call with a bad pointer or a bad stack: SIGSEGV, nothing written.
    A SIGSEGV for everything passes these: they count once a good call works."""
    return (ktap(points[0], "a bad pointer: SIGSEGV, nothing written", boot,
                 "bad_pointers_sigsegv_nothing_written", needs=[CALLS]),
            ktap(points[1], "outputs across pages: SIGSEGV, nothing written", boot,
                 "outputs_across_pages_nothing_written", needs=[CALLS]),
            ktap(points[2], "a bad stack: SIGSEGV, nothing written", boot, "bad_stack_sigsegv",
                 needs=[CALLS]))


VVAR_READ = "fixmap_vvar_readable_jiffies_advance"
HPET_READ = "fixmap_hpet_readable_counter_advances"
GATE_0XCC = "idt_0xcc_present_dpl3"
SERVED = "vdso_served_in_user_mode"

SYSCALL_OK = "syscall_reaches_its_call"
PTI_RING3 = "ring3_on_the_user_table"
PTI_ENTRY = "user_table_maps_the_entry"

LABS = [
    Lab(0, "syscall", "a system call: from ring 3 to the table and back", (
        ktap(25, "each number runs its call; the result comes back in rax", "emulate", SYSCALL_OK),
        ktap(15, "-ENOSYS past the table, for its holes, negative and huge numbers", "emulate",
             "syscall_enosys_without_a_call", needs=[SYSCALL_OK]),
        ktap(10, "six arguments arrive intact (r10 the fourth)", "emulate", "syscall_six_arguments",
             needs=[SYSCALL_OK]),
        ktap(15, "rcx and r11 as SYSCALL leaves them, cs and ss the user's, every other register kept",
             "emulate", "syscall_registers_as_the_abi_says", needs=[SYSCALL_OK]),
        ktap(5, "the caller's DF: clear in the kernel (FMASK), set again after the call", "emulate",
             "syscall_direction_flag_masked_and_kept", needs=[SYSCALL_OK]),
        # The project's own tests of the same code (user/sigstate, user/sigmask), which
        # labcheck runs too: a kernel that crashes in one of them scores 0 (grade.py).
        ktap(10, "TF set: no trap in the kernel (FMASK), SIGTRAP after the call", "emulate",
             "syscall_with_tf_set_traps_after_it", needs=[SYSCALL_OK]),
        ktap(5, "SYSCALL from 32-bit mode (CSTAR): -ENOSYS, nothing crashes", "emulate",
             "syscall_from_32bit_mode", needs=[SYSCALL_OK]),
        ktap(5, "strict seccomp: read, write, exit and rt_sigreturn go through", "emulate",
             "seccomp_strict_allows_four", needs=[SYSCALL_OK]),
        ktap(5, "strict seccomp: any other call, exit_group too, is SIGKILL", "emulate",
             "seccomp_strict_kills_others", needs=["seccomp_strict_allows_four"]),
        answers(5),
    )),
    Lab(1, "fixmap", "the fixmap: its page tables, the vvar page and the HPET page", (
        page(15, "vvar page: user, read-only, no-execute", "dump-emulate", VVAR, "vvar_page_flags",
             user=True, rw=False, nx=True),
        page(15, "HPET page: user, read-only, no-execute, uncached", "dump-emulate", HPET, "hpet_page_flags",
             user=True, rw=False, nx=True, pcd=True, pwt=True),
        page(10, "vsyscall=native: the vsyscall page user, read-only, executable", "dump-native", VSYSCALL,
             "vsyscall_page_flags_native", user=True, rw=False, nx=False),
        page(5, "vsyscall=emulate: the vsyscall page user, read-only, executable", "dump-emulate", VSYSCALL,
             "vsyscall_page_flags_emulate", user=True, rw=False, nx=False),
        only_fixmap_user(5, "no other kernel-half page is user-accessible", "dump-emulate",
                         "no_other_user_page", needs=["vvar_page_flags", "hpet_page_flags"]),
        user_tables_only_to(10, "upper levels: U only on the way to a fixmap page", "dump-emulate",
                            (VVAR, HPET, VSYSCALL), "user_tables_only_on_the_path", needs=["vvar_page_flags"]),
        ktap(10, "ring 3 reads the vvar page; jiffies advance", "dump-emulate", VVAR_READ),
        ktap(5, "ring 3 cannot write the vvar page", "dump-emulate", "fixmap_vvar_not_writable",
             needs=[VVAR_READ]),
        ktap(5, "ring 3 cannot execute the vvar page", "dump-emulate", "fixmap_vvar_not_executable",
             needs=[VVAR_READ]),
        ktap(5, "ring 3 reads the HPET counter", "dump-emulate", HPET_READ),
        ktap(5, "ring 3 cannot write the HPET page", "dump-emulate", "fixmap_hpet_not_writable",
             needs=[HPET_READ]),
        ktap(5, "ring 3 cannot execute the HPET page", "dump-emulate", "fixmap_hpet_not_executable",
             needs=[HPET_READ]),
        answers(5),
    )),
    Lab(2, "gate", "the 0xcc gate: int $0xcc from ring 3", (
        gate(10, "vector 0xcc: a present gate of DPL 3 into its own stub, kernel code", "dump-emulate",
             [0xcc], GATE_0XCC, present=True, dpl=3, selector=0x10, own_stub=True),
        gate(10, "vector 0xcc: an interrupt gate, not a trap gate", "dump-emulate", [0xcc],
             "idt_0xcc_interrupt_gate", needs=[GATE_0XCC], type=0xe),
        gate(10, "vector 0xcc: no IST stack", "dump-emulate", [0xcc], "idt_0xcc_no_ist",
             needs=[GATE_0XCC], ist=0),
        *[ktap(15 if m == "emulate" else 10, "vsyscall=%s: int $0xcc arrives as vector 0xcc, error code 0, "
               "and kills with SIGSEGV" % m, "dump-" + m, "gate_0xcc_reaches_its_handler",
               id="gate_0xcc_reaches_its_handler_" + m) for m in MODES],
        gate(5, "int3 and into: DPL 3 interrupt gates, no IST", "dump-emulate", [3, 4], "idt_int3_into",
             present=True, dpl=3, type=0xe, ist=0, own_stub=True),
        ktap(5, "int3 from ring 3 is SIGTRAP", "dump-emulate", "gate_int3_still_sigtrap",
             needs=["idt_int3_into"]),
        ktap(10, "int $0xcd from ring 3 is still a #GP", "dump-emulate", "gate_0xcd_still_closed",
             needs=["gate_0xcc_reaches_its_handler_emulate"]),
        answers(5),
    )),
    Lab(3, "emulate", "emulate_vsyscall: the checks, the call, the emulated ret", (
        *calls_answer("vt-emulate", "is emulated", (5, 5, 5)),
        ktap(5, "every other offset of the page is harmless", "vt-emulate", "call_every_offset",
             needs=[CALLS]),
        *bad_input_kills("vt-emulate", (5, 5, 5)),
        ktap(5, "pages fork shares or nobody touched: outputs across them written, "
             "a bad pointer beside writes nothing", "vt-emulate", "bad_pointer_beside_shared_pages_nothing_written", needs=[CALLS]),
        ktap(5, "strict seccomp: SIGKILL before the call runs (nothing written; a bad pointer too)",
             "vt-emulate", "seccomp_strict", needs=[CALLS]),
        ktap(5, "int $0xcc elsewhere: SIGSEGV, SI_KERNEL, rip at the int", "vt-emulate",
             "illegal_int_0xcc_burst", needs=[CALLS]),
        line(5, "console: illegal int 0xcc warning", "vt-emulate",
             r"\[\d+\] illegal int 0xcc \(exploit attempt\?\) ip:[0-9a-f]+ sp:", "warn_illegal"),
        line(5, "console: bad stack warning", "vt-emulate",
             r"\[\d+\] int 0xcc with bad stack \(exploit attempt\?\) ip:ffffffffff600[048]00 sp:", "warn_bad_stack"),
        line(5, "console: bad pointer warning, every register", "vt-emulate",
             r"^\S+\[\d+\] vsyscall fault \(exploit attempt\?\) ip:ffffffffff600000 "
             r"sp:[0-9a-f]+ ax:[0-9a-f]+ si:[0-9a-f]+ di:[0-9a-f]+$", "warn_fault"),
        count_between(5, "console: 100 illegal int 0xcc, at most 10 warnings", "vt-emulate",
                      "# illegal int 0xcc burst: begin", "# illegal int 0xcc burst: end",
                      r"illegal int 0xcc \(exploit attempt\?\)", 1, 10, "warn_rate_limited",
                      needs=["warn_illegal"]),
        # The same function from xonly's fetch fault (lab 4's stub hands it every fault in
        # the page): rip is the entry, a refusal is the page fault it was.
        ktap(5, "xonly: gettimeofday from the fetch fault", "xonly", CALLS, id="xonly_gettimeofday"),
        ktap(5, "xonly: getcpu from the fetch fault", "xonly", "getcpu_matches_syscall",
             needs=["xonly_gettimeofday"], id="xonly_getcpu"),
        ktap(5, "xonly: every other offset is the fetch fault, SEGV_MAPERR, err 0x15", "xonly",
             "call_every_offset", needs=["xonly_gettimeofday"], id="xonly_every_offset"),
        ktap(5, "xonly: a bad stack is the fetch fault, nothing written", "xonly", "bad_stack_sigsegv",
             needs=["xonly_gettimeofday"], id="xonly_bad_stack"),
        ktap(5, "native: int $0xcc is refused there too", "vt-native", "illegal_int_0xcc_burst",
             needs=[CALLS], id="native_illegal_int"),
        answers(5),
    )),
    Lab(4, "xonly", "xonly: which faults in the absent page are calls", (
        # A read is refused as a read first: the starting point takes every fault for a call.
        ktap(10, "xonly: reading the page is SIGSEGV at the address read, SEGV_MAPERR, err 0x5", "xonly",
             "page_readable_per_mode", id="xonly_read_refused"),
        line(5, "console: read attempt warning", "xonly", r"\[\d+\] vsyscall read attempt denied ip:",
             "warn_read"),
        ktap(10, "xonly: gettimeofday from the fetch fault", "xonly", CALLS,
             needs=["xonly_read_refused"]),
        ktap(5, "xonly: time from the fetch fault", "xonly", "time_matches_syscall",
             needs=["xonly_read_refused"]),
        ktap(5, "xonly: getcpu from the fetch fault", "xonly", "getcpu_matches_syscall",
             needs=["xonly_read_refused"]),
        ktap(5, "xonly: every other offset is the fetch fault", "xonly", "call_every_offset",
             needs=[CALLS]),
        *[count_between(5, "%s: a write to the page is an ordinary fault, with no warning" % m, m,
                        "# writing the page: begin", "# writing the page: end",
                        r"\] (vsyscall|illegal int|int 0xcc)", 0, 0, m + "_write_warns_nothing",
                        needs=[CALLS]) for m in ("xonly", "none")],
        line(5, "console: a fetch at no entry is warned as an illegal call", "xonly",
             r"\[\d+\] illegal int 0xcc \(exploit attempt\?\) ip:ffffffffff600100 ", "warn_non_entry",
             needs=[CALLS]),
        ktap(5, "xonly: bad pointers: SIGSEGV, nothing written", "xonly",
             "bad_pointers_sigsegv_nothing_written", needs=[CALLS]),
        ktap(10, "none: a call is the fetch fault, SEGV_MAPERR, err 0x15", "none",
             "call_in_none_faults_on_fetch", needs=[CALLS], id="none_refused"),
        line(10, "console: vsyscall=none warning", "none",
             r"\[\d+\] vsyscall attempted with vsyscall=none ip:ffffffffff600000 ", "warn_none"),
        ktap(5, "none: reading the page is SIGSEGV at the address read", "none", "page_readable_per_mode",
             needs=[CALLS], id="none_read_refused"),
        line(5, "console: none warns a read as a read, not as a call", "none",
             r"\[\d+\] vsyscall read attempt denied ip:", "none_warn_read", needs=["none_read_refused"]),
        ktap(5, "emulate: the page reads and calls as before", "vt-emulate", "page_readable_per_mode",
             needs=[CALLS], id="emulate_page_readable"),
        answers(5),
    )),
    Lab(5, "timekeeping", "timekeeping: calibrate the TSC, publish the clock under the seqcount", (
        line(5, "console: the TSC calibrated against the HPET", "native",
             r"^tsc: \d+\.\d{3} MHz \(calibrated against the HPET\)", "tsc_calibrated"),
        line(5, "no HPET (-machine hpet=off): the TSC calibrated against PIT channel 2", "nohpet",
             r"^tsc: \d+\.\d{3} MHz \(calibrated against the PIT channel 2\)", "tsc_calibrated_by_the_pit"),
        ktap(10, "the vvar page's clock is the TSC", "native", "vvar_clock_is_tsc"),
        ktap(10, "the TSC clock runs at the HPET's rate", "native", "tsc_rate_matches_hpet"),
        ktap(10, "calibration against a 14.318 and a 25 MHz HPET (ktest)", "ktest",
             "tsc_calibrate_other_hpet_periods"),
        ktap(10, "calibration against a 32-bit counter that wraps (ktest)", "ktest",
             "tsc_calibrate_32bit_counter_wraps"),
        ktap(5, "the PIT fallback agrees with the HPET (ktest)", "ktest", "tsc_calibrate_pit_agrees",
             needs=["tsc_rate_matches_hpet"]),
        ktap(10, "the writer: seq odd while the data is written, even after (ktest)", "ktest",
             "vgtod_publish_odd_during_update_even_after"),
        ktap(10, "the sequence counter: even at rest, +2 per update", "native", "vvar_seq_even_and_advancing"),
        ktap(10, "a reader on CPU 1 during settimeofday storms: never torn", "native",
             "vvar_never_torn_across_cpus", needs=["vvar_seq_even_and_advancing"]),
        ktap(5, "native gettimeofday reads the published clock", "native",
             "gettimeofday_between_syscalls", needs=["vvar_clock_is_tsc", "vvar_seq_even_and_advancing"]),
        ktap(5, "native time reads the published clock", "native", "time_matches_syscall",
             needs=["vvar_clock_is_tsc", "vvar_seq_even_and_advancing"]),
        answers(5),
    )),
    Lab(6, "vdso", "the vDSO: the reader, clock_gettime and gettimeofday in user mode, found by name", (
        ktap(10, "the vDSO's functions found by name and version, through both hash tables", "native",
             "vdso_lookup_by_name_version_and_hashes"),
        ktap(10, "no system call: it runs under strict seccomp", "native", SERVED),
        ktap(10, "clock_gettime: the four clocks agree with the system call", "native",
             "vdso_clock_gettime_matches_syscall", needs=[SERVED]),
        ktap(10, "BOOTTIME, MONOTONIC_RAW, TAI and the CPU-time clocks: the system call's answer", "native",
             "vdso_other_clocks_ask_the_kernel", needs=[SERVED]),
        ktap(10, "REALTIME agrees with the vvar page and the TSC read by the grader", "native",
             "vdso_realtime_matches_vvar", needs=[SERVED]),
        ktap(5, "gettimeofday: time and zone agree with the system call", "native",
             "vdso_gettimeofday_matches_syscall", needs=[SERVED]),
        ktap(5, "MONOTONIC never steps back across ticks", "native", "vdso_monotonic_never_steps_back",
             needs=[SERVED]),
        ktap(10, "a reader on CPU 1 during settimeofday storms: never torn", "native",
             "vdso_never_torn_across_cpus", needs=[SERVED]),
        ktap(5, "an unknown clock: -EINVAL", "native", "vdso_unknown_clock_einval", needs=[SERVED]),
        ktap(5, "the reader with a 64-bit HPET (ktest)", "ktest", "vgtod_reader_hpet_64bit"),
        ktap(5, "the reader with a 32-bit HPET that wrapped (ktest)", "ktest", "vgtod_reader_hpet_32bit_wraps"),
        ktap(5, "the reader never takes the TSC below cycle_last (ktest)", "ktest",
             "vgtod_reader_tsc_never_below_cycle_last"),
        ktap(5, "without a counter: the system call, right answers", "jiffies",
             "vdso_falls_back_without_counter", needs=[SERVED]),
        answers(5),
    )),
    Lab(7, "attack", "the attack: a sigreturn chain through the vsyscall page", (
        line(15, "find_gadgets finds the pieces in made-up pages at made-up addresses", "native",
             r"^attack: check find_gadgets on made-up pages: ok$", "finds_made_up_gadgets"),
        line(15, "build_srop_exit's chain, run on paper with made-up gadgets, exits 42", "native",
             r"^attack: check build_srop_exit with made-up gadgets: ok$", "chain_of_made_up_gadgets"),
        line(25, "native: the chain through the page's syscall exits the service", "native",
             r"^attack: fixed-syscall: SUCCEEDED$", "native_fixed_syscall"),
        line(15, "native: the same chain through the leaked vDSO", "native",
             r"^attack: vdso-leak: SUCCEEDED$", "native_vdso_leak"),
        line(5, "native: the vDSO chain without the leak is stopped", "native",
             r"^attack: vdso-blind: STOPPED \(SIGSEGV\)$", "native_vdso_blind_stopped",
             needs=["native_vdso_leak"]),
        line(15, "emulate: the chain stops at int3", "emulate",
             r"^attack: fixed-syscall: STOPPED \(SIGTRAP\)$", "emulate_fixed_syscall_stopped",
             needs=["native_fixed_syscall"]),
        line(5, "emulate: the leak still works", "emulate", r"^attack: vdso-leak: SUCCEEDED$",
             "emulate_vdso_leak", needs=["native_vdso_leak"]),
        answers(5),
    )),
    Lab(8, "pti", "page-table isolation: the user page table and the CR3 switch", (
        ring3_on_user_table(10, "in ring 3, CR3 is the pair's user table, without the kernel's text "
                            "and data", "pti-emulate", PTI_RING3),
        user_table_pages(5, "the user table maps the entry: its text, the GDTs and IDT, the entry "
                         "areas, the IST stacks", "pti-emulate", PTI_ENTRY, "entry", needs=[PTI_RING3]),
        user_table_pages(5, "the user table maps nothing else of the kernel", "pti-emulate",
                         "user_table_only_what_is_needed", "only", needs=[PTI_ENTRY]),
        user_table_pages(5, "the vvar page: user, read-only, no-execute", "pti-emulate", "user_table_vvar",
                         VVAR, needs=[PTI_RING3]),
        user_table_pages(5, "clocksource=hpet: the HPET page, user, read-only, no-execute", "pti-emulate",
                         "user_table_hpet_when_the_vdso_reads_it", HPET, needs=[PTI_RING3]),
        user_table_pages(5, "vsyscall=emulate: the vsyscall page, user, read, execute", "pti-emulate",
                         "user_table_vsyscall_emulate", VSYSCALL, needs=[PTI_RING3]),
        kernel_on_its_table(10, "in syscall_dispatch, CR3 is the pair's kernel table", "pti-emulate",
                            "kernel_cr3_the_even_page", needs=[PTI_RING3]),
        kernel_user_half_nx(5, "the kernel's copy of the user half is no-execute", "pti-emulate",
                            "kernel_user_half_nx", needs=["kernel_cr3_the_even_page"]),
        exit_on_user_table(5, "SYSRET leaves on the user table", "pti-emulate", "sysret",
                           "at a SYSRET of syscall_entry_pti", "sysret_on_the_user_table",
                           needs=[PTI_RING3]),
        exit_on_user_table(5, "an iretq to ring 3 leaves on the user table", "pti-emulate", "iret",
                           "at an iretq of trap_return to ring 3", "iret_on_the_user_table",
                           needs=[PTI_RING3]),
        ktap(5, "system calls from ring 3 come back (SYSCALL, SYSRET)", "pti-emulate", SYSCALL_OK,
             needs=[PTI_RING3]),
        ktap(5, "emulate: the calls through int $0xcc come back", "pti-emulate", CALLS,
             needs=[PTI_RING3], id="pti_emulate_calls"),
        user_table_pages(10, "vsyscall=native, the TSC, 2 CPUs: the entry, the vvar page, the vsyscall "
                         "page (user, read, execute), nothing else", "pti-native", "user_table_native",
                         "exact", needs=[PTI_ENTRY]),
        ktap(5, "native: the page's code runs in ring 3", "pti-native", CALLS,
             needs=["user_table_native"], id="pti_native_calls"),
        user_table_pages(5, "vsyscall=xonly: the entry and the vvar page, no vsyscall page", "pti-xonly",
                         "user_table_xonly", "exact", needs=[PTI_ENTRY]),
        ktap(5, "xonly: the calls from the fetch fault come back", "pti-xonly", CALLS,
             needs=["user_table_xonly"], id="pti_xonly_calls"),
        answers(5),
    )),
]


def find(name):
    """The lab called name (or NN, or NN-name)."""
    for lab in LABS:
        if name in (lab.name, lab.slug, str(lab.number), "%02d" % lab.number):
            return lab
    raise KeyError("no lab named %r; `make labs` lists them" % name)


def graded():
    return [lab for lab in LABS if lab.checks]
