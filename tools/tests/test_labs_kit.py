"""The course kit's rules and formats (docs/teaching.md): markers, what a check needs, a hung
boot's partial credit, no solution line in a student tree, the hand-in's report of exactly its
sources, Gradescope's results.json and bundle, GitHub Classroom's workflow, a class graded in a
batch, and the mutation suite's files."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

import harness
import kit_formats
from ktap import parse_ktap
from labkit import RESTORED, catalog, grade, regions, restore, results, tree, built

sys.path.insert(0, os.path.join(harness.ROOT, "tools", "labs"))
import batch  # noqa: E402
import checks  # noqa: E402
import handin  # noqa: E402
import mutants  # noqa: E402
import sources  # noqa: E402


@pytest.mark.parametrize("text, why", [
    ("/* LAB x: BEGIN */\na\n", "BEGIN without END"),
    ("/* LAB x: BEGIN */\na\n   LAB x: END */\n", "END without its BEGIN and STUB"),
    ("/* LAB x: BEGIN */\na\n/* LAB x: STUB\nb */\n   LAB x: END */\n", "closes its comment early"),
    ("/* LAB x: BEGIN */\n/* LAB y: BEGIN */\n", "inside the region of x"),
    ("a; /* LAB x: BEGIN */\n", "alone on its line"),
    ("; LAB x: BEGIN\na\n%if 0 ; LAB x: STUB\n%endif\n%endif ; LAB x: END\n", "ends its %if 0 early"),
    ("; LAB x: BEGIN\na\n/* LAB x: STUB\nb\n   LAB x: END */\n", "STUB without its BEGIN"),
    ("; LAB x: BEGIN\na\n%if 0 ; LAB x: STUB\nb\n", "BEGIN without END"),
])
def test_regions_refuse_malformed_markers(text, why):
    with pytest.raises(regions.RegionError, match=why):
        regions.scan(text, "f.c")


def test_regions_render_and_restore():
    text = "int f(void)\n{\n\t/* LAB x: BEGIN */\n\treturn 42;\n\t/* LAB x: STUB\n\treturn 0;\n\t   LAB x: END */\n}\n"
    assert regions.render(text, set()) == "int f(void)\n{\n\treturn 42;\n}\n"
    student = regions.render(text, {"x"})
    assert student == "int f(void)\n{\n\treturn 0;\n}\n"
    assert regions.restore(student, text, "x") == regions.render(text, set())


def test_regions_in_nasm():
    """NASM's regions: the stub between %if 0 and %endif, rendered and restored as C's."""
    text = ("%macro m 1\n; LAB x: BEGIN\n\tmov %1, cr3\n%if 0 ; LAB x: STUB\n\t; write it\n"
            "%endif ; LAB x: END\n%endmacro\n")
    assert [(r.lab, r.solution, r.stub) for r in regions.scan(text)] == [
        ("x", ["\tmov %1, cr3\n"], ["\t; write it\n"])]
    assert regions.render(text, set()) == "%macro m 1\n\tmov %1, cr3\n%endmacro\n"
    student = regions.render(text, {"x"})
    assert student == "%macro m 1\n\t; write it\n%endmacro\n"
    assert regions.restore(student, text, "x") == regions.render(text, set())
    assert regions.is_source("arch/x86/include/asm/pti.inc")


def _fake_boot(lines, hung=None):
    log = "ccos: booting\nKTAP version 1\n1..4\n" + "".join(l + "\n" for l in lines)
    if not hung:
        log += "ccos: init exited with status 0\n"
    return harness.Boot(harness.Config("fake"), status=None if hung else 0, log=log, log_path="/x",
                        hung=hung, ktap=parse_ktap(log))


def test_negative_check_counts_only_with_its_positive(tmp_path):
    """syscall: -ENOSYS for everything passes the -ENOSYS check; it needs the calls to work."""
    lab = catalog.find("syscall")
    b = _fake_boot(["not ok 1 syscall_reaches_its_call", "ok 2 syscall_enosys_without_a_call",
                    "ok 3 syscall_six_arguments", "ok 4 syscall_registers_as_the_abi_says"])
    r = grade.grade_lab(lab, {"emulate": b}, str(tmp_path), "/", lambda s: None)
    assert r.score == 0, r.report
    assert "passed, but counts only when 'each number runs its call" in r.report, r.report


def test_hung_boot_scores_zero_and_shows_what_it_printed(tmp_path):
    """A boot that hangs after two results: the lab scores 0, with the boot and the reason;
    the report still shows the two as passed and names the others as lost to it."""
    lab = catalog.find("syscall")
    (tmp_path / lab.answers).write_text("answers\n")
    b = _fake_boot(["ok 1 syscall_reaches_its_call", "ok 2 syscall_enosys_without_a_call"],
                   hung="no serial output for 120 s")
    r = grade.grade_lab(lab, {"emulate": b}, str(tmp_path), "/", lambda s: None)
    assert r.score == 0, r.report
    assert "score 0: the emulate boot failed (hung (no serial output for 120 s)" in r.report, r.report
    passed = [o.check.id for o in r.outcomes if o.why and o.why.startswith("passed, but the emulate boot")]
    assert passed == ["syscall_reaches_its_call", "syscall_enosys_without_a_call", "answers"], r.report
    lost = [o.check.id for o in r.outcomes if o.why and o.why.startswith("lost to the boot's end")]
    assert lost == ["syscall_six_arguments", "syscall_registers_as_the_abi_says",
                    "syscall_direction_flag_masked_and_kept", "syscall_with_tf_set_traps_after_it",
                    "syscall_from_32bit_mode", "seccomp_strict_allows_four",
                    "seccomp_strict_kills_others"], r.report
    assert "the checks lost to it: six arguments" in r.report, r.report
    assert r.report.count("hung") <= 2 + len(lost) + len(passed), "a hang reported for every check:\n" + r.report


def test_vsyscall_labs_boot_every_mode_their_code_runs_in():
    """Labs 3 and 4 boot each vsyscall mode their code runs in, with vsyscalltest alone, so
    that no other program of the boot (the attack) can hang it before its results are out."""
    for name, modes in (("emulate", {"emulate", "xonly", "native"}), ("xonly", {"xonly", "none", "emulate"})):
        boots = [catalog.BOOTS[k] for k in catalog.find(name).boots]
        assert {b.mode for b in boots} == modes, name
        assert all(b.cmdline.split("--")[1].split() == ["/bin/vsyscalltest"] for b in boots), name


def test_catalog_refuses_unknown_needs():
    c = checks.ktap(5, "x", "emulate", "x", needs=["later"])
    with pytest.raises(ValueError, match="needs later"):
        catalog.Lab(9, "nine", "t", (c, checks.ktap(5, "later", "emulate", "later")))


def test_student_tree_refuses_to_show_a_solution_line(tmp_path):
    """A doc quoting a stubbed solution line stops `make lab-tree`, naming the file and line."""
    (tmp_path / "mm").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "mm" / "f.c").write_text(
        "void f(void)\n{\n\t/* LAB fixmap: BEGIN */\n\tmap_the_page(VVAR, PTE_U | PTE_NX);\n"
        "\t/* LAB fixmap: STUB\n\tlab_todo(\"01-fixmap\");\n\t   LAB fixmap: END */\n}\n")
    (tmp_path / "docs" / "a.md").write_text("Write\n\n\tmap_the_page(VVAR, PTE_U | PTE_NX);\n")
    with pytest.raises(regions.RegionError, match=r"docs/a.md:3: map_the_page"):
        tree.check_leaks(str(tmp_path), catalog.find("fixmap"))
    tree.check_leaks(str(tmp_path), catalog.find("gate"))     # lab 1's solution is lab 2's given


def _lab_files(lab):
    """The files holding lab's regions, as the markers say (no path written here)."""
    return [p for p, rs in tree.all_regions(harness.ROOT).items() if any(r.lab == lab.name for r in rs)]


