"""The Markdown files stand on their own: every relative link and every repository path they name exists."""
import glob
import os
import re
import subprocess

import pytest

import shell_session
import harness

ROOT = harness.ROOT
# Folders and files of the repository a path in the text may start with.
TOP = ("boot/", "arch/", "mm/", "kernel/", "fs/", "drivers/", "user/", "linker/", "include/", "tools/", "docs/",
       ".ci/")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
# A placeholder or a pattern, not one file: NAME, N, *, ...
PLACEHOLDER = re.compile(r"[*]|\.\.\.|\b[A-Z]{1,}[A-Z_]*\b(?<!\.[A-Z])")
# Files a page asks the reader to create.
TO_BE_WRITTEN = {"user/hello.c"}    # Lab 2, docs/labs.md


def markdown_files():
    files = (glob.glob(os.path.join(ROOT, "*.md")) + glob.glob(os.path.join(ROOT, "docs", "*.md"))
             + glob.glob(os.path.join(ROOT, "docs", "labs", "*.md")))
    return sorted(os.path.relpath(f, ROOT) for f in files)


def named_paths(text):
    """The repository paths in `code` spans: words that start with a top-level folder."""
    for span in CODE.findall(text):
        for word in span.split():
            word = word.rstrip(".,;:)")
            if word.startswith(TOP) and not PLACEHOLDER.search(word.split("/")[-1]):
                yield from expand(word.split(":")[0])


def expand(path):
    """arch/x86/{hpet,tsc}.c -> arch/x86/hpet.c, arch/x86/tsc.c"""
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",")
            for p in expand(path[:m.start()] + alt + path[m.end():])]


def exists(root, path):
    """A file or folder, or a program (user/NAME for user/NAME.c)."""
    full = os.path.join(root, path)
    return os.path.exists(full) or os.path.exists(full + ".c") or path in TO_BE_WRITTEN


def missing_in(md, root=ROOT):
    with open(os.path.join(root, md)) as f:
        text = f.read()
    missing = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue            # a URL or an anchor of the same page
        path = os.path.normpath(os.path.join(root, os.path.dirname(md), target.split("#")[0]))
        if not os.path.exists(path):
            missing.append("link " + target)
    for path in named_paths(text):
        if not exists(root, path):
            missing.append("path " + path)
    return missing


@pytest.mark.parametrize("md", markdown_files())
def test_links_and_paths_exist(md):
    missing = missing_in(md)
    assert not missing, "%s names what the repository does not have:\n  %s" % (
        md, "\n  ".join(missing))


def test_the_check_can_fail(tmp_path):
    """A made-up link and path are found; a placeholder is not a path."""
    (tmp_path / "page.md").write_text(
        "See [x](nowhere.md) and `kernel/nowhere.c`, not `user/NAME.c`.\n")
    assert missing_in("page.md", str(tmp_path)) == ["link nowhere.md", "path kernel/nowhere.c"]


def test_no_reference_outside_the_repository():
    """Linux changes are cited by commit id and subject, the LWN article by its title."""
    bad = re.compile(r"reference/|reference patch|design\.md-outside|\.\./shared")
    found = []
    for md in markdown_files():
        with open(os.path.join(ROOT, md)) as f:
            found += ["%s:%d: %s" % (md, i + 1, l.strip())
                      for i, l in enumerate(f) if bad.search(l)]
    assert not found, "\n".join(found)


def native_page_layout():
    """From build/vsyscall_native.asm: {entry offset: offset of its code's last byte}, [syscall offsets]."""
    asm = os.path.join(ROOT, "build", "vsyscall_native.asm")
    if not os.path.exists(asm):
        pytest.skip("build/vsyscall_native.asm is not built: run make")
    last, syscalls = {}, []
    with open(asm) as f:
        for line in f:
            m = re.match(r"^ffffffffff6([0-9a-f]{5}):\t((?:[0-9a-f]{2} )+)\s*(.*)$", line)
            if not m or "int3" in m.group(3):
                continue
            off, nbytes = int(m.group(1), 16), len(m.group(2).split())
            last[off & ~0x3ff] = max(last.get(off & ~0x3ff, 0), off + nbytes - 1)
            if m.group(2).split()[:2] == ["0f", "05"]:
                syscalls.append(off)
    return last, syscalls


