"""The attack lab (docs/attack.md), from the boots attack-MODE and aslr-norandmaps of configs.py.

user/attack/attack prints, in each vsyscall mode: the layout of two execs
of a static-pie (/bin/layout) and of two more under
personality(ADDR_NO_RANDOMIZE); one line per attempt on the service,
`attack: NAME: SUCCEEDED` or `attack: NAME: STOPPED (SIGNAL[: kernel message])`;
and the heatmap, a letter per offset of the vsyscall page. Here: every
attempt's outcome in every mode, the randomization and its two switches,
and the heatmap's letters against what each offset must give, and the
picture tools/heatmap draws from them.
"""
import importlib.machinery
import importlib.util
import os
import re

import pytest

import harness

MODES = ("native", "emulate", "xonly", "none")
ILLEGAL = "SIGSEGV: illegal int 0xcc (exploit attempt?)"
NONE = "SIGSEGV: vsyscall attempted with vsyscall=none"
# mode -> attempt -> the result line's end
EXPECTED = {
    "native": {"fixed-syscall": "SUCCEEDED", "fixed-ret": "SUCCEEDED",
               "vdso-blind": "STOPPED (SIGSEGV)", "vdso-leak": "SUCCEEDED"},
    "emulate": {"fixed-syscall": "STOPPED (SIGTRAP)", "fixed-ret": "SUCCEEDED",
                "vdso-blind": "STOPPED (SIGSEGV)", "vdso-leak": "SUCCEEDED"},
    "xonly": {"fixed-syscall": "STOPPED (%s)" % ILLEGAL, "fixed-ret": "SUCCEEDED",
              "vdso-blind": "STOPPED (SIGSEGV)", "vdso-leak": "SUCCEEDED"},
    "none": {"fixed-syscall": "STOPPED (%s)" % NONE, "fixed-ret": "STOPPED (%s)" % NONE,
             "vdso-blind": "STOPPED (SIGSEGV)", "vdso-leak": "SUCCEEDED"},
}
RESULT = re.compile(r"^attack: ([a-z-]+): (SUCCEEDED|STOPPED \(.*\))$")
LAYOUT = re.compile(r"^layout: load=([0-9a-f]+) stack=([0-9a-f]+) mmap=([0-9a-f]+) "
                    r"brk=([0-9a-f]+) vdso=([0-9a-f]+) norandom=([01])$")
FIELDS = ("load", "stack", "mmap", "brk", "vdso")
# Unrandomized (include/ccos/aslr.h, kernel/elf.c): a static-pie at its base,
# the stack's top at STACK_TOP; the vDSO, then the first mmap, just below MMAP_TOP.
FIXED = {"load": 0x555555554000, "stack": 0x7ffffffff000}
MMAP_TOP = 0x7f0000000000
# Random pages of each (include/ccos/aslr.h): 2^bits places
BITS = {"load": 28, "stack": 22, "mmap": 28, "brk": 13}
ENTRIES = (0x000, 0x400, 0x800)


def boot_of(mode):
    b = harness.boot("attack-" + mode)
    b.check()
    return b


def layouts(b):
    out = []
    for line in b.lines():
        m = LAYOUT.match(line)
        if m:
            out.append(dict(zip(FIELDS, (int(v, 16) for v in m.groups()[:5])),
                            norandom=m.group(6) == "1"))
    assert len(out) == 4, b.report("expected four `layout:` lines, got %d" % len(out))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_attempts(mode):
    b = boot_of(mode)
    got = {}
    for line in b.lines():
        m = RESULT.match(line)
        if m:
            got[m.group(1)] = m.group(2)
    for name, want in EXPECTED[mode].items():
        assert got.get(name) == want, b.report(
            "attack %s in vsyscall=%s: expected %r, got %r" % (name, mode, want, got.get(name)))


@pytest.mark.parametrize("mode", MODES)
def test_layout_random_then_not(mode):
    b = boot_of(mode)
    plain, plain2, norand, norand2 = layouts(b)
    assert not plain["norandom"] and norand["norandom"] and norand2["norandom"]
    for f in FIELDS:
        assert plain[f] != plain2[f], b.report("%s did not move between two execs" % f)
        assert plain[f] % 4096 == 0, b.report("%s not page-aligned" % f)
        assert norand[f] == norand2[f], b.report("%s moved under ADDR_NO_RANDOMIZE" % f)
    unrandomized(b, norand)


def unrandomized(b, l):
    for f in FIXED:
        assert l[f] == FIXED[f], b.report("%s at %x without randomization, expected %x" % (f, l[f], FIXED[f]))
    assert MMAP_TOP - (1 << 20) < l["mmap"] < l["vdso"] < MMAP_TOP, b.report(
        "without randomization the vDSO and then the first mmap are just below %x" % MMAP_TOP)


