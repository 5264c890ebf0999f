"""The coding bench's check-only half: six repositories drawn from pools of their own (modules, a bug
in each, functions to add, the wording of each kind of step) by a fixed seed. Only checked, never
tuned on: run it ``--masked`` and report its summary alone. Five Python repositories, one shell."""

from __future__ import annotations

import random

from spec import PY_ALLOW, Repo, Step

PYTEST = "python3 -m pytest -q -p no:cacheprovider"
SEED = 7907

# (module, {function: (good body, buggy body, test body)}): each module's two functions and their tests
MODULES = [
    ("geometry", {"area_rect": ("(w, h):\n    return w * h", "(w, h):\n    return w + h", "area_rect(3, 4) == 12"),
                  "perimeter_rect": ("(w, h):\n    return 2 * (w + h)", "(w, h):\n    return w * h * 2",
                                     "perimeter_rect(3, 4) == 14")}),
    ("temps", {"c_to_f": ("(c):\n    return c * 9 / 5 + 32", "(c):\n    return c * 9 / 5 - 32", "c_to_f(100) == 212"),
               "f_to_c": ("(f):\n    return (f - 32) * 5 / 9", "(f):\n    return f - 32 * 5 / 9", "f_to_c(212) == 100")}),
    ("money", {"to_cents": ("(amount):\n    return round(amount * 100)", "(amount):\n    return int(amount * 10)",
                            "to_cents(2.5) == 250"),
               "format_price": ("(cents):\n    return f\"${cents // 100}.{cents % 100:02d}\"",
                                "(cents):\n    return f\"${cents // 100}.{cents % 100}\"", "format_price(305) == '$3.05'")}),
    ("words", {"count_vowels": ("(text):\n    return sum(ch in 'aeiou' for ch in text.lower())",
                                "(text):\n    return sum(ch in 'aeiou' for ch in text)", "count_vowels('HELLO') == 2"),
               "capitalize_words": ("(text):\n    return ' '.join(w.capitalize() for w in text.split())",
                                    "(text):\n    return text.capitalize()", "capitalize_words('ab cd') == 'Ab Cd'")}),
    ("names", {"initials": ("(full):\n    return ''.join(p[0].upper() for p in full.split())",
                            "(full):\n    return full[0].upper()", "initials('ada king lovelace') == 'AKL'"),
               "last_name": ("(full):\n    return full.split()[-1]", "(full):\n    return full.split()[1]",
                             "last_name('ada king lovelace') == 'lovelace'")}),
]

# (name, signature, what it returns, a check of it)
NEW = [
    ("is_palindrome", "text", "True when text reads the same backwards, ignoring case",
     "is_palindrome('Level') and not is_palindrome('abc')"),
    ("clamp", "x, low, high", "x limited to the range from low to high", "clamp(5, 0, 3) == 3 and clamp(-1, 0, 3) == 0"),
    ("chunk", "items, size", "the items in lists of size items each, the last one shorter if needed",
     "chunk([1, 2, 3], 2) == [[1, 2], [3]]"),
    ("word_count", "text", "the number of words in text", "word_count('a bb  ccc') == 3"),
    ("digit_sum", "n", "the sum of the decimal digits of the whole number n", "digit_sum(472) == 13"),
    ("unique", "items", "the items without repeats, in their first order", "unique([3, 1, 3, 2, 1]) == [3, 1, 2]"),
]

SAY = {
    "add_function": ["Add a function {name}({sig}) to {file} that returns {what}.",
                     "In {file}, add {name}({sig}): it should return {what}.",
                     "Please write a new function {name}({sig}) in {file}, returning {what}."],
    "add_test": ["Add a test for {name} to {file}.", "Write a test for {name} in {file}.",
                 "Now put a test of {name} in {file}."],
    "run_tests": ["run the tests", "Run the tests now.", "please run the tests", "Run the test suite."],
    "fix": ["{test} fails. Fix {name} in {file} so that it passes; leave {tests} alone.",
            "The test {test} is failing. Fix the bug in {name} ({file}) and do not edit {tests}."],
    "rename": ["Rename {old} to {new} in {file} and {other}.", "In {file} and {other}, rename the function {old} to {new}."],
}


