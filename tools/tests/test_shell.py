"""The shell on the serial console (user/sh.c), typed into as a person would.

The steps run in one boot, as tools/tests/shell_session.py's job; each test
here reports one step.
"""
import pytest

import procs
import shell_session


@pytest.fixture(scope="module")
def sh():
    s = shell_session.session()
    if "boot" in s.failures:
        pytest.fail("the shell boot never reached its prompt: %s" % s.failures["boot"])
    return s


def test_banner_names_the_demos(sh):
    for demo in ("vsyscalltest", "vdsotest", "cat /proc/self/maps", "attack", "bench", "poweroff"):
        assert demo in sh.text, "the banner does not name %s" % demo


def test_make_run_carries_what_attack_needs():
    """`make run`'s ISO has /bin/vsyscall_native, which the shell boot gives attack too."""
    r = procs.run(["make", "-s", "-n", "iso"], 60, cwd=shell_session.harness.ROOT)
    assert "--module build/vsyscall_native.bin:/bin/vsyscall_native" in r.stdout, r.stdout


@pytest.mark.parametrize("name", [fn.__name__ for fn in shell_session.STEPS])
def test_step(sh, name):
    assert name in sh.ran, "step %s never ran: the console had ended" % name
    if name in sh.skipped:
        pytest.skip(sh.skipped[name])
    assert name not in sh.failures, "step %s: %s" % (name, sh.failures[name])


def test_powered_off_with_status_0(sh):
    assert sh.status == 0, "ccos's exit status after ^D at the prompt: %r" % sh.status