def test_layout_within_its_bits():
    """Each random place lies in the range its bits allow, counted from the unrandomized one."""
    samples = []
    for mode in MODES:
        b = boot_of(mode)
        fixed = layouts(b)[2]
        samples += [(b, fixed, l) for l in layouts(b)[:2]]
    for b, fixed, l in samples:
        span = {f: 4096 << BITS[f] for f in BITS}
        assert fixed["load"] <= l["load"] < fixed["load"] + span["load"], b.report("load %x" % l["load"])
        assert fixed["stack"] - span["stack"] < l["stack"] <= fixed["stack"], b.report("stack %x" % l["stack"])
        assert MMAP_TOP - span["mmap"] - 4096 <= l["mmap"] < MMAP_TOP, b.report("mmap %x" % l["mmap"])
        # the brk moves with the load base, plus its own offset
        brk = l["brk"] - (l["load"] - fixed["load"])
        assert fixed["brk"] <= brk < fixed["brk"] + span["brk"], b.report("brk %x" % l["brk"])
    for f in FIELDS:
        values = [l[f] for _, _, l in samples]
        assert len(set(values)) == len(values), "%s repeated across %d execs: %s" % (
            f, len(values), [hex(v) for v in values])


def test_norandmaps():
    b = harness.boot("aslr-norandmaps")
    b.check()
    got = layouts(b)
    for l in got:
        unrandomized(b, l)
    assert got[0] == got[1], b.report("norandmaps: two execs differ")


def _heatmap_tool():
    path = os.path.join(harness.ROOT, "tools", "heatmap")
    loader = importlib.machinery.SourceFileLoader("heatmap_tool", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


heatmap = _heatmap_tool()


def grid_of(mode):
    b = boot_of(mode)
    try:
        return b, heatmap.read_grid("\n".join(b.lines()))
    except ValueError as e:
        raise AssertionError(b.report(str(e)))


def native_page():
    with open(os.path.join(harness.ROOT, "build", "vsyscall_native.bin"), "rb") as f:
        return f.read()


def expected_letter(mode, offset, page):
    """What a jump to offset must give, or None where the native page's code decides."""
    if mode == "none":
        return "S"
    if offset in ENTRIES:
        return "R"
    if mode in ("emulate", "xonly"):
        return "T" if mode == "emulate" else "S"
    if page[offset] == 0xcc:
        return "T"
    if page[offset:offset + 2] == b"\x0f\x05":
        return "Y"
    return None


@pytest.mark.parametrize("mode", MODES)
def test_heatmap_offsets(mode):
    b, grid = grid_of(mode)
    page = native_page()
    wrong = ["%03x: %s, expected %s" % (o, grid[o], want)
             for o, want in ((o, expected_letter(mode, o, page)) for o in range(4096))
             if want and grid[o] != want]
    assert not wrong, b.report("%d offsets gave the wrong outcome: %s" % (len(wrong), wrong[:10]))
    if mode == "native":
        n = heatmap.counts(grid)
        assert n["T"] >= page.count(0xcc) and n["Y"] >= 1 and n["R"] >= 3, b.report(str(n))


def test_heatmap_picture(tmp_path):
    grids = {mode: grid_of(mode)[1] for mode in MODES}
    out = str(tmp_path / "heatmap.png")
    heatmap.draw(grids, out)
    assert heatmap.png_size(out) == (1280, 416)
    meta = heatmap.png_description(out)
    assert meta["counts"] == {m: heatmap.counts(grids[m]) for m in MODES}


def test_committed_heatmap_matches_the_boots():
    """docs/heatmap.png, which README shows: its counts are this build's (make heatmap redraws it)."""
    meta = heatmap.png_description(os.path.join(harness.ROOT, "docs", "heatmap.png"))
    for mode in MODES:
        if mode == "native" and meta["native_page_sha256"] != heatmap.native_page_sha256():
            continue    # another compiler made other native bytes: their outcomes differ
        assert meta["counts"][mode] == heatmap.counts(grid_of(mode)[1]), (
            "docs/heatmap.png's %s counts differ from this boot's: run `make heatmap`" % mode)


def test_docs_say_what_the_tests_expect():
    """docs/attack.md's table and its sample output (native) are the outcomes checked above."""
    with open(os.path.join(harness.ROOT, "docs", "attack.md")) as f:
        text = f.read()
    for name in EXPECTED["native"]:
        row = re.search(r"^\| `%s` \| (.*) \|$" % re.escape(name), text, re.M)
        assert row, "docs/attack.md has no table row for %s" % name
        assert row.group(1).split(" | ") == [EXPECTED[m][name] for m in MODES], row.group(0)
        sample = re.search(r"^attack: %s: (SUCCEEDED|STOPPED \(.*\))$" % re.escape(name), text, re.M)
        assert sample and sample.group(1) == EXPECTED["native"][name], (
            "docs/attack.md's sample output for %s differs from native's outcome" % name)


def test_docs_gadgets_are_this_builds():
    """docs/attack.md's gadget addresses are the ones attack found in this build's native page."""
    meta = heatmap.png_description(os.path.join(harness.ROOT, "docs", "heatmap.png"))
    if meta["native_page_sha256"] != heatmap.native_page_sha256():
        pytest.skip("this compiler made other native bytes than the ones docs/attack.md describes")
    b = boot_of("native")
    found = [l for l in b.lines() if l.startswith("attack: fixed-syscall: ret ")]
    assert len(found) == 1, b.report("no line with the gadgets attack found")
    with open(os.path.join(harness.ROOT, "docs", "attack.md")) as f:
        text = f.read()
    assert found[0] in text, "docs/attack.md does not show %r" % found[0]
    for addr in re.findall(r"ffffffffff6[0-9a-f]{5}", found[0]):
        assert "| `%s` |" % addr in text, "docs/attack.md's gadget table lacks %s" % addr
