"""MkDocs hooks for a site built from ``docs/`` of a repository whose pages link into the
rest of the repository.

The pages are written to be read on GitHub too, so a page links to evidence outside
``docs/`` with a repository-relative path (``../results/proof/…/``, ``../configs/x.yaml``).
MkDocs resolves links only inside ``docs/`` and would warn about each of these (and the
strict build would fail), while the targets are real. Silencing MkDocs' ``not_found``
check would hide broken links inside ``docs/`` too, so instead this hook takes over exactly
the links that leave ``docs/``:

- the target must exist in the repository, or the build warns (so ``--strict`` still
  catches a broken link, inside ``docs/`` by MkDocs, outside it here);
- an image (``![…](../results/web/x.svg)``) is copied into the site under ``repo/`` and
  the link points at the copy, so the picture shows on the site as on GitHub;
- any other link points at the file or folder on the repository's web view when
  ``repo_url`` is set in ``mkdocs.yml`` (``{repo_url}/blob/HEAD/path``, ``/tree/`` for a
  folder); without ``repo_url`` the link is replaced by its text (the path, shown as
  code), since the site has no page for it.

The page's Markdown file keeps its relative link, so GitHub is unchanged. A second hook
turns the Sphinx roles of the docstrings (``:func:`x```), which Markdown leaves as
``:func:<code>x</code>``, into plain code.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.repo_links")

#: a Markdown link or image with an inline target: ``[text](target)``, ``![alt](target "t")``
LINK = re.compile(
    r"(?P<bang>!?)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
#: a fenced code block (its links are examples, not links)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
#: a Sphinx role left in rendered docstrings: ``:func:<code>``
ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc|obj|const):(?=<code>)")
IMAGE_SUFFIXES = (".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp")
#: where copied images go inside the site
COPY_PREFIX = "repo"

def _repo_path(page_src: str, target: str, docs_dir: Path, root: Path) -> str | None:
    """The repository-relative path of ``target`` when, linked from the page ``page_src``
    (relative to ``docs_dir``), it leaves ``docs/`` but stays in the repository."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", target, re.IGNORECASE):
        return None  # a URL, an absolute path or an anchor: not a repository path
    path = target.split("#", 1)[0]
    if not path:
        return None
    docs_rel = posixpath.relpath(docs_dir.as_posix(), root.as_posix())
    joined = posixpath.normpath(posixpath.join(docs_rel, posixpath.dirname(page_src), path))
    if joined == ".." or joined.startswith("../"):
        return None  # outside the repository: left to MkDocs
    if joined == docs_rel or joined.startswith(docs_rel + "/"):
        return None  # inside docs/: MkDocs resolves and checks it
    return joined + ("/" if path.endswith("/") else "")


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    docs_dir = Path(config.docs_dir)
    root = Path(config.config_file_path).parent
    repo_url = (config.repo_url or "").rstrip("/")
    fences = [m.span() for m in FENCE.finditer(markdown)]

    def rewrite(match: re.Match) -> str:
        if any(start <= match.start() < end for start, end in fences):
            return match.group(0)
        target = match.group("target")
        path = _repo_path(page.file.src_uri, target, docs_dir, root)
        if path is None:
            return match.group(0)
        source = root / path
        if not source.exists():
            log.warning("%s: link to %s: no such file in the repository", page.file.src_uri,
                        target)
            return match.group("text")  # warned once, here, rather than again by MkDocs
        anchor = target[len(target.split("#", 1)[0]):]
        title = match.group("title") or ""
        if match.group("bang") and source.suffix.lower() in IMAGE_SUFFIXES:
            site_path = f"{COPY_PREFIX}/{path}"
            if files.get_file_from_path(site_path) is None:  # before MkDocs checks the link
                files.append(File.generated(config, site_path, abs_src_path=str(source)))
            relative = posixpath.relpath(site_path, posixpath.dirname(page.file.src_uri))
            return f"{match.group('bang')}[{match.group('text')}]({relative}{title})"
        if repo_url:
            kind = "tree" if source.is_dir() else "blob"
            url = f"{repo_url}/{kind}/HEAD/{path.rstrip('/')}{anchor}"
            return f"{match.group('bang')}[{match.group('text')}]({url}{title})"
        return match.group("text")

    return LINK.sub(rewrite, markdown)


def on_page_content(html: str, page, config, files: Files) -> str:
    return ROLE.sub("", html)
