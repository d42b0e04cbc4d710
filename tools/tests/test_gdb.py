"""make debug and the gdb helpers against a live kernel: gdb -batch drives QEMU's stub.

Each session boots one ISO under tools/debug --batch (QEMU stopped at the
reset vector, gdb with tools/gdb/ccos.gdb, then the session's script) and
keeps gdb's output in build/test/NAME/gdb.log. The scripts mark their
steps with `echo @@@ STEP` lines; a test reads one step's output. The
vsyscall walkthrough of docs/gdb.md runs as a script too, in emulate and in
xonly mode.
"""
import glob
import os
import re
import shutil

import pytest

import harness
from gdbboot import hex_of, kernel_has, run_session
from harness import Config

GDB = shutil.which("gdb")
pytestmark = pytest.mark.skipif(GDB is None, reason="gdb is not installed (tools/setup installs it)")

VSYSCALL = 0xffffffffff600000
VVAR = 0xffffffffff5ff000


# --- Booting to kmain, and the helpers at the end of kmain --------------------------

KMAIN_SCRIPT = """
echo @@@ user-early\\n
python
try:
    gdb.execute("ccos-user")
except gdb.error as e:
    print("error: %s" % e)
end
break kmain
continue
echo @@@ kmain\\n
print/x $pc
bt
break start_init
continue
echo @@@ idt-3\\n
ccos-idt 3
echo @@@ idt-14\\n
ccos-idt 14
echo @@@ pt-vvar\\n
ccos-pt 0xffffffffff5ff000
echo @@@ pt-vsyscall\\n
ccos-pt 0xffffffffff600000
echo @@@ vvar\\n
ccos-vvar
echo @@@ idt-0xcc\\n
ccos-idt 0xcc
echo @@@ vsyscall\\n
ccos-vsyscall
echo @@@ pti-off\\n
ccos-pti
delete
break sys_write if $_streq($ccos_comm(), "init")
continue
echo @@@ syscall\\n
bt
ccos-frame
echo @@@ ps\\n
ccos-ps
echo @@@ threads\\n
info threads
echo @@@ cpus\\n
ccos-cpus
echo @@@ cpu1\\n
thread 2
print/x $gs_base
print/x &cpus[1]
echo @@@ end\\n
"""

def kmain_session(fw):
    # Two CPUs under SeaBIOS: QEMU's stub shows each as a thread (docs/gdb.md).
    extra = ("-smp", "2") if fw == "bios" else ()
    # pti=off whatever make test's PTI= says: ccos-pti's answer on a boot without PTI is a case.
    return run_session(Config("gdb-" + fw, fw=fw, cmdline="pti=off", extra=extra), KMAIN_SCRIPT)


def session(fw):
    return harness.job("gdb-" + fw).result()


@pytest.mark.parametrize("fw", ["bios", "uefi"])
def test_breakpoint_at_kmain(fw):
    """A breakpoint in 64-bit code, set before the firmware runs, is hit at kmain."""
    s = session(fw)
    pc = hex_of(s.step("kmain"), "$pc at kmain", s)
    m = re.search(r"^([0-9a-f]+) T kmain$", open(os.path.join(harness.BUILD, "kernel.sym")).read(),
                  re.MULTILINE)
    assert m, "kmain is not in build/kernel.sym"
    # gdb puts a breakpoint on a function after its prologue: at most a few bytes in.
    assert 0 <= pc - int(m.group(1), 16) < 32, s.report("stopped at %#x, not in kmain" % pc)
    assert "Breakpoint 1, kmain (" in s.output, s.report("breakpoint 1 (kmain) not reported")
    # docs/gdb.md: kmain was called from the 32-bit entry's higher-half code.
    assert re.search(r"^#1  0x[0-9a-f]+ in higher_half\S* \(\) at boot/entry\.asm:\d+$",
                     s.step("kmain"), re.MULTILINE), s.report("bt at kmain does not reach boot/entry.asm")


@pytest.mark.parametrize("vector,dpl", [(3, 3), (14, 0)], ids=["int3", "page-fault"])
def test_idt_gate(vector, dpl):
    s = session("bios")
    out = s.step("idt-%d" % vector)
    assert re.search(r"^0x%02x +%d .* interrupt gate, DPL %d, IST 0, selector 0x10, handler "
                     r"0x[0-9a-f]+ <trap_stub_%d>" % (vector, vector, dpl, vector), out, re.MULTILINE), \
        s.report("ccos-idt %d: not an interrupt gate with DPL %d into trap_stub_%d:\n%s"
                 % (vector, dpl, vector, out))


