"""The coding bench's second development half: written blind by a helper as the check-only half (rounds
42-51, counts only), read from round 52 on and tuned on since; bench/coding/check2.py is the check-only
half now.

Six repositories (four Python, one JavaScript run by node's own
test runner, one shell script tested by ``make test``), asked in English, German, Spanish and French.
``SOLVED`` holds a hand-made right answer to each step, for tests/test_coding_check_set.py.

    .venv/bin/python bench/coding_bench.py --model qwen2.5-coder-1.5b --set dev2 --retry --log /tmp/dev2-logs
"""

from __future__ import annotations

from spec import PY_ALLOW, Repo, Step

PYTEST = "python3 -m pytest -q -p no:cacheprovider"

CONVERT = Repo("convert", "python", {
    "convert.py": '"""Unit conversions."""\n\n\ndef celsius_to_fahrenheit(celsius):\n    return celsius * 9 / 5 + 32\n\n\n'
                  "def km_to_miles(km):\n    return km * 1.609344\n",
    "test_convert.py": "from convert import celsius_to_fahrenheit, km_to_miles\n\n\ndef test_celsius_to_fahrenheit():\n"
                       "    assert celsius_to_fahrenheit(100) == 212\n\n\ndef test_km_to_miles():\n"
                       "    assert round(km_to_miles(16.09344), 3) == 10.0\n",
}, PY_ALLOW, PYTEST, [
    Step("Please run the tests.", "run_tests", run=True),
    Step("test_km_to_miles is failing. Fix the bug in km_to_miles in convert.py, but don't edit test_convert.py.",
         "fix", tests_pass=True, leave=["test_convert.py"],
         expr="from convert import km_to_miles; assert abs(km_to_miles(42.195) - 26.219) < 0.001"),
    Step("Add a function inches_to_cm(inches) to convert.py that converts inches to centimetres (1 inch is 2.54 cm).",
         "add_function", defines={"convert.py": ["inches_to_cm", "celsius_to_fahrenheit", "km_to_miles"]},
         expr="from convert import inches_to_cm; assert abs(inches_to_cm(12) - 30.48) < 1e-9"),
    Step("Now write a test for inches_to_cm in test_convert.py.", "add_test",
         tested={"test_convert.py": "inches_to_cm"}, tests_pass=True),
])

BASKET = Repo("basket", "python", {
    "basket.py": '"""Prices in a shopping basket."""\n\n\ndef subtotal(prices):\n    return round(sum(prices), 2)\n\n\n'
                 "def discounted(total, percent):\n    return round(total * (100 - percent) / 100, 2)\n",
    "tests/test_basket.py": "from basket import discounted, subtotal\n\n\ndef test_subtotal():\n"
                            "    assert subtotal([1.25, 2.5, 0.25]) == 4.0\n\n\ndef test_discounted():\n"
                            "    assert discounted(80, 25) == 60.0\n",
}, PY_ALLOW, PYTEST, [
    Step("Füge in basket.py eine Funktion vat(amount, rate) hinzu, die die Mehrwertsteuer auf amount zum Satz rate "
         "(in Prozent) zurückgibt, auf zwei Nachkommastellen gerundet.", "add_function",
         defines={"basket.py": ["vat", "subtotal", "discounted"]},
         expr="from basket import vat; assert vat(200, 19) == 38.0 and vat(9.99, 7) == 0.7"),
    Step("Schreib jetzt einen Test für vat in tests/test_basket.py.", "add_test",
         tested={"tests/test_basket.py": "vat"}, tests_pass=True),
    Step("Benenne die Funktion subtotal in basket.py und in tests/test_basket.py in sum_prices um.", "rename",
         defines={"basket.py": ["sum_prices", "discounted"]},
         absent={"basket.py": ["subtotal"], "tests/test_basket.py": ["subtotal"]},
         removes=["subtotal", "test_subtotal"], tests_pass=True),
    Step("Führ bitte die Tests aus.", "run_tests", run=True),
])

