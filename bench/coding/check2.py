"""DEVELOPERS: DO NOT READ THIS FILE. It is only run and checked, never read, never tuned on; report its summary numbers only.

The coding bench's check-only half: six repositories (four Python, one JavaScript run by node's own
test runner, one shell script tested by ``make test``), 25 steps, asked mostly in English and partly in
other languages. ``SOLVED`` holds a hand-made right answer to each step, for
tests/test_coding_check_set.py.

    .venv/bin/python bench/coding_bench.py --model qwen2.5-coder-1.5b --set check2 --retry --masked
"""

from __future__ import annotations

from spec import PY_ALLOW, Repo, Step

PYTEST = "python3 -m pytest -q -p no:cacheprovider"

GEOMETRY = Repo("geometry", "python", {
    "geometry/__init__.py": "",
    "geometry/shapes.py": '"""Areas and perimeters of plane shapes."""\n\nimport math\n\n\n'
                          "def circle_area(radius):\n    return math.pi * radius ** 2\n\n\n"
                          "def rectangle_perimeter(width, height):\n    return width + height * 2\n\n\n"
                          "def triangle_area(base, height):\n    return base * height / 2\n",
    "tests/test_shapes.py": "import math\n\nfrom geometry.shapes import circle_area, rectangle_perimeter, triangle_area\n\n\n"
                            "def test_circle_area():\n    assert math.isclose(circle_area(2), 4 * math.pi)\n\n\n"
                            "def test_rectangle_perimeter():\n    assert rectangle_perimeter(3, 4) == 14\n\n\n"
                            "def test_triangle_area():\n    assert triangle_area(6, 5) == 15\n",
}, PY_ALLOW, PYTEST, [
    Step("rectangle_perimeter(3, 4) returns 11 instead of 14, looks like the width is only counted once. Can you "
         "fix it in geometry/shapes.py? Please don't change tests/test_shapes.py.", "fix", tests_pass=True,
         leave=["tests/test_shapes.py"],
         expr="from geometry.shapes import rectangle_perimeter; assert rectangle_perimeter(2.5, 1) == 7 "
              "and rectangle_perimeter(0, 5) == 10"),
    Step("I need a function distance(p, q) in geometry/shapes.py that returns the straight-line distance between "
         "two points given as (x, y) tuples.", "add_function",
         defines={"geometry/shapes.py": ["distance", "circle_area", "rectangle_perimeter", "triangle_area"]},
         expr="from geometry.shapes import distance; assert distance((0, 0), (3, 4)) == 5 and "
              "abs(distance((1, 1), (2, 2)) - 2 ** 0.5) < 1e-9"),
    Step("could you cover distance with a test in tests/test_shapes.py?", "add_test",
         tested={"tests/test_shapes.py": "distance"}, tests_pass=True),
    Step("run tests pls", "run_tests", run=True),
])

TASKQUEUE = Repo("taskqueue", "python", {
    "taskqueue.py": '"""A first-in, first-out queue of jobs."""\n\n\nclass TaskQueue:\n    def __init__(self):\n'
                    "        self.items = []\n\n    def push(self, task):\n        self.items.append(task)\n\n"
                    "    def pop(self):\n        if not self.items:\n            return None\n"
                    "        return self.items.pop(0)\n\n    def size(self):\n        return len(self.items)\n",
    "test_taskqueue.py": "import unittest\n\nfrom taskqueue import TaskQueue\n\n\nclass TaskQueueTest(unittest.TestCase):\n"
                         "    def test_push_and_size(self):\n        q = TaskQueue()\n        q.push(\"backup\")\n"
                         "        q.push(\"report\")\n        self.assertEqual(q.size(), 2)\n\n"
                         "    def test_pop_in_order(self):\n        q = TaskQueue()\n        q.push(\"backup\")\n"
                         "        q.push(\"report\")\n        self.assertEqual(q.pop(), \"backup\")\n"
                         "        self.assertEqual(q.pop(), \"report\")\n        self.assertIsNone(q.pop())\n",
}, ["python3 -m unittest", "git status", "git diff"], "python3 -m unittest -q", [
    Step("Please add a peek() method to the TaskQueue class in taskqueue.py. It should return the next task "
         "without taking it off the queue, or None when the queue is empty.", "add_function",
         defines={"taskqueue.py": ["peek", "push", "pop", "size", "TaskQueue"]},
         expr="from taskqueue import TaskQueue; q = TaskQueue(); assert q.peek() is None; q.push('x'); "
              "q.push('y'); assert q.peek() == 'x' and q.size() == 2"),
    Step("Kannst du in test_taskqueue.py noch einen Test für peek schreiben?", "add_test",
         tested={"test_taskqueue.py": "peek"}, tests_pass=True),
    Step("push should really be called enqueue. Change the name in taskqueue.py and update test_taskqueue.py to "
         "match.", "rename", defines={"taskqueue.py": ["enqueue", "pop", "peek", "size"]},
         absent={"taskqueue.py": ["push"], "test_taskqueue.py": ["push"]},
         removes=["push", "test_push_and_size"], tests_pass=True),
    Step("ok, now run the unit tests", "run_tests", run=True),
])