def test_idt_page_fault_handler():
    """#PF's way in is page_fault_entry (xonly's calls), then trap_other's page_fault."""
    s = session("bios")
    assert re.search(r"-> page_fault_entry; trap_handlers: page_fault$", s.step("idt-14"),
                     re.MULTILINE), s.report("ccos-idt 14 does not name page_fault_entry, then page_fault")


def test_user_helper_before_the_kernel_runs():
    """ccos-user alone at the reset vector (no paging, no process) says so in words."""
    s = session("bios")
    out = s.step("user-early")
    assert re.search(r"^error: no current process on this CPU", out, re.MULTILINE) \
        and "Python Exception" not in s.output, s.report("ccos-user at the reset vector:\n" + out)


@pytest.mark.parametrize("fw", ["bios", "uefi"])
def test_pti_helper_on_a_boot_without_pti(fw):
    """With pti=off there is one table a process: ccos-pti says so, and lists no "user table"
    (it once took the page after CR3's for one and listed a thousand kernel pages)."""
    s = session(fw)
    out = s.step("pti-off")
    assert re.search(r"^ccos-pti: PTI is off in this boot .*CR3 0x[0-9a-f]+", out, re.MULTILINE) \
        and "kernel-half pages" not in out, s.report("ccos-pti on a pti=off boot:\n" + out)


def test_idt_says_what_a_gate_without_handler_does():
    """int3 has no C handler: trap_dispatch makes it SIGTRAP from user mode, a panic from the kernel."""
    s = session("bios")
    assert re.search(r"-> no C handler: SIGTRAP from user mode, a panic from the kernel$",
                     s.step("idt-3"), re.MULTILINE), s.report("ccos-idt 3 does not say so")


def test_idt_vsyscall_vector():
    """design.md: vector 0xcc is a present 64-bit interrupt gate, DPL 3, kernel code segment."""
    if not kernel_has("emulate_vsyscall"):
        pytest.skip("the kernel has no emulate_vsyscall yet (the vsyscall work is not merged)")
    s = session("bios")
    out = s.step("idt-0xcc")
    assert re.search(r"^0xcc 204 .* interrupt gate, DPL 3, IST 0, selector 0x10, .*"
                     r"-> vsyscall_call; trap_handlers: emulate_vsyscall$", out, re.MULTILINE), \
        s.report("ccos-idt 0xcc is not a DPL 3 interrupt gate to vsyscall_call:\n" + out)


@pytest.mark.parametrize("fw", ["bios", "uefi"])
def test_pt_vvar_page(fw):
    """design.md: the vvar page is user-readable, read-only and no-execute."""
    s = session(fw)
    out = s.step("pt-vvar")
    assert re.search(r"^  PT  \[511\] .* P U NX -> page$", out, re.MULTILINE), \
        s.report("the vvar page's PT entry is not P U NX:\n" + out)
    assert re.search(r"^ccos-pt: 0xffffffffff5ff000 -> phys 0x[0-9a-f]+ \(4 KiB page\): "
                     r"user, read-only, no-execute$", out, re.MULTILINE), \
        s.report("ccos-pt does not show the vvar page user, read-only, no-execute:\n" + out)


def test_pt_vsyscall_page():
    """design.md, emulate mode: the vsyscall page is present, user, read + execute, not writable."""
    if not kernel_has("emulate_vsyscall"):
        pytest.skip("the kernel has no vsyscall page yet (the vsyscall work is not merged)")
    s = session("bios")
    out = s.step("pt-vsyscall")
    assert re.search(r"^ccos-pt: 0xffffffffff600000 -> phys 0x[0-9a-f]+ \(4 KiB page\): "
                     r"user, read-only, executable$", out, re.MULTILINE), \
        s.report("ccos-pt does not show the vsyscall page user, read-only, executable:\n" + out)


def test_vvar_fields():
    s = session("bios")
    out = s.step("vvar")
    for field in ("jiffies", "vgetcpu_mode", "seq", "vclock_mode", "mult", "shift",
                  "wall_time", "wall_to_monotonic", "wall_time_coarse", "sys_tz"):
        assert re.search(r"^ +%s " % field, out, re.MULTILINE), s.report("ccos-vvar has no %s" % field)
    assert "vvar page at 0xffffffffff5ff000" in out, s.report("ccos-vvar did not read the user mapping")


