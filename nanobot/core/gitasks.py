"""The few-shot prompts of the model's three git classifiers (``loop.judge.CLASSIFIERS``): does a
message ask about a named file's uncommitted changes ("diff"), about the repository's state ("repo"),
or about a named file's history ("history")? Each is asked only where its facts hold (a work tree, a
file with changes or commits, git's reads run unasked); its sure yes makes the turn's look a git
command the facts write (``tools.gitlook``, ``tools.repoask``) instead of a read.
"""

from __future__ import annotations

# Diff: asked only where the message names a file that git has uncommitted changes of
# (``tools.gitlook.diffed``); its sure yes makes the turn's look ``git diff`` of that file, not a read.
DIFF_SYSTEM = ("You classify messages sent to an assistant that works in the user's git repository. The message "
               "names a file. Does it ask what was changed in that file and not committed yet -- its uncommitted "
               "edits, a diff against the last commit? What the file says now, a request to change, fix, commit or "
               "revert it, its commit history, running it or explaining it are no. Answer only yes or no.")
DIFF_SHOTS = (("What did I change in notes.txt since the last commit?", "yes"), ("What's the timeout in notes.txt?", "no"),
              ("Zeig mir den Diff von app.py", "yes"), ("Zeig mir app.py", "no"),
              ("¿Qué líneas de datos.csv modifiqué sin hacer commit?", "yes"), ("Haz commit de datos.csv", "no"),
              ("Qu'ai-je changé dans style.css depuis mon dernier commit ?", "yes"),
              ("Qui a modifié style.css en dernier dans l'historique ?", "no"),
              ("I touched deploy.sh this morning; what exactly is different now?", "yes"),
              ("Undo my changes to deploy.sh", "no"), ("Lies mir config.yml vor und fass es zusammen", "no"),
              ("Mostra le modifiche a config.yml non ancora committate", "yes"), ("What does build.sh do?", "no"))
# Repo: asked only where the folder relative paths start in is a git work tree and the message names no
# file, folder or command there (``tools.firstlook.asks_to_look``); its sure yes makes the turn's look a
# git command (``exec``), not a read of a file the model would have to guess.
REPO_SYSTEM = ("You classify messages sent to an assistant that works in the user's git repository and can run git. "
               "Does the message ask about the repository's state -- the current branch, its commits (the last one, "
               "how many, what one changed), or which files are changed, new or not committed yet -- so that git's "
               "output answers it? A file's contents, a request to change, commit, push or undo, running a program, "
               "a how-to question about git and small talk are no. Answer only yes or no.")
REPO_SHOTS = (("What was my most recent commit about?", "yes"), ("What's in todo.txt?", "no"),
              ("Sind hier noch Änderungen, die ich nicht eingecheckt habe?", "yes"),
              ("Commit everything with the message 'wip'", "no"),
              ("¿En qué rama estoy trabajando ahora mismo?", "yes"), ("How do I make a new branch in git?", "no"),
              ("Combien de commits compte cette branche ?", "yes"), ("Lance build.py et dis-moi ce qu'il affiche", "no"),
              ("Is my working tree clean?", "yes"), ("Corrige l'errore di battitura nel README", "no"),
              ("Welche Dateien hat der vorletzte Commit geändert?", "yes"), ("Explain what git rebase does", "no"),
              ("Há ficheiros novos que o git ainda não conhece?", "yes"), ("Wie spät ist es?", "no"),
              ("Did the commit I made earlier go through?", "yes"), ("What's the capital of Peru?", "no"),
              ("Ok thanks, that's everything for today!", "no"), ("Traduis « bonne nuit » en anglais", "no"))
# History: asked only where the message names a file git has commits of and the change classifier is not
# sure of a change (``tools.gitlook.historied``); its sure yes makes the turn's look ``git log`` of that
# file (its commits and what each changed in it), not a read of the file as it is now.
HISTORY_SYSTEM = ("You classify messages sent to an assistant that works in the user's git repository. The message "
                  "names a file. Does it ask about that file's git history -- when it was committed or added, which "
                  "commit changed it, who changed it, what a past commit changed in it, how it looked before? What "
                  "the file says now, its uncommitted edits, a request to change, commit or revert it, running or "
                  "explaining it and how-to questions are no. Answer only yes or no.")
HISTORY_SHOTS = (("When was parser.py first committed?", "yes"), ("What's the port in server.toml?", "no"),
                 ("Welcher Commit hat kunden.csv zuletzt geändert?", "yes"), ("Was habe ich an kunden.csv geändert, "
                                                                             "das noch nicht committet ist?", "no"),
                 ("¿Qué cambió el último commit en precios.md?", "yes"), ("Haz commit de precios.md", "no"),
                 ("Qui a modifié theme.css en dernier ?", "yes"), ("Explique-moi ce que fait theme.css", "no"),
                 ("Mostrami la storia dei commit di db.py", "yes"), ("Annulla le mie modifiche a db.py", "no"),
                 ("What did notes.md say before the last commit?", "yes"), ("Summarise notes.md for me", "no"),
                 ("How do I view a file's history in git, say for main.go?", "no"),
                 ("Who committed the last change to lib.rs?", "yes"), ("What's the last line of lib.rs?", "no"),
                 ("Quel commit a introduit erreurs.log ?", "yes"), ("Quelle est la dernière erreur dans erreurs.log ?", "no"),
                 ("Wanneer is planning.md voor het laatst gecommit?", "yes"), ("Wat staat er in planning.md?", "no"))
