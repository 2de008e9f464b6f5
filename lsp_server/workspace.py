"""The workspace boundary: which paths a response may touch, and reading files from disk.

:func:`resolve_path` confines a path as written in a response to the workspace folders and
refuses, with a reason a person can act on, everything that could reach elsewhere (``..``,
absolute paths outside, symlinks pointing out, ``~``, drive letters, backslashes,
URL-encoded separators, NUL bytes) and the ``.git`` directory (see docs/safety.md).

:func:`read_disk_file` reads one file the way the engine needs it: text with its own line
endings and BOM, or the reason it cannot be edited (binary, not UTF-8, UTF-16/32, too big).
The server uses it for files that are not open; the CLI for everything.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
import unicodedata
from pathlib import Path

from .limits import DEFAULT_MAX_FILE_BYTES
from .model import FileSnapshot

BINARY_SNIFF_BYTES = 8192

_DRIVE_RE = re.compile(r"^[A-Za-z]:")
_ENCODED_RE = re.compile(r"%(2e|2f|5c|00)", re.IGNORECASE)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_CONTROL_RE = re.compile(r"[\x01-\x1f\x7f-\x9f]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# Names that are ``.git`` to some file system, as git itself refuses them (git's
# is_ntfs_dotgit / is_hfs_dotgit; CVE-2014-9390, CVE-2019-1352): NTFS drops trailing dots
# and spaces, reads ``:…`` as a data stream of the name before it and answers to the 8.3
# short name ``GIT~1``; HFS+ ignores the code points of _HFS_IGNORED. Refused on every
# platform: a repository checked out on Linux is opened on Windows and macOS too.
_NTFS_DOTGIT = re.compile(r"(?:\.git|git~1)[. ]*(?::.*)?", re.IGNORECASE | re.DOTALL)
_HFS_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
# Invisible code points (besides Unicode's format characters, category Cf, and the line and
# paragraph separators): the rest of Default_Ignorable_Code_Point (combining grapheme
# joiner, Hangul fillers, variation selectors, ...). Bidi overrides and zero-width
# characters make a path read as another ("Trojan Source"); no file name needs them.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Zl", "Zp"})
_IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2065\u3164"
                        "\ufe00-\ufe0f\uffa0\ufff0-\ufff8\U000e0000-\U000e0fff]")
# The longest name (one path component) common file systems take: 255 bytes of UTF-8 on
# Linux and macOS, 255 UTF-16 units on NTFS. Longer fails with ENAMETOOLONG, which a
# name under a directory still to be made would only meet when the directory is made.
NAME_MAX = 255
# The longest whole path the system takes, with its final NUL (Linux: 4096, macOS: 1024);
# None where paths may be longer (Windows with long paths) or the system does not say.
PATH_MAX = {"linux": 4096, "darwin": 1024}.get(sys.platform)


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def is_dotgit(name: str) -> bool:
    """Whether one path component names ``.git`` on some file system (see _NTFS_DOTGIT)."""
    if not name.isascii():
        name = _HFS_IGNORED.sub("", name)
    return _NTFS_DOTGIT.fullmatch(name) is not None


def _forbidden_part(path: str, root: str) -> str | None:
    """The component of ``path`` (normalised, within ``root``) that is ``.git``, if any."""
    rest = path[len(root.rstrip(os.sep)) :]
    return next((part for part in rest.split(os.sep) if part and is_dotgit(part)), None)


def _has_forbidden_part(path: str, root: str) -> bool:
    """Whether ``path`` (normalised, within ``root``) passes through a forbidden directory."""
    return _forbidden_part(path, root) is not None


def _inside_git(file: str, part: str) -> str:
    alias = "" if part.lower() == ".git" else f" ({part!a} is .git on Windows or macOS)"
    return f"path {file!r} is inside .git{alias}, which edits may not touch"


def _is_invisible(char: str) -> bool:
    """A format, separator or ignorable code point (see _IGNORABLE)."""
    return char > "\x7f" and (unicodedata.category(char) in _INVISIBLE_CATEGORIES
                               or _IGNORABLE.match(char) is not None)


def _invisible_refusal(file: str) -> str | None:
    """Why ``file`` is refused for an invisible character in it (shown escaped), if it is."""
    if file.isascii():
        return None
    first = next((char for char in file if _is_invisible(char)), None)
    if first is None:
        return None
    shown = "".join(f"\\u{ord(c):04x}" if _is_invisible(c) else c for c in file)
    return (f"path '{shown}' contains an invisible character (U+{ord(first):04X}, "
            f"{unicodedata.name(first, 'unnamed')}): it could make the path look like another")


def _name_size(name: str) -> int:
    """How long a file system counts ``name`` (see NAME_MAX)."""
    if sys.platform == "win32":
        return len(name.encode("utf-16-le", "surrogatepass")) // 2
    return len(name.encode("utf-8", "surrogatepass"))


def _too_long(file: str, path: str) -> str | None:
    """Why ``path`` (``file`` made absolute) is too long for the file system, if it is."""
    if len(path) <= NAME_MAX // 4:  # a code point is at most 4 bytes
        return None
    size = len(path.encode("utf-8", "surrogatepass"))
    if PATH_MAX is not None and size >= PATH_MAX:
        return (f"path {_cut(file)!r} is too long for the file system (File name too long: "
                f"{size} bytes, the limit is {PATH_MAX - 1})")
    name = next((part for part in path.split(os.sep) if _name_size(part) > NAME_MAX), None)
    if name is None:
        return None
    return (f"path {_cut(file)!r} is too long for the file system (File name too long: a "
            f"name of {_name_size(name)} bytes, the limit is {NAME_MAX})")


def _cut(file: str) -> str:
    """A path cut short enough to show in a reason."""
    return file if len(file) <= 120 else f"{file[:60]}…{file[-40:]}"


def _refusal(file: str) -> str | None:
    """Why ``file`` is not a workspace path, as far as its text alone tells."""
    if not file or not file.strip():
        return "empty path"
    return _character_refusal(file) or _form_refusal(file)


def _character_refusal(file: str) -> str | None:
    """A character no path may hold (NUL, a lone surrogate, a control character)."""
    if "\x00" in file:
        return "path contains a NUL byte"
    surrogate = _SURROGATE_RE.search(file)
    if surrogate:  # no file name can hold one (and the OS calls would raise)
        return (f"path {file!r} contains a lone surrogate (U+{ord(surrogate.group()):04X}), "
                "which no file name can hold")
    control = _CONTROL_RE.search(file)
    if control:  # a file named with escape sequences would drive terminals that list it
        return f"path {file!r} contains a control character (U+{ord(control.group()):04X})"
    return None


def _form_refusal(file: str) -> str | None:
    """A path written in a form that could lead elsewhere than it seems."""
    if file != file.strip():
        return f"path {file!r} has leading or trailing whitespace"
    if file.startswith("~"):
        return f"path {file!r} is home-relative (~); use a path relative to the workspace"
    if _SCHEME_RE.match(file):
        return f"path {file!r} is a URL; use a path relative to the workspace"
    if _DRIVE_RE.match(file):
        return f"path {file!r} has a Windows drive letter; use a path relative to the workspace"
    if "\\" in file:
        return f"path {file!r} contains backslashes; use '/' as the separator"
    if _ENCODED_RE.search(file):
        return f"path {file!r} contains URL-encoded separators or dots"
    return None


class _NameTooLong(Exception):
    """The system said ENAMETOOLONG for a path (the message is its words)."""


class PathResolver:
    """:func:`resolve_path` for one plan: caches answers and what it learnt of the disk.

    A path's symlinks are looked for below its workspace folder only, one ``lstat`` per
    component, each component at most once per plan (so 1,000 blocks over 200 files cost a
    few hundred ``stat`` calls, not thousands). When none of them is a symlink the path's
    real location is the folder's own plus the same components: it stays inside, and those
    components were already checked for ``.git``. Only a symlink (or several folders) makes
    it resolve the path and the folders fully, as ``os.path.realpath`` does.

    The lexical part of an answer (refusals that need no disk, the path's folder and
    normalised form) depends on the path and the folders only, so it is kept across plans
    (:data:`_LEXICAL`); everything that looks at the disk (symlinks, and which of several
    folders holds the path) is done again by every plan.
    """

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [os.path.normpath(os.path.abspath(str(r))) for r in roots]
        self._real_roots: list[str] | None = None  # realpath of each root, when needed
        self._answers: dict[str, tuple[Path | None, str | None]] = {}
        # Path -> whether it is a symlink (None: it does not exist or cannot be examined).
        self._is_link: dict[str, bool | None] = {}
        # Path as written -> its real path, said through its folder; real path -> the first
        # path that reached it (see resolve_alias).
        self._real: dict[str, str] = {}
        self._aliases: dict[str, Path] = {}

    @property
    def real_roots(self) -> list[str]:
        if self._real_roots is None:
            self._real_roots = [os.path.realpath(r) for r in self.roots]
        return self._real_roots

    def _symlink_below(self, root: str, candidate: str) -> bool:
        """Whether a component of ``candidate`` below ``root`` is a symlink."""
        path = root.rstrip(os.sep)
        for part in candidate[len(path) + 1:].split(os.sep):
            path = f"{path}{os.sep}{part}"
            if path in self._is_link:
                is_link = self._is_link[path]
            else:
                try:
                    is_link = stat.S_ISLNK(os.lstat(path).st_mode)
                except OSError as exc:
                    if exc.errno == errno.ENAMETOOLONG:  # a limit NAME_MAX did not foresee
                        raise _NameTooLong(exc.strerror or "File name too long") from None
                    is_link = None
                self._is_link[path] = is_link
            if is_link is None:
                # Missing (or unreadable): nothing below it exists either, and realpath
                # keeps such components as written.
                return False
            if is_link:
                return True
        return False

    def _realpath(self, candidate: str, root: str) -> str:
        """``os.path.realpath(candidate)``, for a candidate inside ``root``."""
        if self._symlink_below(root, candidate):
            return os.path.realpath(candidate)
        real_root = self.real_roots[self.roots.index(root)]
        return os.path.join(real_root, candidate[len(root.rstrip(os.sep)) + 1:])

    def resolve(self, file: str) -> tuple[Path | None, str | None]:
        answer = self._answers.get(file)
        if answer is None:
            answer = self._answers[file] = self._resolve(file)
        return answer

    def _resolve(self, file: str) -> tuple[Path | None, str | None]:
        lexical = _kept_lexical(file, self.roots)
        if isinstance(lexical, str):
            return None, lexical
        try:
            return self._resolve_on_disk(file, *lexical)
        except _NameTooLong as exc:
            return None, f"path {_cut(file)!r} is too long for the file system ({exc})"

    def _resolve_on_disk(self, file: str, root: str, candidate: str,
                         path: Path) -> tuple[Path | None, str | None]:
        if len(self.roots) == 1 and not self._symlink_below(root, candidate):
            # Inside its folder wherever that folder really is; its parts were checked above.
            self._real[file] = candidate
            return path, None
        real = self._realpath(candidate, root)
        real_root = next((r for r in self.real_roots if _is_within(real, r)), None)
        if real_root is None:
            return None, (
                f"path {file!r} is a symlink (or inside one) pointing outside the workspace"
            )
        if _has_forbidden_part(real, real_root):
            return None, f"path {file!r} resolves into .git, which edits may not touch"
        # The real path said through its folder as configured (as the fast path above says).
        folder = self.roots[self.real_roots.index(real_root)]
        self._real[file] = folder + real[len(real_root.rstrip(os.sep)):]
        return path, None

    def resolve_alias(self, file: str) -> tuple[Path | None, str | None]:
        """:meth:`resolve`, but a file this resolver reached before by another name (through
        a symlink inside the workspace: ``link/a.py``, ``src/a.py``) is answered with the
        name it was first reached by. The planner keys its files by this answer, so two
        blocks naming one file by two names edit one file, not two copies of its text."""
        path, why = self.resolve(file)
        if path is None:
            return path, why
        return self._aliases.setdefault(os.path.normcase(self._real[file]), path), None

    def resolve_move(self, source: Path, file: str) -> tuple[Path | None, str | None]:
        """:meth:`resolve` for ``file``, the target of a move of ``source``; also refused when
        the move would change where a symlink points (:meth:`moved_link_refusal`)."""
        target, why = self.resolve_alias(file)
        if target is not None and target != source:
            why = self.moved_link_refusal(source, target)
            if why is not None:
                return None, why
        return target, why

    def moved_link_refusal(self, source: Path, target: Path) -> str | None:
        """Why ``source`` may not be moved to ``target``: it is a symlink with a relative
        target that would lead elsewhere from the new place (``../a.py`` moved one directory
        deeper names another file, or one outside the workspace). A move renames the link
        itself, keeping the target as written."""
        try:
            link = os.readlink(source)
        except (OSError, ValueError):
            return None  # not a symlink (or not there yet)
        if os.path.isabs(link):
            return None  # names the same place from anywhere
        now = os.path.realpath(source)
        then = os.path.realpath(os.path.join(os.path.dirname(target), link))
        if now == then:
            return None
        return (f"{os.path.basename(source)!r} is a symlink to {link!r}: moved there it "
                "would point elsewhere; move the file it points to instead")


# (path as written, folders) -> the lexical answer of _lexical; cleared when full.
_LEXICAL: dict[tuple[str, tuple[str, ...]], str | tuple[str, str, Path]] = {}
_LEXICAL_MAX = 4096
_LEXICAL_MAX_CHARS = 1024  # longer "paths" (a response's garbage) are not worth keeping


def _kept_lexical(file: str, roots: list[str]) -> str | tuple[str, str, Path]:
    """:func:`_lexical`, kept across plans when the answer needs no disk (one folder, or an
    absolute path): a preview re-resolves the same paths every time a response changes."""
    if (len(roots) != 1 and not os.path.isabs(file)) or len(file) > _LEXICAL_MAX_CHARS:
        return _lexical(file, roots)  # which folder holds it: a question for the disk
    key = (file, tuple(roots))
    lexical = _LEXICAL.get(key)
    if lexical is None:
        if len(_LEXICAL) >= _LEXICAL_MAX:
            _LEXICAL.clear()
        lexical = _LEXICAL[key] = _lexical(file, roots)
    return lexical


def _lexical(file: str, roots: list[str]) -> str | tuple[str, str, Path]:
    """What :class:`PathResolver` can tell of ``file`` without symlinks: the refusal, or
    ``(folder, normalised path as a string, the same as a Path)``.

    Looks at the disk only to choose among several folders for a relative path (the folder
    where it exists): only answers for one folder, or for an absolute path, may be kept.
    """
    reason = _refusal(file)
    if reason:
        return reason
    if not roots:
        return "no workspace folder is open"
    placed = _absolute_in(file, roots) if os.path.isabs(file) else _relative_in(file, roots)
    if isinstance(placed, str):
        return placed
    root, candidate = placed
    if candidate == root:
        return f"path {file!r} names the workspace folder itself"
    forbidden = _forbidden_part(candidate, root)
    if forbidden is not None:
        return _inside_git(file, forbidden)
    invisible = _invisible_refusal(file)
    if invisible is not None:
        return invisible
    too_long = _too_long(file, candidate)
    if too_long is not None:
        return too_long
    # One Path object per path: later plans reuse it and its cached hash.
    return root, candidate, Path(candidate)


def _absolute_in(file: str, roots: list[str]) -> str | tuple[str, str]:
    """The innermost folder holding an absolute path, and the normalised path."""
    candidate = os.path.normpath(file)
    inside = [r for r in roots if _is_within(candidate, r)]
    if not inside:
        return f"path {file!r} is outside the workspace"
    return max(inside, key=len), candidate


def _relative_in(file: str, roots: list[str]) -> str | tuple[str, str]:
    """The folder a relative path belongs to (the first where it exists, else the first),
    and the normalised path under it."""
    candidates = [(r, os.path.normpath(os.path.join(r, file))) for r in roots]
    if len(candidates) > 1:
        existing = [c for c in candidates if os.path.lexists(c[1])]
        candidates = existing or candidates
    root, candidate = candidates[0]
    if not _is_within(candidate, root):
        return f"path {file!r} leads outside the workspace"
    return root, candidate


def resolve_path(file: str, roots: list[Path]) -> tuple[Path | None, str | None]:
    """Confine ``file`` (as written in a response) to the workspace folders ``roots``.

    Returns ``(absolute path, None)`` or ``(None, reason)``. A relative path is taken
    relative to the root where it exists (several roots), else the first root. The returned
    path is normalised (no ``.``/``..``) but keeps symlinks inside the workspace as written;
    a symlink (or symlinked parent) whose target lies outside every root is refused.
    """
    return PathResolver(roots).resolve(file)


def display_path(path: Path, roots: list[Path]) -> str:
    """``path`` as a report shows it: relative to the first root holding it (POSIX
    slashes), else as it is."""
    for root in roots:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def read_disk_file(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> FileSnapshot:
    """Read ``path`` from disk as a :class:`FileSnapshot` (version None).

    Missing → ``text=None``; directory → ``is_dir``; NUL byte in the first 8 KiB → ``binary``;
    UTF-16/32 BOM, invalid UTF-8, over ``max_bytes`` or unreadable → ``error`` with the reason.
    A UTF-8 BOM is kept in ``text`` (the planner keeps it out of every edit).
    """
    try:
        if path.is_dir():
            return FileSnapshot(text=None, is_dir=True)
        if not path.exists():
            return FileSnapshot(text=None)
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below then
        # refuses anything that is not a regular file (a FIFO or a device like /dev/zero
        # would block or never end).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                return FileSnapshot(
                    text=None, error="not a regular file (a device, FIFO or socket); not edited")
            size = info.st_size
            if size <= max_bytes:
                data = fh.read(max_bytes + 1)  # the file may grow after the fstat
                size = max(size, len(data))
        if size > max_bytes:
            return FileSnapshot(
                text=None,
                error=f"file is {size} bytes, over the {max_bytes}-byte limit; not edited",
            )
    except OSError as exc:
        return FileSnapshot(text=None, error=f"cannot read file: {exc.strerror or exc}")
    return decode_file_bytes(data)


def decode_file_bytes(data: bytes) -> FileSnapshot:
    """Classify and decode a file's bytes (see :func:`read_disk_file`)."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return FileSnapshot(text=None, error="file is UTF-32 encoded; only UTF-8 is edited")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return FileSnapshot(text=None, error="file is UTF-16 encoded; only UTF-8 is edited")
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return FileSnapshot(text=None, binary=True)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return FileSnapshot(
            text=None,
            error=f"file is not valid UTF-8 (byte {exc.start}); not edited",
        )
    return FileSnapshot(text=text)


def holds_text(data: bytes, text: str) -> bool:
    """Whether :func:`decode_file_bytes` of ``data`` gives exactly ``text``, found without
    decoding: strict UTF-8 maps one text to one byte string, so ``data`` must be ``text``
    encoded, and not read as binary (a NUL early on; UTF-8 never starts with a UTF-16 or
    UTF-32 BOM). False for a text no bytes decode to (a lone surrogate)."""
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return data == encoded and b"\x00" not in data[:BINARY_SNIFF_BYTES]


def looks_binary(text: str) -> bool:
    """A text (e.g. an open buffer) with a NUL character in its first 8 KiB."""
    return "\x00" in text[:BINARY_SNIFF_BYTES]