def _module(funcs: dict, buggy: str = "") -> str:
    return "\n\n\n".join(f"def {n}{(b if n == buggy else g)}" for n, (g, b, _) in funcs.items()) + "\n"


def _tests(mod: str, funcs: dict) -> str:
    body = "\n\n\n".join(f"def test_{n}():\n    assert {t}" for n, (_, _, t) in funcs.items())
    return f"from {mod} import {', '.join(sorted(funcs))}\n\n\n{body}\n"


def _python(i: int, rnd: random.Random) -> Repo:
    mod, funcs = MODULES[i]
    file, tests = f"{mod}.py", f"test_{mod}.py"
    name, sig, what, ok = NEW[i]
    say = {k: rnd.choice(v) for k, v in SAY.items()}
    add = Step(say["add_function"].format(name=name, sig=sig, file=file, what=what), "add_function",
               defines={file: [name, *funcs]}, expr=f"from {mod} import {name}; assert {ok}")
    test = Step(say["add_test"].format(name=name, file=tests), "add_test", tested={tests: name}, tests_pass=True)
    run = Step(say["run_tests"], "run_tests", run=True)
    if i % 2 == 0:  # add, test, run, rename
        old = sorted(funcs)[0]
        new = {"area_rect": "rect_area", "c_to_f": "celsius_to_fahrenheit", "capitalize_words": "title_words",
               "format_price": "price_text", "initials": "name_initials"}[old]
        rename = Step(say["rename"].format(old=old, new=new, file=file, other=tests), "rename",
                      defines={file: [new]}, absent={file: [old], tests: [old]}, removes=[old, f"test_{old}"],
                      tests_pass=True)
        return Repo(mod, "python", {file: _module(funcs), tests: _tests(mod, funcs)}, PY_ALLOW, PYTEST,
                    [add, test, run, rename])
    bug = sorted(funcs)[1]  # run, fix, add, test
    fix = Step(say["fix"].format(test=f"test_{bug}", name=bug, file=file, tests=tests), "fix", tests_pass=True,
               leave=[tests], expr=f"from {mod} import {bug}; assert {funcs[bug][2]}")
    return Repo(mod, "python", {file: _module(funcs, bug), tests: _tests(mod, funcs)}, PY_ALLOW, PYTEST,
                [run, fix, add, test])


SHELL = Repo("strtools-sh", "shell", {
    "strtools.sh": 'upper() {\n  printf "%s" "$1" | tr "[:lower:]" "[:upper:]"\n}\n\n'
                   'repeat() {\n  local out=""\n  for ((i = 0; i < $2; i++)); do out="$out$1"; done\n  printf "%s" "$out"\n}\n',
    "tests/test_strtools.sh": '#!/usr/bin/env bash\n. ./strtools.sh\nn=0\nfail=0\ncheck() {\n  n=$((n + 1))\n'
                              '  if [ "$2" = "$3" ]; then echo "ok $n $1"; else echo "not ok $n $1"; fail=1; fi\n}\n'
                              'check upper "$(upper abc)" "ABC"\ncheck repeat "$(repeat ab 3)" "ababab"\necho "1..$n"\n'
                              'exit $fail\n',
    "Makefile": "test:\n\tbash tests/test_strtools.sh\n",
}, ["make test", "git status", "git diff"], "make -s test", [
    Step("Add a shell function lower to strtools.sh that prints its first argument in lower case.", "add_function",
         defines={"strtools.sh": ["lower", "upper", "repeat"]}, expr='. ./strtools.sh; [ "$(lower AbC)" = abc ]'),
    Step("Add a check for lower to tests/test_strtools.sh.", "add_test", tested={"tests/test_strtools.sh": "lower"},
         tests_pass=True),
    Step("run the tests", "run_tests", run=True),
])

_rnd = random.Random(SEED)
REPOS = [_python(i, _rnd) for i in range(len(MODULES))] + [SHELL]