AGENDA = Repo("agenda", "python", {
    "agenda.py": '"""A phone book."""\n\n\nclass Agenda:\n    def __init__(self):\n        self.contacts = {}\n\n'
                 "    def add_contact(self, name, phone):\n        self.contacts[name] = phone\n\n"
                 "    def find(self, name):\n        return self.contacts.get(name.lower())\n",
    "test_agenda.py": "import unittest\n\nfrom agenda import Agenda\n\n\nclass AgendaTest(unittest.TestCase):\n"
                      "    def test_add_contact(self):\n        a = Agenda()\n        a.add_contact(\"Lucas\", \"600 111 222\")\n"
                      "        self.assertEqual(len(a.contacts), 1)\n\n    def test_find(self):\n        a = Agenda()\n"
                      "        a.add_contact(\"Marta\", \"611 222 333\")\n"
                      "        self.assertEqual(a.find(\"Marta\"), \"611 222 333\")\n",
}, ["python3 -m unittest", "git status", "git diff"], "python3 -m unittest -q", [
    Step("test_find falla: find no encuentra un contacto que acabo de añadir. Arregla find en agenda.py sin tocar "
         "test_agenda.py.", "fix", tests_pass=True, leave=["test_agenda.py"],
         expr="from agenda import Agenda; a = Agenda(); a.add_contact('Pablo', '622 333 444'); "
              "assert a.find('Pablo') == '622 333 444' and a.find('Nadie') is None"),
    Step("Añade a la clase Agenda de agenda.py un método remove_contact(name) que borre ese contacto y devuelva True, "
         "o False si no existía.", "add_function",
         defines={"agenda.py": ["remove_contact", "add_contact", "find", "Agenda"]},
         expr="from agenda import Agenda; a = Agenda(); a.add_contact('Pablo', '1'); "
              "assert a.remove_contact('Pablo') is True and not a.contacts and a.remove_contact('Pablo') is False"),
    Step("Ahora añade una prueba para remove_contact en test_agenda.py.", "add_test",
         tested={"test_agenda.py": "remove_contact"}, tests_pass=True),
    Step("Ejecuta las pruebas, por favor.", "run_tests", run=True),
])

NOTES = Repo("notes", "python", {
    "notes.py": '"""Grades out of 20."""\n\n\ndef average(grades):\n    return sum(grades) / len(grades)\n\n\n'
                "def passed(grade):\n    return grade >= 10\n",
    "report.py": "from notes import average, passed\n\n\ndef summary(grades):\n"
                 "    admitted = sum(1 for g in grades if passed(g))\n"
                 '    return f"{average(grades):.1f}/20, {admitted} admis sur {len(grades)}"\n',
    "test_report.py": 'from report import summary\n\n\ndef test_summary():\n'
                      '    assert summary([8, 12, 16]) == "12.0/20, 2 admis sur 3"\n',
}, PY_ALLOW, PYTEST, [
    Step("Renomme la fonction passed en is_passing dans notes.py et dans report.py.", "rename",
         defines={"notes.py": ["is_passing", "average"], "report.py": ["summary"]},
         absent={"notes.py": ["passed"], "report.py": ["passed"]}, removes=["passed"], tests_pass=True),
    Step("Ajoute à notes.py une fonction spread(grades) qui renvoie l'écart entre la note la plus haute et la plus "
         "basse.", "add_function", defines={"notes.py": ["spread", "average"]},
         expr="from notes import spread; assert spread([12, 7, 15.5]) == 8.5"),
    Step("Écris un test pour spread dans un nouveau fichier test_notes.py.", "add_test",
         tested={"test_notes.py": "spread"}, tests_pass=True),
    Step("Lance les tests, s'il te plaît.", "run_tests", run=True),
])

