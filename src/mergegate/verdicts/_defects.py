"""A defect stated in the reviewer's own voice: 'Does not compile.', 'The migration drops the
users table.', 'Login is broken.', 'It crashes on startup', 'This leaks the API token'.

A review that states such a defect of the change, now, has not approved it unconditionally,
wherever the statement stands in the deciding round (`_unweighed`). The predicates are closed
sets — a check that fails, a thing that is broken, a harm done to data or secrets — read one
clause at a time; a clause that negates it, tells it as the past or as what the change fixes,
or describes a test or a hypothesis does not state a defect ('the old code leaked the token',
'fixes the crash', 'the new test fails without the fix', 'would crash if …').
Only ever keeps an approval from standing: a defect missing here approves nothing.
"""

from __future__ import annotations

from mergegate.verdicts._composed_phrases import negated_before
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import failing_checks_in

__all__ = ["stated_defect"]

_DEFECT = compile_lazily(
    r"(?<![\w-])(?:"
    # a check that fails, with or without its subject ('Does not compile.')
    r"(?:does not|doesn't|do not|don't|won't|will not|cannot|can't|fails to)"
    r"[ \t]+(?:compile|build|run|start|boot|load|install|work|pass)|"
    # a thing broken now
    r"(?:is|are)[ \t]+(?:now[ \t]+|still[ \t]+|completely[ \t]+|totally[ \t]+)?"
    r"(?:broken|unusable|non-functional|nonfunctional|unbuildable|dead on arrival)|"
    r"crashes|crashing|panics|segfaults|deadlocks|hangs forever|hangs on|freezes|"
    r"never[ \t]+(?:terminates|returns|finishes|completes|exits|ends|stops|releases|closes|"
    r"times out)|infinite loop|endless loop|"
    r"(?:returns|responds with|answers with)[ \t]+(?:an?[ \t]+|http[ \t]+)?5\d\d|"
    # harm to data or secrets
    r"(?:drops|deletes|truncates|wipes|destroys|erases|purges|overwrites)[ \t]+"
    r"(?:the[ \t]+|all[ \t]+|every[ \t]+|a[ \t]+|each[ \t]+)?(?:[\w-]+[ \t]+){0,2}?"
    r"(?:tables?|database|db|data|rows|records|bucket|buckets|columns?|users|files|"
    r"directory|index|history|backups?)|"
    r"data loss|loses data|lose data|corrupts|corrupting|"
    r"(?:leaks|exposes|logs|prints|commits)[ \t]+(?:the[ \t]+|a[ \t]+|an[ \t]+|all[ \t]+|"
    r"every[ \t]+)?(?:[\w-]+[ \t]+){0,2}?(?:tokens?|keys?|secrets?|passwords?|credentials|"
    r"pii|private keys?|session ids?)|"
    # the same, in the other languages the vocabularies list
    r"no compila|no se compila|no funciona|no arranca|se cae|"
    r"não compila|não funciona|quebra o build|"
    r"ne compile pas|ne fonctionne pas|ne démarre pas|plante|"
    r"kompiliert nicht|baut nicht|funktioniert nicht|startet nicht|stürzt ab|"
    r"non compila|non funziona|"
    r"не компилируется|не собирается|не работает|падает"
    r")(?![\w-])|无法编译|编译失败|编译不通过|无法运行|会崩溃|崩溃了|删除了.{0,6}表|"
    r"コンパイルできない|コンパイルエラー|ビルドが通らない|动かない|クラッシュする|"
    r"컴파일되지 않|빌드 실패|동작하지 않"
)
# In the same clause these say it is not a present defect of this change: the past, what the
# change fixes or prevents, a test or a hypothesis.
_NOT_A_DEFECT = compile_lazily(
    r"(?<![\w-])(?:fixes|fixed|fixing|prevents|prevented|preventing|stops|stopped|avoids|"
    r"avoided|avoiding|guards? against|"
    r"no longer|used to|previously|formerly|originally|was|were|had|old|legacy|bug where|"
    r"issue where|regression tests?|tests? (?:that|for|which|where|whether|if)|asserts?|"
    r"ensur\w*|verif\w*|checks? (?:that|whether|if)|reproduc\w*|would|could|might|if|whether|"
    r"unless|instead of|rather than|without (?:the|this) (?:fix|change|patch)|"
    r"before (?:the|this) (?:fix|change|patch|pr)|pre[ -]?existing|expected|intended|"
    r"intentionally|by design|deliberately|simulat\w*|mock\w*|fake\w*)(?![\w-])"
)
_CLAUSES = compile_lazily(r"[^.;!?。；！？]+")


# On the same line, a word that tells the change mends it: 'X crashes when Y; this PR fixes
# it' describes the bug it fixes, not a defect it has.
_MENDED = compile_lazily(
    r"(?<![\w-])(?:(?:fixes|fixed|resolves|resolved|addresses|addressed|prevents|prevented|"
    r"repairs|repaired|corrects|corrected)[ \t]+(?:it|this|that|them|the[ \t]+(?:bug|issue|"
    r"crash|problem|leak|failure|regression|defect)s?)|no longer)(?![\w-])"
)


def stated_defect(text: str) -> str | None:
    """The first defect `text` states of the change, now, or None."""
    if _MENDED.search(text) is not None:
        return None
    for clause in _CLAUSES.findall(text):
        if _NOT_A_DEFECT.search(clause) is not None:
            continue
        found = _DEFECT.search(clause)
        if found is not None and not negated_before(clause, found.start(), words=3):
            return found.group(0).strip()
    return failing_checks_in(text)
