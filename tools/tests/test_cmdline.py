"""Malformed and unknown command-line options: a warning, the default, and the boot goes on."""
import pytest

BAD = "badopts-bios"    # vsyscall=bogus clocksource= frobnicate -- "a b" c


@pytest.mark.parametrize("pattern", [
    r"^warning: cmdline: bad value for vsyscall=bogus \(expected native\|emulate\|xonly\|none\)",
    r"^warning: cmdline: bad value for clocksource= \(expected tsc\|hpet\|jiffies\)",
    r"^warning: cmdline: unknown option 'frobnicate' ignored$",
], ids=["bad-value", "missing-value", "unknown-option"])
def test_warning(boot, pattern):
    boot(BAD).expect(pattern)


def test_defaults_used(boot):
    boot(BAD).expect(r"^ccos: vsyscall=emulate clocksource=default init=/bin/init$")


def test_init_arguments_accepted(boot):
    """The words after `--` go to init: no warning names them, and init gets them."""
    b = boot(BAD)
    b.expect(r'^ccos: command line ".* -- "a b" c"$')
    warnings = [l for l in b.lines() if l.startswith("warning: cmdline:")]
    assert len(warnings) == 3, b.report("expected 3 cmdline warnings, got:\n" + "\n".join(warnings))
    # init runs its argv[1] as a program: "a b", one word without its quotes, does not exist.
    b.expect(r"^init: cannot execute a b: ", "init was given 'a b' as argv[1]")
