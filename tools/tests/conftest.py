"""pytest glue for the ccos harness: boots at collection for the KTAP cases, and in parallel."""
import os

import pytest

import shell_session  # noqa: F401 (registers the shell boot's job)
import harness
import labkit
from labkit import kit  # noqa: F401 (the course kit's trees, one set a session)
from configs import CONFIGS


def pytest_configure(config):
    reporter = config.pluginmanager.getplugin("terminalreporter")
    if reporter:
        harness.say = lambda line: reporter.write_line(line)


TEST_MARKS = "not course and not bench"    # make test's -m (the Makefile's)


def _whole_suite(config):
    """Whether this run selects the whole suite (make test's): no -k, no -m but the one that
    leaves out the course's proofs, only folders named."""
    return (not config.getoption("keyword")
            and config.getoption("markexpr") in ("", TEST_MARKS)
            and all(os.path.isdir(a.split("::")[0]) for a in config.args))


def _ktap_params(config):
    """One pytest parameter per top-level KTAP result of each ktap=True boot."""
    if config.getoption("markexpr") in ("course", "bench"):
        return []       # make test-course, make bench: their own boots, none of the matrix
    ktap_configs = [c for c in CONFIGS if c.ktap and not harness.unsupported(c)]
    # -k 'init-bios and muslclose' boots only init-bios: a conjunction that
    # names a boot cannot match another boot's cases.
    terms = config.getoption("keyword").replace("(", " ").replace(")", " ").split()
    if "or" not in terms and "not" not in terms:
        named = [c for c in ktap_configs if c.name in terms]
        ktap_configs = named or ktap_configs
    # The whole suite needs every boot and gdb session: start them all now,
    # the slowest first, so that both QEMUs stay busy to the end.
    if _whole_suite(config):
        harness.prefetch([c.name for c in CONFIGS] + list(harness._job_registry))
        labkit.start()
    harness.prefetch(ktap_configs)
    params = []
    for c in ktap_configs:
        b = harness.boot(c)
        several = len(b.ktap) > 1
        for doc, r in b.results():
            number = "%d.%d" % (doc + 1, r.number) if several else str(r.number)
            params.append(pytest.param((c.name, doc, r.number),
                                       id="%s/%s/%s" % (c.name, number, r.name or "-")))
    return params


def pytest_generate_tests(metafunc):
    # KTAP results are only known once the kernel has run, so the boots
    # that print KTAP happen here, at collection.
    if ("kit" in metafunc.fixturenames and not metafunc.config.option.collectonly
            and metafunc.config.getoption("markexpr") not in ("bench", "course")):
        labkit.start()
    if "ktap_result" in metafunc.fixturenames:
        metafunc.parametrize("ktap_result", _ktap_params(metafunc.config))


def pytest_collection_modifyitems(session, config, items):
    """test_nothing_outlives_the_suite runs last, after every boot and host run."""
    last = [i for i in items if i.name == "test_nothing_outlives_the_suite"]
    items[:] = [i for i in items if i not in last] + last


def pytest_collection_finish(session):
    """Start every boot that a selected test names, two at a time, before the tests run."""
    config = session.config
    names = set()
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        for value in (callspec.params.values() if callspec else ()):
            if isinstance(value, str) and value in harness._registry:
                names.add(value)
    harness.prefetch(sorted(names, key=list(harness._registry).index))
    if _whole_suite(config):
        # The gdb sessions of modules collected after the first KTAP boot's
        # (test_pti's audits, test_replay's) were not registered yet then.
        harness.prefetch(list(harness._job_registry))


def pytest_terminal_summary(terminalreporter, config):
    """Where the time went: the boots' and gdb sessions' total and the ten slowest (make test
    V=1 also printed each as it ended, harness.VERBOSE)."""
    times = sorted(harness._times.items(), key=lambda kv: -kv[1])
    if times:
        terminalreporter.write_line("%d boots and gdb sessions, %.0f s of QEMU in all; the ten slowest: %s" % (
            len(times), sum(t for _, t in times), ", ".join("%s %.0f s" % kv for kv in times[:10])))


def pytest_sessionfinish(session):
    labkit.shutdown()
    harness.shutdown()


@pytest.fixture
def boot():
    """boot(name_or_config) -> harness.Boot, booted once per session."""
    return harness.boot
