"""Secrets in URLs, hidden before a URL is shown or stored.

A model server's ``base_url`` may carry a password or token: as userinfo (``http://user:pass@host``)
or as a query or fragment value (``?api_key=...``, ``#access_token=...``). Every place that prints,
reports or records one (``nanobot models``, a server's error messages, the session transcript) passes
it through ``redact_url``, or a whole message through ``redact``; the request itself keeps the URL.
"""

from __future__ import annotations

import re

HIDDEN = "***"

# a query name that holds a secret: key, api_key, apikey, token, access_token, secret, password, pwd,
# auth, sig, signature, credential, session (as any part of the name)
_SECRET_NAME = re.compile(r"key|token|secret|pass|pwd|auth|sig|credential|session", re.I)
_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/?#]*@", re.I)
_PARAM = re.compile(r"([?&;#])([^=&;#]*)=([^&;#]*)")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>`]+", re.I)


def redact_url(url: str) -> str:
    """``url`` with its userinfo and every secret-named query or fragment value replaced by ``***``.

    >>> redact_url("http://bob:hunter2@example.com:8080/v1?model=x&api_key=sk-1&Token=t#sig=s")
    'http://***@example.com:8080/v1?model=x&api_key=***&Token=***#sig=***'
    >>> redact_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    """
    url = _USERINFO.sub(rf"\1{HIDDEN}@", url, count=1)
    return _PARAM.sub(_param, url)


def redact(text: str) -> str:
    """``text`` with every URL in it passed through ``redact_url`` (an error message, a notice).

    >>> redact("server at https://u:p@h/v1?key=k is not answering")
    'server at https://***@h/v1?key=*** is not answering'
    """
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def _param(m: re.Match) -> str:
    sep, name, value = m.groups()
    return f"{sep}{name}={HIDDEN if value and _SECRET_NAME.search(name) else value}"
