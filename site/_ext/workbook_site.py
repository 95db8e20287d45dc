"""Sphinx extension for the workbook's sites (copied into each staged site by lib/workbook/site/build.py).

Jupyter Book 1 with Sphinx 7 adds some scripts to a page twice (MathJax, the widget manager
embed.js, the thebe configuration). Loading MathJax twice throws in the browser ("Cannot set
property Package ..."), and the duplicate inline thebe config throws "Identifier 'THEBE_JS_URL'
has already been declared". This extension removes exact duplicates from each page's script list.
"""


def _key(js):
    """A script is a duplicate when it loads the same file (whatever its defer/async
    attributes) or, for an inline script, has the same body."""
    filename = getattr(js, "filename", js) or ""
    attrs = getattr(js, "attributes", {}) or {}
    return (str(filename), "" if filename else attrs.get("body", ""))


def dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, keep = set(), []
    for js in scripts:
        k = _key(js)
        if k in seen:
            continue
        seen.add(k)
        keep.append(js)
    scripts[:] = keep


def setup(app):
    app.connect("html-page-context", dedupe_scripts, priority=1000)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
