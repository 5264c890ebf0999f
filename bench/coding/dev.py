"""The coding bench's development half: six repositories, 24 steps, read and tuned on."""

from __future__ import annotations

from spec import PY_ALLOW, Repo, Step

PYTEST = "python3 -m pytest -q -p no:cacheprovider"

TEXTUTIL = Repo("textutil", "python", {
    "textutil.py": '"""Small text helpers."""\n\n\ndef slugify(text):\n    return "-".join(text.lower().split())\n\n\n'
                   'def shout(text):\n    return text.upper() + "!"\n',
    "test_textutil.py": 'from textutil import shout, slugify\n\n\ndef test_slugify():\n    assert slugify("Hello World")'
                        ' == "hello-world"\n\n\ndef test_shout():\n    assert shout("hi") == "HI!"\n',
}, PY_ALLOW, PYTEST, [
    Step("Add a function reverse_words(text) to textutil.py that returns the words of text in reverse order, "
         "joined by single spaces.", "add_function", defines={"textutil.py": ["reverse_words", "slugify", "shout"]},
         expr="from textutil import reverse_words; assert reverse_words('a b c') == 'c b a'"),
    Step("Now add a test for reverse_words to test_textutil.py.", "add_test",
         tested={"test_textutil.py": "reverse_words"}, tests_pass=True),
    Step("run the tests", "run_tests", run=True),
    Step("Rename shout to yell in textutil.py and test_textutil.py.", "rename", defines={"textutil.py": ["yell"]},
         absent={"textutil.py": ["shout"], "test_textutil.py": ["shout"]}, removes=["shout", "test_shout"],
         tests_pass=True),
])

STATS = Repo("stats", "python", {
    "stats.py": "def total(values):\n    return sum(values)\n\n\ndef mean(values):\n"
                "    return sum(values) / (len(values) - 1)\n",
    "test_stats.py": "from stats import mean, total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n\n\n"
                     "def test_mean():\n    assert mean([2, 4, 6]) == 4\n",
}, PY_ALLOW, PYTEST, [
    Step("run the tests", "run_tests", run=True),
    Step("test_mean fails. Fix mean in stats.py so that it passes, and leave test_stats.py alone.", "fix",
         tests_pass=True, leave=["test_stats.py"], expr="from stats import mean; assert mean([1, 2]) == 1.5"),
    Step("Add a function largest(values) to stats.py that returns the biggest of the values.", "add_function",
         defines={"stats.py": ["largest", "mean", "total"]}, expr="from stats import largest; assert largest([3, 9, 2]) == 9"),
    Step("Add a test for largest to test_stats.py.", "add_test", tested={"test_stats.py": "largest"}, tests_pass=True),
    Step("Run the tests again.", "run_tests", run=True),
])

STOCK = Repo("inventory", "python", {
    "inventory/__init__.py": "",
    "inventory/stock.py": "class Stock:\n    def __init__(self):\n        self.items = {}\n\n"
                          "    def add(self, name, qty=1):\n        self.items[name] = self.items.get(name, 0) + qty\n\n"
                          "    def remove(self, name, qty=1):\n        self.items[name] = self.items.get(name, 0) - qty\n",
    "tests/test_stock.py": 'from inventory.stock import Stock\n\n\ndef test_add():\n    s = Stock()\n    s.add("apple", 2)\n'
                           '    assert s.items["apple"] == 2\n\n\ndef test_remove():\n    s = Stock()\n    s.add("apple", 3)\n'
                           '    s.remove("apple")\n    assert s.items["apple"] == 2\n',
}, PY_ALLOW, PYTEST, [
    Step("Add a method count(name) to the Stock class in inventory/stock.py that returns how many of name are in "
         "stock, 0 when there are none.", "add_function", defines={"inventory/stock.py": ["count", "add", "remove"]},
         expr="from inventory.stock import Stock; s = Stock(); s.add('pear', 2); assert s.count('pear') == 2 "
              "and s.count('fig') == 0"),
    Step("Add a test for count to tests/test_stock.py.", "add_test", tested={"tests/test_stock.py": "count"},
         tests_pass=True),
    Step("Run the tests.", "run_tests", run=True),
    Step("Rename the method remove to take, in inventory/stock.py and in tests/test_stock.py.", "rename",
         defines={"inventory/stock.py": ["take"]}, absent={"inventory/stock.py": ["remove"], "tests/test_stock.py": ["remove"]},
         removes=["remove", "test_remove"], tests_pass=True),
])