TEXT_JS = Repo("text-js", "js", {
    "package.json": '{\n  "name": "text",\n  "version": "0.1.0",\n  "private": true\n}\n',
    "text.js": "function capitalize(s) {\n  return s.charAt(0).toUpperCase() + s.slice(1);\n}\n\n"
               "function truncate(s, n) {\n  if (s.length <= n) return s;\n  return s.slice(0, n + 1) + \"...\";\n}\n\n"
               "module.exports = { capitalize, truncate };\n",
    "text.test.js": 'const test = require("node:test");\nconst assert = require("node:assert");\n'
                    'const { capitalize, truncate } = require("./text");\n\n'
                    'test("first letter in upper case", () => {\n  assert.strictEqual(capitalize("river"), "River");\n});\n\n'
                    'test("long text is cut to n characters", () => {\n'
                    '  assert.strictEqual(truncate("mountain", 4), "moun...");\n});\n\n'
                    'test("short text is kept", () => {\n  assert.strictEqual(truncate("sea", 5), "sea");\n});\n',
}, ["node --test", "git status", "git diff"], "node --test", [
    Step("Can you run the test suite?", "run_tests", run=True),
    Step("One truncate test fails: it keeps one character too many. Fix truncate in text.js and leave text.test.js "
         "unchanged.", "fix", tests_pass=True, leave=["text.test.js"],
         expr="const t = require('./text'); if (t.truncate('abcdefgh', 3) !== 'abc...' || "
              "t.truncate('abc', 3) !== 'abc') process.exit(1)"),
    Step("Rename capitalize to upperFirst in text.js and text.test.js.", "rename",
         defines={"text.js": ["upperFirst", "truncate"]},
         absent={"text.js": ["capitalize"], "text.test.js": ["capitalize"]}, removes=["capitalize"], tests_pass=True),
    Step("Add a function countVowels(s) to text.js that returns how many vowels (a, e, i, o, u, upper or lower case) "
         "s contains, and export it.", "add_function", defines={"text.js": ["countVowels", "truncate"]},
         expr="const t = require('./text'); if (t.countVowels('Education') !== 5 || t.countVowels('rhythm') !== 0) "
              "process.exit(1)"),
    Step("Add a test for countVowels to text.test.js.", "add_test", tested={"text.test.js": "countVowels"},
         tests_pass=True),
])

SHTOOLS = Repo("shtools", "shell", {
    "lib.sh": "# Small string helpers, sourced by tests.sh.\n\nto_upper() {\n"
              "  printf '%s\\n' \"$1\" | tr '[:lower:]' '[:upper:]'\n}\n\n"
              "file_ext() {\n  printf '%s\\n' \"${1#*.}\"\n}\n",
    "tests.sh": "#!/usr/bin/env bash\n# Checks the functions of lib.sh; exits 1 when one fails.\n. ./lib.sh\nfail=0\n\n"
                "check() {\n  if [ \"$2\" = \"$3\" ]; then\n    echo \"ok - $1\"\n  else\n"
                "    echo \"not ok - $1: got '$2', want '$3'\"\n    fail=1\n  fi\n}\n\n"
                "check \"to_upper\" \"$(to_upper abc)\" \"ABC\"\n"
                "check \"file_ext\" \"$(file_ext backup.tar.gz)\" \"gz\"\nexit $fail\n",
    "Makefile": "test:\n\tbash tests.sh\n\n.PHONY: test\n",
}, ["make test", "git status", "git diff"], "make -s test", [
    Step("Lass die Tests mit make test laufen.", "run_tests", run=True),
    Step("Der Test für file_ext schlägt fehl: bei backup.tar.gz kommt tar.gz statt gz heraus. Korrigiere file_ext in "
         "lib.sh und ändere tests.sh nicht.", "fix", tests_pass=True, leave=["tests.sh"],
         expr='. ./lib.sh && [ "$(file_ext notes.v2.txt)" = txt ] && [ "$(file_ext photo.png)" = png ]'),
    Step("Füge lib.sh eine Funktion repeat_char hinzu, die das Zeichen $1 genau $2-mal hintereinander ausgibt.",
         "add_function", defines={"lib.sh": ["repeat_char", "to_upper", "file_ext"]},
         expr='. ./lib.sh && [ "$(repeat_char x 4)" = xxxx ] && [ "$(repeat_char = 2)" = "==" ]'),
    Step("Schreib in tests.sh einen Test für repeat_char.", "add_test", tested={"tests.sh": "repeat_char"},
         tests_pass=True),
])

