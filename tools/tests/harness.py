"""The ccos test harness: build an ISO for a boot configuration, boot it in QEMU, read the serial log.

A boot configuration (Config) names a firmware, a kernel command line, a
vsyscall mode, a CPU model and extra QEMU arguments. boot(config) builds
build/test/NAME/ccos.iso from build/kernel.elf and build/user/*.elf (or takes
the one of a configuration that differs only in firmware, CPU or QEMU
arguments), boots it with the serial log in build/test/NAME/serial.log, and
returns a Boot: the
exit status that ccos wrote to isa-debug-exit, the log text, the KTAP
documents read from it, and the problems that make the boot a failure. Each
configuration boots once per pytest session; up to two boot at a time.
"""
import dataclasses
import glob
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from ktap import classify, parse_ktap

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
TEST_DIR = os.path.join(BUILD, "test")
USER_DIR = os.path.join(BUILD, "user")
BAD_DIR = os.path.join(BUILD, "bad")


def _load_tool(name):
    """Import tools/NAME, a script without .py, as a module."""
    path = os.path.join(ROOT, "tools", name)
    loader = importlib.machinery.SourceFileLoader("ccos_tool_" + name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


runqemu = _load_tool("runqemu")


def with_pti(cmdline, pti):
    """cmdline with pti=PTI first, unless pti is None or the kernel's part of it names pti= itself."""
    if pti is None or "pti=" in cmdline.split(" -- ")[0]:
        return cmdline
    return ("pti=%s %s" % (pti, cmdline)).strip()


@dataclasses.dataclass(frozen=True)
class Config:
    """One way to boot ccos. The name is also the folder under build/test/."""
    name: str
    fw: str = "bios"            # bios (SeaBIOS) or uefi (OVMF)
    cmdline: str = ""           # kernel arguments after vsyscall=MODE
    mode: str = "emulate"       # vsyscall mode, the first word of the command line
    cpu: str = "max"            # QEMU -cpu model
    apic: str = "xapic"         # the local APIC mode the CPU offers: xapic (-x2apic,
                                # as QEMU 7.2 has it) or x2apic (+x2apic: QEMU 8 and
                                # later; skipped, with the reason, elsewhere)
    extra: tuple = ()           # more QEMU arguments
    modules: tuple = ()         # more files, each added as /bin/NAME, or FILE:/MODULE/NAME
    init: str = None            # an ELF to boot as /bin/init instead of build/user/init.elf
    ktap: bool = False          # the boot prints KTAP: plan and results are checked,
                                # and each result is its own pytest case
    status: int = None          # expected exit status; None: 0 (with ktap: non-zero
                                # exactly when a KTAP result failed)
    silence: float = 120        # seconds without serial output that mean a hang
                                # (runqemu.watch); a loaded machine slows a boot, TCG
                                # boots take 4 s (BIOS) to 8 s (UEFI) at rest
    ceiling: float = 1800       # seconds a boot may take in all, printing or not
    tree: str = None            # the ccos tree whose build/ boots (a lab's student
                                # tree, tools/labs); None: this one
    gdb: str = None             # a gdb script: the boot runs under gdb (gdbboot.py)

    @property
    def kernel_args(self):
        """cmdline, with pti=PTI first under make test PTI=... unless it names pti= itself."""
        return with_pti(self.cmdline, PTI)

    @property
    def full_cmdline(self):
        """The command line as tools/mkiso writes it into grub.cfg."""
        return ("vsyscall=%s %s" % (self.mode, self.kernel_args)).strip()


# make test SMP=n (docs/testing.md): every boot starts n CPUs instead of its
# configuration's own -smp, so that the whole matrix runs at one CPU count.
SMP = os.environ.get("CCOS_TEST_SMP") or None
if SMP is not None and not (SMP.isdigit() and 1 <= int(SMP) <= 8):
    raise ValueError("SMP=%s: a CPU count from 1 to 8 was expected" % SMP)


# make test PTI=on|off|auto (docs/pti.md): every boot with pti= on its
# command line, where its configuration does not set it.
PTI = os.environ.get("CCOS_TEST_PTI") or None
if PTI is not None and PTI not in ("on", "off", "auto"):
    raise ValueError("PTI=%s: on, off or auto was expected" % PTI)


def qemu_cpu(config):
    """The -cpu argument: the model, x2APIC on or off as the configuration says."""
    return "%s,%sx2apic" % (config.cpu, "+" if config.apic == "x2apic" else "-")


def unsupported(config):
    """Why this machine's QEMU cannot boot the configuration, or None."""
    return runqemu.x2apic_missing() if config.apic == "x2apic" else None


def qemu_extra(config):
    """The configuration's QEMU arguments, its -smp replaced by SMP's if set."""
    extra = list(config.extra)
    if SMP is None:
        return extra
    if "-smp" in extra:
        i = extra.index("-smp")
        del extra[i:i + 2]
    return extra + ["-smp", SMP]


def cpus(config):
    """How many CPUs a boot of the configuration starts."""
    extra = qemu_extra(config)
    return int(extra[extra.index("-smp") + 1]) if "-smp" in extra else 1


def _in_root(path):
    return path if os.path.isabs(path) else os.path.join(ROOT, path)


def build_dir(config):
    """The build/ folder that a configuration boots from."""
    return os.path.join(config.tree, "build") if config.tree else BUILD


# Programs that execute others by name (their own paths aside), for boot_programs;
# a boot that can start a shell can run any program.
EXECS = {"/bin/attack": ("/bin/layout", "/bin/service"), "/bin/catmaps": ("/bin/cat",),
         "/bin/fuzz": ("/bin/echo",), "/bin/bench": ("/bin/sh",)}
SHELLS = {"/bin/sh", "/bin/busybox"}


def boot_programs(config):
    """The /bin programs a boot of config can run, or None for all of them: with `-- /bin/X
    ARGS` or `-- test /bin/X /bin/Y`, /bin/init, those named and what they execute (EXECS);
    `ktest` without `--`, or an init of the config's own (Config.init, a crafted file that
    runs nothing else), /bin/init alone; `-- test` alone, no `--` (the shell) or a shell
    among them, every one."""
    words = config.kernel_args.split()
    after = words[words.index("--") + 1:] if "--" in words else None
    init = [w[len("init="):] for w in (words[:words.index("--")] if after is not None else words)
            if w.startswith("init=")]
    if after is None and not init:
        return {"/bin/init"} if "ktest" in words or config.init else None
    if after == ["test"]:
        return None
    todo = ["/bin/init"] + init + [w for w in after or () if w.startswith("/bin/")]
    wanted = set()
    while todo:
        p = todo.pop()
        if p not in wanted:
            wanted.add(p)
            todo += EXECS.get(p, ())
    return None if wanted & SHELLS else wanted


def iso_modules(config):
    """(file, module string) pairs, as the Makefile gives them to tools/mkiso:
    ISO_MODULES, then each file of build/bad/ (malformed ELF files) as /bin/NAME;
    of the built programs only those the boot can run (boot_programs), because
    GRUB under TCG reads each module it is given (about 10 ms a file, and 1 s for
    all of them, of a 2 s boot)."""
    user_dir = os.path.join(build_dir(config), "user")
    init = _in_root(config.init) if config.init else os.path.join(user_dir, "init.elf")
    wanted = boot_programs(config)
    mods = [(init, "/bin/init")]
    for elf in sorted(glob.glob(os.path.join(user_dir, "*.elf"))):
        name = "/bin/" + os.path.splitext(os.path.basename(elf))[0]
        if os.path.basename(elf) != "init.elf" and (wanted is None or name in wanted):
            mods.append((elf, name))
    for m in config.modules:
        path, _, name = m.rpartition(":/")
        mods.append((_in_root(path), "/" + name) if path else
                    (_in_root(m), "/bin/" + os.path.splitext(os.path.basename(m))[0]))
    if wanted is None:
        for f in sorted(glob.glob(os.path.join(build_dir(config), "bad", "*"))):
            mods.append((f, "/bin/" + os.path.basename(f)))
    return mods


# --- Building and booting ------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def clean_log(raw):
    """Serial bytes as text: no carriage returns, no terminal escapes (GRUB's)."""
    text = raw.decode("utf-8", "replace")
    return _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")


class BootFailure(AssertionError):
    pass


@dataclasses.dataclass
class Boot:
    config: Config
    status: int = None          # from isa-debug-exit, None if none
    log: str = ""               # the serial log, cleaned (clean_log)
    log_path: str = ""
    qemu_code: int = None
    hung: str = None            # why the watchdog killed QEMU (runqemu.watch), or None
    seconds: float = 0
    qemu_output: str = ""
    problems: list = dataclasses.field(default_factory=list)
    ktap: list = dataclasses.field(default_factory=list)   # Documents
    gdb: str = ""               # gdb's output, for a configuration with a gdb script

    def __iter__(self):
        """status, log = boot(...)"""
        return iter((self.status, self.log))

    def tail(self, n=30):
        lines = self.log.rstrip("\n").splitlines()
        return "\n".join("    | " + l for l in lines[-n:]) or "    | (empty)"

    def report(self, headline):
        """A failure message: what went wrong, then where the log is and its tail."""
        return ("%s\n  configuration %s: %s, %s, cmdline \"%s\"\n  serial log: %s\n"
                "  last lines:\n%s" % (headline, self.config.name, self.config.fw,
                                        qemu_cpu(self.config), self.config.full_cmdline,
                                        os.path.relpath(self.log_path, ROOT) if self.log_path else "-",
                                        self.tail()))

    def check(self):
        """Raise BootFailure, with the log's tail, if the boot failed."""
        __tracebackhide__ = True
        if self.problems:
            raise BootFailure(self.report("boot failed:\n  - " + "\n  - ".join(self.problems)))

    def lines(self):
        return self.log.splitlines()

    def find(self, pattern):
        """The first match of a regular expression in the log (multi-line mode), or None."""
        return re.search(pattern, self.log, re.MULTILINE)

    def expect(self, pattern, what=None):
        """The match of pattern in the log, or a BootFailure that shows the log."""
        __tracebackhide__ = True
        m = self.find(pattern)
        if not m:
            msg = "no line matches %r%s" % (pattern, " (%s)" % what if what else "")
            if self.problems:
                msg += "\n  the boot also failed:\n  - " + "\n  - ".join(self.problems)
            raise BootFailure(self.report(msg))
        return m

    def results(self):
        """Every top-level KTAP result, with its document's index."""
        return [(i, r) for i, d in enumerate(self.ktap) for r in d.results]


def build_iso(config, workdir):
    """Build workdir/ccos.iso for config with tools/mkiso; return its path."""
    iso = os.path.join(workdir, "ccos.iso")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "mkiso"), "--out", iso,
           "--kernel", os.path.join(build_dir(config), "kernel.elf"), "--timeout", "0", "--mode", config.mode,
           "--cmdline", config.kernel_args]
    for path, name in iso_modules(config):
        cmd += ["--module", "%s:%s" % (path, name)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("tools/mkiso failed:\n" + r.stdout)
    return iso


def _fresh_workdir(config):
    workdir = os.path.join(build_dir(config), "test", config.name)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    return workdir


def prepare(config):
    """A fresh build/test/NAME/ with the configuration's ISO in it; the ISO's path."""
    return build_iso(config, _fresh_workdir(config))


def iso_key(config):
    """What a configuration's ISO holds: configurations that differ only in
    firmware, CPU or QEMU arguments boot the same ISO."""
    return (build_dir(config), config.mode, config.kernel_args, config.modules, config.init)


def run_boot(config, iso=None):
    """Boot one configuration (no caching), with its ISO from prepare() (made
    here when iso is None); never raises for a bad boot."""
    workdir = os.path.join(build_dir(config), "test", config.name)
    log_path = os.path.join(workdir, "serial.log")
    boot = Boot(config, log_path=log_path)
    missing = [p for p in (os.path.join(build_dir(config), "kernel.elf"),
                           os.path.join(build_dir(config), "user", "init.elf"))
               if not os.path.exists(p)]
    if missing:
        boot.problems = ["%s is missing: run `make` (or `make test`) first"
                         % ", ".join(os.path.relpath(p, ROOT) for p in missing)]
        return boot
    try:
        iso = (iso or _iso_pool.submit(prepare, config)).result()
    except (RuntimeError, OSError) as e:
        boot.problems = [str(e)]
        return boot
    if os.path.dirname(iso) != workdir:
        _fresh_workdir(config)      # the ISO is another configuration's, in its folder
    start = time.monotonic()
    if config.gdb:
        import gdbboot
        boot.status, boot.hung, boot.gdb = gdbboot.run(config, iso, workdir, log_path)
        return _read_log(boot, start)
    cmd = runqemu.qemu_command(iso, config.fw, qemu_cpu(config), qemu_extra(config),
                               serial="file:" + log_path, workdir=workdir)
    with open(os.path.join(workdir, "qemu-command.txt"), "w") as f:
        f.write(" ".join(cmd) + "\n")
    with open(os.path.join(workdir, "qemu-output.txt"), "w+b") as out:
        code, boot.hung = runqemu.watch(cmd, log_path, silence=config.silence,
                                        ceiling=config.ceiling, output=out)
        out.seek(0)
        boot.qemu_output = out.read().decode("utf-8", "replace")
    if code is not None:
        boot.qemu_code = code
        boot.status = runqemu.decode_exit(code)
    return _read_log(boot, start)


def _read_log(boot, start):
    """The boot with its time, its serial log read, its KTAP and its problems."""
    config = boot.config
    boot.seconds = time.monotonic() - start
    try:
        with open(boot.log_path, "rb") as f:
            boot.log = clean_log(f.read())
    except OSError:
        boot.log = ""
    boot.ktap = parse_ktap(boot.log)
    boot.problems = classify(boot.log, boot.status, ktap=config.ktap,
                             hung=boot.hung,
                             expect_status=config.status, qemu_output=boot.qemu_output)
    return boot


# --- The session's boots ---------------------------------------------------------

JOBS = int(os.environ.get("CCOS_TEST_JOBS", min(2, os.cpu_count() or 1)))
_pool = ThreadPoolExecutor(max_workers=max(1, JOBS), thread_name_prefix="boot")
# ISOs are made ahead, one at a time, in the order the boots will run: while
# two QEMUs boot, grub-mkrescue (mostly disk work) makes the next ones' ISOs.
_iso_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="iso")
_lock = threading.Lock()
_boots = {}         # name -> (Config, Future of Boot)
_isos = {}          # iso_key -> Future of the ISO's path, made once per session
_jobs = {}          # name -> Future, for jobs that are not boots of a Config (gdb sessions)
_registry = {}      # name -> Config, from configs.CONFIGS
_job_registry = {}  # name -> callable, jobs that a full run starts with the boots
TIMES = os.path.join(TEST_DIR, "times.json")   # seconds each boot or job took last time
_times = {}         # this session's