WHEN = Repo("when", "python", {
    "when.py": "from datetime import date, timedelta\n\n\ndef is_weekend(day):\n    return day.weekday() >= 5\n\n\n"
               "def days_between(a, b):\n    return (b - a).days\n",
    "test_when.py": "from datetime import date\n\nfrom when import days_between, is_weekend\n\n\ndef test_is_weekend():\n"
                    "    assert is_weekend(date(2024, 6, 8))\n    assert not is_weekend(date(2024, 6, 10))\n\n\n"
                    "def test_days_between():\n    assert days_between(date(2024, 1, 1), date(2024, 1, 5)) == 4\n\n\n"
                    "def test_days_between_any_order():\n    assert days_between(date(2024, 1, 5), date(2024, 1, 1)) == 4\n",
}, PY_ALLOW, PYTEST, [
    Step("days_between gives a negative number when the first date is the later one; it should always give the "
         "number of days between them as a positive number. Fix it, and do not change test_when.py.", "fix",
         tests_pass=True, leave=["test_when.py"],
         expr="from datetime import date; from when import days_between; assert days_between(date(2024, 3, 9), "
              "date(2024, 3, 2)) == 7"),
    Step("Add a function next_monday(day) to when.py that returns the date of the first Monday after day.",
         "add_function", defines={"when.py": ["next_monday", "is_weekend", "days_between"]},
         expr="from datetime import date; from when import next_monday; assert next_monday(date(2024, 6, 8)) == "
              "date(2024, 6, 10) and next_monday(date(2024, 6, 10)) == date(2024, 6, 17)"),
    Step("Add a test for next_monday to test_when.py.", "add_test", tested={"test_when.py": "next_monday"},
         tests_pass=True),
    Step("run the tests please", "run_tests", run=True),
])

CALC_JS = Repo("calc-js", "js", {
    "package.json": '{\n  "name": "calc",\n  "version": "1.0.0",\n  "scripts": {"test": "node --test"}\n}\n',
    "calc.js": "function add(a, b) {\n  return a + b;\n}\n\nfunction subtract(a, b) {\n  return a - b;\n}\n\n"
               "module.exports = { add, subtract };\n",
    "calc.test.js": 'const test = require("node:test");\nconst assert = require("node:assert");\n'
                    'const { add, subtract } = require("./calc");\n\ntest("add", () => {\n  assert.strictEqual(add(2, 3), 5);\n'
                    '});\n\ntest("subtract", () => {\n  assert.strictEqual(subtract(5, 3), 2);\n});\n',
}, ["npm test", "git status", "git diff"], "npm test --silent", [
    Step("Add a function multiply(a, b) to calc.js that returns a times b, and export it.", "add_function",
         defines={"calc.js": ["multiply", "add", "subtract"]},
         expr="const c = require('./calc'); if (c.multiply(3, 4) !== 12) process.exit(1)"),
    Step("Now add a test for multiply to calc.test.js.", "add_test", tested={"calc.test.js": "multiply"},
         tests_pass=True),
    Step("run the tests", "run_tests", run=True),
])

GREET = Repo("greet", "python", {
    "greet.py": 'def greeting(name):\n    return f"Hello, {name}!"\n',
    "app.py": 'from greet import greeting\n\n\ndef main(names):\n    return [greeting(n) for n in names]\n\n\n'
              'if __name__ == "__main__":\n    print("\\n".join(main(["Ada", "Linus"])))\n',
    "test_app.py": 'from app import main\n\n\ndef test_main():\n    assert main(["Ada"]) == ["Hello, Ada!"]\n',
}, PY_ALLOW, PYTEST, [
    Step("Rename the function greeting to welcome in greet.py and app.py.", "rename",
         defines={"greet.py": ["welcome"], "app.py": ["main"]}, absent={"greet.py": ["greeting"], "app.py": ["greeting"]},
         removes=["greeting"], tests_pass=True),
    Step("Run the tests.", "run_tests", run=True),
    Step("Add a function farewell(name) to greet.py that returns 'Goodbye, NAME!' with the name in place of NAME.",
         "add_function", defines={"greet.py": ["farewell"]},
         expr="from greet import farewell; assert farewell('Ada') == 'Goodbye, Ada!'"),
    Step("Add a test for farewell in a new file test_greet.py.", "add_test", tested={"test_greet.py": "farewell"},
         tests_pass=True),
])

REPOS = [TEXTUTIL, STATS, STOCK, WHEN, CALC_JS, GREET]