def build_compiler():
    """"GCC 12.2.0": the compiler that built the native page, from its object's .comment."""
    out = subprocess.run(["readelf", "-p", ".comment",
                          os.path.join(ROOT, "build", "arch", "x86", "vsyscall", "native_page.o")],
                         capture_output=True, text=True).stdout
    m = re.search(r"GCC: \(.*\) (\d+\.\d+\.\d+)", out)
    return "GCC " + m.group(1) if m else "an unknown compiler"


def native_page_doc():
    with open(os.path.join(ROOT, "docs", "vsyscall.md")) as f:
        text = f.read()
    rows = re.findall(r"^\| `\+0x([0-9a-f]{3})` \w+ \| `\+0x[0-9a-f]{3}`-`\+0x([0-9a-f]{3})` \|",
                      text, re.M)
    said = re.search(r"built by (GCC \d+\.\d+\.\d+)", text)
    assert said, "docs/vsyscall.md does not say which compiler built its native-page table"
    return (sorted((int(a, 16), int(b, 16)) for a, b in rows),
            re.findall(r"`0f 05` at `\+0x([0-9a-f]{3})`", text), said.group(1))


def test_native_page_layout():
    """What docs/vsyscall.md says of the native page for any compiler: its three entries, one syscall, in gettimeofday."""
    last, syscalls = native_page_layout()
    rows, _, _ = native_page_doc()
    assert sorted(last) == [0x000, 0x400, 0x800] == [entry for entry, _ in rows]
    assert len(syscalls) == 1 and syscalls[0] <= last[0x000], (
        "the page should hold one syscall, in gettimeofday's code: %s" % syscalls)


def test_native_page_table_matches_the_build():
    """docs/vsyscall.md's offsets, where the build's compiler is the one the table names."""
    last, syscalls = native_page_layout()
    rows, doc_syscalls, said = native_page_doc()
    if build_compiler() != said:
        pytest.skip("docs/vsyscall.md's offsets are %s's; this build is %s's"
                    " (test_native_page_layout checked what holds for both)" % (said, build_compiler()))
    assert rows == sorted(last.items())
    assert doc_syscalls == ["%03x" % o for o in syscalls]


def test_attack_gadget_table_matches_the_build():
    """docs/attack.md's gadgets are the build's bytes, and its sample line the build's gadgets,
    where the build's compiler is the one the table names (docs copied from another build
    gave students addresses and a count of pops that were not theirs)."""
    with open(os.path.join(ROOT, "docs", "attack.md")) as f:
        text = f.read()
    said = re.search(r"built by (GCC \d+\.\d+\.\d+)", text)
    assert said, "docs/attack.md does not say which compiler built its gadget table"
    if build_compiler() != said.group(1):
        pytest.skip("docs/attack.md's gadgets are %s's; this build is %s's" % (said.group(1), build_compiler()))
    with open(os.path.join(ROOT, "build", "vsyscall_native.bin"), "rb") as f:
        page = f.read()
    rows = re.findall(r"^\| `ffffffffff6([0-9a-f]{5})` \| `((?:[0-9a-f]{2} ?)+)` \|", text, re.M)
    assert len(rows) == 3, "docs/attack.md's gadget table has %d rows, not 3" % len(rows)
    for off, hexbytes in rows:
        want = bytes.fromhex(hexbytes)
        got = page[int(off, 16):int(off, 16) + len(want)]
        assert got == want, "docs/attack.md: ffffffffff6%s holds %s in this build, not %s" % (
            off, got.hex(" "), hexbytes)
    pops = len(re.findall(r"pop %", re.search(r"`syscall;([^`]*)`", text).group(1)))
    sample = "attack: fixed-syscall: ret ffffffffff6%s, xor eax,eax; ret ffffffffff6%s, syscall " \
             "ffffffffff6%s (then %d pops, ret)" % (rows[0][0], rows[1][0], rows[2][0], pops)
    assert sample in text, "docs/attack.md's sample output does not show its table: %s" % sample