def test_vsyscall_page_bytes():
    """emulate mode: `int $0xcc` at each entry, 0xcc everywhere else, no system-call instruction."""
    if not kernel_has("emulate_vsyscall"):
        pytest.skip("the kernel has no vsyscall page yet (the vsyscall work is not merged)")
    s = session("bios")
    out = s.step("vsyscall")
    assert "vsyscall mode: emulate" in out, s.report("ccos-vsyscall: mode is not emulate")
    for entry in (0x000, 0x400, 0x800):
        assert re.search(r"^%#x \w+: cd cc cc cc" % (VSYSCALL + entry), out, re.MULTILINE), \
            s.report("the entry at +%#x does not start cd cc:\n%s" % (entry, out))
        assert re.search(r"^    %#x: int +\$0xcc$" % (VSYSCALL + entry), out, re.MULTILINE), \
            s.report("the entry at +%#x does not disassemble to int $0xcc" % entry)
    assert "4093 of 4096 bytes are 0xcc" in out, s.report("the padding is not all 0xcc")
    assert "system-call byte sequences in the page: none" in out, s.report("a syscall sequence")


def test_backtrace_through_syscall():
    """In sys_write, bt goes through the SYSCALL frame into init's main; the frame is vector 0x100."""
    s = session("bios")
    out = s.step("syscall")
    assert re.search(r"^#\d+ +0x[0-9a-f]+ in syscall_entry(_pti)? \(\)", out, re.MULTILINE), \
        s.report("bt in sys_write does not reach syscall_entry:\n" + out)
    assert re.search(r"^#\d+ +0x0*4[0-9a-f]{5} in main \(.*\) at user/init\.c:\d+$", out, re.MULTILINE), \
        s.report("bt in sys_write does not reach init's main:\n" + out)
    assert re.search(r"^  vector 0x100 \(SYSCALL, system call 1\)$", out, re.MULTILINE), \
        s.report("ccos-frame in sys_write is not a SYSCALL frame of write (1)")
    assert re.search(r"^  cs     0x33 \(user code, 64-bit, ring 3\)$", out, re.MULTILINE), \
        s.report("ccos-frame in sys_write: cs is not 0x33")


def test_ps_lists_init():
    s = session("bios")
    out = s.step("ps")
    assert re.search(r"^\*    1 running   init +0 0x[0-9a-f]+ +0x40[0-9a-f]+ <", out, re.MULTILINE), \
        s.report("ccos-ps does not show init as pid 1, running and current:\n" + out)


def test_info_threads_shows_each_cpu():
    """docs/gdb.md: with -smp 2, QEMU's stub shows two threads, one a CPU."""
    s = session("bios")
    threads = re.findall(r"^\*? +(\d+) +Thread ", s.step("threads"), re.MULTILINE)
    assert threads == ["1", "2"], s.report("info threads does not list threads 1 and 2:\n"
                                           + s.step("threads"))


def test_cpus_shows_each_cpu_and_what_it_runs():
    """ccos-cpus: each CPU's thread, GS base (&cpus[n]) and process; init's CPU marked *."""
    s = session("bios")
    out = s.step("cpus")
    rows = re.findall(r"^([* ]) +(\d) +(\d) +(\d+) +(0x[0-9a-f]+) +(\S+(?: \S+)?) +online", out,
                      re.MULTILINE)
    assert [r[1] for r in rows] == ["0", "1"], s.report("ccos-cpus does not list CPUs 0 and 1:\n" + out)
    assert [r[2] for r in rows] == ["1", "2"], s.report("ccos-cpus: CPU n is not thread n + 1:\n" + out)
    base = int(rows[0][4], 16)
    assert int(rows[1][4], 16) > base, s.report("ccos-cpus: GS bases not cpus[0], cpus[1]:\n" + out)
    mine = [r for r in rows if r[0] == "*"]
    assert len(mine) == 1 and mine[0][5] == "1 init", \
        s.report("ccos-cpus: the selected CPU does not run init (pid 1):\n" + out)
    # Thread 2 is CPU 1: its GS base, in the kernel, is &cpus[1].
    vals = re.findall(r"^\$\d+ = (0x[0-9a-f]+)$", s.step("cpu1"), re.MULTILINE)
    assert len(vals) == 2 and vals[0] == vals[1] == rows[1][4], \
        s.report("thread 2's $gs_base is not &cpus[1] (%s):\n%s" % (rows[1][4], s.step("cpu1")))


def test_session_ended_cleanly():
    s = session("bios")
    s.step("end")
    assert s.code == 0, s.report("gdb -batch failed")


# --- The vsyscall walkthrough (docs/gdb.md) ----------------------------------------