def _last_times():
    try:
        with open(TIMES) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def slowest_first(names):
    """names, the ones that took longest last time first (unknown ones count as slow)."""
    last = _last_times()
    return sorted(names, key=lambda n: -last.get(n, 1e9))


def save_times():
    """Keep this session's durations for the next one's order (not an SMP= run's)."""
    if not _times or SMP is not None:
        return
    times = _last_times()
    times.update(_times)
    os.makedirs(TEST_DIR, exist_ok=True)
    with open(TIMES + ".tmp", "w") as f:
        json.dump(times, f, indent=0, sort_keys=True)
    os.replace(TIMES + ".tmp", TIMES)


def register(configs):
    for c in configs:
        if c.name in _registry and _registry[c.name] != c:
            raise ValueError("two boot configurations are named %s" % c.name)
        _registry[c.name] = c


def register_job(name, fn):
    """A job (fn() runs QEMU, as a gdb session does) that shares the pool with the boots."""
    _job_registry[name] = fn


def config(name_or_config):
    if isinstance(name_or_config, Config):
        return name_or_config
    try:
        return _registry[name_or_config]
    except KeyError:
        raise KeyError("no boot configuration named %r (see tools/tests/configs.py)"
                       % name_or_config) from None


# make test V=1: conftest.py sets say to print a line for each boot and gdb
# session as it ends (on pytest's terminal: it captures everything else).
VERBOSE = bool(os.environ.get("CCOS_TEST_VERBOSE"))
say = None


