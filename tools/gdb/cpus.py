"""gdb helpers for ccos: ccos-cpus, each CPU's state and which of QEMU's gdb threads it is.

Sourced by tools/gdb/ccos.gdb after ccos.py, whose readers (value, c_string,
cpu_of_gs, ...) it uses.
"""
import gdb


def thread_of_each_cpu():
    """{ccos CPU number: gdb thread number}, found by each thread's GS base."""
    selected = gdb.selected_thread()
    found = {}
    for t in gdb.selected_inferior().threads():
        t.switch()
        cpu = cpu_of_gs()
        if cpu is not None:
            found[cpu] = t.num
    selected.switch()
    return found


class Cpus(gdb.Command):
    """Each CPU that is up: ccos-cpus.

For cpus[n] (struct percpu, arch/x86/include/asm/percpu.h): the gdb thread that is
this CPU (QEMU's stub shows one thread per CPU: `thread N` selects it),
its APIC id, its GS base (&cpus[n], what GS.base holds while it runs the
kernel), the process it runs, and whether it is idle or asked to
reschedule. `*` marks the CPU of the selected thread."""

    def __init__(self):
        super().__init__("ccos-cpus", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        n = int(value("nr_cpus"))
        threads = thread_of_each_cpu()
        here = cpu_of_gs()
        print("  %3s %-6s %4s %-18s %-24s %s" % ("CPU", "THREAD", "APIC", "GS BASE", "RUNS", "STATE"))
        for i in range(n):
            c = value("cpus[%d]" % i)
            cur = c["current"]
            runs = "%d %s" % (int(cur["pid"]), c_string(cur["comm"])) if int(cur) else "-"
            state = [w for w, on in (("online", c["online"]), ("idle", c["idle"]),
                                     ("need_resched", c["need_resched"])) if int(on)]
            thread = str(threads[i]) if i in threads else "?"
            print("%s %3d %-6s %4d %#-18x %-24s %s"
                  % ("*" if i == here else " ", i, thread, int(c["apic_id"]),
                     int(value("&cpus[%d]" % i)), runs, " ".join(state)))


Cpus()
