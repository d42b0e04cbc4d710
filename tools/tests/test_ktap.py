"""Each KTAP result of each ktap=True boot (configs.py) as a pytest case of its own."""
import os

import pytest

import harness


def test_ktap(ktap_result):
    name, doc, number = ktap_result
    b = harness.boot(name)
    r = next(r for r in b.ktap[doc].results if r.number == number)
    if r.skipped:
        pytest.skip("%s %s" % (r.directive, r.reason))
    if r.failed:
        details = "\n".join("    | " + l for l in r.details) or "    | (no messages)"
        pytest.fail("%s\n  printed before it:\n%s\n  serial log: %s"
                    % (r.line, details, os.path.relpath(b.log_path, harness.ROOT)), pytrace=False)
