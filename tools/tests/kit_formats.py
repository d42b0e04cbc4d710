"""The formats the course kit writes for other platforms, checked as their documentation gives them.

Gradescope's "Autograder Specifications" (Output format): results.json is
an object with an optional top-level `score` (required without scores on
the tests), `execution_time`, `output`, `output_format`,
`test_output_format`, `test_name_format`, `visibility`,
`stdout_visibility`, `extra_data`, `tests`, `leaderboard`; each test an
object with optional `score`, `max_score`, `status` (passed, failed),
`name`, `name_format`, `number`, `output`, `output_format`, `tags`,
`visibility`, `extra_data`. Visibility is one of hidden, after_due_date,
after_published, visible. GitHub Classroom's grading reporter reads a
base64 JSON object whose `tests` each have `name`, `status` (pass, fail)
and `score`, beside a `max_score`.
"""
import base64
import json
import numbers

TOP = {"score": numbers.Real, "execution_time": numbers.Real, "output": str, "output_format": str,
       "test_output_format": str, "test_name_format": str, "visibility": str,
       "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list}
TEST = {"score": numbers.Real, "max_score": numbers.Real, "status": str, "name": str,
        "name_format": str, "number": str, "output": str, "output_format": str, "tags": list,
        "visibility": str, "extra_data": dict}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "simple_format", "html", "md", "ansi"}


def _fields(obj, allowed, where):
    assert isinstance(obj, dict), "%s is not an object" % where
    for k, v in obj.items():
        assert k in allowed, "%s: %r is not a field of Gradescope's format" % (where, k)
        assert isinstance(v, allowed[k]) and not isinstance(v, bool), \
            "%s: %s is %r, not a %s" % (where, k, v, allowed[k].__name__)
    for k in ("visibility", "stdout_visibility"):
        assert obj.get(k, "visible") in VISIBILITY, "%s: %s %r" % (where, k, obj[k])
    for k in ("output_format", "test_output_format", "test_name_format", "name_format"):
        assert obj.get(k, "text") in FORMATS, "%s: %s %r" % (where, k, obj[k])


def check_gradescope(obj):
    """Assert obj is a results.json as Gradescope specifies it, with what the kit promises:
    a top-level score, and per test name, score, max_score, output and visibility."""
    json.loads(json.dumps(obj))     # plain JSON
    _fields(obj, TOP, "results.json")
    assert "score" in obj, "results.json: no top-level score"
    assert obj["tests"], "results.json: no tests"
    for i, t in enumerate(obj["tests"]):
        _fields(t, TEST, "test %d" % i)
        for k in ("name", "score", "max_score", "output", "visibility"):
            assert k in t, "test %d: no %s" % (i, k)
        assert 0 <= t["score"] <= t["max_score"], "test %d: score %r of %r" % (i, t["score"], t["max_score"])
        assert t.get("status", "passed") in ("passed", "failed")
    assert abs(obj["score"] - sum(t["score"] for t in obj["tests"])) < 1e-9, \
        "results.json: the score is not the sum of the tests' scores"


def check_classroom(encoded, gradescope):
    """Assert encoded is the reporter's input for the same grade as the gradescope object."""
    obj = json.loads(base64.b64decode(encoded))
    assert obj["max_score"] == sum(t["max_score"] for t in gradescope["tests"])
    assert obj["status"] in ("pass", "fail")
    assert [t["name"] for t in obj["tests"]] == [t["name"] for t in gradescope["tests"]]
    for t, g in zip(obj["tests"], gradescope["tests"]):
        assert t["status"] == ("pass" if g["score"] >= g["max_score"] else "fail")
        assert t["score"] == g["score"]
