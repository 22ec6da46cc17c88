"""Which characters of other scripts a path segment or a name may hold, read as a person
reads them: letters, marks and digits of any script, nothing invisible, and no script mix
that lets one word pass for another (Unicode UTS #39, restricted to the look-alike scripts).

Shared by the client (cards, Projects paths) and the reference service (Design paths), so
both sides refuse the same segments. Pure: the standard library's `unicodedata` only.
"""

from __future__ import annotations

import re
import unicodedata

#: visible-looking blanks and fillers that unicodedata files under ordinary categories
INVISIBLE = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x180E})
#: categories never shown: control, format (bidi overrides, zero-width), private use,
#: unassigned, surrogates, line and paragraph separators, enclosing marks
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp", "Me"})
#: what a path segment may hold beyond ASCII: letters, combining marks, decimal digits
PATH_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd"})
#: scripts whose letters pass for one another; a name or segment may use at most one
CONFUSABLE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})
#: letters of those scripts that read as a Latin letter in common fonts (from Unicode's
#: confusables, UTS #39): a word made of nothing else reads as a Latin word it is not
LATIN_LOOKALIKES = frozenset(
    "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425"  # Cyrillic
    "\u0405\u0406\u0408\u04ae\u04ba\u04c0\u0500\u051a\u051c"
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u04bb\u04af"
    "\u04cf\u0501\u051b\u051d"
    "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"  # Greek
    "\u03a5\u03a7\u03b1\u03b9\u03bd\u03bf\u03c1"
    "\u0570\u0578\u057d\u0566\u0585"                                          # Armenian
    "\u13a0\u13a2\u13aa\u13ab\u13ac\u13b3\u13b7\u13bb\u13c0\u13c3\u13d2\u13d9"  # Cherokee
    "\u13da\u13de\u13df\u13e2\u13e6\u13f4"
)
#: ASCII punctuation and spaces split a segment into words, each checked for script mixes
#: on its own (`слайд.html` is a Cyrillic word and a Latin extension, not a mix)
_WORD_BREAK = re.compile(r"[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+")
#: combining marks in a row after a letter (vowel signs of Indic scripts need them)
MAX_MARKS = 2


def script(char: str) -> str | None:
    """The script of a letter (the first word of its Unicode name), None for a non-letter."""
    if not char.isalpha():
        return None
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def is_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def is_invisible(char: str) -> bool:
    code = ord(char)
    return (unicodedata.category(char) in REFUSED_CATEGORIES or code in INVISIBLE
            or is_selector(code))


def marks_rule(value: str) -> str | None:
    """"invisible_character" when a combining mark stands alone or more than MAX_MARKS
    follow one letter (stacked marks hide what is under them), else None."""
    marks = 0
    previous = " "
    for char in value:
        if unicodedata.category(char) in ("Mn", "Mc"):
            marks += 1
            if marks > MAX_MARKS or not (previous.isalpha() or marks > 1):
                return "invisible_character"
        else:
            marks = 0
        previous = char
    return None


def script_rule(value: str) -> str | None:
    """"mixed_script" when letters of two look-alike scripts meet (Latin `p` beside a
    Cyrillic `а`), "whole_script_confusable" when every letter is a non-Latin look-alike of
    a Latin one (a Cyrillic "Асе" is not "Ace"), else None. Other scripts (Han, Arabic,
    Devanagari, …) mix freely with Latin, as UTS #39's highly restrictive level allows."""
    scripts: set[str] = set()
    only_lookalikes = True
    for char in value:
        found = script(char)
        if found in CONFUSABLE_SCRIPTS:
            scripts.add(found)
        if found is not None and char not in LATIN_LOOKALIKES:
            only_lookalikes = False
    if len(scripts) > 1:
        return "mixed_script"
    if only_lookalikes and scripts and scripts != {"LATIN"}:
        return "whole_script_confusable"
    return None


def segment_rule(segment: str) -> str | None:
    """The rule a path segment (already NFC) breaks for its non-ASCII characters, or None:
    each must be a letter, a mark or a digit ("not_a_letter": no look-alikes of `.`, `/`
    or space), visible ("invisible_character"), the segment NFKC-stable ("not_normalised":
    no fullwidth or ligature forms of other letters), and each word (between ASCII
    punctuation) free of confusable script mixes."""
    if segment.isascii():
        return None
    for char in segment:
        if char.isascii():
            continue
        if is_invisible(char):
            return "invisible_character"
        if unicodedata.category(char) not in PATH_CATEGORIES:
            return "not_a_letter"
    if unicodedata.normalize("NFKC", segment) != segment:
        return "not_normalised"
    return marks_rule(segment) or next(
        (rule for word in _WORD_BREAK.split(segment) if (rule := script_rule(word))), None)


def escaped(text: str) -> str:
    """`text` with every non-ASCII character as a `\\uXXXX` (or `\\UXXXXXXXX`) escape: the
    form a card shows beside a path, so look-alikes cannot hide."""
    return "".join(
        char if char.isascii()
        else f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
        for char in text)