REPOS = [CONVERT, BASKET, AGENDA, NOTES, TEXT_JS, SHTOOLS]

# A right answer to each step: per step, edits (file, old, new) -- every ``old`` in the file becomes
# ``new``; an empty ``old`` appends ``new`` (a new file where there is none). A run step edits nothing.
SOLVED: dict[str, list[list[tuple[str, str, str]]]] = {
    "convert": [
        [],
        [("convert.py", "km * 1.609344", "km / 1.609344")],
        [("convert.py", "", "\n\ndef inches_to_cm(inches):\n    return inches * 2.54\n")],
        [("test_convert.py", "import celsius_to_fahrenheit, km_to_miles",
          "import celsius_to_fahrenheit, inches_to_cm, km_to_miles"),
         ("test_convert.py", "", "\n\ndef test_inches_to_cm():\n    assert inches_to_cm(10) == 25.4\n")],
    ],
    "basket": [
        [("basket.py", "", "\n\ndef vat(amount, rate):\n    return round(amount * rate / 100, 2)\n")],
        [("tests/test_basket.py", "import discounted, subtotal", "import discounted, subtotal, vat"),
         ("tests/test_basket.py", "", "\n\ndef test_vat():\n    assert vat(50, 19) == 9.5\n")],
        [("basket.py", "subtotal", "sum_prices"), ("tests/test_basket.py", "subtotal", "sum_prices")],
        [],
    ],
    "agenda": [
        [("agenda.py", "name.lower()", "name")],
        [("agenda.py", "", "\n    def remove_contact(self, name):\n"
                           "        return self.contacts.pop(name, None) is not None\n")],
        [("test_agenda.py", "", "\n    def test_remove_contact(self):\n        a = Agenda()\n"
                                "        a.add_contact(\"Lucas\", \"633 444 555\")\n"
                                "        self.assertTrue(a.remove_contact(\"Lucas\"))\n"
                                "        self.assertFalse(a.remove_contact(\"Lucas\"))\n")],
        [],
    ],
    "notes": [
        [("notes.py", "passed", "is_passing"), ("report.py", "passed", "is_passing")],
        [("notes.py", "", "\n\ndef spread(grades):\n    return max(grades) - min(grades)\n")],
        [("test_notes.py", "", "from notes import spread\n\n\ndef test_spread():\n    assert spread([9, 14, 11]) == 5\n")],
        [],
    ],
    "text-js": [
        [],
        [("text.js", "s.slice(0, n + 1)", "s.slice(0, n)")],
        [("text.js", "capitalize", "upperFirst"), ("text.test.js", "capitalize", "upperFirst")],
        [("text.js", "module.exports = { upperFirst, truncate };",
          "function countVowels(s) {\n  return (s.match(/[aeiou]/gi) || []).length;\n}\n\n"
          "module.exports = { upperFirst, truncate, countVowels };")],
        [("text.test.js", "{ upperFirst, truncate }", "{ upperFirst, truncate, countVowels }"),
         ("text.test.js", "", '\ntest("vowels are counted", () => {\n'
                              '  assert.strictEqual(countVowels("Banana"), 3);\n});\n')],
    ],
    "shtools": [
        [],
        [("lib.sh", '"${1#*.}"', '"${1##*.}"')],
        [("lib.sh", "", '\nrepeat_char() {\n  local out="" i\n  for ((i = 0; i < $2; i++)); do out="$out$1"; done\n'
                        "  printf '%s\\n' \"$out\"\n}\n")],
        [("tests.sh", "exit $fail", 'check "repeat_char" "$(repeat_char ab 3)" "ababab"\nexit $fail')],
    ],
}