def _ended(name, seconds, what):
    _times[name] = round(seconds, 1)
    if VERBOSE and say:
        say("boot %-28s %6.1f s  %s" % (name, seconds, what))


def _timed_boot(c, iso):
    b = run_boot(c, iso)
    _ended(c.name, b.seconds, "status %s  %s" % (b.status, os.path.relpath(b.log_path, ROOT)))
    return b


def _timed_job(name, fn):
    start = time.monotonic()
    try:
        return fn()
    finally:
        _ended(name, time.monotonic() - start, "(gdb or shell session)")


def _submit(c):
    with _lock:
        if c.name in _boots:
            if _boots[c.name][0] != c:
                raise ValueError("two different boot configurations are named %s" % c.name)
        else:
            if iso_key(c) not in _isos:
                _isos[iso_key(c)] = _iso_pool.submit(prepare, c)
            _boots[c.name] = (c, _pool.submit(_timed_boot, c, _isos[iso_key(c)]))
        return _boots[c.name][1]


def job(name, fn=None):
    """The Future of job `name` (fn, or the one registered under name), started once per session."""
    with _lock:
        if name not in _jobs:
            _jobs[name] = _pool.submit(_timed_job, name, fn or _job_registry[name])
        return _jobs[name]


def prefetch(names_or_configs):
    """Start these boots (names or Configs) and registered jobs (names) in the
    background, two at a time, the slowest of the last session first."""
    items = {n if isinstance(n, str) else n.name: n for n in names_or_configs}
    for name in slowest_first(items):
        if isinstance(items[name], str) and name in _job_registry:
            job(name)
        elif not unsupported(config(items[name])):
            _submit(config(items[name]))


def boot(name_or_config):
    """The Boot of a configuration (a name in configs.py, or a Config), booting it
    once per session; the test is skipped, with the reason, where QEMU cannot."""
    c = config(name_or_config)
    why = unsupported(c)
    if why:
        import pytest
        pytest.skip(why)
    return _submit(c).result()


def shutdown():
    """Drop the boots not yet started (end of session, or Ctrl-C), and keep the durations."""
    _pool.shutdown(wait=False, cancel_futures=True)
    _iso_pool.shutdown(wait=False, cancel_futures=True)
    save_times()
