"""Dates and times a parameter's description spells in their field letters, and values written in them.

"The start date in the format MM-DD-YYYY": ``Form.find`` reads such a form (``YYYY YY MM DD HH SS``
joined by ``- / : . T`` or a space, an ISO ``Z``; ``MM`` beside ``HH``, ``SS`` or ``:`` is minutes). The grammar
admits what a small model writes when it means a date of that form (``Form.loose``): the form with
one-digit fields, an ISO date ``YYYY-MM-DD`` where the form is a date, and a 12-hour ``AM``/``PM``
where it is a time; ``Form.written`` then writes the value in the form itself ("2022-5-12" -> "05-12-2022",
"7:30 PM" -> "19:30"). Forcing the form's order on the model instead turned the year it had begun
("20" of 2022) into a month. A value that names no real date or time is left as it was written.

>>> f = Form.find("Check-in, MM/DD/YYYY.")[0]
>>> f.loose, f.written("2022-5-12"), f.written("5/12/2022"), f.written("2022-13-01")
('[0-9]{1,2}/[0-9]{1,2}/[0-9]{4}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}', '05/12/2022', '05/12/2022', '2022-13-01')
>>> Form.find("Pick-up time, 24-hour HH:MM.")[0].written("7:30 pm")
'19:30'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LETTERS = r"(?:YYYY|YY|MM|DD|HH|SS)"
# taken whole or not at all ("YYYY-MM-DDTHH:MM:SSZ" is not "YYYY-MM-DDTHH:MM")
_TOKEN = re.compile(rf"(?<![A-Za-z])({_LETTERS}(?:(?:[-/:.]|T| ){_LETTERS})++Z?+)(?![A-Za-z])", re.I)
_PART = re.compile(r"YYYY|YY|MM|DD|HH|SS|Z|.", re.I)
_WIDTH = {"year": 4, "yy": 2}
_RANGE = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59), "second": (0, 59)}
_ISO = r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
_HALF = r" ?([AaPp][Mm])"


@dataclass(frozen=True)
class Form:
    parts: tuple[str, ...]  # field roles ("year", "month", ...) and literal separators

    @classmethod
    def find(cls, description: str) -> list[Form]:
        forms = []
        for token in dict.fromkeys(t.upper() for t in _TOKEN.findall(description or "")):
            raw = _PART.findall(token)
            parts, last = [], ""
            for i, p in enumerate(raw):
                role = {"YYYY": "year", "YY": "yy", "DD": "day", "HH": "hour", "SS": "second"}.get(p)
                if p == "MM":  # minutes beside an hour, a second or a ":", else a month
                    near = raw[max(0, i - 1):i + 2]
                    role = "minute" if last == "hour" or ":" in near or "SS" in raw[i + 1:i + 3] else "month"
                parts.append(role or p)
                last = role or last
            forms.append(cls(tuple(parts)))
        return forms

    @property
    def roles(self) -> set[str]:
        return {p for p in self.parts if p in _RANGE or p in _WIDTH}

    def _regex(self, groups: bool = True) -> str:
        field = "({})" if groups else "{}"
        return "".join(field.format(f"[0-9]{{{_WIDTH[p]}}}" if p in _WIDTH else "[0-9]{1,2}")
                       if p in _RANGE or p in _WIDTH else "\\" + p if p in ".\\" else p for p in self.parts)

    @property
    def _time(self) -> bool:
        return "hour" in self.roles and self.roles <= {"hour", "minute", "second"}

    @property
    def loose(self) -> str:
        """The pattern (no anchors) the grammar admits for this form."""
        alts = [self._regex(groups=False) + (f"({_HALF})?" if self._time else "")]
        if self.roles == {"year", "month", "day"}:
            alts.append(_ISO.replace("(", "").replace(")", ""))
        return "|".join(dict.fromkeys(alts))

    def written(self, value: str) -> str:
        """``value`` in this form's own fields, or unchanged when it is not a date of it."""
        fields = self._read(value)
        if fields is None or any(not lo <= fields[r] <= hi for r, (lo, hi) in _RANGE.items() if r in fields):
            return value
        return "".join(str(fields["year"] % 100 if p == "yy" else fields[p]).zfill(_WIDTH.get(p, 2))
                       if p in fields or p == "yy" else p for p in self.parts)

    def _read(self, value: str) -> dict[str, int] | None:
        roles = [p for p in self.parts if p in _RANGE or p in _WIDTH]
        m = re.fullmatch(self._regex() + (f"(?:{_HALF})?" if self._time else ""), value.strip())
        if m:
            fields = {("year" if r == "yy" else r): int(g) for r, g in zip(roles, m.groups())}
            half = m.groups()[len(roles)] if len(m.groups()) > len(roles) else None
            if half and fields.get("hour", 0) <= 12:
                fields["hour"] = fields["hour"] % 12 + (12 if half.lower() == "pm" else 0)
            return fields
        m = re.fullmatch(_ISO, value.strip()) if set(roles) == {"year", "month", "day"} else None
        return dict(zip(("year", "month", "day"), map(int, m.groups()))) if m else None