def vsyscall_program():
    """(program, function) of a user program that calls the vsyscall page, or (None, None).

    The function is where the walkthrough starts: test_gettimeofday in the
    vsyscall test (it calls the gettimeofday entry with good pointers),
    else main."""
    found = []
    for asm in sorted(glob.glob(os.path.join(harness.USER_DIR, "*.asm"))):
        with open(asm, errors="replace") as f:
            if "ffffffffff600000" in f.read():
                found.append(os.path.basename(asm)[:-4])
    if not found:
        return None, None
    found.sort(key=lambda n: (not n.startswith("vsyscall"), n))
    prog = found[0]
    with open(os.path.join(harness.USER_DIR, prog + ".sym")) as f:
        names = {line.split()[-1] for line in f if line.strip()}
    return prog, "test_gettimeofday" if "test_gettimeofday" in names else "main"


CALL_LENGTHS = (2, 3, 5, 6, 7)    # call *%rax, call *%r8, call rel32, call *m(%rip), call *m(%rax,..)

# Step 2 of the walkthrough: `nexti` until the instruction is a call of the
# gettimeofday entry, as a person does with `display/i $pc` (at most 300).
NEXTI_TO_CALL = r"""
python
import re
arch = gdb.selected_frame().architecture()
for _ in range(300):
    insn = arch.disassemble(reg("pc"))[0]["asm"]
    m = re.match(r"call\s+(?:\*%(\w+)|(0x[0-9a-f]+))\s*(?:<.*>)?$", insn)
    if m and (reg(m.group(1)) if m.group(1) else int(m.group(2), 16)) == VSYSCALL_ADDR:
        break
    gdb.execute("nexti", to_string=True)
else:
    raise gdb.GdbError("no call of 0xffffffffff600000 in 300 instructions")
end
"""

# Step 5: `finish` on the vsyscall page's frame of the backtrace.
FINISH_VSYSCALL_FRAME = """
python
f = gdb.newest_frame()
while f is not None and not VSYSCALL_ADDR <= f.pc() < VSYSCALL_ADDR + PAGE_SIZE:
    f = f.older()
if f is None:
    raise gdb.GdbError("no frame in the vsyscall page in the backtrace")
f.select()
end
finish
"""


def walkthrough_script(prog, anchor, mode):
    """docs/gdb.md's steps: stop before the call, step into the page and into the kernel, come back."""
    # In xonly mode the page is not present: not even gdb can read it.
    peek = "x/i $pc" if mode == "emulate" else ""
    calls = "\n".join("x/2i $pc - %d" % n for n in CALL_LENGTHS)
    return """
break {anchor} if $_streq($ccos_comm(), "{prog}")
continue
{nexti}
echo @@@ call\\n
x/i $pc
stepi
echo @@@ entry\\n
print/x $pc
{peek}
set $ret = *(unsigned long *)$rsp
print/x $ret
bt
echo @@@ stepi\\n
stepi
print/x $pc
info symbol $pc
echo @@@ handler\\n
delete
break emulate_vsyscall
continue
ccos-frame
bt
echo @@@ finish\\n
delete
{finish}
print/x $pc
info symbol $pc
print $rax
{calls}
echo @@@ end\\n
""".format(prog=prog, anchor=anchor, nexti=NEXTI_TO_CALL, peek=peek,
           finish=FINISH_VSYSCALL_FRAME, calls=calls)


def walkthrough_session(mode):
    """The walkthrough's session, or None when there is nothing to walk through yet."""
    prog, anchor = vsyscall_program()
    if not kernel_has("emulate_vsyscall") or prog is None:
        return None
    # init runs only the program named after `--` (user/init.c).
    config = Config("gdb-vsyscall-" + mode, fw="bios", mode=mode, cmdline="-- /bin/" + prog)
    return run_session(config, walkthrough_script(prog, anchor, mode), prog)


def walkthrough(mode):
    if not kernel_has("emulate_vsyscall"):
        pytest.skip("the kernel has no emulate_vsyscall yet (the vsyscall work is not merged)")
    prog, anchor = vsyscall_program()
    if prog is None:
        pytest.skip("no user program in build/user calls the vsyscall page yet")
    return harness.job("gdb-vsyscall-" + mode).result(), prog


# The sessions start with the boots of configs.py, as jobs of the same pool.
if GDB is not None:
    for _fw in ("bios", "uefi"):
        harness.register_job("gdb-" + _fw, lambda fw=_fw: kmain_session(fw))
    for _mode in ("emulate", "xonly"):
        harness.register_job("gdb-vsyscall-" + _mode, lambda mode=_mode: walkthrough_session(mode))