def sample_patterns(text):
    """README's sample boot output as regexes: numbers may change, the lines may not."""
    block = text[text.index("```\nccos: booting") + 4:]
    block = block[:block.index("```")]
    patterns = []
    for line in block.splitlines():
        if line.strip() == "...":
            continue
        p = re.sub(r"[0-9a-f]*\d[0-9a-f]*", r"[0-9a-f]+", re.escape(line))
        patterns.append(re.sub(r"loader\\ GRUB\\ .*", "loader GRUB .*", p) + "$")
    return patterns


def test_readme_sample_boot_output():
    """Each line of README's sample output is in the log of `make run`'s boot to the shell, in order."""
    if harness.PTI:
        pytest.skip("make test PTI=%s: README's sample is `make run`'s boot, whose command"
                    " line names no pti=" % harness.PTI)
    with open(os.path.join(ROOT, "README.md")) as f:
        patterns = sample_patterns(f.read())
    lines, i = shell_session.session().text.splitlines(), 0
    for p in patterns:
        while i < len(lines) and not re.match(p, lines[i]):
            i += 1
        assert i < len(lines), "README's sample line %r is not in the shell boot's log (in order)" % p
        i += 1


def transcript_problems(text):
    """Where gdb transcripts disagree with one another (as pieces of two builds would).

    Kernel addresses must agree over the whole page; user addresses within
    a section (## heading), since sections may stop in different programs."""
    bases, frames, problems = {}, {}, []
    for n, section in enumerate(re.split(r"^## ", text, flags=re.M)):
        def key(name, addr):
            return (name, None if addr >= 0xffff800000000000 else n)
        for addr, sym, off in re.findall(r"\b0x([0-9a-f]{6,16}) <([\w.]+)(?:\+(\d+|0x[0-9a-f]+))?>",
                                         section):
            base = int(addr, 16) - (int(off, 0) if off else 0)
            if bases.setdefault(key(sym, base), base) != base:
                problems.append("%s at %#x here, at %#x elsewhere" % (sym, base, bases[key(sym, base)]))
        for addr, where in re.findall(r"#\d+ +0x([0-9a-f]+) in (\w+ \(.*?\) at [\w/.]+:\d+)", section):
            where, addr = re.sub(r"\(.*?\)", "()", where), int(addr, 16)
            if frames.setdefault(key(addr, addr), where) != where:
                problems.append("%#x is %s here, %s elsewhere" % (addr, where, frames[key(addr, addr)]))
    return problems


def test_gdb_transcripts_come_from_one_build():
    with open(os.path.join(ROOT, "docs", "gdb.md")) as f:
        problems = transcript_problems(f.read())
    assert not problems, "docs/gdb.md:\n  " + "\n  ".join(problems)
    assert transcript_problems("0x400b6b <f+59>: call\n0x402b4d <f+61>: xor\n")


READING = os.path.join(ROOT, "docs", "reading.md")
CORE = ("boot/", "arch/", "mm/", "ipc/", "kernel/", "fs/", "drivers/", "include/", "linker/")


def core_files(root=ROOT):
    """The kernel's own files, as git knows them: the in-kernel tests aside."""
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"]
                         + list(CORE), capture_output=True, text=True, check=True).stdout
    return sorted(p for p in out.split() if not p.endswith("_test.c"))


def reading_paths(text):
    """{path title: [the files it names, each once]} from docs/reading.md's '## Five paths'."""
    section = text[text.index("## Five paths"):]
    paths = {}
    for part in re.split(r"^### ", section, flags=re.M)[1:]:
        title, body = part.split("\n", 1)
        files = []
        for f in named_paths(body):
            if f not in files and os.path.splitext(f)[1]:
                files.append(f)
        paths[title.strip()] = files
    return paths


