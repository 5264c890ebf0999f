"""web_fetch (http/https, timeout, size cap, readable text) and web_search (a SearxNG JSON API).

Network only when the user's request makes the model call these; failures (offline, DNS, refused,
timeout, unconfigured) come back immediately as one-line errors. Every connection, redirects included,
goes through ``netguard.connect``: local and private addresses are refused unless the host is in
``tools.web_allow_hosts`` (web_search may always reach its configured ``web_search_url``). Only http
and https are spoken, and environment proxies are not used (a proxy would resolve names unchecked).
"""

from __future__ import annotations

import functools
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

from pydantic import Field

from nanobot.base.errors import ToolError
from nanobot.tools.base import Tool, ToolArgs, ToolContext
from nanobot.tools.effects import Effect
from nanobot.tools.netguard import BlockedAddress, connect

MAX_BYTES = 2_000_000
_PORTS = {"http": 80, "https": 443}
USER_AGENT = "nanobot/0.1 (+local agent)"
_SKIP = {"script", "style", "noscript", "template", "svg", "head"}
_BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
          "pre", "blockquote", "table", "ul", "ol", "title"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self.skip += 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP and self.skip:
            self.skip -= 1
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        elif not self.skip:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """Readable text of an HTML page: scripts/styles dropped, blocks on their own lines.

    >>> html_to_text("<html><head><title>T</title><style>x{}</style></head><body><p>Hi &amp; bye</p></body></html>")
    'T\\n\\nHi & bye'
    """
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(ln.split()) for ln in "".join(parser.parts).splitlines()]
    body = "\n".join(ln for ln in lines if ln)
    title = " ".join(parser.title.split())
    return f"{title}\n\n{body}" if title else body


def _guarded(cls: type[http.client.HTTPConnection], allow: list[str], host: str, **kw):
    """An http.client connection whose socket comes from ``netguard.connect``."""
    conn = cls(host, **kw)
    conn._create_connection = lambda addr, timeout, source=None: connect(addr[0], addr[1], timeout, allow)
    return conn


def opener(allow: list[str]) -> urllib.request.OpenerDirector:
    """http(s) with redirects, every hop's connection checked; no proxies, no ftp/file/data."""
    class Http(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(functools.partial(_guarded, http.client.HTTPConnection, allow), req)

    class Https(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(functools.partial(_guarded, http.client.HTTPSConnection, allow), req,
                                context=self._context)

    director = urllib.request.OpenerDirector()
    for handler in (Http(), Https(), urllib.request.HTTPRedirectHandler(), urllib.request.UnknownHandler(),
                    urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        director.add_handler(handler)
    return director


def fetch(url: str, timeout: float, accept: str = "*/*", allow: list[str] | None = None) -> tuple[bytes, str]:
    """GET ``url``: (body up to MAX_BYTES, content type). ToolError on any failure, including a
    local or private address not in ``allow`` (host or host:port) at any redirect hop."""
    parts = urllib.parse.urlparse(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ToolError(f"'{url}' is not an http(s) URL; give a full URL like https://example.com")
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": accept})
    try:
        with opener(allow or []).open(req, timeout=timeout) as resp:
            body = resp.read(MAX_BYTES + 1)
            ctype = resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        raise ToolError(f"{url}: HTTP {e.code} {e.reason}") from None
    except urllib.error.URLError as e:
        if isinstance(e.reason, BlockedAddress):
            raise ToolError(f"{url}: refused: {e.reason}") from None
        if isinstance(e.reason, TimeoutError):
            raise ToolError(f"{url}: no answer within {timeout:g}s (tools.web_timeout)") from None
        raise ToolError(f"{url}: cannot connect ({e.reason}); are you offline?") from None
    except TimeoutError:
        raise ToolError(f"{url}: no answer within {timeout:g}s (tools.web_timeout)") from None
    except (OSError, ValueError) as e:
        raise ToolError(f"{url}: {e}") from None
    if len(body) > MAX_BYTES:
        body = body[:MAX_BYTES]
    return body, ctype


class FetchArgs(ToolArgs):
    url: str = Field(description="http or https URL", min_length=1, max_length=2000)


class WebFetch(Tool):
    name = "web_fetch"
    effects = frozenset({Effect.SEARCHES})
    description = "Fetch a web page and return its readable text."
    intent = "fetch a web page by its URL"

    @classmethod
    def available(cls, settings) -> bool:
        """Offered when the web is configured (a search URL or allowed hosts) or named in
        ``[tools] enabled``: offline by default, so an unconfigured web tool only misleads the model."""
        t = settings.tools
        return bool(t.web_search_url or t.web_allow_hosts or cls.name in (t.enabled or []))
    Args = FetchArgs

    def run(self, args: FetchArgs, ctx: ToolContext) -> str:
        body, ctype = fetch(args.url, ctx.settings.tools.web_timeout, allow=ctx.settings.tools.web_allow_hosts)
        charset = "utf-8"
        if "charset=" in ctype:
            charset = ctype.split("charset=")[-1].split(";")[0].strip() or "utf-8"
        try:
            text = body.decode(charset, "replace")
        except LookupError:
            text = body.decode("utf-8", "replace")
        if "html" in ctype or text.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
            text = html_to_text(text)
        return text.strip() or f"{args.url}: empty page"


class SearchArgs(ToolArgs):
    query: str = Field(description="what to search for", min_length=1, max_length=300)


class WebSearch(Tool):
    name = "web_search"
    effects = frozenset({Effect.SEARCHES})
    description = "Search the web (needs tools.web_search_url)."
    intent = "search the web"

    @classmethod
    def available(cls, settings) -> bool:
        """Offered only with ``tools.web_search_url`` set (it cannot work without one)."""
        return bool(settings.tools.web_search_url)
    Args = SearchArgs
    limit = 5

    def run(self, args: SearchArgs, ctx: ToolContext) -> str:
        base = ctx.settings.tools.web_search_url
        if not base:
            raise ToolError("web_search is not configured; set tools.web_search_url to a SearxNG "
                            "URL in config.toml (e.g. http://localhost:8888)")
        url = base.rstrip("/") + "/search?" + urllib.parse.urlencode({"q": args.query, "format": "json"})
        own = urllib.parse.urlparse(base)  # the configured engine is allowed (often localhost)
        allow = [*ctx.settings.tools.web_allow_hosts, f"{own.hostname}:{own.port or _PORTS.get(own.scheme, 80)}"]
        body, _ = fetch(url, ctx.settings.tools.web_timeout, accept="application/json", allow=allow)
        try:
            results = json.loads(body.decode("utf-8", "replace")).get("results", [])
        except (json.JSONDecodeError, AttributeError):
            raise ToolError(f"{base} did not answer with SearxNG JSON; enable format=json in its settings") from None
        if not results:
            return f"no results for '{args.query}'"
        lines = []
        for i, r in enumerate(results[: self.limit], 1):
            snippet = " ".join(str(r.get("content", "")).split())[:300]
            lines.append(f"{i}. {r.get('title', '').strip()} - {r.get('url', '')}\n   {snippet}")
        return "\n".join(lines)
