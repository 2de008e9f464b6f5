"""workspace: path confinement and reading files from disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsp_server.workspace import (
    BINARY_SNIFF_BYTES,
    PathResolver,
    decode_file_bytes,
    display_path,
    holds_text,
    read_disk_file,
    resolve_path,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x = 1\n")
    return ws


def test_relative_path_resolves_under_the_root(root: Path) -> None:
    assert resolve_path("src/app.py", [root]) == (root / "src" / "app.py", None)
    assert resolve_path("./src/../src/app.py", [root]) == (root / "src" / "app.py", None)
    assert resolve_path("new/dir/file.txt", [root]) == (root / "new" / "dir" / "file.txt", None)


def test_absolute_path_inside_the_workspace_is_accepted(root: Path) -> None:
    assert resolve_path(str(root / "src" / "app.py"), [root]) == (root / "src" / "app.py", None)


@pytest.mark.parametrize(
    ("file", "words"),
    [
        ("../escape.py", "outside"),
        ("src/../../escape.py", "outside"),
        ("/etc/hostname", "outside"),
        ("~/.bashrc", "home"),
        ("C:/Windows/win.ini", "drive letter"),
        ("c:app.py", "drive letter"),
        ("src\\app.py", "backslash"),
        ("%2e%2e/escape.py", "URL-encoded"),
        ("src%2Fapp.py", "URL-encoded"),
        (".git/config", ".git"),
        ("sub/.GIT/hooks/pre-commit", ".git"),
        ("", "empty"),
        ("   ", "empty"),
        ("a\x00b", "NUL"),
        ("file:///etc/passwd", "URL"),
        (".", "workspace folder itself"),
    ],
)
def test_refused_paths_say_why(root: Path, file: str, words: str) -> None:
    path, reason = resolve_path(file, [root])
    assert path is None
    assert reason is not None and words.lower() in reason.lower()


def test_symlink_pointing_outside_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    os.symlink(outside, root / "link")
    os.symlink(outside / "secret.txt", root / "file_link.txt")
    for file in ("link/secret.txt", "link/new.txt", "file_link.txt"):
        path, reason = resolve_path(file, [root])
        assert path is None and "symlink" in (reason or ""), file


def test_symlink_inside_the_workspace_is_fine_and_kept_as_written(root: Path) -> None:
    os.symlink(root / "src", root / "alias")
    assert resolve_path("alias/app.py", [root]) == (root / "alias" / "app.py", None)


def test_symlink_into_git_is_refused(root: Path) -> None:
    (root / ".git").mkdir()
    os.symlink(root / ".git", root / "gitlink")
    path, reason = resolve_path("gitlink/config", [root])
    assert path is None and ".git" in (reason or "")


def test_several_roots_prefer_the_one_where_the_path_exists(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    (b / "lib").mkdir(parents=True)
    (b / "lib" / "x.py").write_text("")
    assert resolve_path("lib/x.py", [a, b]) == (b / "lib" / "x.py", None)
    assert resolve_path("lib/new.py", [a, b]) == (a / "lib" / "new.py", None)
    assert resolve_path(str(b / "lib" / "x.py"), [a, b])[0] == b / "lib" / "x.py"


def test_no_roots_refuses(root: Path) -> None:
    assert resolve_path("src/app.py", []) == (None, "no workspace folder is open")


def _realpath_reference(file: str, roots: list[Path]) -> tuple[Path | None, str | None]:
    """resolve_path as specified, with os.path.realpath of every path (no shortcuts)."""
    from lsp_server import workspace

    answer = workspace.PathResolver(roots)
    if workspace._refusal(file) or not roots:
        return answer.resolve(file)  # the lexical refusals do not look at the disk
    plain = [os.path.normpath(os.path.abspath(str(r))) for r in roots]
    if os.path.isabs(file):
        candidate = os.path.normpath(file)
        inside = [r for r in plain if workspace._is_within(candidate, r)]
        if not inside:
            return answer.resolve(file)
        root = max(inside, key=len)
    else:
        candidates = [(r, os.path.normpath(os.path.join(r, file))) for r in plain]
        if len(candidates) > 1:
            candidates = [c for c in candidates if os.path.lexists(c[1])] or candidates
        root, candidate = candidates[0]
        if not workspace._is_within(candidate, root):
            return answer.resolve(file)
    if candidate == root or workspace._has_forbidden_part(candidate, root):
        return answer.resolve(file)
    real = os.path.realpath(candidate)
    real_roots = [os.path.realpath(r) for r in plain]
    real_root = next((r for r in real_roots if workspace._is_within(real, r)), None)
    if real_root is None:
        return None, f"path {file!r} is a symlink (or inside one) pointing outside the workspace"
    if workspace._has_forbidden_part(real, real_root):
        return None, f"path {file!r} resolves into .git, which edits may not touch"
    return Path(candidate), None


def test_resolver_answers_as_realpath_of_every_path_would(tmp_path: Path) -> None:
    # The resolver looks for symlinks below the folder only (one lstat per component per
    # plan); its answers must be those of resolving every path and folder with realpath.
    ws, outside, other = tmp_path / "ws", tmp_path / "outside", tmp_path / "other"
    for folder in (ws / "src" / "deep", ws / ".git", outside / "sub", other / "src"):
        folder.mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x\n")
    (outside / "secret.txt").write_text("s\n")
    (other / "src" / "app.py").write_text("y\n")
    links = {
        ws / "alias": ws / "src", ws / "out": outside, ws / "file_link.txt": outside / "secret.txt",
        ws / "gitlink": ws / ".git", ws / "dangling": ws / "nowhere",
        ws / "dangling_out": tmp_path / "nowhere", ws / "chain": ws / "alias",
        ws / "src" / "up": Path(".."), ws / "src" / "upout": Path("../.."),
        ws / "src" / "deep" / "loop": Path("loop"), tmp_path / "wslink": ws,
        other / "back": ws / "src",
    }
    for link, target in links.items():
        os.symlink(target, link)
    parts = ["src", "alias", "out", "gitlink", "dangling", "dangling_out", "chain", "up",
             "upout", "deep", "loop", "new", "app.py", "file_link.txt", ".git", "back", ".."]
    files = [*parts, *(f"{a}/{b}" for a in parts for b in parts)]
    files += [f"src/{a}/{b}" for a in ("up", "deep", "upout") for b in parts]
    files += [str(ws / "out" / "secret.txt"), str(ws / "src" / "app.py"),
              str(tmp_path / "wslink" / "alias" / "app.py")]
    for roots in ([ws], [tmp_path / "wslink"], [ws, other], [other, tmp_path / "wslink"],
                  [ws, ws / "src"]):
        resolver = PathResolver(roots)
        for file in files:
            assert resolver.resolve(file) == _realpath_reference(file, roots), (roots, file)


def test_resolver_caches_answers(root: Path) -> None:
    resolver = PathResolver([root])
    first = resolver.resolve("src/app.py")
    (root / "src" / "app.py").unlink()
    assert resolver.resolve("src/app.py") is first


def test_a_later_plan_sees_symlinks_made_since(root: Path, tmp_path: Path) -> None:
    # What needs no disk is kept across plans; symlinks are looked for again by each plan.
    outside = tmp_path / "outside"
    outside.mkdir()
    assert PathResolver([root]).resolve("lib/x.py") == (root / "lib" / "x.py", None)
    assert PathResolver([root]).resolve("../x.py")[0] is None
    os.symlink(outside, root / "lib")
    path, reason = PathResolver([root]).resolve("lib/x.py")
    assert path is None and "symlink" in (reason or "")
    os.unlink(root / "lib")
    os.symlink(root / ".git", root / "lib")
    path, reason = PathResolver([root]).resolve("lib/x.py")
    assert path is None and ".git" in (reason or "")


def test_several_folders_choose_by_the_disk_on_every_plan(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert PathResolver([a, b]).resolve("x.py") == (a / "x.py", None)
    (b / "x.py").write_text("")
    assert PathResolver([a, b]).resolve("x.py") == (b / "x.py", None)


# ---------------------------------------------------------------------------- reading


def test_read_text_keeps_line_endings_and_bom(tmp_path: Path) -> None:
    p = tmp_path / "f.txt"
    p.write_bytes(b"\xef\xbb\xbfa\r\nb")
    snap = read_disk_file(p)
    assert snap.text == "\ufeffa\r\nb" and snap.version is None
    assert not (snap.binary or snap.is_dir or snap.error)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert read_disk_file(tmp_path / "nope").text is None
    snap = read_disk_file(tmp_path)
    assert snap.is_dir and snap.text is None


def test_nul_in_first_8k_is_binary(tmp_path: Path) -> None:
    p = tmp_path / "data.bin"
    p.write_bytes(b"abc\n\x00\x01\x02\n")
    assert read_disk_file(p).binary
    late = tmp_path / "late.txt"
    late.write_bytes(b"a" * 9000 + b"\x00")
    assert not read_disk_file(late).binary


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("hi\n".encode("utf-16"), "UTF-16"),
        ("hi\n".encode("utf-32"), "UTF-32"),
        (b"caf\xe9\n", "not valid UTF-8"),
    ],
)
def test_undecodable_files_are_refused_with_a_reason(
    tmp_path: Path, data: bytes, words: str
) -> None:
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    snap = read_disk_file(p)
    assert snap.text is None and snap.error and words in snap.error


def test_size_limit(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_bytes(b"x" * 100)
    snap = read_disk_file(p, max_bytes=10)
    assert snap.text is None and "limit" in (snap.error or "")
    assert read_disk_file(p, max_bytes=1000).text == "x" * 100


# ------------------------------------------------------------ hostile names (issue 13)

# Names some file system reads as ".git" (git refuses them too: is_ntfs_dotgit,
# is_hfs_dotgit, CVE-2014-9390, CVE-2019-1352), as any component, in any case.
GIT_ALIASES = [
    ".git./config", ".git /config", ".git. . ./hooks/pre-commit", "GIT~1/config",
    "git~1. /config", "sub/Git~1/config", ".git::$INDEX_ALLOCATION/config", ".git:stream",
    ".GIT::$DATA", ".g\u200cit/config", ".\u200dgit/config", "\ufeff.git/config",
    ".gi\u200et/x", ".Git\u206a/x", ".g\u202ait/x", "sub/.G\u200fIT/hooks/x",
]


@pytest.mark.parametrize("file", GIT_ALIASES, ids=[ascii(f) for f in GIT_ALIASES])
def test_names_that_are_git_on_some_file_system_are_refused(root: Path, file: str) -> None:
    path, reason = resolve_path(file, [root])
    assert path is None and ".git" in (reason or ""), reason


@pytest.mark.parametrize("file", [".gitignore", ".github/workflows/ci.yml", ".git~1",
                                  "git~1x", "git~2.txt", ".gitx/config", "src/git/x.py",
                                  "my.git/x", ".gitattributes"])
def test_names_that_only_look_like_git_are_fine(root: Path, file: str) -> None:
    assert resolve_path(file, [root]) == (root / file, None)


INVISIBLE = [
    "\u202eevil.py", "src/app\u202e.py", "a\u200bb.py", "a\u200cb.py", "a\u200db.py",
    "a\u2066b\u2069.py", "a\u2028b.py", "a\u2029b.py", "a\u00adb.py", "a\u2060b.py",
    "\u3164.py", "a\u115fb.py", "a\ufe0fb.py", "a\U000e0041b.py", "a\u061cb.py",
    "a\u034fb.py", "dir\u200b/app.py",
]


@pytest.mark.parametrize("file", INVISIBLE, ids=[ascii(f) for f in INVISIBLE])
def test_invisible_characters_in_paths_are_refused(root: Path, file: str) -> None:
    # Bidi overrides and zero-width characters make a path read as another.
    path, reason = resolve_path(file, [root])
    assert path is None and "invisible character" in (reason or ""), reason
    first = next(c for c in file if ord(c) > 0x7F)
    assert reason is not None and f"U+{ord(first):04X}" in reason
    assert f"\\u{ord(first):04x}" in reason and first not in reason  # shown escaped


@pytest.mark.parametrize("file", ["caf\u00e9.py", "\u65e5\u672c\u8a9e.py", "a b.py",
                                  "\U0001f600.py", "\u05e9\u05dc\u05d5\u05dd.txt"])
def test_visible_unicode_names_are_fine(root: Path, file: str) -> None:
    assert resolve_path(file, [root]) == (root / file, None)


def test_a_lone_surrogate_is_refused_not_raised(root: Path) -> None:
    # os.lstat raised UnicodeEncodeError: the whole plan was lost (InternalError).
    path, reason = resolve_path("a\ud800.py", [root])
    assert path is None and "surrogate" in (reason or "")


@pytest.mark.parametrize("file", ["x" * 300 + ".py", "new/" + "x" * 300 + "/y.py",
                                  ("d" * 200 + "/") * 25 + "x.py", "\u00e9" * 130 + ".py"])
def test_a_path_too_long_for_the_file_system_is_refused_as_such(root: Path, file: str) -> None:
    # It was accepted, then failed later as "File already exists" (server) or when a
    # directory still to be made was made.
    path, reason = resolve_path(file, [root])
    assert path is None and "too long" in (reason or "") and "File name too long" in reason
    assert len(reason) < 400  # the path is cut short in the reason


def test_names_at_the_limit_are_fine(root: Path) -> None:
    file = "x" * 252 + ".py"  # 255 bytes
    assert resolve_path(file, [root]) == (root / file, None)


def test_two_names_of_one_file_resolve_to_the_first_one_used(root: Path) -> None:
    os.symlink("src", root / "alias")
    os.symlink("src/app.py", root / "app_link.py")
    resolver = PathResolver([root])
    first = resolver.resolve_alias("alias/app.py")
    assert first == (root / "alias" / "app.py", None)
    for other in ("src/app.py", "app_link.py", "./src/../alias/app.py",
                  str(root / "src" / "app.py")):
        assert resolver.resolve_alias(other) == first, other
        assert resolver.resolve(other)[0] != first[0] or other.endswith("alias/app.py")
    # A file still to be made, named through the link and directly.
    assert resolver.resolve_alias("alias/new.py") == resolver.resolve_alias("src/new.py")
    assert resolver.resolve_alias("src/other.py") == (root / "src" / "other.py", None)


def test_moving_a_relative_symlink_elsewhere_is_refused(root: Path) -> None:
    os.symlink("../src/app.py", root / "src" / "up.py")  # src/up.py -> src/app.py
    os.symlink(str(root / "src" / "app.py"), root / "src" / "absolute.py")
    resolver = PathResolver([root])
    source = root / "src" / "up.py"
    for target in ("up.py", "src/deeper/up.py"):  # "../src/app.py" would lead elsewhere
        path, reason = resolver.resolve_move(source, target)
        assert path is None and "symlink" in (reason or "") and "'../src/app.py'" in reason
    assert resolver.resolve_move(source, "src/renamed.py") == (root / "src" / "renamed.py",
                                                               None)
    assert resolver.resolve_move(root / "src" / "absolute.py", "moved.py") == (
        root / "moved.py", None)
    assert resolver.resolve_move(root / "src" / "app.py", "app.py") == (root / "app.py", None)


_TEXTS = ["", "a\n", "\ufeffbom\n", "caf\u00e9\r\n", "\x00nul", "x" * BINARY_SNIFF_BYTES + "\x00",
          "\ud800 lone surrogate", "\U0001f600\n"]
_BYTES = [b"", b"a\n", b"\xef\xbb\xbfbom\n", b"caf\xc3\xa9\r\n", b"caf\xe9\r\n", b"\x00nul",
          b"x" * BINARY_SNIFF_BYTES + b"\x00", b"\xff\xfea\x00", b"\xed\xa0\x80 lone surrogate",
          b"\xf0\x9f\x98\x80\n"]


@pytest.mark.parametrize("data", _BYTES)
@pytest.mark.parametrize("text", _TEXTS)
def test_holds_text_says_what_decoding_the_bytes_would(data: bytes, text: str) -> None:
    # The CLI checks a file is unchanged before writing it by comparing bytes (no decoding).
    assert holds_text(data, text) == (decode_file_bytes(data).text == text)


def test_display_path_is_relative_to_the_first_root_holding_it() -> None:
    roots = [Path("/ws/a"), Path("/ws")]
    assert display_path(Path("/ws/a/src/x.py"), roots) == "src/x.py"
    assert display_path(Path("/ws/b/y.py"), roots) == "b/y.py"
    assert display_path(Path("/elsewhere/z.py"), roots) == "/elsewhere/z.py"