CONFLOAD = Repo("confload", "python", {
    "confload.py": '"""Reads simple KEY = VALUE configuration text."""\n\n\ndef parse_line(line):\n'
                   '    """(key, value) of a "key = value" line, or None for a blank line or a # comment."""\n'
                   "    line = line.strip()\n    if not line or line.startswith(\"#\"):\n        return None\n"
                   "    key, value = line.split(\"=\")\n    return key.strip(), value.strip()\n\n\n"
                   "def load(text):\n    pairs = (parse_line(line) for line in text.splitlines())\n"
                   "    return dict(p for p in pairs if p)\n\n\n"
                   "def as_bool(value):\n    return value.strip().lower() in (\"1\", \"true\", \"yes\", \"on\")\n",
    "test_confload.py": "from confload import as_bool, load, parse_line\n\n\ndef test_comment_is_skipped():\n"
                        "    assert parse_line(\"  # port = 80\") is None\n\n\ndef test_value_with_equals_sign():\n"
                        "    assert parse_line(\"url = http://x/?a=1\") == (\"url\", \"http://x/?a=1\")\n\n\n"
                        "def test_load():\n    assert load(\"name = demo\\n\\ndebug = yes\\n\") == "
                        "{\"name\": \"demo\", \"debug\": \"yes\"}\n\n\n"
                        "def test_as_bool():\n    assert as_bool(\"Yes\") and not as_bool(\"off\")\n",
}, PY_ALLOW, PYTEST, [
    Step("can u run the tests", "run_tests", run=True),
    Step("load va in errore (too many values to unpack) quando un valore contiene un segno di uguale, tipo "
         "token = abc=def. Correggilo in confload.py senza toccare test_confload.py.", "fix", tests_pass=True,
         leave=["test_confload.py"],
         expr="from confload import load; assert load('a = b=c\\n# x\\nd=1') == {'a': 'b=c', 'd': '1'}"),
    Step("I'd prefer as_bool to be named parse_bool; please change it in confload.py and in test_confload.py.",
         "rename", defines={"confload.py": ["parse_bool", "parse_line", "load"]},
         absent={"confload.py": ["as_bool"], "test_confload.py": ["as_bool"]}, removes=["as_bool", "test_as_bool"],
         tests_pass=True),
    Step("Add get_int(config, key, default=0) to confload.py: it returns config[key] converted to an int, or "
         "default if the key isn't there.", "add_function",
         defines={"confload.py": ["get_int", "parse_line", "load", "parse_bool"]},
         expr="from confload import get_int; assert get_int({'port': '8080'}, 'port') == 8080 and "
              "get_int({}, 'port', 5) == 5 and get_int({}, 'x') == 0"),
])

PALETTE = Repo("palette", "python", {
    "palette.py": '"""Colour codes."""\n\n\ndef hex_to_rgb(code):\n    code = code.lstrip("#")\n'
                  "    return tuple(int(code[i:i + 2], 16) for i in (0, 2, 4))\n\n\n"
                  'def rgb_to_hex(r, g, b):\n    return f"#{r:02x}{g:02x}{b:02x}"\n\n\n'
                  "def is_grey(r, g, b):\n    return r == g == b\n",
    "tests/test_palette.py": "from palette import hex_to_rgb, is_grey, rgb_to_hex\n\n\ndef test_hex_to_rgb():\n"
                             '    assert hex_to_rgb("#ff8000") == (255, 128, 0)\n\n\ndef test_rgb_to_hex():\n'
                             '    assert rgb_to_hex(0, 128, 255) == "#0080ff"\n\n\ndef test_is_grey():\n'
                             "    assert is_grey(90, 90, 90)\n    assert not is_grey(90, 91, 90)\n",
}, PY_ALLOW, PYTEST, [
    Step("Muda o nome da função is_grey para is_gray, tanto em palette.py como em tests/test_palette.py.", "rename",
         defines={"palette.py": ["is_gray", "hex_to_rgb", "rgb_to_hex"]},
         absent={"palette.py": ["is_grey"], "tests/test_palette.py": ["is_grey"]},
         removes=["is_grey", "test_is_grey"], tests_pass=True),
    Step("Acrescenta em palette.py uma função invert(code) que recebe uma cor em hex como '#1a2b3c' e devolve a cor "
         "inversa (255 menos cada componente), também em hex.", "add_function",
         defines={"palette.py": ["invert", "hex_to_rgb", "rgb_to_hex", "is_gray"]},
         expr="from palette import invert; assert invert('#000000').lower() == '#ffffff' and "
              "invert('#1a2b3c').lower() == '#e5d4c3'"),
    Step("Thanks! Now add a test for invert to tests/test_palette.py.", "add_test",
         tested={"tests/test_palette.py": "invert"}, tests_pass=True),
    Step("Would you run the test suite to make sure everything still passes?", "run_tests", run=True),
])

