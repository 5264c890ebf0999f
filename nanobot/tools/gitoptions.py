"""Which options each allow-listed git subcommand accepts, and what each option's value is.

One table per subcommand, because the same letter means different things: ``git log -S TEXT``
searches for a string, ``git blame -S FILE`` reads a file of revisions (the whole file comes back in
error messages); ``git diff -O FILE`` reads an order file, ``git grep -O`` runs a pager. Kinds:

- ``FLAG``: no value (``--stat=...`` is refused for a FLAG);
- ``OPT``: an optional value, only stuck on (``--abbrev``, ``--abbrev=8``, ``-M50%``);
- ``VALUE``: a required value that is not a file (the next word, ``--x=v`` or ``-Xv``);
- ``PATH``: a required value naming a file git reads: it must resolve inside the workspace or a root.

An option that is not in its subcommand's table is refused (closed by default): ``--output``,
``--no-index``, ``--ext-diff``, ``--textconv``, ``--recurse-submodules``, ``--open-files-in-pager``
and every option nobody has looked at yet. Git's abbreviations (``--outp``) are not in the table.

>>> TABLE["blame"]["-S"], TABLE["log"]["-S"], "-O" in TABLE["grep"]
('path', 'value', False)
"""

from __future__ import annotations

FLAG, OPT, VALUE, PATH = "flag", "opt", "value", "path"


def _kinds(flags: str = "", opts: str = "", values: str = "", paths: str = "") -> dict[str, str]:
    table = {}
    for kind, names in ((FLAG, flags), (OPT, opts), (VALUE, values), (PATH, paths)):
        table.update(dict.fromkeys(names.split(), kind))
    return table


DIFF = _kinds(
    flags="-p --patch --no-patch -s --raw --minimal --patience --histogram --numstat --shortstat "
          "--summary --name-only --name-status --no-color --ignore-all-space -w --ignore-space-change "
          "-b --ignore-blank-lines --ignore-space-at-eol --exit-code --quiet --check --full-index "
          "--binary --no-renames --no-ext-diff --no-textconv --text -a --function-context -W -R -z "
          "--no-prefix --compact-summary --patch-with-stat --patch-with-raw --irreversible-delete -D",
    opts="--stat --dirstat --color --color-words --word-diff --abbrev -M --find-renames -C "
         "--find-copies -B --break-rewrites --color-moved",
    values="-U --unified --stat-width --stat-count --diff-filter -S -G --diff-algorithm "
           "--src-prefix --dst-prefix -l",
    paths="-O")
LOG = DIFF | _kinds(
    flags="--oneline --graph --all --no-decorate --first-parent --no-merges --merges --reverse "
          "--follow --topo-order --date-order --author-date-order --relative-date --left-right "
          "--cherry-pick --cherry-mark --source --regexp-ignore-case -i --all-match --invert-grep "
          "--abbrev-commit --no-abbrev-commit -m -c --cc --name-status --boundary --no-walk "
          "--simplify-by-decoration --full-history --dense --sparse --use-mailmap --no-use-mailmap "
          "-E --extended-regexp -F --fixed-strings -P --perl-regexp",
    opts="--decorate --pretty --branches --tags --remotes",
    values="-n --max-count --skip --since --after --until --before --author --committer --grep "
           "--format --date --min-parents --max-parents --encoding")
BLAME = _kinds(
    flags="-b --root --show-stats -l -t -p --porcelain --line-porcelain --incremental -c -s "
          "--show-name -f --show-number -n -e --show-email -w --minimal --score-debug --color-lines "
          "--color-by-age --no-progress --reverse --first-parent",
    opts="-M -C --abbrev",
    values="-L --date --ignore-rev --since --until",
    paths="-S --contents --ignore-revs-file")
STATUS = _kinds(
    flags="-s --short -b --branch --long -z -v --verbose --show-stash --ahead-behind "
          "--no-ahead-behind --renames --no-renames --null",
    opts="--porcelain -u --untracked-files --ignored --find-renames")
LS_FILES = _kinds(
    flags="-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged "
          "-k --killed -z -t -v -f --full-name --exclude-standard --error-unmatch --directory "
          "--no-empty-directory --eol --sparse --deduplicate --resolve-undo",
    opts="--abbrev",
    values="-x --exclude --exclude-per-directory --with-tree --format",
    paths="-X --exclude-from")
GREP = _kinds(
    flags="-i --ignore-case -I -w --word-regexp -v --invert-match -h -H --full-name -E "
          "--extended-regexp -G --basic-regexp -F --fixed-strings -P --perl-regexp -n --line-number "
          "--column -l --files-with-matches --name-only -L --files-without-match -z --null -o "
          "--only-matching -c --count --all-match -q --quiet --cached --untracked --break --heading "
          "-p --show-function -W --function-context --and --or --not -a --text --no-exclude-standard "
          "--exclude-standard",
    values="-e -A -B -C --context --after-context --before-context --max-depth -m --max-count "
           "--threads",
    paths="-f")
BRANCH = _kinds(
    flags="-a --all -r --remotes -l --list -v -vv --verbose --show-current --no-color -q --quiet "
          "--omit-empty --ignore-case -i",
    opts="--color --abbrev --column",
    values="--contains --no-contains --merged --no-merged --sort --format --points-at")
REV_PARSE = _kinds(
    flags="--show-toplevel --verify --is-inside-work-tree --is-inside-git-dir --is-bare-repository "
          "--show-prefix --show-cdup --git-dir --absolute-git-dir --git-common-dir -q --quiet "
          "--symbolic --symbolic-full-name --show-superproject-working-tree --all",
    opts="--abbrev-ref --short")
DESCRIBE = _kinds(flags="--always --tags --all --long --exact-match --first-parent --contains",
                  opts="--dirty --broken --abbrev",
                  values="--match --exclude --candidates")
SHORTLOG = {k: v for k, v in LOG.items() if k not in DIFF} | _kinds(
    flags="-s --summary -n --numbered -e --email -c --committer -sn -ns -sne -nse",
    opts="-w")
TABLE: dict[str, dict[str, str]] = {
    "diff": DIFF | _kinds(flags="--cached --staged --merge-base"),
    "log": LOG, "whatchanged": LOG, "show": LOG, "blame": BLAME, "status": STATUS,
    "ls-files": LS_FILES, "grep": GREP, "branch": BRANCH, "rev-parse": REV_PARSE,
    "describe": DESCRIBE, "shortlog": SHORTLOG,
}
SUBCOMMANDS = set(TABLE)
