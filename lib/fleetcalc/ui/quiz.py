"""Short multiple-choice quizzes whose wrong options are the misconceptions students hold.

    quiz(
        question("Eight processes become 64, same message and links. The ring's transfer term ...",
                 ("grows about 8 times", "That is the start-up term's behaviour: 2(p-1) grows with p."),
                 ("hardly moves", "2(p-1)/p climbs from 1.75 towards 2 and never falls.", True),
                 ("shrinks", "Each process still sends almost 2m bytes, whatever p is.")),
        ...)

An option is ``(text, why)``, or ``(text, why, True)`` for the right one (``right``/``wrong``
build the same thing by name).

Each option opens on click and says whether it is right and why, so the quiz works wherever
HTML does: in JupyterLab, in an exported notebook and on the static site without a kernel or
any script (the options are ``<details>`` elements; the site's MathJax typesets ``$...$`` in
them). Every element carries a class that starts with ``fc-quiz``. A question has exactly one
right option and every option has its explanation (checked when the question is made).

Why our own and not jupyterquiz: jupyterquiz draws its questions with JavaScript from JSON, which
a static page shows only where the script runs and a screen reader or a printout does not see;
``<details>`` needs nothing, prints, and opens from the keyboard.
"""
from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass

__all__ = ["Option", "Question", "Quiz", "right", "wrong", "question", "quiz"]


@dataclass(frozen=True)
class Option:
    text: str
    correct: bool
    why: str


@dataclass(frozen=True)
class Question:
    text: str
    options: tuple[Option, ...]


def right(text: str, why: str) -> Option:
    """The right option, with the reason it is right."""
    return Option(text, True, why)


def wrong(text: str, why: str) -> Option:
    """A wrong option: the misconception it stands for, and what is wrong with it."""
    return Option(text, False, why)


_VERDICT = re.compile(r"^\s*(?:right|correct|yes|no|wrong|not quite|incorrect)\s*[.:!,;—-]\s*", re.I)


def _clean_why(why: str) -> str:
    """The explanation without a verdict of its own ("Right: ...", "Not quite. ..."): the page
    prints the verdict once, before it."""
    out = _VERDICT.sub("", why, count=1)
    return out[:1].upper() + out[1:] if out else why


def _placed(text: str, options: tuple) -> tuple:
    """The options in the order a reader sees them: the right one at a position drawn from the
    question's own text (so the same question always looks the same, and over a book the right
    answers spread evenly over the positions), the wrong ones in an order drawn the same way."""
    h = hashlib.sha256(text.encode("utf-8")).digest()
    right_one = next(o for o in options if o.correct)
    others = sorted((o for o in options if not o.correct),
                    key=lambda o: hashlib.sha256(h + o.text.encode("utf-8")).digest())
    at = h[0] % len(options)
    return tuple(others[:at]) + (right_one,) + tuple(others[at:])


def question(text: str, *options) -> Question:
    """A question with 2-6 options, exactly one of them right, each explained. The options are
    shown in an order of their own (:func:`_placed`), not the order written."""
    options = tuple(o if isinstance(o, Option) else Option(o[0], bool(o[2]) if len(o) > 2 else False, o[1])
                    for o in options)
    if not 2 <= len(options) <= 6:
        raise ValueError(f"a question needs 2 to 6 options; got {len(options)}: {text[:60]!r}")
    n_right = sum(o.correct for o in options)
    if n_right != 1:
        raise ValueError(f"a question needs exactly one right option; got {n_right}: {text[:60]!r}")
    for o in options:
        if len(o.why.strip()) < 10:
            raise ValueError(f"option {o.text!r} needs an explanation (why it is right or wrong)")
    options = tuple(Option(o.text, o.correct, _clean_why(o.why)) for o in options)
    return Question(text, _placed(text, options))


_MATH = re.compile(r"(?<![\\$])\$([^$\n]+?)(?<!\\)\$")
_WORDS = re.compile(r"[A-Za-z]{3,}[\s,]+[A-Za-z]{2,}")


def _is_math(body: str) -> bool:
    """Whether ``$body$`` is maths and not the text between two prices ("$3 per GPU-hour, a $")."""
    return not _WORDS.search(re.sub(r"\\[A-Za-z]+(\{[^}]*\})?", "", body)) and not body.startswith(" ")


def _inline(text: str) -> str:
    """Escape HTML; maths ``$...$`` becomes ``\\(...\\)``, which the site's MathJax and JupyterLab's
    both typeset; a dollar that opens no maths (a price) is written ``\\$``, which both print as $;
    **bold** stays readable."""
    text = text.replace("\\$", "\x00")          # a dollar the author escaped is a price already
    out, i = [], 0
    for m in _MATH.finditer(text):
        if not _is_math(m.group(1)):
            continue
        out.append(html.escape(text[i:m.start()], quote=False).replace("$", "\\$"))
        out.append("\\(" + html.escape(m.group(1), quote=False) + "\\)")
        i = m.end()
    out.append(html.escape(text[i:], quote=False).replace("$", "\\$"))
    parts = "".join(out).replace("\x00", "\\$").split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


@dataclass(frozen=True)
class Quiz:
    questions: tuple[Question, ...]
    title: str = "Quiz"

    def _repr_html_(self) -> str:
        rows = [f'<div class="fc-quiz tex2jax_process mathjax_process" role="group" aria-label="{html.escape(self.title)}">',
                f'<p class="fc-quiz-title"><strong>{html.escape(self.title)}</strong> '
                '<span class="fc-quiz-help">(click an option to see whether it is right, and why)</span></p>']
        for i, q in enumerate(self.questions, 1):
            rows.append(f'<div class="fc-quiz-question"><p class="fc-quiz-text"><strong>Q{i}.</strong> {_inline(q.text)}</p>')
            for letter, o in zip("abcdef", q.options):
                verdict = "right" if o.correct else "wrong"
                label = "Right." if o.correct else "Not quite."
                rows.append(
                    f'<details class="fc-quiz-option" data-verdict="{verdict}"><summary>({letter}) {_inline(o.text)}</summary>'
                    f'<p class="fc-quiz-why fc-quiz-{verdict}"><strong>{label}</strong> {_inline(o.why)}</p></details>')
            rows.append("</div>")
        rows.append("</div>")
        return "\n".join(rows)

    def __str__(self) -> str:
        lines = [self.title]
        for i, q in enumerate(self.questions, 1):
            lines.append(f"Q{i}. {q.text}")
            lines += [f"   ({letter}) {o.text}" for letter, o in zip("abcdef", q.options)]
        return "\n".join(lines)

    __repr__ = __str__


def quiz(*questions: Question, title: str = "Quiz") -> Quiz:
    """A quiz of 1-8 questions; it shows itself as clickable options (see the module docstring)."""
    if not 1 <= len(questions) <= 8:
        raise ValueError(f"a quiz has 1 to 8 questions; got {len(questions)}")
    for q in questions:
        if not isinstance(q, Question):
            raise TypeError(f"quiz takes question(...) objects; got {type(q).__name__}")
    return Quiz(tuple(questions), title)