def test_reading_names_every_core_file_once():
    with open(READING) as f:
        text = f.read()
    listed = [m.group(1) for m in re.finditer(r"^- `([^`]+)`:", text, re.M)]
    missing = [p for p in core_files() if p not in listed]
    assert not missing, "docs/reading.md does not list:\n  " + "\n  ".join(missing)
    twice = sorted({p for p in listed if listed.count(p) > 1})
    assert not twice, "docs/reading.md lists twice: %s" % twice
    assert not missing_in("docs/reading.md"), missing_in("docs/reading.md")


def test_reading_paths_need_at_most_seven_files():
    with open(READING) as f:
        paths = reading_paths(f.read())
    assert len(paths) == 5, "docs/reading.md should follow five paths, not %d" % len(paths)
    long = ["%s: %d files" % (t, len(fs)) for t, fs in paths.items() if len(fs) > 7]
    assert not long, "paths of more than seven files:\n  " + "\n  ".join(long)
    assert all(paths.values()), "a path names no file: %s" % paths


GENERIC = ("kernel/", "mm/", "ipc/", "fs/", "drivers/", "include/ccos/")


def test_generic_code_uses_the_architecture_through_asm_arch_h():
    """kernel/, mm/, fs/, drivers/ and include/ccos/ include no asm/ header but asm/arch.h, the list of what they may call."""
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "--cached", "--others", "--exclude-standard"]
                         + list(GENERIC), capture_output=True, text=True, check=True).stdout
    found = []
    for path in out.split():
        if not path.endswith((".c", ".h")):
            continue
        with open(os.path.join(ROOT, path)) as f:
            found += ["%s:%d: %s" % (path, i + 1, l.strip()) for i, l in enumerate(f)
                      if re.match(r"\s*#\s*include\s*<asm/(?!arch\.h>)", l)]
    assert not found, "generic code includes the architecture's own headers:\n  " + "\n  ".join(found)


def test_only_the_entry_layer_asks_who_holds_the_kernel_lock():
    """Below the entry layer a function knows its lock state from its caller: it asserts the
    lock (assert_kernel_locked), never branches on it (docs/smp.md)."""
    out = subprocess.run(["git", "-C", ROOT, "grep", "-n", "spin_held(&kernel_lock)", "--",
                          "*.c", "*.h"], capture_output=True, text=True).stdout
    found = [line for line in out.splitlines()
             if not line.startswith(("arch/x86/entry/", "kernel/locking/"))]
    assert out and not found, "asked outside the entry layer and lockdebug:\n  " + "\n  ".join(found)


def test_every_lock_is_in_the_lock_table():
    """docs/smp.md's table names every spinlock the kernel defines (tests' own aside)."""
    out = subprocess.run(["git", "-C", ROOT, "grep", "-h", "DEFINE_SPINLOCK(", "--", "*.c",
                          ":!*_test.c"], capture_output=True, text=True).stdout
    locks = set(re.findall(r"^(?:static )?DEFINE_SPINLOCK\((\w+)\)", out, re.MULTILINE))
    with open(os.path.join(ROOT, "docs", "smp.md")) as f:
        table = [line for line in f if line.startswith("| `")]
    missing = sorted(l for l in locks if not any(line.startswith("| `%s`" % l) for line in table))
    assert len(locks) >= 5 and not missing, "locks missing from docs/smp.md's table: %s" % missing


def test_conformance_tables_are_the_last_ltp_run():
    """docs/conformance.md's tables are what tools/ltp makes of docs/ltp-results.txt, the last
    `make ltp` and `tools/ltp host`: a run that changed the results changes the page too."""
    ltp = harness._load_tool("ltp")
    with open(os.path.join(ROOT, "docs", "conformance.md")) as f:
        text = f.read()
    m = re.search(r"<!-- tools/ltp table: begin -->\n(.*?)<!-- tools/ltp table: end -->", text, re.S)
    assert m, "docs/conformance.md has no generated tables"
    res = ltp.read_results()
    assert len(res) > 100 and any(r["ccos"] == "PASS" for r in res.values()), "docs/ltp-results.txt"
    assert m.group(1) == ltp.table(res) + "\n" + ltp.why_table(res), \
        "docs/conformance.md's tables differ from docs/ltp-results.txt: paste `tools/ltp table`"
