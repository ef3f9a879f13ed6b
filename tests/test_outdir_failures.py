"""A write into OUT that the system refuses (a full disk, no permission) is one line naming the file and why.

The disk is really full: OUT lies on a small tmpfs mounted for the test (root may mount one; elsewhere
the test says it cannot run). The permission is really missing: the command runs in a process
without the capability that lets root write anywhere, into a folder of mode 0555. Each time, the
files written before the failing one are whole (byte for byte those of a run that had room), and
no temporary file is left behind.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from paths import CORPUS, ROOT

NORTHWIND = CORPUS / "northwind" / "instnwnd.sql"
_UNPRIVILEGED = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                 "--bounding-set=-dac_override,-dac_read_search"]


def _assess(out: Path, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("SQLSRV2TIDB_DEBUG", None)
    return subprocess.run([*(prefix or []), sys.executable, "-m", "sqlsrv2tidb", "assess", "--quiet", str(NORTHWIND),
                           "-o", str(out)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _same_but_the_time(a: bytes, b: bytes) -> bool:
    time = re.compile(rb"<time>[^<]*</time>")
    return time.sub(b"", a) == time.sub(b"", b)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Every file of a run that had room."""
    out = tmp_path_factory.mktemp("reference") / "out"
    done = _assess(out)
    assert done.returncode in (0, 1), done.stderr
    return _files(out)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts a tmpfs of the given size (`200k`) and gives its folder; unmounted after the test."""
    mounted: list[Path] = []
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("a full disk is made by mounting a small tmpfs, which needs root and mount(8)")

    def mount(size: str) -> Path:
        folder = tmp_path / f"disk-{len(mounted)}"
        folder.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    try:
        yield mount
    finally:
        for folder in mounted:
            subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_names_the_file_and_leaves_the_others_whole(small_disk: Callable[[str], Path],
                                                               reference: dict[str, bytes]):
    out = small_disk("200k") / "out"  # room for the DDL files and assessment.json, not for report.html
    done = _assess(out)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(rf"Error: cannot write {re.escape(str(out))}/\S+: No space left on device \(the disk is full: "
                        r"free space there or choose another output folder with -o\); the files written before it are "
                        r"whole", lines[0]), lines[0]
    failed = lines[0].split("cannot write ", 1)[1].split(":", 1)[0]
    written = _files(out)
    assert written, "nothing was written before the disk was full: the test proves nothing about whole files"
    assert Path(failed).relative_to(out).as_posix() not in written
    for name, data in written.items():
        assert not name.rsplit("/", 1)[-1].startswith("."), f"temporary file left behind: {name}"
        assert _same_but_the_time(data, reference[name]), f"{name} is not whole"


def test_a_full_disk_leaves_an_earlier_run_whole(small_disk: Callable[[str], Path], reference: dict[str, bytes]):
    disk = small_disk("1m")
    out = disk / "out"
    out.mkdir()
    for name, data in reference.items():  # an earlier run's files, complete
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as fh:  # fill what is left of the disk
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    done = _assess(out)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and "No space left on device" in done.stderr, done.stderr
    assert _files(out) == reference  # every file as it was: none cut short, no temporary file


def test_a_folder_without_write_permission_names_it(tmp_path: Path):
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root writes anywhere; dropping that needs setpriv(1)")
    locked = tmp_path / "locked"
    locked.mkdir()
    out = locked / "out"
    locked.chmod(0o555)
    try:
        done = _assess(out, _UNPRIVILEGED if os.geteuid() == 0 else None)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 2
    assert done.stderr == (f"Error: cannot create the output folder {out}: Permission denied (choose an output folder "
                           "you may write to with -o)\n")
    assert not out.exists()


def test_a_read_only_file_in_out_names_it_and_keeps_the_rest(tmp_path: Path, reference: dict[str, bytes]):
    """OUT itself may be written, but not its ddl/ folder: the first DDL file is named, nothing is half written."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root writes anywhere; dropping that needs setpriv(1)")
    out = tmp_path / "out"
    (out / "ddl").mkdir(parents=True)
    (out / "assessment.json").write_bytes(reference["assessment.json"])
    (out / "ddl").chmod(0o555)
    try:
        done = _assess(out, _UNPRIVILEGED if os.geteuid() == 0 else None)
    finally:
        (out / "ddl").chmod(0o755)
    assert done.returncode == 2
    assert re.fullmatch(rf"Error: cannot write {re.escape(str(out))}/ddl/01-\S+\.sql: Permission denied \(choose an "
                        r"output folder you may write to with -o\); the files written before it are whole\n",
                        done.stderr), done.stderr
    assert _files(out) == {"assessment.json": reference["assessment.json"]}


def test_any_other_file_the_system_refuses_is_one_line_not_an_internal_error(capsys: pytest.CaptureFixture[str]):
    """A refused file outside OUT's own writes still names the file and the system's reason, never a traceback."""
    import typer

    from sqlsrv2tidb.cli import command

    @command
    def run() -> None:
        os.rmdir("/proc/self")  # the kernel refuses: a real OSError that names its file

    with pytest.raises(typer.Exit) as stopped:
        run()
    assert stopped.value.exit_code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("Error: /proc/self: ") and "internal error" not in err