@pytest.mark.parametrize("mode", ["emulate", "xonly"])
def test_walkthrough_stops_at_entry(mode):
    """nexti to the call of the entry, then stepi: the CPU is at 0xffffffffff600000."""
    s, prog = walkthrough(mode)
    assert re.search(r"^=> 0x[0-9a-f]+ <\w+\+\d+>:\tcall ", s.step("call"), re.MULTILINE), \
        s.report("nexti did not stop at a call")
    out = s.step("entry")
    assert hex_of(out, "$pc", s) == VSYSCALL, s.report("not stopped at the gettimeofday entry")
    ret = int(re.findall(r"^\$\d+ = (0x[0-9a-f]+)", out, re.MULTILINE)[1], 16)
    # The backtrace goes from the page into the program, at the return address.
    assert re.search(r"^#1  0x0*%x in \w+ " % ret, out, re.MULTILINE), \
        s.report("bt at the entry does not show the caller at %#x:\n%s" % (ret, out))
    if mode == "emulate":
        assert re.search(r"int +\$0xcc", out), s.report("the entry is not int $0xcc")


@pytest.mark.parametrize("mode,stub", [("emulate", 204), ("xonly", 14)])
def test_walkthrough_stepi_enters_kernel(mode, stub):
    """One stepi at the entry: int $0xcc (emulate) or the fetch fault (xonly) enters its stub."""
    s, _ = walkthrough(mode)
    out = s.step("stepi")
    assert re.search(r"^trap_stub_%d in section \.text" % stub, out, re.MULTILINE), \
        s.report("stepi at the entry did not land in trap_stub_%d:\n%s" % (stub, out))


@pytest.mark.parametrize("mode,vector,rip", [("emulate", "0xcc", VSYSCALL + 2),
                                              ("xonly", "0xe", VSYSCALL)])
def test_walkthrough_trap_frame(mode, vector, rip):
    """In emulate_vsyscall the frame shows the user's call: its rip in the page, CS 0x33 (ring 3)."""
    s, prog = walkthrough(mode)
    out = s.step("handler")
    assert re.search(r"^Breakpoint \d+, emulate_vsyscall \(tf=", out, re.MULTILINE), \
        s.report("emulate_vsyscall's breakpoint was not hit:\n" + out)
    assert re.search(r"^  vector %s " % vector, out, re.MULTILINE), s.report("vector is not " + vector)
    assert re.search(r"^  rip    %#018x <vsyscall gettimeofday\+%#x>$" % (rip, rip - VSYSCALL),
                     out, re.MULTILINE), s.report("the frame's rip is not %#x:\n%s" % (rip, out))
    assert re.search(r"^  cs     0x33 \(user code, 64-bit, ring 3\)$", out, re.MULTILINE), \
        s.report("the frame's cs is not 0x33 (ring 3)")
    # The backtrace crosses the trap frame into the page, and on to the caller.
    ret = int(re.findall(r"^\$\d+ = (0x[0-9a-f]+)", s.step("entry"), re.MULTILINE)[1], 16)
    assert re.search(r"^#\d+ +%#x in \[vsyscall gettimeofday\] \(\)\n#\d+ +0x0*%x in \w+ "
                     % (rip, ret), out, re.MULTILINE), \
        s.report("bt in emulate_vsyscall does not go through the page to the caller at %#x" % ret)


@pytest.mark.parametrize("mode", ["emulate", "xonly"])
def test_walkthrough_returns_after_call(mode):
    """Back in user mode at the instruction after the call, in the program."""
    s, prog = walkthrough(mode)
    ret = int(re.findall(r"^\$\d+ = (0x[0-9a-f]+)", s.step("entry"), re.MULTILINE)[1], 16)
    out = s.step("finish")
    assert hex_of(out, "$pc", s) == ret, s.report("did not come back at %#x:\n%s" % (ret, out))
    assert re.search(r"^\$\d+ = 0$", out, re.MULTILINE), \
        s.report("rax is not 0, gettimeofday's result, after the emulated call:\n" + out)
    assert re.search(r"^\w+ \+ \d+ in section \.text of .*/%s\.elf$" % prog, out, re.MULTILINE), \
        s.report("%#x is not in %s's text" % (ret, prog))
    # Some `x/2i $pc - N` shows a call whose next instruction is at $pc.
    insns = re.findall(r"^(?:=> )? *0x([0-9a-f]+) <[^>]*>:\t(\S+)", out, re.MULTILINE)
    after_call = any(op.startswith("call") and int(nxt, 16) == ret
                     for (addr, op), (nxt, _) in zip(insns[0::2], insns[1::2]))
    assert after_call, s.report("the instruction before %#x is not a call:\n%s" % (ret, out))
    s.step("end")
    assert s.code == 0, s.report("gdb -batch failed")