VEC_JS = Repo("vec-js", "js", {
    "package.json": '{\n  "name": "vec",\n  "version": "0.2.0",\n  "private": true\n}\n',
    "vec.js": "// Two-dimensional vectors as [x, y] arrays.\n\nfunction sum(a, b) {\n  return [a[0] + b[0], a[1] + b[1]];\n}\n\n"
              "function scale(v, k) {\n  return [v[0] * k, v[1] * k];\n}\n\n"
              "function dot(a, b) {\n  return a[0] * b[0] + a[1] * b[0];\n}\n\n"
              "function norm(v) {\n  return Math.hypot(v[0], v[1]);\n}\n\n"
              "module.exports = { sum, scale, dot, norm };\n",
    "vec.test.js": 'const test = require("node:test");\nconst assert = require("node:assert");\n'
                   'const { sum, scale, dot, norm } = require("./vec");\n\n'
                   'test("vectors add component by component", () => {\n'
                   '  assert.deepStrictEqual(sum([1, 2], [3, 4]), [4, 6]);\n});\n\n'
                   'test("scaling multiplies both components", () => {\n'
                   '  assert.deepStrictEqual(scale([1, -2], 3), [3, -6]);\n});\n\n'
                   'test("dot product of two vectors", () => {\n  assert.strictEqual(dot([1, 2], [3, 4]), 11);\n});\n\n'
                   'test("length of a 3-4 vector is 5", () => {\n  assert.strictEqual(norm([3, 4]), 5);\n});\n',
}, ["node --test", "git status", "git diff"], "node --test", [
    Step("Run the tests for me?", "run_tests", run=True),
    Step("dot([1, 2], [3, 4]) geeft 9 in plaats van 11. Kun je dot in vec.js repareren? Laat vec.test.js zoals het is.",
         "fix", tests_pass=True, leave=["vec.test.js"],
         expr="const v = require('./vec'); if (v.dot([2, 5], [7, -1]) !== 9 || v.dot([0, 3], [4, 2]) !== 6) "
              "process.exit(1)"),
    Step("norm is a confusing name, call it magnitude instead (in vec.js and in vec.test.js).", "rename",
         defines={"vec.js": ["magnitude", "sum", "scale", "dot"]},
         absent={"vec.js": ["norm"], "vec.test.js": ["norm"]}, removes=["norm"], tests_pass=True),
    Step("Add a function rotate90(v) to vec.js that turns v a quarter turn counter-clockwise ([x, y] becomes "
         "[-y, x]), and export it.", "add_function", defines={"vec.js": ["rotate90", "sum", "dot", "magnitude"]},
         expr="const v = require('./vec'); const r = v.rotate90([3, 1]); if (r[0] !== -1 || r[1] !== 3) "
              "process.exit(1)"),
    Step("and a test for rotate90 in vec.test.js please", "add_test", tested={"vec.test.js": "rotate90"},
         tests_pass=True),
])

MATHSH = Repo("mathsh", "shell", {
    "lib.sh": "# Integer helpers, sourced by tests.sh.\n\nabs_val() {\n  printf '%s\\n' \"${1#-}\"\n}\n\n"
              "max_of() {\n  local best=$1 n\n  for n in \"$@\"; do\n"
              "    if [ \"$n\" -lt \"$best\" ]; then best=$n; fi\n  done\n  printf '%s\\n' \"$best\"\n}\n",
    "tests.sh": "#!/usr/bin/env bash\n# Checks the functions of lib.sh; exits 1 when one fails.\n. ./lib.sh\nfail=0\n\n"
                "check() {\n  if [ \"$2\" = \"$3\" ]; then\n    echo \"ok - $1\"\n  else\n"
                "    echo \"not ok - $1: got '$2', want '$3'\"\n    fail=1\n  fi\n}\n\n"
                "check \"abs_val\" \"$(abs_val -7)\" \"7\"\n"
                "check \"max_of\" \"$(max_of 3 9 4)\" \"9\"\nexit $fail\n",
    "Makefile": "test:\n\tbash tests.sh\n\n.PHONY: test\n",
}, ["make test", "git status", "git diff"], "make -s test", [
    Step("Draai de tests even met make test.", "run_tests", run=True),
    Step("max_of geeft het kleinste getal terug in plaats van het grootste (max_of 3 9 4 geeft 3). Repareer het in "
         "lib.sh, maar laat tests.sh met rust.", "fix", tests_pass=True, leave=["tests.sh"],
         expr='. ./lib.sh && [ "$(max_of -2 -7)" = -2 ] && [ "$(max_of 5)" = 5 ] && [ "$(max_of 1 8 8 2)" = 8 ]'),
    Step("Could you add a clamp function to lib.sh? clamp VALUE LOW HIGH should print VALUE, or LOW when VALUE is "
         "below LOW, or HIGH when it is above HIGH.", "add_function",
         defines={"lib.sh": ["clamp", "abs_val", "max_of"]},
         expr='. ./lib.sh && [ "$(clamp 15 0 10)" = 10 ] && [ "$(clamp -3 0 10)" = 0 ] && [ "$(clamp 4 0 10)" = 4 ]'),
    Step("Now put a check for clamp in tests.sh.", "add_test", tested={"tests.sh": "clamp"}, tests_pass=True),
])

