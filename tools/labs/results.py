"""A grade in the formats of the platforms courses grade on.

Gradescope's autograder reads /autograder/results/results.json: a top-level
`score`, and per test `name`, `score`, `max_score`, `output` and
`visibility` (Gradescope's "Autograder Specifications", Output format).
GitHub Classroom's grading reporter (classroom-resources/
autograding-grading-reporter) reads, per runner, a base64 JSON object with
`status`, `max_score` and `tests` (`name`, `status`, `score`, `message`).
"""
import base64
import json

VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")


def _test_name(lab, check):
    return "Lab %d %s: %s" % (lab.number, lab.name, check.name)


def gradescope(lab_results, output="", visibility="visible"):
    """results.json's object for LabResults (grade.py); output is the whole report."""
    tests = []
    for r in lab_results:
        for o in r.outcomes:
            tests.append({"name": _test_name(r.lab, o.check), "score": float(o.got),
                          "max_score": float(o.check.points),
                          "output": o.why or "passed", "visibility": visibility})
    return {"score": float(sum(r.score for r in lab_results)), "output": output,
            "visibility": visibility, "stdout_visibility": "hidden", "tests": tests}


def failed_build(lab, log, visibility="visible"):
    """results.json's object when the submission does not build: 0 of the lab's points."""
    return {"score": 0.0, "output": "The tree does not build (make all):\n" + log[-3000:],
            "visibility": visibility, "stdout_visibility": "hidden",
            "tests": [{"name": "Lab %d %s: the tree builds" % (lab.number, lab.name), "score": 0.0,
                       "max_score": float(lab.points), "output": log[-3000:],
                       "visibility": visibility}]}


def write_gradescope(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def classroom(results_json):
    """GitHub Classroom's reporter input (base64) from a Gradescope results object."""
    tests = [{"name": t["name"], "status": "pass" if t["score"] >= t["max_score"] else "fail",
              "score": t["score"], "message": t["output"]} for t in results_json["tests"]]
    total = sum(t["max_score"] for t in results_json["tests"])
    obj = {"version": 1, "status": "pass" if results_json["score"] >= total else "fail",
           "max_score": total, "tests": tests}
    return base64.b64encode(json.dumps(obj).encode()).decode()