def test_handin_packs_the_grade_of_its_sources(kit, monkeypatch):
    """A report of these sources is packed; after a change the tree is graded again first."""
    lab, path, _ = built(kit, catalog.find("emulate").slug)
    report = grade.report_path(path, lab)
    os.makedirs(os.path.dirname(report), exist_ok=True)
    answers = os.path.join(path, lab.answers)
    changed = os.path.join(path, _lab_files(lab)[0])
    original = open(changed).read()
    regraded = []

    def fake_regrade(root, lab):
        regraded.append(root)
        with open(report, "w") as f:
            f.write("Lab 3: 42/100\n" + sources.line(root) + "Score: 42/100\n")
        return report
    monkeypatch.setattr(handin, "regrade", fake_regrade)
    try:
        with open(answers, "w") as f:
            f.write("my answers\n")
        with open(report, "w") as f:
            f.write("Lab 3: 17/100\n" + sources.line(path) + "Score: 17/100\n")
        names, graded = _pack(path, lab)
        assert not regraded and "17/100" in graded
        top = lab.slug + "/"
        for want in [lab.answers, "tools/labs/labs", tree.LAB_FILE, tree.WORKFLOW] + _lab_files(lab):
            assert top + want in names, "%s is not in the hand-in" % want
        assert not [n for n in names if n.startswith(top + "build/") and "/grade/" not in n]
        with open(changed, "a") as f:
            f.write("/* a change after the grade */\n")
        names, graded = _pack(path, lab)
        assert regraded == [path] and "42/100" in graded, "a stale report was packed:\n" + graded
    finally:
        with open(changed, "w") as f:
            f.write(original)
        os.remove(answers)
        os.remove(report)