REPOS = [GEOMETRY, TASKQUEUE, CONFLOAD, PALETTE, VEC_JS, MATHSH]

# A right answer to each step: per step, edits (file, old, new) -- every ``old`` in the file becomes
# ``new``; an empty ``old`` appends ``new`` (a new file where there is none). A run step edits nothing.
SOLVED: dict[str, list[list[tuple[str, str, str]]]] = {
    "geometry": [
        [("geometry/shapes.py", "width + height * 2", "2 * (width + height)")],
        [("geometry/shapes.py", "", "\n\ndef distance(p, q):\n    return math.hypot(q[0] - p[0], q[1] - p[1])\n")],
        [("tests/test_shapes.py", "import circle_area,", "import circle_area, distance,"),
         ("tests/test_shapes.py", "", "\n\ndef test_distance():\n    assert distance((1, 2), (4, 6)) == 5\n")],
        [],
    ],
    "taskqueue": [
        [("taskqueue.py", "", "\n    def peek(self):\n        return self.items[0] if self.items else None\n")],
        [("test_taskqueue.py", "", "\n    def test_peek(self):\n        q = TaskQueue()\n"
                                   "        self.assertIsNone(q.peek())\n        q.push(\"deploy\")\n"
                                   "        self.assertEqual(q.peek(), \"deploy\")\n        self.assertEqual(q.size(), 1)\n")],
        [("taskqueue.py", "push", "enqueue"), ("test_taskqueue.py", "push", "enqueue")],
        [],
    ],
    "confload": [
        [],
        [("confload.py", 'line.split("=")', 'line.split("=", 1)')],
        [("confload.py", "as_bool", "parse_bool"), ("test_confload.py", "as_bool", "parse_bool")],
        [("confload.py", "", "\n\ndef get_int(config, key, default=0):\n"
                             "    return int(config[key]) if key in config else default\n")],
    ],
    "palette": [
        [("palette.py", "is_grey", "is_gray"), ("tests/test_palette.py", "is_grey", "is_gray")],
        [("palette.py", "", "\n\ndef invert(code):\n    r, g, b = hex_to_rgb(code)\n"
                            "    return rgb_to_hex(255 - r, 255 - g, 255 - b)\n")],
        [("tests/test_palette.py", "import hex_to_rgb,", "import hex_to_rgb, invert,"),
         ("tests/test_palette.py", "", '\n\ndef test_invert():\n    assert invert("#ff0080") == "#00ff7f"\n')],
        [],
    ],
    "vec-js": [
        [],
        [("vec.js", "a[1] * b[0]", "a[1] * b[1]")],
        [("vec.js", "norm", "magnitude"), ("vec.test.js", "norm", "magnitude")],
        [("vec.js", "module.exports = { sum, scale, dot, magnitude };",
          "function rotate90(v) {\n  return [-v[1], v[0]];\n}\n\n"
          "module.exports = { sum, scale, dot, magnitude, rotate90 };")],
        [("vec.test.js", "{ sum, scale, dot, magnitude }", "{ sum, scale, dot, magnitude, rotate90 }"),
         ("vec.test.js", "", '\ntest("a quarter turn", () => {\n'
                             '  assert.deepStrictEqual(rotate90([2, 5]), [-5, 2]);\n});\n')],
    ],
    "mathsh": [
        [],
        [("lib.sh", '[ "$n" -lt "$best" ]', '[ "$n" -gt "$best" ]')],
        [("lib.sh", "", '\nclamp() {\n  if [ "$1" -lt "$2" ]; then printf \'%s\\n\' "$2"\n'
                        '  elif [ "$1" -gt "$3" ]; then printf \'%s\\n\' "$3"\n'
                        "  else printf '%s\\n' \"$1\"\n  fi\n}\n")],
        [("tests.sh", "exit $fail", 'check "clamp" "$(clamp 12 1 5)" "5"\nexit $fail')],
    ],
}