def _pack(path, lab):
    name = handin.handin(path, lab)
    try:
        with tarfile.open(os.path.join(path, name)) as tar:
            names = tar.getnames()
            graded = tar.extractfile(lab.slug + "/build/grade/%s.txt" % lab.slug).read().decode()
    finally:
        os.remove(os.path.join(path, name))
    return names, graded


def test_student_tree_runs_its_grade_on_github(kit):
    """.github/workflows/grade.yml: valid YAML, `make grade` with results for Classroom's reporter."""
    yaml = pytest.importorskip("yaml", reason="python3-yaml is not installed")
    _, path, _ = built(kit, catalog.find("fixmap").slug)
    with open(os.path.join(path, tree.WORKFLOW)) as f:
        wf = yaml.safe_load(f)
    steps = wf["jobs"]["grade"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "make grade RESULTS=build/grade/results.json" in runs and "labs classroom" in runs
    reporter = [s for s in steps if "autograding-grading-reporter" in s.get("uses", "")]
    assert reporter and reporter[0]["with"]["runners"] == "grade"
    assert "steps.grade.outputs.result" in reporter[0]["env"]["GRADE_RESULTS"]
    assert wf["jobs"]["grade"]["name"] == "Autograding Tests"      # the check run it reports on


def _old(info):
    info.mtime = 1000000000     # 2001: older than any build, as a student's clock may say
    return info


def _tarball(src, dest, slug, answers=True, breaks=None):
    """A hand-in tarball of the tree at src: its files under slug/, an answers file, and
    optionally one file (breaks) made not to compile; every file dated long ago."""
    with tarfile.open(dest, "w:gz") as tar:
        for p in tree.tracked_files(src):
            tar.add(os.path.join(src, p), arcname=os.path.join(slug, p))
    if answers or breaks:
        work = dest + ".d"
        with tarfile.open(dest) as tar:
            tar.extractall(work)
        t = os.path.join(work, slug)
        if answers:
            with open(os.path.join(t, catalog.find(slug).answers), "w") as f:
                f.write("answers\n")
        if breaks:
            with open(os.path.join(t, breaks), "a") as f:
                f.write("\nthis is not C\n")
        with tarfile.open(dest, "w:gz") as tar:
            tar.add(t, arcname=slug, filter=_old)
        shutil.rmtree(work)


@pytest.mark.course
def test_batch_grades_a_class(kit, tmp_path):
    """Three hand-ins, two at a time: full marks, the untouched stub, a tree that does not build.
    Their files are older than this tree's build, which seeds theirs: each must still be built
    from its own sources (this tree's objects are of the solutions)."""
    lab = catalog.find(RESTORED[0])
    _, full, _ = built(kit, "restored-" + lab.name)
    _, stub, _ = built(kit, lab.slug)
    folder = tmp_path / "class"
    for student in ("ada", "bob", "cy"):
        (folder / student).mkdir(parents=True)
    _tarball(full, str(folder / "ada" / ("handin-%s.tar.gz" % lab.slug)), lab.slug)
    _tarball(stub, str(folder / "bob" / ("handin-%s.tar.gz" % lab.slug)), lab.slug)
    _tarball(stub, str(folder / "cy" / ("handin-%s.tar.gz" % lab.slug)), lab.slug,
             breaks=_lab_files(lab)[0])
    out = str(tmp_path / "grades")
    assert batch.batch(harness.ROOT, str(folder), None, 2, out) == 0
    with open(os.path.join(out, "grades.csv")) as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    answers = sum(c.points for c in lab.checks if c.id == "answers")
    want = {"ada": lab.points, "bob": answers, "cy": 0}
    for student, score in want.items():
        log = open(os.path.join(out, student + ".txt")).read()
        assert rows[student]["lab"] == lab.name and rows[student]["max"] == str(lab.points)
        assert rows[student]["score"] == str(score), "%s: %s\n%s" % (student, rows[student], log[-3000:])
        with open(os.path.join(out, student + ".json")) as f:
            kit_formats.check_gradescope(json.load(f))


@pytest.mark.course
def test_gradescope_bundle_grades_a_submission(tmp_path):
    """The bundle as Gradescope runs it: setup.sh once, run_autograder on a student's tree
    (run in a fresh Debian root too: docs/teaching.md, "Gradescope")."""
    lab = catalog.find(RESTORED[0])
    bundle = str(tmp_path / "autograder.zip")
    subprocess.run([sys.executable, os.path.join(harness.ROOT, "tools", "labs", "labs"), "gradescope",
                    lab.name, bundle], check=True, stdout=subprocess.DEVNULL)
    auto = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as z:
        assert {"setup.sh", "run_autograder"} <= set(z.namelist())
        z.extractall(auto / "source")
    for n in ("setup.sh", "run_autograder", "ccos/tools/setup"):
        os.chmod(auto / "source" / n, 0o755)
    sub = str(auto / "submission")
    tree.write_tree(harness.ROOT, lab, sub)
    restore(sub, lab)
    with open(os.path.join(sub, lab.answers), "w") as f:
        f.write("answers\n")
    if os.path.isdir(harness.BUILD):
        tree.seed_build(harness.ROOT, str(auto / "source" / "ccos"))   # setup.sh's make: only the stubs
    env = dict(os.environ, CCOS_AUTOGRADER=str(auto))
    for step in ("setup.sh", "run_autograder"):
        r = subprocess.run([str(auto / "source" / step)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        assert r.returncode == 0, "%s failed:\n%s" % (step, r.stdout[-3000:])
    with open(auto / "results" / "results.json") as f:
        obj = json.load(f)
    kit_formats.check_gradescope(obj)
    assert obj["score"] == lab.points, json.dumps(obj, indent=1)[-3000:]


def test_mutants_apply():
    """Every mutant names checks of its lab and applies to this tree exactly once (`make mutants`
    grades them)."""
    muts = mutants.load(catalog.graded())
    assert muts
    for m in muts:
        texts = {p: open(os.path.join(harness.ROOT, p)).read() for p in tree.tracked_files(harness.ROOT)
                 if regions.is_source(p)}
        for old, _ in m.edits:
            assert sum(t.count(old) for t in texts.values()) == 1, "%s no longer applies:\n%s" % (m.key, old)


def test_an_edited_nasm_include_rebuilds_the_entry():
    """Lab 8's student writes in asm/pti.inc; NASM's own .d files leave it out (Makefile)."""
    if not os.path.exists(os.path.join(harness.BUILD, "kernel.elf")):
        pytest.skip("build/kernel.elf is missing: run `make` first")
    for obj in ("syscall_entry", "trap_entry"):
        r = subprocess.run(["make", "-n", "-W", "arch/x86/include/asm/pti.inc",
                            "build/arch/x86/entry/%s.o" % obj], cwd=harness.ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert "nasm" in r.stdout and "%s.asm" % obj in r.stdout, r.stdout


def _near(claim, actual):
    """"about N": within 15 % of the count, or 5 lines."""
    return abs(claim - actual) <= max(5, actual * 0.15)


@pytest.mark.parametrize("lab", [lab.name for lab in catalog.LABS])
def test_sizes_in_the_docs_are_the_solutions(lab):
    """Every "about N lines" of a handout, and the lab's row of docs/teaching.md, is the
    size of what the student writes (tree.written_lines), in each language it holds."""
    lab = catalog.find(lab)
    actual = tree.written_lines(harness.ROOT, lab)
    with open(os.path.join(harness.ROOT, lab.handout)) as f:
        handout = " ".join(f.read().split())
    unchecked = re.findall(r"about \d+ lines(?! of (?:C|NASM))", handout)
    assert not unchecked, "%s: a size without its language, which no test checks: %s" % (
        lab.handout, unchecked)
    claims = {}
    for n, language in re.findall(r"about (\d+) lines of (C|NASM)", handout):
        claims.setdefault(language, []).append(int(n))
    with open(os.path.join(harness.ROOT, "docs", "teaching.md")) as f:
        row = [line for line in f if line.startswith("| %d `%s` |" % (lab.number, lab.name))]
    assert len(row) == 1, "docs/teaching.md has no row of its own for lab %d" % lab.number
    m = re.search(r"about (\d+) lines(?: of C and (\d+) of NASM)?", row[0])
    assert m, "docs/teaching.md's row of lab %d gives no size" % lab.number
    claims.setdefault("C", []).append(int(m.group(1)))
    if m.group(2):
        claims.setdefault("NASM", []).append(int(m.group(2)))
    for language, n in actual.items():
        if n:
            assert claims.get(language), "%s gives no size of its %d lines of %s" % (
                lab.handout, n, language)
        for claim in claims.get(language, []):
            assert _near(claim, n), "lab %d's docs say about %d lines of %s; its solution has %d" % (
                lab.number, claim, language, n)
